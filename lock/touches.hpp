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
struct ClockRead {
  sim::Instant at;
  uint32_t client = 0;
  ClockKind clock = ClockKind::Wall;
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
  // A read at the same instant as the last one recorded adds nothing (a loop reads twice).
  void clock_read(uint32_t client, ClockKind clock, sim::Instant at) {
    const ClockRead r{at, client, clock};
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
