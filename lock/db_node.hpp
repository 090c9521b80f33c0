#pragma once
// A relational database as a node of the simulated world: the database model
// (sim/db) behind a sim::Service. One database session per client
// connection; a statement that must wait for a row lock is answered later
// (a deferred reply) when the lock is granted, its lock-wait timeout passes,
// or it is chosen as a deadlock victim. The server notices a dead client only
// after a detection delay (TCP keepalive, wait_timeout): until then the
// session keeps its locks. A crash restarts the database: open transactions
// roll back, committed rows stay. An optional cleanup job deletes the rows
// whose expires_at has passed, on the database's own clock. Row changes go to
// the ledger (ledger.hpp) as facts about the lock instance the row is (on
// kDatabaseNode): granted by an INSERT, released by its owner's DELETE,
// expired when the cleanup job removes it. A row lock a transaction holds
// (SELECT ... FOR UPDATE) is an instance too, on the row's name: granted,
// released by its client's COMMIT or ROLLBACK, lost when the server ends the
// session (a dead client noticed, a restart, a deadlock).
#include <map>
#include <optional>
#include <set>
#include <string>

#include "locksim/lock/history.hpp"
#include "locksim/lock/unix_time.hpp"
#include "locksim/sim/db/database.hpp"
#include "locksim/sim/rpc.hpp"
#include "locksim/sim/world.hpp"

namespace locksim::lock {

using namespace sim::literals;

struct DbRequest {
  db::Statement statement;
  uint32_t client = kNoClient;
  Purpose purpose = Purpose::Other;
};

struct DbNodeOptions {
  Duration lock_wait_timeout = 50_s;     // innodb_lock_wait_timeout
  Duration dead_client_detection = 1_s;  // a tuned keepalive: when a dead client's session ends
  Duration cleanup_interval = 1_s;       // the expiry cleanup job's period; 0: no job
  bool operator==(const DbNodeOptions&) const = default;
};

class DbNode {
 public:
  using Channel = sim::Channel<DbRequest, db::Outcome>;

  DbNode(sim::World& world, std::string name, History* history, DbNodeOptions options, sim::LocalClock clock = {});
  DbNode(const DbNode&) = delete;
  DbNode& operator=(const DbNode&) = delete;

  sim::NodeId node() const { return node_; }
  Channel& connect(sim::NodeId client) { return service_.connect(client); }
  const db::Database& database() const { return db_; }
  const DbNodeOptions& options() const { return options_; }
  int64_t local_ms() const { return unix_ms(world_.local_now(node_)); }

 private:
  struct Session {
    db::SessionId db = 0;
    sim::DeferredId waiting = 0;  // its blocked statement's call, if any
    uint32_t client = kNoClient;  // who sent its last statement, and why
    Purpose purpose = Purpose::Other;
    bool ending = false;  // its last statement was COMMIT or ROLLBACK
  };
  struct Holder {
    db::SessionId session = 0;
    uint32_t client = kNoClient;
  };
  sim::Answer<db::Outcome> handle(sim::SessionId session, DbRequest& request);
  void closed(sim::SessionId session, sim::CloseReason why);
  void end_session(sim::SessionId session);
  void answer_completions();
  void arm_wait_timer();
  void record_changes(uint32_t client, Purpose purpose, bool by_server);
  void record_row_changes(uint32_t client, Purpose purpose, bool by_server);
  void record_lock_changes();
  void add_effect(Step step, const std::string& key, uint32_t client, Purpose purpose,
                  std::optional<std::string> old_value, std::optional<std::string> new_value, int64_t expire_at_ms,
                  bool row_lock = false);
  void add_fact(Step step, const std::string& key, uint32_t client, Purpose purpose, const std::string& value,
                int64_t expire_at_ms, bool row_lock);
  static void wait_timer_event(sim::World& w, const sim::Event& e);
  static void session_end_event(sim::World& w, const sim::Event& e);
  sim::Task<void> cleanup_job(sim::Proc proc);

  sim::World& world_;
  sim::NodeId node_;
  DbNodeOptions options_;
  db::Database db_;
  sim::Service<DbRequest, db::Outcome> service_;
  std::map<sim::SessionId, Session> sessions_;
  std::map<db::SessionId, sim::SessionId> by_db_session_;
  std::map<std::string, db::Row> last_rows_;    // the table as last recorded to the history
  std::map<std::string, Holder> last_holders_;  // transactions' row locks, as last recorded
  std::set<std::string> names_;                 // every key a statement named
  std::optional<Instant> timer_at_;             // the earliest wait-timer event scheduled
  History* history_;
};

}  // namespace locksim::lock
