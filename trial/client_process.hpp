#pragma once
// One copy of the user's client program: started in a process group of its own (so
// that a pause stops all of it, a shell's children included, and a Ctrl-C on the
// terminal reaches us, not it), its output to a log file, stopped and continued for
// pauses, and ended: SIGCONT, SIGTERM, then SIGKILL after a grace time, and reaped.
// Every group is registered so that Ctrl-C (install_trial_cleanup) kills it before
// we die; PR_SET_PDEATHSIG covers the leader if we die any other way.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace locksim::trial {

// The program could not be started (not found, not executable); the CLI's exit 2.
struct CannotStart : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ClientProcess {
 public:
  // Starts `argv` with the environment plus `env` (name, value), output to `log_path`.
  // Throws CannotStart saying why exec failed.
  ClientProcess(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
                const std::string& log_path);
  ~ClientProcess();  // ends it (kill, reap) if still running
  ClientProcess(const ClientProcess&) = delete;
  ClientProcess& operator=(const ClientProcess&) = delete;

  pid_t pid() const { return pid_; }
  void stop();  // SIGSTOP to the group
  void cont();  // SIGCONT to the group
  // Whether the leader has ended (reaps it; the status then stays readable).
  bool poll();
  bool ended() const { return !running_; }
  std::optional<int> exit_status() const;  // when it exited (not killed by a signal)
  std::string how_it_ended() const;
  // Asks the group to end (SIGCONT, SIGTERM), waits up to `grace`, then SIGKILLs the group.
  void end(std::chrono::milliseconds grace);

 private:
  void forget();
  pid_t pid_ = -1;
  bool running_ = false;
  bool group_alive_ = false;
  int status_ = 0;
};

// SIGINT/SIGTERM/SIGHUP kill every registered client group and remove the registered
// directory (the clients' logs), then the signal takes its default course (the
// in-process servers die with us). Idempotent.
void install_trial_cleanup();
// The directory the handler removes (one at a time: runs follow each other); "" forgets it.
void set_cleanup_directory(const std::string& path);
// Client groups registered now (for tests).
int running_client_groups();

}  // namespace locksim::trial
