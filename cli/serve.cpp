// locksim serve: the Redis model as a server for any Redis client, launched as
// redis-server is (`[config-file] [--directive value ...]`), also under the name
// redis-server itself so that a test fixture can point its binary path at locksim.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "locksim/cli/options.hpp"
#include "locksim/cli/serve.hpp"
#include "locksim/cli/subcommand.hpp"
#include "locksim/server/launch_config.hpp"
#include "locksim/server/server.hpp"

namespace locksim::cli {

namespace {
constexpr const char* kHelp = R"(Usage: locksim serve [config-file | -] [--directive value ...]
   or: redis-server [config-file | -] [--directive value ...]   (locksim under that name)

The Redis model behind a real socket (RESP2/3, TCP and unix), launched as redis-server is:
a config file first, then directives, each `--name value...`. Taken and applied:
  --port P            TCP port (locksim serve: 0 picks a free one, -1 none; redis-server: 0 none)
  --bind ADDR         address to listen on (default 127.0.0.1; the first of several)
  --unixsocket PATH   also listen on this Unix socket (--unix PATH is the same)
  --requirepass PW    clients must AUTH with this password
  --maxclients N      refuse connections beyond this many (lowered to fit `ulimit -n`, logged)
  --protected-mode yes|no  yes (default): without --requirepass, only loopback and
                      Unix-socket clients are served
  --proto-max-bulk-len, --client-query-buffer-limit, --client-output-buffer-limit,
  --maxmemory-clients  the clients' input and output limits, as in Redis (CONFIG SET too)
  --daemonize yes|no  run in the background (the launcher waits until it listens)
  --pidfile PATH      write the process id here (removed on exit)
  --dir PATH          change to this directory first
  --logfile PATH      log here, not to standard output
  --loglevel L        debug, verbose, notice, warning or nothing
  --time wall|manual  expiry follows the real clock, or stands still until LOCKSIM.ADVANCE
  --ready-file PATH   once listening, write {"port":P,"unix":"...","pid":N} here
Redis's other directives (save, appendonly, replication, TLS, encodings, tuning) are taken
with a logged note: they change nothing in the model. An unknown one is an error (exit 2).
Once listening it prints `locksim serve: ready port=P unix=PATH pid=N ...`.
LOCKSIM.TIME/ADVANCE/FREEZE/RESUME/JUMP, LOCKSIM.PAUSE/DROP/DELAY/RESTART/FAULT control it
over the wire; LOCKSIM.ENTER/EXIT/WRITE record a client's critical sections (locksim trial);
SHUTDOWN, SIGINT or SIGTERM stop it.
)";

constexpr const char* kRedisVersionLine = "Redis server v=7.0.15 sha=00000000:0 malloc=libc bits=64 build=locksim";

// The process's log: standard output, or --logfile; nothing at --loglevel nothing.
struct Log {
  std::ofstream file;
  std::ostream* out = &std::cout;
  bool quiet = false;
  void line(const std::string& text) {
    if (!quiet) *out << "locksim serve: " << text << std::endl;
  }
};

void write_ready_file(const std::string& path, uint16_t port, const std::string& unix_path) {
  // Written whole under another name, then renamed: a reader never sees half of it.
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial, std::ios::trunc);
    out << "{\"port\":" << port << ",\"unix\":\"" << unix_path << "\",\"pid\":" << ::getpid() << "}\n";
    if (!out) throw UsageError("cannot write the ready file '" + path + "'");
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) throw UsageError("cannot write the ready file '" + path + "'");
}

// Forks; the parent waits until the child listens (exit 0) or fails (its status), as
// a launcher of a daemonized redis-server finds it listening once the launcher returns.
// Returns in the child, with `ready_fd` to report on.
std::optional<int> daemonize(int& ready_fd) {
  int fds[2];
  if (::pipe(fds) != 0) throw UsageError("cannot daemonize: pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw UsageError("cannot daemonize: fork failed");
  if (pid > 0) {
    ::close(fds[1]);
    unsigned char status = 1;
    const bool told = ::read(fds[0], &status, 1) == 1;
    ::close(fds[0]);
    return told ? status : 1;
  }
  ::close(fds[0]);
  ::setsid();
  const int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    if (null > STDERR_FILENO) ::close(null);
  }
  ready_fd = fds[1];
  return std::nullopt;
}

