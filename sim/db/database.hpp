#pragma once
// A small model of a relational database (MariaDB/InnoDB) holding one lock
// table: sessions, autocommit and explicit transactions, a unique key,
// exclusive locks taken by INSERT, DELETE, UPDATE and SELECT ... FOR UPDATE
// (on a missing key too), a FIFO wait queue per key with a
// lock-wait timeout, deadlock detection, and release at COMMIT, ROLLBACK or
// when the session ends. It is a sibling of the Redis model: it knows nothing
// of the simulator and is told the time on every call. What it leaves out of
// InnoDB is listed in docs/database-model.md.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "locksim/sim/db/statement.hpp"

namespace locksim::db {

struct Options {
  int64_t lock_wait_timeout_ms = 50'000;  // innodb_lock_wait_timeout (50 s by default)
};

// A statement that was Blocked and has now finished.
struct Completion {
  SessionId session = 0;
  Outcome outcome;
};

class Database {
 public:
  explicit Database(Options options = {});

  SessionId connect();
  // The session ends — closed by its client, or its death noticed by the
  // server: its transaction rolls back and its locks go. Unknown ids are ignored.
  void disconnect(SessionId session);
  // Runs one statement. A Blocked outcome finishes later, reported by
  // take_completions(). Throws std::invalid_argument for an unknown session or
  // a session that is still waiting.
  Outcome execute(SessionId session, const Statement& statement, int64_t now_ms);
  // Waits whose lock-wait timeout has passed by now fail with error 1205.
  void expire_waits(int64_t now_ms);
  std::optional<int64_t> next_wait_deadline() const;
  // Blocked statements that finished since the last call, in the order they finished.
  std::vector<Completion> take_completions();

  // The cleanup job: deletes every row with expires_at < now, each as
  // its own autocommit DELETE; rows an open transaction has locked are left
  // for the next run. Returns how many rows went.
  uint64_t cleanup_expired(int64_t now_ms);
  // A server restart: every session is gone and its open transaction rolled
  // back; committed rows stay (InnoDB is durable).
  void restart();

  // Introspection for checkers and tests (no locks taken).
  std::vector<Row> rows() const;  // the latest version of each row, by name
  std::optional<SessionId> lock_holder(const std::string& name) const;
  bool connected(SessionId session) const { return sessions_.count(session) > 0; }
  bool in_transaction(SessionId session) const;
  bool waiting(SessionId session) const;

 private:
  struct Undo {
    std::string name;
    std::optional<Row> before;  // nullopt: the row did not exist
  };
  struct Wait {
    Statement statement;
    int64_t deadline_ms = 0;
  };
  struct Session {
    bool explicit_transaction = false;
    std::vector<Undo> undo;
    std::set<std::string> locked;  // the keys it holds exclusive locks on
    std::optional<Wait> wait;
  };
  struct KeyLocks {
    std::optional<SessionId> exclusive;
    std::deque<SessionId> waiters;
  };

  Session& session(SessionId id);
  Outcome run(SessionId id, const Statement& statement);
  Outcome run_row_statement(SessionId id, const Statement& statement);
  bool must_wait(SessionId id, const std::string& name) const;
  bool deadlocks(SessionId requester, const std::string& name) const;
  std::vector<SessionId> blockers(SessionId id, const std::string& name) const;
  void lock_exclusive(SessionId id, const std::string& name);
  void write_row(SessionId id, const std::string& name, std::optional<Row> after);
  std::optional<Row> committed_row(SessionId reader, const std::string& name) const;
  void end_transaction(SessionId id, bool commit);
  void enqueue(SessionId id, const Statement& statement, int64_t now_ms);
  void leave_queue(SessionId id);
  void wake();

  Options options_;
  SessionId next_session_ = 1;
  std::map<SessionId, Session> sessions_;
  std::map<std::string, Row> rows_;
  std::map<std::string, KeyLocks> locks_;
  std::set<std::string> released_;  // keys whose queues may move
  std::vector<Completion> completions_;
};

}  // namespace locksim::db
