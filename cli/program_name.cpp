#include "locksim/cli/program_name.hpp"

namespace locksim::cli {

namespace {

struct Name {
  std::string text = "locksim";
  bool chosen = false;  // by set_program_name
};

Name& name() {
  static Name n;
  return n;
}

}  // namespace

void set_program_name(std::string text) {
  if (text.empty()) return;
  name().text = std::move(text);
  name().chosen = true;
}

const std::string& program_name() { return name().text; }

void default_program_name(std::string_view argv0) {
  if (name().chosen) return;
  // A relative path the user typed ("./build/cli/locksim", as run.sh also passes it)
  // works from where they stand: printed lines keep it. Otherwise the base name: an
  // absolute path of a build tree would not run elsewhere, and a program on PATH is
  // typed by name.
  constexpr std::string_view kShellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-";
  const std::string_view base = argv0.substr(argv0.find_last_of('/') + 1);
  // Only a word a shell passes unchanged; anything else keeps the default.
  if (base.empty() || base.find_first_not_of(kShellSafe) != std::string_view::npos) return;
  const bool relative_path = argv0.find('/') != std::string_view::npos && !argv0.starts_with('/');
  if (relative_path && argv0.find_first_not_of(std::string(kShellSafe) + "/") == std::string_view::npos) {
    name().text = argv0.starts_with('.') ? std::string(argv0) : "./" + std::string(argv0);
    return;
  }
  name().text = std::string(base);
}

}  // namespace locksim::cli
