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
  // The base name: a path of the build tree would not run elsewhere, and
  // locksim's own lines stay "locksim ..." wherever it was started from.
  const std::string_view base = argv0.substr(argv0.find_last_of('/') + 1);
  // Only a word a shell passes unchanged; anything else keeps the default.
  if (base.empty() || base.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") !=
                          std::string_view::npos)
    return;
  name().text = std::string(base);
}

}  // namespace locksim::cli
