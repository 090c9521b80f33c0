// locksim: the lock evolution tour, checks, replays, timelines and the Redis
// model's console. Usage errors exit 2 with one line naming the problem.
#include "locksim/cli/signals.hpp"
#include "locksim/cli/app.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "locksim/base/allocator.hpp"
#include "locksim/cli/options.hpp"
#include "locksim/cli/program_name.hpp"
#include "locksim/cli/serve.hpp"
#include "locksim/cli/subcommand.hpp"
#include "locksim/lock/lua_variant.hpp"
#include "locksim/sim/world.hpp"

namespace locksim::cli {

namespace {

constexpr const char* kVersion = "locksim 0.1.0";

// What an error message may echo of the input: control bytes escaped (\xNN),
// words longer than 64 bytes cut, the whole at most 4 KB.
std::string printable(std::string_view message) {
  constexpr size_t kMaxWord = 64, kMaxMessage = 4096;
  std::string out;
  size_t word = 0;
  for (size_t i = 0; i < message.size() && out.size() < kMaxMessage; ++i) {
    const unsigned char c = static_cast<unsigned char>(message[i]);
    word = (c == ' ' || c == '\n') ? 0 : word + 1;
    if (word == kMaxWord + 1) {
      size_t end = message.find_first_of(" \n", i);
      end = end == std::string_view::npos ? message.size() : end;
      out += fmt::format("...({} bytes)", end - i + kMaxWord);
      i = end - 1;
      continue;
    }
    if ((c < 0x20 && c != '\n') || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

int usage_error(const std::string& message, const std::string& command) {
  std::cerr << "locksim: error: " << printable(message) << "\n"
            << "Run 'locksim " << (command.empty() ? "" : command + " ") << "--help' for usage.\n";
  return 2;
}

// Lock variants written in Lua (docs/variants.md), loaded before the command
// runs so that their names work like built-in algorithms. One file per flag,
// so that a positional argument after it (a replay's scenario) stays one.
void add_variant_option(const std::vector<Subcommand>& commands, std::vector<std::string>& variants) {
  for (const Subcommand& c : commands) {
    const std::string& name = c.app->get_name();
    if (name == "list" || name == "run" || name == "check" || name == "replay")
      c.app
          ->add_option("--variant", variants,
                       "load a lock variant written in Lua (repeat the flag for more); its "
                       "name is then an algorithm id")
          ->allow_extra_args(false)
          ->type_size(1);
  }
}

// Unknown first words get the list of commands rather than CLI11's guess.
std::string unknown_command(const std::vector<Subcommand>& commands, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return {};
  std::string names;
  for (const Subcommand& c : commands) {
    if (c.app->get_name() == argv[1]) return {};
    names += (names.empty() ? "" : ", ") + c.app->get_name();
  }
  return fmt::format("unknown command '{}' ({})", argv[1], names);
}

int run_parsed(const std::vector<Subcommand>& commands, const std::vector<std::string>& variants) {
  for (const std::string& path : variants) {
    std::string error;
    if (!lock::register_lua_variant_file(path, &error)) {
      // The file needs fixing, not the command line: no pointer to --help.
      std::cerr << "locksim: error: " << printable(error) << "\n";
      return 2;
    }
  }
  for (const Subcommand& c : commands)
    if (c.app->parsed()) return c.run();
  throw UsageError("no command given");
}

}  // namespace

int main(int argc, char** argv) {
  base::keep_freed_memory_for_reuse();
  if (argc > 0 && argv[0]) default_program_name(argv[0]);
  install_signal_handlers();
  // A test fixture that starts redis-server starts the model when its path names locksim.
  if (argc > 0 && argv[0] && std::string_view(argv[0]).substr(std::string_view(argv[0]).find_last_of('/') + 1) == "redis-server")
    return run_as_redis_server(argc, argv);
  CLI::App app{
      "locksim: Redis distributed-lock algorithms in a deterministic simulator, each documented failure "
      "found, shrunk and shown as a replayable timeline.",
      "locksim"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  app.footer("Start with 'locksim tour'. Exit status: 0 ok, 1 violation found (check), 2 usage error.");

  const std::vector<Subcommand> commands = {
      add_tour_command(app),  add_list_command(app),      add_run_command(app),
      add_check_command(app), add_catalogue_command(app), add_replay_command(app),
      add_redis_command(app), add_merge_command(app),     add_serve_command(app),
      add_trial_command(app),
  };
  std::vector<std::string> variants;
  add_variant_option(commands, variants);

  if (std::string unknown = unknown_command(commands, argc, argv); !unknown.empty()) return usage_error(unknown, "");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string command;
    for (auto* sub : app.get_subcommands()) command = sub->get_name();
    return usage_error(e.what(), command);
  }

  std::string command = app.get_subcommands().empty() ? std::string() : app.get_subcommands().front()->get_name();
  try {
    return run_parsed(commands, variants);
  } catch (const UsageError& e) {
    return usage_error(e.what(), command);
  } catch (const std::invalid_argument& e) {
    return usage_error(e.what(), command);
  } catch (const sim::RunawayRun& e) {
    // A lock that loops without waiting (a variant's or a library user's): its code needs fixing.
    std::cerr << "locksim: " << printable(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "locksim: internal error: " << printable(e.what()) << "\n";
    return 4;
  }
}

}  // namespace locksim::cli
