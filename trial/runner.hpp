#pragma once
// One trial run, in real time: `servers` instances of `locksim serve` in this process
// (the Redis model behind real sockets, sharing one trial board), `clients` copies of
// the user's program as child processes, each told its name (LOCKSIM_CLIENT) and the
// servers' addresses (LOCKSIM_REDIS), and the schedule's faults applied at their
// instants. What it records: the clients' marks (critical sections, fenced writes), the
// faults as applied, and how each client ended. Nothing is left running when it returns
// or throws; Ctrl-C during a run kills the clients first (install_trial_cleanup).
#include <functional>
#include <string>
#include <vector>

#include "locksim/server/trial_board.hpp"
#include "locksim/sim/time.hpp"
#include "locksim/trial/schedule.hpp"

namespace locksim::trial {

using sim::Instant;

struct RunSetup {
  std::vector<std::string> command;  // the client program and its arguments
  std::chrono::milliseconds grace{2000};  // at the end: SIGTERM, then SIGKILL after this long
  // Called about ten times a second with the time elapsed and the marks so far.
  std::function<void(Duration elapsed, size_t marks, size_t faults_applied)> progress;
};

struct AppliedFault {
  Fault fault;
  Instant from, to;  // when it was applied and when it ended (instantaneous ones: to == from)
};

struct ClientEnd {
  std::string name;
  Instant at = Instant::never();  // when it ended by itself (never: it ran until the trial ended it)
  std::string how;                // "exited with status 1", ...
  std::string log_tail;           // its last lines of output, when it ended by itself
};

// The marks with their time from the run's start (true time, the host's steady clock).
struct RecordedMark {
  server::TrialMark mark;
  Instant at;
};

struct RunRecord {
  Schedule schedule;
  std::vector<std::string> clients;  // c1, c2, ...
  std::vector<RecordedMark> marks;   // in time order
  std::vector<AppliedFault> faults;  // in the order applied
  std::vector<ClientEnd> ends;       // per client
  Instant end;                       // the run's end (all clients ended, or its duration)
};

// The libfaketime library to preload for clock skew, or empty when it is not installed.
std::string find_libfaketime();

// Runs one schedule. Throws CannotStart (client_process.hpp) when the program cannot be
// started, std::invalid_argument for a schedule that cannot be applied (skew without
// libfaketime), std::system_error when a server cannot bind.
RunRecord run_trial(const Schedule& schedule, const RunSetup& setup);

}  // namespace locksim::trial
