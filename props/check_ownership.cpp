// owner-only-release: a release or renewal by client A never removes or
// changes a lock instance that client B acquired. Instances are followed
// through the key effects: one begins when an acquire sets the key (or takes
// it over), and ends when the key is deleted or expires.
#include <fmt/format.h>

#include "locksim/props/check.hpp"

namespace locksim::props::detail {

using lock::Purpose;
using lock::Step;

std::optional<Violation> owner_only_release(const Context& c) {
  // One instance per Redis node: each node's key has its own history.
  std::vector<Instance> instances(1);
  bool promoted = false;
  for (const auto& e : c.history.events()) {
    if (e.step == Step::ReplicaPromoted) promoted = true;
    // A replica only mirrors its master (late, and without the master's expiries)
    // until it is promoted; then the master's old copy no longer counts.
    if (c.config.replica && (e.server == 1) != promoted) continue;
    if (instances.size() <= e.server) instances.resize(e.server + 1);
    Instance& current = instances[e.server];
    if (e.step == Step::ServerCrashed && !e.keys_survive) current = {};  // no persistence: every key is gone
    if (!c.is_lock_key(e)) continue;
    const bool by_release = e.purpose == Purpose::Release || e.purpose == Purpose::Renew;
    const bool foreign = current.owner != lock::kNoClient && e.client != current.owner && e.client != lock::kNoClient;
    if (by_release && foreign &&
        (e.step == Step::KeyDeleted || e.step == Step::KeySet || e.step == Step::KeyExpireChanged)) {
      Violation v;
      v.property = Property::OwnerOnlyRelease;
      v.clients = {current.owner, e.client};
      v.key = e.key;
      v.from = current.since;
      v.to = e.at;
      const char* what = e.step == Step::KeyDeleted ? "deleted" : "changed";
      v.sentence = fmt::format("{}'s {} {} the lock {} had acquired at {}", c.name(e.client), to_string(e.purpose),
                               what, c.name(current.owner), sim::format_instant(current.since));
      return v;
    }
    switch (e.step) {
      case Step::KeySet:
        if (starts_instance(c, e, current)) current = {e.client, e.at};
        break;
      case Step::KeyDeleted:
      case Step::KeyExpired: current = {}; break;
      default: break;
    }
  }
  return std::nullopt;
}

}  // namespace locksim::props::detail
