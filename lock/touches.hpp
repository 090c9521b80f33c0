#pragma once
// What each client's lock touched beyond the steps it records: every call it made
// (to which node, when it went out, when its caller heard, and whether a delay spike
// of the network held one of its messages) and every reading of its clocks. A fault
// that strikes what no client touched tests nothing; a run's evidence
// (props/evidence.hpp) reads this to tell a fault that bit from one that did not.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/sim/time.hpp"
#include "locksim/sim/trace.hpp"

namespace locksim::lock {

// One call of a client's: a Redis command, a database statement, a write to the resource.
struct CallRecord {
  sim::Instant sent;
  sim::Instant ended = sim::Instant::never();  // its caller heard (a reply, a timeout); never(): it did not
  uint32_t client = 0;
  sim::NodeId node = sim::kNoNode;  // the server it went to (Touches::node_named)
  bool spiked = false;              // a delay spike of the link held its request or its reply
};

// Which of its clocks the lock read: the wall clock (offset, drift and jumps show in it) or
// the monotonic one (only the drift of its rate does).
enum class ClockKind : uint8_t { Wall, Monotonic };
// What a reading of a client's clock was for: whether what it read decided something about
// the lock (a clock fault bites only such a reading, props/evidence.hpp).
enum class ClockUse : uint8_t {
  Validity,  // a lease's validity or expiry: a timestamp written in or compared with a value,
             // a validity left after an acquire, a release's check that its lease still runs
  Renewal,   // a renewal's timing: when it was sent, until when its lease runs
  Work,      // the holder's section is timed on this clock (a sleep: it decides when the hold ends)
  Script,    // a variant's script read it: what for is the script's own, so it counts as deciding
  Pacing,    // a waiter's pacing or wait limit: when to try again or give up, nothing about a holder
};
inline std::string_view to_string(ClockUse use) {
  switch (use) {
    case ClockUse::Validity: return "validity";
    case ClockUse::Renewal: return "renewal";
    case ClockUse::Work: return "work";
    case ClockUse::Script: return "script";
    case ClockUse::Pacing: return "pacing";
  }
  return "?";
}
// Whether a reading for `use` decided something about the lock (all but pacing).
inline bool decides(ClockUse use) { return use != ClockUse::Pacing; }
struct ClockRead {
  sim::Instant at;
  uint32_t client = 0;
  ClockKind clock = ClockKind::Wall;
  ClockUse use = ClockUse::Validity;
  bool operator==(const ClockRead&) const = default;
};

class Touches {
 public:
  // A call goes out; its index, for call_ended.
  size_t call_sent(uint32_t client, sim::NodeId node, sim::Instant at) {
    calls_.push_back(CallRecord{at, sim::Instant::never(), client, node, false});
    return calls_.size() - 1;
  }
  void call_ended(size_t call, sim::Instant at, bool spiked) {
    calls_[call].ended = at;
    calls_[call].spiked = spiked;
  }
  // A read at the same instant as the last one recorded, for the same use, adds nothing
  // (a loop reads twice).
  void clock_read(uint32_t client, ClockKind clock, ClockUse use, sim::Instant at) {
    const ClockRead r{at, client, clock, use};
    if (reads_.empty() || !(reads_.back() == r)) reads_.push_back(r);
  }
  // Room for this many calls and clock readings (Simulation::reserve_history).
  void reserve(size_t calls, size_t reads) {
    calls_.reserve(calls);
    reads_.reserve(reads);
  }
  const std::vector<CallRecord>& calls() const { return calls_; }
  const std::vector<ClockRead>& clock_reads() const { return reads_; }
  // The run's node names, by NodeId, so that a fault's node name finds its calls.
  void set_node_names(std::vector<std::string> names) { node_names_ = std::move(names); }
  sim::NodeId node_named(std::string_view name) const {  // kNoNode if none
    for (size_t i = 0; i < node_names_.size(); ++i)
      if (node_names_[i] == name) return static_cast<sim::NodeId>(i);
    return sim::kNoNode;
  }

 private:
  std::vector<CallRecord> calls_;
  std::vector<ClockRead> reads_;
  std::vector<std::string> node_names_;
};

}  // namespace locksim::lock
