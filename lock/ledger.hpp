#pragma once
// The lock ledger: what happened to each lock instance, as the backends saw
// it happen. A backend (the Redis node, the database node, the real-Redis
// shadow) reports every change of a lock key on one of its nodes, with the
// client whose command made it, the command's purpose and the deadline in
// true time; the ledger turns them into facts about instances — granted,
// visible on a replica, re-armed (by the owner, or by someone else), ended
// (released by the owner or by another client, overwritten, expired and how
// early, lost with a server, lost in a failover) — and asserts its
// invariants as it grows: at most one live instance per key and node, every
// end at or after its start, no fact about an instance it does not know.
//
// Ownership comes from who wrote the key, never from what the value looks
// like. One case needs the writer's word: an acquire that writes over a live
// instance of someone else (GETSET, an EXEC whose WATCH was lost, a Lua
// script) took the lock over only if its client then says it acquired (the
// store cannot tell a winning GETSET from a losing one). Such a write waits,
// with whatever follows it on that key and node, for its client's next step:
// Acquired makes it a takeover, anything else a rewrite of the owner's instance.
//
// The other keys the backends report (a fair lock's queue, a fencing counter)
// are kept as writes, in one report order with the facts (seq): bookkeeping
// that decides no ownership, but tells when a client's command reached the
// store and which write issued a token.
//
// Properties, causes and timelines read the ledger (props/, render/); the
// lock algorithms never do, except to know whether a command re-armed the
// caller's own instance (a renewal is that fact, not where a command came from).
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/sim/time.hpp"

