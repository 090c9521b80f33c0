#pragma once
// How `locksim serve` (and the program started under the name redis-server) is launched:
// redis-server's command line and config file (`[file | -] [--directive value ...]`),
// read into the server's options and the process's own (daemonize, pidfile, dir, log).
// Directives of Redis that mean nothing to the model (persistence, replication, TLS,
// encodings, tuning) are taken and listed in `notes`; an unknown one is an error.
#include <stdexcept>
#include <string>
#include <vector>

#include "locksim/server/server.hpp"

namespace locksim::server {

// Where a port of 0 means "pick a free one" (locksim) or "no TCP" (redis-server).
enum class LaunchStyle { Locksim, RedisServer };

struct LaunchOptions {
  Options server;
  bool daemonize = false;
  std::string pidfile, logfile, dir, ready_file;
  std::string loglevel = "notice";
  bool help = false, version = false;
  std::vector<std::string> notes;  // one line per directive taken without effect
};

struct LaunchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws LaunchError naming the bad directive, value or file.
LaunchOptions parse_launch_arguments(const std::vector<std::string>& args, LaunchStyle style);

// One directive (`name` lower-case, without dashes in front) applied to `o`.
void apply_directive(LaunchOptions& o, const std::string& name, const std::vector<std::string>& values,
                     LaunchStyle style);

// A config file's text: one directive per line, redis-cli quoting, # comments.
void apply_config_text(LaunchOptions& o, const std::string& text, const std::string& origin, LaunchStyle style,
                       int depth = 0);

}  // namespace locksim::server
