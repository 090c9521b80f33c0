#pragma once
// The trace: structured events (true time, node, kind, two integer details
// whose meaning is the kind's, and an optional text) that renderers and checkers consume. Its 64-bit hash is
// stable across runs and platforms: it hashes the fields as 64-bit integers,
// never pointers or container order.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/sim/time.hpp"

namespace locksim::sim {

using NodeId = uint32_t;
inline constexpr NodeId kNoNode = 0xffffffffu;

enum class TraceKind : uint8_t {
  FiberStart,
  FiberEnd,
  FiberCancelled,
  CallSent,
  CallExecuted,
  ReplyReceived,
  MessageDropped,
  CallTimedOut,
  ConnectionLost,
  ConnectionClosed,
  Crash,
  Restart,
  Pause,
  Resume,
  ClockJump,
  Cut,
  Heal,
  Reset,
  Note,          // free text from a layer above (a lock step, a workload event)
  CallDeferred,  // the server will answer this call later (a lock wait, a blocking pop)
};
std::string_view to_string(TraceKind);

// Why a message was dropped (MessageDropped's first detail).
// RequestLost, ReplyLost: a fault aimed at one call lost its request or its reply (rpc.hpp, Loss).
enum class DropReason : uint8_t { Cut, ReceiverCrashed, ConnectionReset, CallerGone, RequestLost, ReplyLost };
std::string_view to_string(DropReason);

struct TraceEvent {
  Instant at;
  NodeId node = kNoNode;
  TraceKind kind = TraceKind::Note;
  // The kind's two integer details, as hashed; read them through the named accessors below.
  int64_t first = 0, second = 0;
  std::string text;

  // CallSent, CallExecuted, CallDeferred, ReplyReceived, CallTimedOut, ConnectionLost, ConnectionClosed: the
  // connection's id.
  int64_t connection() const { return first; }
  // CallSent, CallExecuted, CallDeferred, ReplyReceived, CallTimedOut, ConnectionLost, MessageDropped: the call's
  // number.
  int64_t call() const { return second; }
  DropReason drop_reason() const { return static_cast<DropReason>(first); }  // MessageDropped
  int64_t task() const { return first; }                                     // FiberStart, FiberEnd, FiberCancelled
  int64_t incarnation() const { return first; }                              // Restart
  // Pause: how long; ClockJump: by how much (signed); Cut: how long the link stays cut.
  Duration span() const { return Duration{kind == TraceKind::Cut ? second : first}; }
  NodeId peer() const { return static_cast<NodeId>(first); }  // Cut, Heal, Reset: the link's other end
  int64_t note_step() const { return first; }                 // Note from a lock client: its lock::Step
  int64_t note_detail() const { return second; }              // Note from a lock client: the step's first detail
};

class Trace {
 public:
  enum class Mode : uint8_t { Record, HashOnly };
  explicit Trace(Mode mode = Mode::Record) : mode_(mode) {}

  // An event without text: hashed inline (most of a run's events are these; the call
  // and the empty string it used to build were a tenth of the per-event work).
  // Inline, the event's record out of line: the push_back kept the whole call out of
  // line, and a run makes tens of these per call it simulates.
  [[gnu::always_inline]] void add(Instant at, NodeId node, TraceKind kind, int64_t first = 0, int64_t second = 0) {
    mix_fields(at, node, kind, first, second, 0);
    ++count_;
    if (mode_ == Mode::Record) record(at, node, kind, first, second);
  }
  // With text: the caller builds it only when recording() needs it (hashing an
  // empty text is the same as the overload above).
  void add(Instant at, NodeId node, TraceKind kind, int64_t first, int64_t second, std::string text);
  bool recording() const { return mode_ == Mode::Record; }

  uint64_t hash() const { return hash_; }
  size_t size() const { return count_; }
  const std::vector<TraceEvent>& events() const { return events_; }

  void set_node_name(NodeId id, std::string name);
  const std::string& node_name(NodeId id) const;
  // One line per event: "  1.500s  A  call-sent  #3 SET lock 1 NX PX 1000".
  std::string render() const;
  static std::string render(const TraceEvent&, std::string_view node_name);

 private:
  // One multiply-xorshift step per 64-bit field, not one FNV step per byte: the
  // per-byte chain of dependent multiplies cost more than the rest of a round trip.
  static void mix(uint64_t& h, uint64_t v) {
    h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 32;
  }
  // The fixed fields and the text's length, in the hash's order (the text's bytes follow).
  void mix_fields(Instant at, NodeId node, TraceKind kind, int64_t first, int64_t second, size_t text_size) {
    mix(hash_, static_cast<uint64_t>(at.ns));
    mix(hash_, uint64_t{node} | uint64_t{static_cast<uint8_t>(kind)} << 32);
    mix(hash_, static_cast<uint64_t>(first));
    mix(hash_, static_cast<uint64_t>(second));
    mix(hash_, text_size);
  }

  void record(Instant at, NodeId node, TraceKind kind, int64_t first, int64_t second);

  Mode mode_;
  uint64_t hash_ = 0xcbf29ce484222325ULL;
  size_t count_ = 0;
  std::vector<TraceEvent> events_;
  std::vector<std::string> names_;
};

}  // namespace locksim::sim