namespace locksim::lock {

using sim::Duration;
using sim::Instant;

enum class Purpose : uint8_t;
inline constexpr uint32_t kNoInstance = 0xffffffffu;
// The database's node in the ledger (Redis nodes are numbered from 0).
inline constexpr uint32_t kDatabaseNode = 1000;
// A store keeps deadlines in whole milliseconds of its own clock, so a key can go up to a
// couple of them before its deadline in true time with every clock sane. Earlier than that,
// the store's clock ended it early (a jump, a drift).
inline constexpr Duration kStoreDeadlineRounding = sim::milliseconds(2);

enum class InstanceEnd : uint8_t {
  Live,             // not ended (it may still pass its deadline after the run)
  Released,         // its owner deleted it
  ReleasedByOther,  // another client's command deleted it (a stale release, an acquire's DEL)
  Overwritten,      // another client took it over (successor: the new instance)
  Expired,          // its deadline passed on the store's clock (early: before the deadline it was given)
  LostWithServer,   // the server restarted without persistence, or ended the transaction holding it
  LostInFailover,   // the master died and the promoted replica did not have it
  HandedOver,       // failover: the promoted replica's copy carries it on (successor)
};
std::string_view to_string(InstanceEnd);

struct LockInstance {
  uint32_t id = kNoInstance;
  std::string key;
  uint32_t node = 0;
  uint32_t owner = 0xffffffffu;
  std::string value;
  Instant granted;                       // true time
  Instant deadline = Instant::never();   // when the store will expire it as last armed, in true time (never: no TTL)
  int64_t store_deadline_ms = -1;        // the same deadline on the store's own clock (Unix ms; -1: none)
  Instant holder_deadline = Instant::never();  // the lock's own rule (a timestamp in the value), as its holder said
  bool copy = false;                     // a replica's copy, until that replica is promoted
  uint32_t rearms = 0;                   // re-armed by its owner
  uint32_t foreign_rearms = 0;           // changed by another client (a losing GETSET, a stale renewal)
  Instant last_armed;                    // its last grant or re-arm by its owner
  InstanceEnd end = InstanceEnd::Live;
  Instant ended = Instant::never();
  uint32_t ended_by = 0xffffffffu;       // the client whose command ended it (Released, ReleasedByOther, Overwritten)
  Purpose ended_purpose{};
  Duration early{};                      // Expired: how long before its deadline it went, in true time
  uint32_t successor = kNoInstance;      // Overwritten, HandedOver
  bool live() const { return end == InstanceEnd::Live; }
  // Expired before the deadline it was given by more than the store's rounding.
  bool expired_early() const { return end == InstanceEnd::Expired && early > kStoreDeadlineRounding; }
  // When it stopped protecting its owner: its end, or its deadline if it is still live.
  Instant over() const { return live() ? deadline : ended; }
};

enum class FactKind : uint8_t { Granted, Visible, Rearmed, RearmedByOther, Ended };
std::string_view to_string(FactKind);

struct LockFact {
  Instant at;
  uint64_t seq = 0;  // the order the backends reported what made it (shared with KeyWrite)
  FactKind kind = FactKind::Granted;
  uint32_t instance = kNoInstance;
  uint32_t client = 0xffffffffu;  // whose command (Granted: the owner)
  Purpose purpose{};
  std::string value;  // Granted, Visible, Rearmed, RearmedByOther: the value after it
};

// A backend's report of one change to a tracked key on one of its nodes.
struct KeyChange {
  enum class Kind : uint8_t { Set, Deleted, Rearmed, Expired };
  Kind kind = Kind::Set;
  Instant at;                           // true time
  uint32_t node = 0;
  std::string key;
  uint32_t client = 0xffffffffu;        // whose command; none for the server's own doing
  Purpose purpose{};
  std::string value;                    // Set: the new value
  Instant deadline = Instant::never();  // Set, Rearmed: the deadline after it, in true time, had the store's clock kept pace
  int64_t store_deadline_ms = -1;       // the same on the store's clock
  // Set: the deadline its client declared (Env::hold_until) when it said it acquired while
  // this write still waited behind another's; the instance it makes carries it.
  Instant holder_deadline = Instant::never();
};

// A change to a key that is not a lock (a fair lock's queue, a fencing counter):
// the locks' own bookkeeping, which decides no ownership. Kept so that what
// reads the ledger needs nothing else: a waiter's place in a queue, the
// counter write that issued a fence token.
struct KeyWrite {
  uint64_t seq = 0;  // the order reported, shared with LockFact: one order over every key
  Instant at;        // true time
  uint32_t node = 0;
  KeyChange::Kind kind = KeyChange::Kind::Set;
  uint32_t client = 0xffffffffu;  // whose command; none for the server's own doing
  Purpose purpose{};
  std::string key;
  std::string value;  // Set: the new value
};

class Ledger {
 public:
  // Which keys are locks (the others are queues, counters...); no key tracked: every key is.
  void track(std::string key) {
    if (!tracks_exactly(key)) tracked_.push_back(std::move(key));
  }
  bool tracks(std::string_view key) const;
  // A replica of `master`, serving only once promoted.
  void set_replica(uint32_t master, uint32_t replica);
  void name_node(uint32_t node, std::string name) { names_[node] = std::move(name); }
  // Room for this many instances and facts: spares the vectors their copies as they double.
  void reserve(size_t instances, size_t facts) {
    instances_.reserve(instances);
    facts_.reserve(facts);
  }
  std::string node_name(uint32_t node) const;

  // --- what the backends report ---
  void change(KeyChange change);
  // The node crashed (keys_survive: persistence) or the database ended a session's transaction.
  void server_crashed(uint32_t node, Instant at, bool keys_survive);
  void server_restarted(uint32_t node, Instant at);
  // The replica was promoted: the master's live instances carry on in its copies, or are lost.
  void promoted(uint32_t replica, Instant at);

  // --- what the clients say (a takeover needs its writer's word) ---
  void client_acquired(uint32_t client, Instant at);
  void client_step(uint32_t client);  // any other step: a pending write of its over a live instance took nothing
  // A timestamp lock's own deadline for the hold being acquired (Env::hold_until), in true time.
  void client_deadline(uint32_t client, Instant at);
  // The run is over: pending writes took nothing.
  void settle();

