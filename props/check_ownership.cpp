// owner-only-release: a release or renewal by client A never removes or
// changes a lock instance that client B acquired. Read from the ledger
// (lock/ledger.hpp): an instance another client's release or renewal deleted
// or changed, on a node that served clients then.
#include <fmt/format.h>

#include "locksim/props/check.hpp"

namespace locksim::props::detail {

using lock::Purpose;

std::optional<Violation> owner_only_release(const Context& c) {
  const lock::Ledger& ledger = c.history.ledger();
  std::optional<Violation> found;
  auto consider = [&](const lock::LockInstance& i, uint32_t by, Purpose purpose, Instant at, const char* what) {
    if (purpose != Purpose::Release && purpose != Purpose::Renew) return;
    if (by == lock::kNoClient || by == i.owner || i.owner == lock::kNoClient || i.key != c.config.lock.key) return;
    if (i.copy || !ledger.serving(i.node, at)) return;
    if (found && found->to <= at) return;
    Violation v;
    v.property = Property::OwnerOnlyRelease;
    v.clients = {i.owner, by};
    v.key = i.key;
    v.from = i.granted;
    v.to = at;
    v.sentence = fmt::format("{}'s {} {} the lock {} had acquired at {}", c.name(by), to_string(purpose), what,
                             c.name(i.owner), sim::format_instant(i.granted));
    found = std::move(v);
  };
  for (const lock::LockFact& f : ledger.facts()) {
    const lock::LockInstance& i = ledger.instance(f.instance);
    if (f.kind == lock::FactKind::RearmedByOther) consider(i, f.client, f.purpose, f.at, "changed");
    if (f.kind == lock::FactKind::Ended && i.end == lock::InstanceEnd::ReleasedByOther)
      consider(i, f.client, f.purpose, f.at, "deleted");
  }
  return found;
}

}  // namespace locksim::props::detail
