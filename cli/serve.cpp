// locksim serve: the Redis model as a server for any Redis client.
#include <CLI/CLI.hpp>

#include <iostream>

#include "locksim/cli/options.hpp"
#include "locksim/cli/subcommand.hpp"
#include "locksim/server/server.hpp"

namespace locksim::cli {

namespace {
struct ServeOptions {
  int port = 6379;
  std::string bind = "127.0.0.1";
  std::string unix_path;
  std::string time = "wall";
  std::string requirepass;
  size_t maxclients = 10000;
  std::string protected_mode = "yes";
};

int cmd_serve(const ServeOptions& o) {
  server::Options options;
  options.port = o.port;
  options.bind = o.bind;
  options.unix_path = o.unix_path;
  options.time = o.time == "manual" ? server::TimeMode::Manual : server::TimeMode::Wall;
  options.requirepass = o.requirepass;
  options.maxclients = o.maxclients;
  options.protected_mode = o.protected_mode == "yes";
  options.stop_on_signals = true;
  std::unique_ptr<server::Server> server;
  try {
    server = std::make_unique<server::Server>(options);
  } catch (const std::system_error& e) {
    throw UsageError("cannot listen: " + std::string(e.what()));
  }
  if (options.port >= 0) std::cout << "locksim serve: listening on " << o.bind << ":" << server->port() << "\n";
  if (!o.unix_path.empty()) std::cout << "locksim serve: listening on unix:" << o.unix_path << "\n";
  std::cout << "locksim serve: time " << o.time << "; LOCKSIM.TIME/ADVANCE/FREEZE/RESUME/JUMP, "
            << "LOCKSIM.PAUSE/DROP/DELAY/RESTART" << std::endl;
  server->run();
  return 0;
}
}  // namespace

Subcommand add_serve_command(CLI::App& parent) {
  auto options = std::make_shared<ServeOptions>();
  auto* app = parent.add_subcommand("serve", "the Redis model as a server for any Redis client (RESP2/3, TCP, unix)");
  app->add_option("--port", options->port, "TCP port; 0 picks a free one and prints it; -1 no TCP")
      ->check(CLI::Range(-1, 65535));
  app->add_option("--bind", options->bind, "address to listen on (default 127.0.0.1)");
  app->add_option("--unix", options->unix_path, "also listen on this Unix socket path");
  app->add_option("--time", options->time,
                  "wall: expiry follows the real clock; manual: time stands still until "
                  "LOCKSIM.ADVANCE")
      ->check(CLI::IsMember({"wall", "manual"}));
  app->add_option("--requirepass", options->requirepass, "clients must AUTH with this password");
  app->add_option("--maxclients", options->maxclients, "refuse connections beyond this many")
      ->check(CLI::Range(size_t{1}, size_t{1'000'000}));
  app->add_option("--protected-mode", options->protected_mode,
                  "yes (default): without --requirepass, only loopback and Unix-socket clients are served")
      ->check(CLI::IsMember({"yes", "no"}));
  return {app, [options] { return cmd_serve(*options); }};
}

}  // namespace locksim::cli
