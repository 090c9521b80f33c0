#include "locksim/lock/ledger.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "locksim/base/assert.hpp"
#include "locksim/lock/history.hpp"

namespace locksim::lock {

std::string_view to_string(InstanceEnd e) {
  switch (e) {
    case InstanceEnd::Live: return "live";
    case InstanceEnd::Released: return "released";
    case InstanceEnd::ReleasedByOther: return "released by another client";
    case InstanceEnd::Overwritten: return "overwritten";
    case InstanceEnd::Expired: return "expired";
    case InstanceEnd::LostWithServer: return "lost with its server";
    case InstanceEnd::LostInFailover: return "lost in a failover";
    case InstanceEnd::HandedOver: return "carried on by the promoted replica";
  }
  return "?";
}

std::string_view to_string(FactKind k) {
  switch (k) {
    case FactKind::Granted: return "granted";
    case FactKind::Visible: return "visible";
    case FactKind::Rearmed: return "re-armed";
    case FactKind::RearmedByOther: return "changed by another client";
    case FactKind::Ended: return "ended";
  }
  return "?";
}

bool Ledger::tracks(std::string_view key) const { return tracked_.empty() || tracks_exactly(key); }

void Ledger::set_replica(uint32_t master, uint32_t replica) {
  master_ = master;
  replica_ = replica;
}

std::string Ledger::node_name(uint32_t node) const {
  auto it = names_.find(node);
  if (it != names_.end()) return it->second;
  return node == kDatabaseNode ? "db" : fmt::format("redis{}", node);
}

const LockInstance& Ledger::instance(uint32_t id) const {
  LOCKSIM_ASSERT(id < instances_.size(), fmt::format("a fact about lock instance {} the ledger does not know", id));
  return instances_[id];
}

LockInstance& Ledger::mutable_instance(uint32_t id) {
  LOCKSIM_ASSERT(id < instances_.size(), fmt::format("a fact about lock instance {} the ledger does not know", id));
  return instances_[id];
}

std::vector<uint32_t>::const_iterator Ledger::live_slot(std::string_view key, uint32_t node) const {
  return std::lower_bound(live_.begin(), live_.end(), 0u, [&](uint32_t id, uint32_t) {
    const LockInstance& i = instances_[id];
    const int order = std::string_view(i.key).compare(key);
    return order < 0 || (order == 0 && i.node < node);
  });
}

uint32_t Ledger::live_id(std::string_view key, uint32_t node) const {
  const auto it = live_slot(key, node);
  return it != live_.end() && instances_[*it].node == node && instances_[*it].key == key ? *it : kNoInstance;
}

const LockInstance* Ledger::live(std::string_view key, uint32_t node) const {
  const uint32_t id = live_id(key, node);
  return id == kNoInstance ? nullptr : &instances_[id];
}

const LockInstance* Ledger::live_of(uint32_t client, uint32_t node) const {
  for (uint32_t id : live_)
    if (instances_[id].node == node && instances_[id].owner == client) return &instances_[id];
  return nullptr;
}

bool Ledger::serving(uint32_t node, Instant at) const {
  if (replica_ == kNoInstance) return true;
  const bool after = promoted_at_ && at >= *promoted_at_;
  if (node == replica_) return after;
  if (node == master_) return !after;
  return true;
}

std::vector<const LockInstance*> Ledger::granted_to(uint32_t client) const {
  std::vector<const LockInstance*> out;
  for (const LockInstance& i : instances_)
    if (i.owner == client && !i.copy) out.push_back(&i);
  return out;
}

const LockInstance* Ledger::at(std::string_view key, uint32_t node, Instant when) const {
  const LockInstance* found = nullptr;
  for (const LockInstance& i : instances_)
    if (i.node == node && i.key == key && i.granted <= when && when < i.over()) found = &i;
  return found;
}

std::vector<const LockFact*> Ledger::facts_of(uint32_t id) const {
  std::vector<const LockFact*> out;
  for (const LockFact& f : facts_)
    if (f.instance == id) out.push_back(&f);
  return out;
}

void Ledger::fact(Instant at, FactKind kind, uint32_t id, uint32_t client, Purpose purpose, std::string value) {
  (void)instance(id);  // asserts it is known
  LockFact& f = facts_.emplace_back();  // filled in place: no fact built and moved in
  f.at = at;
  f.seq = fact_seq_;
  f.kind = kind;
  f.instance = id;
  f.client = client;
  f.purpose = purpose;
  f.value = std::move(value);
}

void Ledger::write(KeyChange&& c, uint64_t seq) {
  writes_.push_back(KeyWrite{seq, c.at, c.node, c.kind, c.client, c.purpose, std::move(c.key), std::move(c.value)});
}

void Ledger::map_times(const std::function<Instant(Instant)>& to) {
  auto map = [&](Instant& t) {
    if (t != Instant::never()) t = to(t);
  };
  for (LockInstance& i : instances_) {
    const Instant due = i.early.ns > 0 ? i.ended + i.early : Instant::never();
    map(i.granted);
    map(i.deadline);
    map(i.holder_deadline);
    map(i.last_armed);
    map(i.ended);
    if (due != Instant::never()) i.early = to(due) - i.ended;
  }
  for (LockFact& f : facts_) map(f.at);
  for (KeyWrite& w : writes_) map(w.at);
  if (promoted_at_) map(*promoted_at_);
}

// --- building ---

bool Ledger::contested(const KeyChange& c) const { return contested(c, live_id(c.key, c.node)); }

bool Ledger::contested(const KeyChange& c, uint32_t current) const {
  if (c.kind != KeyChange::Kind::Set || c.purpose != Purpose::Acquire || c.client == kNoClient) return false;
  if (is_copy_node(c.node)) return false;
  return current != kNoInstance && instances_[current].owner != c.client;
}

void Ledger::change(KeyChange c) {
  const uint64_t seq = seq_++;
  if (!tracks(c.key)) return write(std::move(c), seq);
  const bool waits = std::any_of(pending_.begin(), pending_.end(), [&](const Pending& p) {
    return p.change.key == c.key && p.change.node == c.node;
  });
  if (!waits) {
    const uint32_t current = live_id(c.key, c.node);  // looked up once, for both
    if (!contested(c, current)) {
      fact_seq_ = seq;
      return apply(c, false, current);
    }
  }
  // The writer of a pending write that touches the key again before saying it acquired did not win.
  for (Pending& p : pending_)
    if (p.contested && !p.resolved && p.change.client == c.client && p.change.key == c.key && p.change.node == c.node)
      p.resolved = true;
  const bool contest = !waits ? true : c.kind == KeyChange::Kind::Set && c.purpose == Purpose::Acquire &&
                                           c.client != kNoClient && !is_copy_node(c.node);
  pending_.push_back(Pending{std::move(c), seq, contest, false, false});
  drain();
}

void Ledger::drain() {
  // Each (key, node) applies in order; a write awaiting its client's word holds back what follows it there.
  for (;;) {
    bool applied = false;
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      const bool blocked_before = std::any_of(pending_.begin(), it, [&](const Pending& p) {
        return p.change.key == it->change.key && p.change.node == it->change.node;
      });
      if (blocked_before) continue;
      if (it->contested && !it->resolved) {
        // Whether it contests depends on the instance live when its turn comes.
        if (contested(it->change)) continue;
        it->contested = false;
      }
      Pending p = std::move(*it);
      pending_.erase(it);
      fact_seq_ = p.seq;
      apply(p.change, p.contested && p.took, live_id(p.change.key, p.change.node));
      applied = true;
      break;
    }
    if (!applied) return;
  }
}

