#pragma once
// redis-server processes of our own: found on PATH (or named), started in a
// private temporary directory on a Unix socket (and a loopback port when a
// replica must reach it), stopped, continued, killed and restarted. Every
// child is registered so that a normal exit, an error (the destructor) and
// Ctrl-C (install_child_cleanup) all kill it; PR_SET_PDEATHSIG covers a
// parent that dies any other way.
#include <sys/types.h>

#include <stdexcept>
#include <string>

namespace locksim::real {

// Thrown when no redis-server can be found or started; the CLI maps it to exit 2.
struct NoRedisServer : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The first executable redis-server on PATH, or empty.
std::string find_redis_server();
// `requested` if given (it must be executable), else find_redis_server();
// throws NoRedisServer with a message saying what to install or pass.
std::string redis_server_binary(const std::string& requested = {});

// A free loopback TCP port (bound once, then released).
int free_loopback_port();

struct RedisOptions {
  std::string binary;  // redis-server to run
  std::string dir;     // its working directory (must exist): socket, logs, AOF
  std::string name = "redis";
  int port = 0;            // 0: Unix socket only
  bool durable = false;    // appendonly yes + appendfsync always: a restart keeps the keys
  std::string replica_of;  // "HOST PORT": start as a replica of that master
};

class RedisProcess {
 public:
  explicit RedisProcess(RedisOptions options);
  ~RedisProcess();  // kills the child (if running)
  RedisProcess(const RedisProcess&) = delete;
  RedisProcess& operator=(const RedisProcess&) = delete;

  // Starts the child and, if `wait`, waits until it answers PING (throws NoRedisServer after 5 s).
  void start(bool wait = true);
  void wait_ready();
  void kill();    // SIGKILL and reap
  void pause();   // SIGSTOP
  void resume();  // SIGCONT
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  const std::string& socket_path() const { return socket_; }
  int port() const { return options_.port; }
  const RedisOptions& options() const { return options_; }
  RedisOptions& mutable_options() { return options_; }  // takes effect at the next start

 private:
  RedisOptions options_;
  std::string socket_;
  pid_t pid_ = -1;
};

// A private temporary directory, removed with everything in it when the object
// dies, or by install_child_cleanup's handler on Ctrl-C.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "locksim-real");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int slot_ = -1;  // in the handler's table
};

// Installs SIGINT/SIGTERM/SIGHUP handlers that SIGKILL every running child
// started here, remove the TempDirs alive, then die of the same signal; ignores SIGPIPE (a killed server's
// connections fail instead). Idempotent.
void install_child_cleanup();
// How many children started here are running now (for tests).
int running_children();

}  // namespace locksim::real
