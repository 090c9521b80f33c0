#include "locksim/trial/client_process.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <thread>

#include "locksim/base/pid_slots.hpp"

namespace locksim::trial {

namespace {
// The live client groups, readable from a signal handler.
base::PidSlots<256> g_groups;

// The logs' directory, for the handler: a fixed buffer, valid while g_dir_set.
char g_dir[512];
std::atomic<bool> g_dir_set{false};

// Async-signal-safe only: kill, waitpid, fork, execv, _exit, signal, raise.
extern "C" void kill_groups_and_die(int sig) {
  g_groups.each([](pid_t pgid) {
    ::kill(-pgid, SIGKILL);
    ::waitpid(pgid, nullptr, 0);
  });
  if (g_dir_set.load()) {
    const pid_t rm = ::fork();
    if (rm == 0) {
      char* argv[] = {const_cast<char*>("rm"), const_cast<char*>("-rf"), g_dir, nullptr};
      ::execv("/bin/rm", argv);
      ::_exit(127);
    }
    if (rm > 0) ::waitpid(rm, nullptr, 0);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}
}  // namespace

ClientProcess::ClientProcess(const std::vector<std::string>& argv,
                             const std::vector<std::pair<std::string, std::string>>& env,
                             const std::string& log_path) {
  if (argv.empty()) throw CannotStart("no command to run");
  std::vector<std::string> args = argv;
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  // The child's environment, built here: between fork and exec a child of a threaded
  // process (the servers run on threads) may call only async-signal-safe functions.
  std::vector<std::string> assignments;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    bool replaced = false;
    for (const auto& item : env)
      replaced = replaced || (entry.starts_with(item.first + "="));
    if (!replaced) assignments.emplace_back(entry);
  }
  for (const auto& [name, value] : env) assignments.push_back(name + "=" + value);
  std::vector<char*> cenv;
  for (auto& a : assignments) cenv.push_back(a.data());
  cenv.push_back(nullptr);
  // A pipe closed by a successful exec; an exec error writes its errno to it.
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) throw CannotStart("pipe: " + std::string(std::strerror(errno)));
  const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log < 0) {
    ::close(report[0]);
    ::close(report[1]);
    throw CannotStart("cannot write " + log_path + ": " + std::strerror(errno));
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(report[0]);
    ::close(report[1]);
    ::close(log);
    throw CannotStart("fork: " + std::string(std::strerror(errno)));
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    ::setpgid(0, 0);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    ::dup2(report[1], 3);
    ::close_range(4, ~0U, 0);
    ::fcntl(3, F_SETFD, FD_CLOEXEC);
    ::execvpe(cargs[0], cargs.data(), cenv.data());
    const int error = errno;
    [[maybe_unused]] auto n = ::write(3, &error, sizeof error);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: no window in which a signal to the group misses it
  pid_ = pid;
  running_ = group_alive_ = true;
  g_groups.add(pid);
  ::close(report[1]);
  ::close(log);
  int error = 0;
  ssize_t n;
  do n = ::read(report[0], &error, sizeof error);
  while (n < 0 && errno == EINTR);
  ::close(report[0]);
  if (n == sizeof error) {
    ::waitpid(pid, &status_, 0);
    running_ = false;
    forget();
    throw CannotStart("cannot run '" + argv[0] + "': " + std::strerror(error));
  }
}

ClientProcess::~ClientProcess() { end(std::chrono::milliseconds(0)); }

void ClientProcess::forget() {
  if (!group_alive_) return;
  g_groups.remove(pid_);
  group_alive_ = false;
}

void ClientProcess::stop() {
  if (running_) ::kill(-pid_, SIGSTOP);
}

void ClientProcess::cont() {
  if (group_alive_) ::kill(-pid_, SIGCONT);
}

bool ClientProcess::poll() {
  if (!running_) return true;
  if (::waitpid(pid_, &status_, WNOHANG) == pid_) running_ = false;
  return !running_;
}

std::optional<int> ClientProcess::exit_status() const {
  if (running_ || !WIFEXITED(status_)) return std::nullopt;
  return WEXITSTATUS(status_);
}

std::string ClientProcess::how_it_ended() const {
  if (running_) return "is running";
  if (WIFEXITED(status_)) return "exited with status " + std::to_string(WEXITSTATUS(status_));
  if (WIFSIGNALED(status_)) return "was killed by signal " + std::to_string(WTERMSIG(status_));
  return "ended";
}

void ClientProcess::end(std::chrono::milliseconds grace) {
  if (!group_alive_) return;
  if (running_) {
    ::kill(-pid_, SIGCONT);
    ::kill(-pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (!poll() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // The leader's children (a shell's) go too, whether or not the leader went by itself.
  ::kill(-pid_, SIGKILL);
  if (running_) {
    ::waitpid(pid_, &status_, 0);
    running_ = false;
  }
  forget();
}

void install_trial_cleanup() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  struct sigaction sa {};
  sa.sa_handler = kill_groups_and_die;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
}

void set_cleanup_directory(const std::string& path) {
  g_dir_set = false;
  if (path.empty() || path.size() >= sizeof g_dir) return;
  std::memcpy(g_dir, path.c_str(), path.size() + 1);
  g_dir_set = true;
}

int running_client_groups() { return g_groups.count(); }

}  // namespace locksim::trial