void Ledger::resolve(uint32_t client, bool took, Instant) {
  bool any = false;
  for (Pending& p : pending_)
    if (p.contested && !p.resolved && p.change.client == client) {
      p.resolved = true;
      p.took = took;
      any = true;
    }
  if (any) drain();
}

void Ledger::client_acquired(uint32_t client, Instant at) {
  resolve(client, true, at);
  auto declared = declared_.find(client);
  if (declared == declared_.end()) return;
  const Instant deadline = declared->second;
  declared_.erase(declared);
  // Per node, its winning write may still wait behind someone else's (one awaiting its
  // client's word): the deadline goes with that write, to the instance it will make,
  // not to an older instance of the client's whose end waits there too.
  std::vector<uint32_t> nodes_waiting;
  for (auto p = pending_.rbegin(); p != pending_.rend(); ++p)
    if (p->change.client == client && p->change.kind == KeyChange::Kind::Set &&
        std::find(nodes_waiting.begin(), nodes_waiting.end(), p->change.node) == nodes_waiting.end()) {
      p->change.holder_deadline = deadline;
      nodes_waiting.push_back(p->change.node);
    }
  bool live = false;
  for (uint32_t id : live_)
    if (instances_[id].owner == client && !instances_[id].copy &&
        std::find(nodes_waiting.begin(), nodes_waiting.end(), instances_[id].node) == nodes_waiting.end()) {
      instances_[id].holder_deadline = deadline;
      live = true;
    }
  // Or someone took it over before the client heard it had won (its reply was slow): the
  // deadline still belongs to the instance its stamp made, which a taker judged by it.
  if (!live && nodes_waiting.empty())
    for (auto i = instances_.rbegin(); i != instances_.rend(); ++i)
      if (i->owner == client && !i->copy) {
        if (i->holder_deadline == Instant::never()) i->holder_deadline = deadline;
        break;
      }
}

