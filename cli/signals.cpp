#include "locksim/cli/signals.hpp"

#include <signal.h>
#include <unistd.h>

#include "locksim/sim/files.hpp"

namespace locksim::cli {

namespace {

std::atomic<bool> g_interruptible{false};
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "touched from a signal handler");

// Only async-signal-safe calls here.
void on_fatal_signal(int sig) {
  if (sig == SIGINT && g_interruptible.load() && !g_interrupted.exchange(true)) {
    constexpr char kNote[] = "\nlocksim: interrupted: finishing with the runs done so far (Ctrl-C again to quit)\n";
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, kNote, sizeof kNote - 1);
    return;
  }
  sim::remove_pending_temporaries();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void install_signal_handlers() {
  ::signal(SIGXFSZ, SIG_IGN);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    // A signal the caller ignores (nohup, a background job's SIGINT) stays ignored.
    if (::sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(sig, &action, nullptr);
  }
}

InterruptibleScope::InterruptibleScope() {
  g_interrupted.store(false);
  g_interruptible.store(true);
}
InterruptibleScope::~InterruptibleScope() { g_interruptible.store(false); }

const std::atomic<bool>& interrupted() { return g_interrupted; }

}  // namespace locksim::cli
