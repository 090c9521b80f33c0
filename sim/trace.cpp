#include "locksim/sim/trace.hpp"

#include <fmt/format.h>

namespace locksim::sim {

std::string_view to_string(TraceKind k) {
  switch (k) {
    case TraceKind::FiberStart: return "task-start";
    case TraceKind::FiberEnd: return "task-end";
    case TraceKind::FiberCancelled: return "task-cancelled";
    case TraceKind::CallSent: return "call-sent";
    case TraceKind::CallExecuted: return "call-executed";
    case TraceKind::ReplyReceived: return "reply-received";
    case TraceKind::MessageDropped: return "message-dropped";
    case TraceKind::CallTimedOut: return "call-timed-out";
    case TraceKind::ConnectionLost: return "connection-lost";
    case TraceKind::ConnectionClosed: return "connection-closed";
    case TraceKind::Crash: return "crash";
    case TraceKind::Restart: return "restart";
    case TraceKind::Pause: return "pause";
    case TraceKind::Resume: return "resume";
    case TraceKind::ClockJump: return "clock-jump";
    case TraceKind::Cut: return "cut";
    case TraceKind::Heal: return "heal";
    case TraceKind::Reset: return "reset";
    case TraceKind::Note: return "note";
    case TraceKind::CallDeferred: return "call-deferred";
  }
  return "?";
}

std::string_view to_string(DropReason r) {
  switch (r) {
    case DropReason::Cut: return "link cut";
    case DropReason::ReceiverCrashed: return "receiver crashed";
    case DropReason::ConnectionReset: return "connection reset";
    case DropReason::CallerGone: return "caller gone";
    case DropReason::RequestLost: return "request lost";
    case DropReason::ReplyLost: return "reply lost";
  }
  return "?";
}

void Trace::add(Instant at, NodeId node, TraceKind kind, int64_t first, int64_t second, std::string text) {
  mix_fields(at, node, kind, first, second, text.size());
  for (unsigned char c : text) {
    hash_ ^= c;
    hash_ *= 0x100000001b3ULL;
  }
  ++count_;
  if (mode_ == Mode::Record) events_.push_back(TraceEvent{at, node, kind, first, second, std::move(text)});
}

void Trace::record(Instant at, NodeId node, TraceKind kind, int64_t first, int64_t second) {
  events_.push_back(TraceEvent{at, node, kind, first, second, {}});
}

void Trace::set_node_name(NodeId id, std::string name) {
  if (names_.size() <= id) names_.resize(id + 1);
  names_[id] = std::move(name);
}

const std::string& Trace::node_name(NodeId id) const {
  static const std::string none = "-";
  return id < names_.size() ? names_[id] : none;
}

std::string Trace::render(const TraceEvent& e, std::string_view node_name) {
  std::string line = fmt::format("{:>9}  {:<8} {:<16}", format_instant(e.at), node_name, to_string(e.kind));
  switch (e.kind) {
    case TraceKind::CallSent:
    case TraceKind::CallExecuted:
    case TraceKind::CallDeferred:
    case TraceKind::ReplyReceived:
    case TraceKind::CallTimedOut:
    case TraceKind::ConnectionLost: line += fmt::format(" conn {} call #{}", e.connection(), e.call()); break;
    case TraceKind::MessageDropped: line += fmt::format(" ({}) call #{}", to_string(e.drop_reason()), e.call()); break;
    case TraceKind::FiberStart:
    case TraceKind::FiberEnd:
    case TraceKind::FiberCancelled: line += fmt::format(" task {}", e.task()); break;
    default: break;
  }
  if (!e.text.empty()) {
    line += ' ';
    line += e.text;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::string Trace::render() const {
  std::string out;
  for (const auto& e : events_) {
    out += render(e, node_name(e.node));
    out += '\n';
  }
  return out;
}

}  // namespace locksim::sim