void report(int& ready_fd, unsigned char status) {
  if (ready_fd < 0) return;
  [[maybe_unused]] auto n = ::write(ready_fd, &status, 1);
  ::close(ready_fd);
  ready_fd = -1;
}

int serve(const server::LaunchOptions& launch) {
#ifdef __GLIBC__
  // A long-lived server gives freed memory back as redis-server does (the program's
  // default keeps it for the next simulation; base/allocator.hpp): glibc's defaults.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
#endif
  if (launch.help) {
    std::cout << kHelp;
    return 0;
  }
  if (launch.version) {
    std::cout << kRedisVersionLine << "\n";
    return 0;
  }
  if (!launch.dir.empty() && ::chdir(launch.dir.c_str()) != 0)
    throw UsageError("cannot change to the directory '" + launch.dir + "'");
  int ready_fd = -1;
  if (launch.daemonize) {
    if (auto status = daemonize(ready_fd)) return *status;
  }
  try {
    Log log;
    log.quiet = launch.loglevel == "nothing";
    if (!launch.logfile.empty()) {
      log.file.open(launch.logfile, std::ios::app);
      if (!log.file) throw UsageError("cannot open the log file '" + launch.logfile + "'");
      log.out = &log.file;
    }
    server::Options options = launch.server;
    options.stop_on_signals = true;
    // The server's own lines (clients closed at a limit, maxclients lowered, protected
    // mode off) go where the rest of the log goes.
    options.log = [&log](std::string_view line) { log.line(std::string(line)); };
    std::unique_ptr<server::Server> server;
    try {
      server = std::make_unique<server::Server>(options);
    } catch (const std::system_error& e) {
      throw UsageError("cannot listen: " + std::string(e.what()));
    }
    const std::string time = options.time == server::TimeMode::Manual ? "manual" : "wall";
    if (options.port >= 0) log.line("listening on " + options.bind + ":" + std::to_string(server->port()));
    if (!options.unix_path.empty()) log.line("listening on unix:" + options.unix_path);
    log.line("time " + time + "; LOCKSIM.TIME/ADVANCE/FREEZE/RESUME/JUMP, LOCKSIM.PAUSE/DROP/DELAY/RESTART/FAULT");
    for (const std::string& note : launch.notes) log.line(note);
    if (!launch.pidfile.empty()) {
      std::ofstream pid(launch.pidfile, std::ios::trunc);
      pid << ::getpid() << "\n";
      if (!pid) throw UsageError("cannot write the pid file '" + launch.pidfile + "'");
    }
    if (!launch.ready_file.empty()) write_ready_file(launch.ready_file, server->port(), options.unix_path);
    log.line("ready port=" + std::to_string(server->port()) +
             " unix=" + (options.unix_path.empty() ? "-" : options.unix_path) + " pid=" + std::to_string(::getpid()) +
             " time=" + time + " (Ready to accept connections)");
    report(ready_fd, 0);
    server->run();
    log.line("shut down");
    if (!launch.pidfile.empty()) ::unlink(launch.pidfile.c_str());
    if (!launch.ready_file.empty()) ::unlink(launch.ready_file.c_str());
    return 0;
  } catch (...) {
    report(ready_fd, 2);
    throw;
  }
}
}  // namespace

int serve_with_redis_arguments(const std::vector<std::string>& args, bool as_redis_server) {
  const auto style = as_redis_server ? server::LaunchStyle::RedisServer : server::LaunchStyle::Locksim;
  try {
    return serve(server::parse_launch_arguments(args, style));
  } catch (const server::LaunchError& e) {
    throw UsageError(e.what());
  }
}

int run_as_redis_server(int argc, char** argv) {
  try {
    return serve_with_redis_arguments(std::vector<std::string>(argv + 1, argv + argc), true);
  } catch (const std::exception& e) {
    std::cerr << "redis-server (locksim serve): error: " << e.what() << "\n";
    return 2;
  }
}

Subcommand add_serve_command(CLI::App& parent) {
  auto* app = parent.add_subcommand("serve",
                                    "the Redis model as a server for any Redis client (RESP2/3, TCP, unix); takes "
                                    "redis-server's arguments and config file (serve --help)");
  // Every argument is redis-server's: a config file first, then --directive value...
  app->prefix_command();
  app->set_help_flag();
  app->allow_extras();
  return {app, [app] { return serve_with_redis_arguments(app->remaining(), false); }};
}

}  // namespace locksim::cli
