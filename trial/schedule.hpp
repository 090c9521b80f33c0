#pragma once
// A trial's fault schedule: what happens to which client process or server, when and
// for how long, drawn from a seed (draw) and written as one line that reads back
// (to_text / parse_schedule), so that a found schedule can be re-run (--replay).
// Real time: the same schedule applied again need not give the same run.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/sim/time.hpp"

namespace locksim::trial {

using sim::Duration;

enum class FaultKind : uint8_t {
  Pause,    // the client's processes stopped (SIGSTOP) and continued (SIGCONT): stop-the-world
  Cut,      // the client's requests to a server vanish (LOCKSIM.FAULT DROP-REQUEST)
  Delay,    // the client's replies from a server wait `amount` (LOCKSIM.FAULT DELAY)
  Lose,     // the client's next reply from a server is lost (LOCKSIM.FAULT DROP-REPLY COUNT 1)
  Skew,     // the client's clock runs `amount` off from the start (libfaketime; `at` is 0)
  Clock,    // the client's clock jumps by `amount` at `at` (libfaketime), an NTP step
  Restart,  // the server restarts without persistence: every key and connection lost
  Jump,     // the server's clock jumps by `amount`
};
std::string_view to_string(FaultKind kind);
std::optional<FaultKind> parse_fault_kind(std::string_view word);
// Whether it aims at a client (else at a server).
bool aims_at_client(FaultKind kind);
// Whether it breaks what single-instance locks assume (durable Redis, a sane Redis clock):
// drawn only when asked for by name or with --faults all.
bool beyond_default_assumptions(FaultKind kind);

inline constexpr uint32_t kAllServers = 0xffffffffu;

struct Fault {
  FaultKind kind = FaultKind::Pause;
  uint32_t client = 0;             // client faults: 0-based (c1 is 0)
  uint32_t server = kAllServers;   // server faults, and a client fault aimed at one server
  Duration at{};                   // from the start of the run
  Duration length{};               // Pause, Cut, Delay, Lose: how long it lasts
  Duration amount{};               // Delay: the delay; Skew, Clock, Jump: the offset (either sign)
  bool operator==(const Fault&) const = default;
};
// "pause c2 @1.2s for 800ms", "restart r0 @3s" (r0 is the first server).
std::string describe(const Fault& fault);

struct Schedule {
  uint32_t clients = 3;
  uint32_t servers = 1;
  Duration duration = sim::seconds(10);
  std::vector<Fault> faults;  // by start
  bool operator==(const Schedule&) const = default;
};

// What draw may choose from.
struct FaultModel {
  std::vector<FaultKind> kinds;          // empty: no faults
  Duration mean_gap = sim::seconds(1);   // faults start this far apart on average
  Duration max_pause = sim::seconds(1);  // pauses, cuts and lost-reply windows stay below this
  Duration max_delay = sim::seconds(2);  // reply delays stay below this
  Duration max_skew = sim::seconds(2);   // client clock offsets and jumps stay within this
  Duration max_jump = sim::seconds(30);  // server clock jumps stay within this
};
// "pause,cut,delay,lose,skew" (the default), "all", "none", or kinds by name; throws
// std::invalid_argument naming an unknown kind.
std::vector<FaultKind> parse_fault_kinds(std::string_view text);
std::string kinds_text(const std::vector<FaultKind>& kinds);

// The schedule of run `run` of a trial seeded `seed`: the same seed and run give the
// same schedule (its own generator, no std::*_distribution).
Schedule draw(uint64_t seed, uint32_t run, uint32_t clients, uint32_t servers, Duration duration,
              const FaultModel& model);

// One line: "clients=3 servers=1 duration=10s faults=pause:c2@1.2s+800ms,restart:r0@3s,..."
std::string to_text(const Schedule& schedule);
// Throws std::invalid_argument saying what is wrong.
Schedule parse_schedule(std::string_view text);

}  // namespace locksim::trial
