#pragma once
// The workload that drives the locks: N clients, each looping
//   acquire (bounded wait) -> enter -> [nested acquires] -> work -> [fenced write]
//   -> leave -> release -> think
// and the faults that are aimed at a client's own steps rather than at an
// instant: a crash or pause just before its Nth Redis command (between the two
// commands of one algorithm, say), the loss of that command's request or reply,
// a delay of one message in flight (a command's request, or a write to the
// resource), and a slow critical section.
#include <cstdint>
#include <vector>

#include "locksim/sim/time.hpp"

namespace locksim::lock {

using namespace sim::literals;

struct CallFault {
  // RequestLost: the command never reaches the server; ReplyLost: it runs, its reply
  // never comes back. Either way the client times out, not knowing whether it ran.
  // Delay: the request is held in flight `pause` longer than its drawn latency (a
  // router's queue, a retransmission); the client's timeout runs meanwhile, and on its
  // FIFO connection what it sends later waits behind it. The request, not the reply:
  // it decides when the command runs (or the write lands) relative to others'.
  enum class Kind : uint8_t { Crash, Pause, RequestLost, ReplyLost, Delay };
  // Which of the client's calls `call` counts: its Redis (or database) commands, or its
  // writes to the fenced resource, numbered apart so that writes never renumber commands.
  enum class On : uint8_t { Call, Write };
  uint32_t client = 0;
  uint32_t call = 1;  // the client's Nth command, or Nth write (1-based, over its whole life)
  Kind kind = Kind::Crash;
  sim::Duration pause{};  // Pause: how long; Delay: how much longer in flight
  On on = On::Call;    // only a Delay strikes a write
  bool loses_message() const { return kind == Kind::RequestLost || kind == Kind::ReplyLost; }
  bool operator==(const CallFault&) const = default;
};

struct SlowWork {
  uint32_t client = 0;
  uint32_t iteration = 0;  // 0-based
  sim::Duration work{};
  bool operator==(const SlowWork&) const = default;
};

struct WorkloadParams {
  uint32_t clients = 3;
  uint32_t iterations = 3;
  sim::Duration work_min = 20_ms, work_max = 200_ms;
  sim::Duration think_min = 0_ms, think_max = 100_ms;
  sim::Duration start_spread = 20_ms;        // each client starts at a drawn instant in [0, spread]
  uint32_t nested = 0;                       // acquires again this many times inside the critical section
  bool write_resource = true;                // a write to the fenced resource at the end of each critical section
  bool stop_when_lost = false;               // cut the critical section short once the lock knows its lease may be gone
  std::vector<sim::Duration> clock_offsets;  // per client (missing: 0)
  std::vector<int64_t> drifts_ppm;           // per client (missing: 0)
  std::vector<SlowWork> slow_work;
  std::vector<CallFault> call_faults;
  // Per client, whose random streams it draws from (missing: its own index).
  // Removing a client while shrinking keeps the others' identities, so their
  // start times, tokens and link delays stay what they were.
  std::vector<uint32_t> identities;
  bool operator==(const WorkloadParams&) const = default;
};

// "A", "B", ... "Z", then "C26", "C27", ...
std::string client_name(uint32_t index);

}  // namespace locksim::lock