  // Every instant moved by `to` (a real run seen in scenario time); an instant never() stays never().
  void map_times(const std::function<Instant(Instant)>& to);

  // --- reading ---
  const std::vector<LockInstance>& instances() const { return instances_; }
  const std::vector<LockFact>& facts() const { return facts_; }
  // Changes to keys that are not locks, in the order reported.
  const std::vector<KeyWrite>& writes() const { return writes_; }
  const LockInstance& instance(uint32_t id) const;
  // The live instance of `key` on `node` now (while the run is being built), or nullptr.
  const LockInstance* live(std::string_view key, uint32_t node) const;
  // The live instance `client` owns on `node` (of any tracked key) now, or nullptr.
  const LockInstance* live_of(uint32_t client, uint32_t node) const;
  // Whether `node` serves clients at `at` (a replica only after its promotion).
  bool serving(uint32_t node, Instant at) const;
  bool has_replica() const { return replica_ != kNoInstance; }
  uint32_t replica() const { return replica_; }
  std::optional<Instant> promoted_at() const { return promoted_at_; }
  // The instances `client` was granted (copies excluded), in grant order.
  std::vector<const LockInstance*> granted_to(uint32_t client) const;
  // The instance of `key` on `node` whose life covers `at` (copies included), or nullptr.
  const LockInstance* at(std::string_view key, uint32_t node, Instant at) const;
  // Facts about an instance, in the order they were recorded.
  std::vector<const LockFact*> facts_of(uint32_t instance) const;

 private:
  struct Pending {
    KeyChange change;
    uint64_t seq = 0;
    bool contested = false;  // a write over another's live instance, awaiting its client's word
    bool resolved = false;
    bool took = false;
  };
  // Both may take c's value for the fact they record (c is spent after).
  // `current`: the instance live at c's key and node (live_id), kNoInstance if none.
  void apply(KeyChange& c, bool took_over, uint32_t current);
  void drain();
  void resolve(uint32_t client, bool took, Instant at);
  bool contested(const KeyChange& c) const;
  bool contested(const KeyChange& c, uint32_t current) const;  // `current`: as apply's
  uint32_t grant(KeyChange& c);
  void end(uint32_t id, InstanceEnd how, Instant at, uint32_t by, Purpose purpose);
  void fact(Instant at, FactKind kind, uint32_t instance, uint32_t client, Purpose purpose, std::string value = {});
  void write(KeyChange&& c, uint64_t seq);
  LockInstance& mutable_instance(uint32_t id);
  bool is_copy_node(uint32_t node) const { return node == replica_ && !promoted_at_; }
  // Where (key, node) is or would go in live_.
  std::vector<uint32_t>::const_iterator live_slot(std::string_view key, uint32_t node) const;
  uint32_t live_id(std::string_view key, uint32_t node) const;  // kNoInstance if none

  // A key or two: a vector, asked by equality (every change reported asks it).
  std::vector<std::string> tracked_;
  bool tracks_exactly(std::string_view key) const {
    for (const std::string& k : tracked_)
      if (k == key) return true;
    return false;
  }
  std::map<uint32_t, std::string> names_;
  std::vector<LockInstance> instances_;
  std::vector<LockFact> facts_;
  // The live instances, ordered by (key, node): a few at most, looked up by the
  // instance's own key (no key copied, nothing allocated per lookup).
  std::vector<uint32_t> live_;
  std::vector<KeyWrite> writes_;
  uint64_t seq_ = 0;      // reports heard so far
  uint64_t fact_seq_ = 0;  // the report the facts being recorded come from
  std::deque<Pending> pending_;
  uint32_t master_ = 0, replica_ = kNoInstance;
  std::optional<Instant> promoted_at_;
  std::optional<Instant> master_down_;  // the master crashed without persistence, its fate not yet decided
  std::vector<uint32_t> down_instances_;
  std::map<uint32_t, Instant> declared_;  // client -> the deadline it declared for the hold it is acquiring
};

}  // namespace locksim::lock
