#include "locksim/real/process.hpp"

#include <hiredis/hiredis.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "locksim/base/pid_slots.hpp"

namespace locksim::real {

namespace {

// The running children, readable from a signal handler.
base::PidSlots<64> g_children;

// The temporary directories alive now, for the signal handler to remove.
constexpr int kMaxDirs = 8;
char g_dirs[kMaxDirs][256];
std::atomic<bool> g_dir_used[kMaxDirs];

int register_dir(const std::string& path) {
  if (path.size() >= sizeof g_dirs[0]) return -1;
  for (int i = 0; i < kMaxDirs; ++i) {
    bool unused = false;
    if (!g_dir_used[i].compare_exchange_strong(unused, true)) continue;
    std::memcpy(g_dirs[i], path.c_str(), path.size() + 1);
    return i;
  }
  return -1;
}

// Only async-signal-safe calls: kill, waitpid, fork, execv, _exit.
void remove_dirs_from_handler() {
  for (int i = 0; i < kMaxDirs; ++i) {
    if (!g_dir_used[i].load()) continue;
    const pid_t rm = ::fork();
    if (rm == 0) {
      char* argv[] = {const_cast<char*>("rm"), const_cast<char*>("-rf"), g_dirs[i], nullptr};
      ::execv("/bin/rm", argv);
      ::_exit(127);
    }
    if (rm > 0) ::waitpid(rm, nullptr, 0);
  }
}

extern "C" void kill_children_and_die(int sig) {
  g_children.each([](pid_t pid) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  });
  remove_dirs_from_handler();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// How a child that ended did: "exited with status 0", "was killed by signal 9".
std::string how_it_ended(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "ended";
}

// The server's log, which lives in a temporary directory removed as the error
// unwinds, copied to a file of its own that stays; what to tell the user of it.
std::string keep_log(const std::string& log) {
  std::error_code error;
  if (!std::filesystem::exists(log, error) || std::filesystem::file_size(log, error) == 0)
    return "it wrote no log (is it a redis-server?)";
  std::string kept = (std::filesystem::temp_directory_path() / "locksim-redis-start-XXXXXX.log").string();
  const int fd = ::mkstemps(kept.data(), 4);
  if (fd < 0) return "its log could not be kept: " + std::string(std::strerror(errno));
  ::close(fd);
  std::filesystem::copy_file(log, kept, std::filesystem::copy_options::overwrite_existing, error);
  if (error) return "its log could not be kept: " + error.message();
  return "see its log, kept in " + kept;
}

bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

}  // namespace

std::string find_redis_server() {
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string candidate = dirs.substr(start, end - start) + "/redis-server";
    if (end > start && executable(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

std::string redis_server_binary(const std::string& requested) {
  if (!requested.empty()) {
    if (!executable(requested)) throw NoRedisServer("--redis-server " + requested + ": not an executable file");
    return requested;
  }
  std::string found = find_redis_server();
  if (found.empty())
    throw NoRedisServer(
        "no redis-server on PATH: install Debian's redis-server package, or name a build with "
        "--redis-server PATH");
  return found;
}

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

RedisProcess::RedisProcess(RedisOptions options)
    : options_(std::move(options)), socket_(options_.dir + "/" + options_.name + ".sock") {}

RedisProcess::~RedisProcess() { kill(); }

void RedisProcess::start(bool wait) {
  if (pid_ > 0) return;
  // Each server has a directory of its own (its log, its AOF), kept across restarts.
  const std::string dir = options_.dir + "/" + options_.name + ".d";
  std::error_code ignored;
  std::filesystem::create_directories(dir, ignored);
  std::vector<std::string> args = {options_.binary, "--port", std::to_string(options_.port), "--unixsocket", socket_,
                                   "--save", "", "--dir", dir, "--daemonize", "no", "--loglevel", "warning",
                                   "--logfile", dir + "/redis.log",
                                   // a replica's first sync must not wait the default 5 s
                                   "--repl-diskless-sync-delay", "0"};
  if (options_.port != 0) {
    args.insert(args.end(), {"--bind", "127.0.0.1"});
  }
  if (options_.durable)
    args.insert(args.end(), {"--appendonly", "yes", "--appendfsync", "always"});
  else
    args.insert(args.end(), {"--appendonly", "no"});
  if (!options_.replica_of.empty()) {
    const size_t space = options_.replica_of.find(' ');
    args.insert(args.end(),
                {"--replicaof", options_.replica_of.substr(0, space), options_.replica_of.substr(space + 1)});
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw NoRedisServer("fork failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive us, whatever kills us
    if (::getppid() != parent) ::_exit(1);
    ::setpgid(0, 0);  // a Ctrl-C on the terminal reaches us, not the child directly
    // None of our sockets may live on in the server: a client's end held open
    // here would hide from it that its connection was closed.
    ::close_range(3, ~0U, 0);
    ::execv(options_.binary.c_str(), argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  g_children.add(pid);
  if (wait) wait_ready();
}

void RedisProcess::wait_ready() {
  for (int attempt = 0; attempt < 500; ++attempt) {
    redisContext* probe = redisConnectUnix(socket_.c_str());
    bool up = false;
    if (probe && !probe->err) {
      auto* reply = static_cast<redisReply*>(redisCommand(probe, "PING"));
      up = reply && reply->type == REDIS_REPLY_STATUS;
      if (reply) freeReplyObject(reply);
    }
    if (probe) redisFree(probe);
    if (up) return;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      g_children.remove(pid_);
      pid_ = -1;
      throw NoRedisServer(options_.binary + " " + how_it_ended(status) + " at start; " +
                          keep_log(options_.dir + "/" + options_.name + ".d/redis.log"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill();
  throw NoRedisServer(options_.binary + " did not open " + socket_ + " within 5 s");
}

void RedisProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  g_children.remove(pid_);
  pid_ = -1;
}

void RedisProcess::pause() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void RedisProcess::resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

TempDir::TempDir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data())) throw NoRedisServer("cannot create a temporary directory");
  path_ = pattern;
  slot_ = register_dir(path_);
}

TempDir::~TempDir() {
  if (slot_ >= 0) g_dir_used[slot_] = false;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void install_child_cleanup() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  struct sigaction sa {};
  sa.sa_handler = kill_children_and_die;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
  // A write to a connection whose server was just killed must fail, not kill us.
  ::signal(SIGPIPE, SIG_IGN);
}

int running_children() { return g_children.count(); }

}  // namespace locksim::real