void Ledger::client_deadline(uint32_t client, Instant at) { declared_[client] = at; }

void Ledger::client_step(uint32_t client) { resolve(client, false, Instant{}); }

void Ledger::settle() {
  for (Pending& p : pending_) p.resolved = true;
  drain();
  LOCKSIM_ASSERT(pending_.empty(), "the ledger settled with writes still pending");
}

uint32_t Ledger::grant(KeyChange& c) {
  const auto slot = live_slot(c.key, c.node);
  LOCKSIM_ASSERT(slot == live_.end() || instances_[*slot].node != c.node || instances_[*slot].key != c.key,
                 fmt::format("two live instances of {} on {}", c.key, node_name(c.node)));
  const uint32_t id = static_cast<uint32_t>(instances_.size());
  live_.insert(live_.begin() + (slot - live_.begin()), id);  // before the instance is added: `slot` reads instances_
  LockInstance& i = instances_.emplace_back();
  i.id = id;
  i.key = c.key;
  i.node = c.node;
  i.owner = c.client;
  i.value = c.value;
  i.granted = c.at;
  i.last_armed = c.at;
  i.deadline = c.deadline;
  i.store_deadline_ms = c.store_deadline_ms;
  i.copy = is_copy_node(c.node);
  if (!i.copy) i.holder_deadline = c.holder_deadline;
  fact(c.at, i.copy ? FactKind::Visible : FactKind::Granted, id, c.client, c.purpose, std::move(c.value));
  return id;
}

void Ledger::end(uint32_t id, InstanceEnd how, Instant at, uint32_t by, Purpose purpose) {
  LockInstance& i = mutable_instance(id);
  LOCKSIM_ASSERT(i.live(), fmt::format("instance {} of {} ended twice", id, i.key));
  LOCKSIM_ASSERT(at >= i.granted, fmt::format("instance {} of {} ended at {} before its grant at {}", id, i.key,
                                              sim::format_instant(at), sim::format_instant(i.granted)));
  i.end = how;
  i.ended = at;
  i.ended_by = by;
  i.ended_purpose = purpose;
  const auto slot = live_slot(i.key, i.node);
  if (slot != live_.end() && instances_[*slot].node == i.node && instances_[*slot].key == i.key) live_.erase(slot);
  fact(at, FactKind::Ended, id, by, purpose);
}

