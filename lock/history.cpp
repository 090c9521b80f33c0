#include "locksim/lock/history.hpp"

#include <fmt/format.h>

namespace locksim::lock {

std::string_view to_string(Purpose p) {
  switch (p) {
    case Purpose::Acquire: return "acquire";
    case Purpose::Release: return "release";
    case Purpose::Renew: return "renew";
    case Purpose::Resource: return "resource";
    case Purpose::Other: return "other";
  }
  return "?";
}

std::string_view to_string(Step s) {
  switch (s) {
    case Step::AcquireStart: return "acquire-start";
    case Step::Acquired: return "acquired";
    case Step::AcquireFailed: return "acquire-failed";
    case Step::Enter: return "enter";
    case Step::Leave: return "leave";
    case Step::ReleaseStart: return "release-start";
    case Step::Released: return "released";
    case Step::Renewed: return "renewed";
    case Step::RenewFailed: return "renew-failed";
    case Step::WriteAccepted: return "write-accepted";
    case Step::WriteRejected: return "write-rejected";
    case Step::Crashed: return "crashed";
    case Step::Restarted: return "restarted";
    case Step::Paused: return "paused";
    case Step::Resumed: return "resumed";
    case Step::KeySet: return "key-set";
    case Step::KeyDeleted: return "key-deleted";
    case Step::KeyExpireChanged: return "key-expire";
    case Step::KeyExpired: return "key-expired";
    case Step::ServerCrashed: return "redis-crashed";
    case Step::ServerRestarted: return "redis-restarted";
    case Step::ReplicaPromoted: return "replica-promoted";
    case Step::Log: return "log";
    case Step::VariantError: return "variant-error";
    case Step::CallLost: return "call-lost";
    case Step::CallDelayed: return "call-delayed";
    case Step::OwnLockRefused: return "own-lock-refused";
  }
  return "?";
}

std::string History::client_name(uint32_t client) const {
  if (client == kNoClient) return "redis";
  return client < clients_.size() ? clients_[client] : fmt::format("client{}", client);
}

void History::client_stepped(const HistoryEvent& e) {
  switch (e.step) {
    case Step::Acquired: ledger_.client_acquired(e.client, e.at); break;
    case Step::AcquireStart:
    case Step::AcquireFailed:
    case Step::ReleaseStart:
    case Step::Crashed: ledger_.client_step(e.client); break;
    default: break;
  }
}

void set_step_details(HistoryEvent& e, int64_t first, int64_t second) {
  switch (e.step) {
    case Step::AcquireStart:
    case Step::AcquireFailed:
    case Step::ReleaseStart: e.depth = first; break;
    case Step::Acquired:
      e.token = first;
      e.depth = second;
      break;
    case Step::Released:
      e.own_lock = first != 0;
      e.depth = second;
      break;
    case Step::RenewFailed: e.status = first; break;
    case Step::CallLost:
    case Step::CallDelayed:
      e.token = first;
      e.status = second;
      break;
    default: break;
  }
}

std::string History::describe(const HistoryEvent& e, std::string_view client_name) {
  std::string s = fmt::format("{} {}", client_name, to_string(e.step));
  switch (e.step) {
    case Step::Acquired:
      if (e.token >= 0) s += fmt::format(" (fence {})", e.token);
      break;
    case Step::AcquireStart:
      if (e.depth > 0) s += fmt::format(" (nested {})", e.depth);
      break;
    // What the lock says of its release (a DEL answers 1 for another's key too): the
    // ledger, not this line, says whose key went (the timeline's "A deleted B's").
    case Step::Released: s += e.own_lock ? " (its release reported success)" : " (its release reported failure)"; break;
    case Step::WriteAccepted:
    case Step::WriteRejected: s += fmt::format(" token {} (highest seen {})", e.token, e.highest_seen); break;
    case Step::KeySet:
    case Step::KeyDeleted:
    case Step::KeyExpireChanged:
    case Step::KeyExpired:
      s += fmt::format(" {} [{}]", e.key, to_string(e.purpose));
      if (e.old_value) s += fmt::format(" old={}", *e.old_value);
      if (e.new_value) s += fmt::format(" new={}", *e.new_value);
      if (e.expire_at_ms >= 0) s += fmt::format(" deadline={}ms", e.expire_at_ms);
      break;
    case Step::Log:
    case Step::VariantError: s += ": " + e.text; break;
    case Step::CallLost:
      s += fmt::format(": the {} of its command {} ({})", e.status ? "reply" : "request", e.token, to_string(e.purpose));
      break;
    case Step::CallDelayed:
      s += e.purpose == Purpose::Resource
               ? fmt::format(": its write {} held {} longer in flight", e.token, sim::format_duration(Duration{e.status}))
               : fmt::format(": the request of its command {} ({}) held {} longer in flight", e.token,
                             to_string(e.purpose), sim::format_duration(Duration{e.status}));
      break;
    case Step::OwnLockRefused: s += fmt::format(": its acquire met its own live {} and changed nothing", e.key); break;
    default: break;
  }
  return s;
}

}  // namespace locksim::lock