void Ledger::apply(KeyChange& c, bool took_over, uint32_t current) {
  switch (c.kind) {
    case KeyChange::Kind::Set: {
      if (current == kNoInstance) {
        grant(c);
        return;
      }
      LockInstance& i = mutable_instance(current);
      // A replica's copy follows its master's writes: another client's write there is a new copy.
      if (i.owner != c.client && (took_over || i.copy)) {
        end(current, InstanceEnd::Overwritten, c.at, c.client, c.purpose);
        const uint32_t next = grant(c);
        instances_[current].successor = next;
        return;
      }
      i.value = c.value;
      i.deadline = c.deadline;
      i.store_deadline_ms = c.store_deadline_ms;
      if (i.owner == c.client) {
        ++i.rearms;
        i.last_armed = c.at;
        if (c.holder_deadline != Instant::never()) i.holder_deadline = c.holder_deadline;
        fact(c.at, FactKind::Rearmed, current, c.client, c.purpose, std::move(c.value));
      } else {
        ++i.foreign_rearms;
        fact(c.at, FactKind::RearmedByOther, current, c.client, c.purpose, std::move(c.value));
      }
      return;
    }
    case KeyChange::Kind::Rearmed: {
      if (current == kNoInstance) return;
      LockInstance& i = mutable_instance(current);
      i.deadline = c.deadline;
      i.store_deadline_ms = c.store_deadline_ms;
      if (i.owner == c.client || i.copy) {
        ++i.rearms;
        i.last_armed = c.at;
        fact(c.at, FactKind::Rearmed, current, c.client, c.purpose, i.value);
      } else {
        ++i.foreign_rearms;
        fact(c.at, FactKind::RearmedByOther, current, c.client, c.purpose, i.value);
      }
      return;
    }
    case KeyChange::Kind::Deleted: {
      if (current == kNoInstance) return;
      const LockInstance& i = instances_[current];
      InstanceEnd how = InstanceEnd::ReleasedByOther;
      if (c.client == kNoClient)
        how = InstanceEnd::LostWithServer;
      else if (c.client == i.owner || i.copy)
        how = InstanceEnd::Released;
      end(current, how, c.at, c.client, c.purpose);
      return;
    }
    case KeyChange::Kind::Expired: {
      if (current == kNoInstance) return;
      LockInstance& i = mutable_instance(current);
      // The backend says when it went (a lazy expiry is seen late); early: before the deadline it was given.
      const Instant at = std::max(c.at, i.granted);
      if (i.deadline != Instant::never() && i.deadline > at) i.early = i.deadline - at;
      end(current, InstanceEnd::Expired, at, kNoClient, Purpose::Other);
      return;
    }
  }
}

void Ledger::server_crashed(uint32_t node, Instant at, bool keys_survive) {
  drain();
  fact_seq_ = seq_++;
  if (node == master_ && replica_ != kNoInstance && !promoted_at_ && !keys_survive) master_down_ = at;
  if (keys_survive) return;
  std::vector<uint32_t> lost;
  for (uint32_t id : live_)
    if (instances_[id].node == node) lost.push_back(id);
  for (uint32_t id : lost) {
    end(id, InstanceEnd::LostWithServer, std::max(at, instances_[id].granted), kNoClient, Purpose::Other);
    if (master_down_ && node == master_) down_instances_.push_back(id);
  }
}

void Ledger::server_restarted(uint32_t node, Instant) {
  // Came back before any failover: what it lost was lost with it.
  if (node == master_ && master_down_ && !promoted_at_) {
    master_down_.reset();
    down_instances_.clear();
  }
}

void Ledger::promoted(uint32_t replica, Instant at) {
  LOCKSIM_ASSERT(replica == replica_, fmt::format("node {} promoted, but the replica is {}", replica, replica_));
  drain();
  fact_seq_ = seq_++;
  std::vector<uint32_t> masters = down_instances_;
  for (uint32_t id : live_)
    if (instances_[id].node == master_) masters.push_back(id);
  promoted_at_ = at;
  for (uint32_t id : masters) {
    // The replica carries the instance on only with a copy of it, made there after the
    // instance was granted: not a copy of an older instance of the same owner's (an
    // earlier incarnation's, say) whose end had not reached the replica. An older copy
    // that the grant's own write then reached (the master's expiry of the old instance and
    // the new grant replicated as one SET) holds the new instance's value: it is its copy.
    const LockInstance* copy = live(instances_[id].key, replica_);
    const bool carried = copy && copy->owner == instances_[id].owner &&
                         (copy->granted >= instances_[id].granted ||
                          (copy->last_armed >= instances_[id].granted && copy->value == instances_[id].value));
    if (instances_[id].live()) {
      end(id, carried ? InstanceEnd::HandedOver : InstanceEnd::LostInFailover, at, kNoClient, Purpose::Other);
    } else {
      instances_[id].end = carried ? InstanceEnd::HandedOver : InstanceEnd::LostInFailover;  // decided now
    }
    if (carried) {
      instances_[id].successor = copy->id;
      // The copy carries the hold on, and with it the holder's own deadline (a timestamp lock's).
      if (copy->holder_deadline == Instant::never())
        mutable_instance(copy->id).holder_deadline = instances_[id].holder_deadline;
    }
  }
  down_instances_.clear();
  master_down_.reset();
  // The replica's copies now serve: they are the lock.
  for (uint32_t id : live_)
    if (instances_[id].node == replica_) instances_[id].copy = false;
}

}  // namespace locksim::lock
