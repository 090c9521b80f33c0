#pragma once
// The statements the database model understands: the few that the lock
// algorithms of docs/failures.md send to a relational database, over one lock
// table
//
//   CREATE TABLE locks (name VARCHAR(255) PRIMARY KEY, owner VARCHAR(255),
//                       expires_at BIGINT NULL, count INT NOT NULL DEFAULT 1) ENGINE=InnoDB;
//
// and their results, with MariaDB's error numbers and texts.
#include <cstdint>
#include <optional>
#include <string>

namespace locksim::db {

using SessionId = uint64_t;

struct Row {
  std::string name;
  std::string owner;
  int64_t expires_at_ms = -1;  // -1: NULL (never expires)
  int64_t count = 1;
  bool operator==(const Row&) const = default;
};

struct Statement {
  enum class Kind : uint8_t {
    Begin,            // BEGIN
    Commit,           // COMMIT
    Rollback,         // ROLLBACK
    Insert,           // INSERT INTO locks VALUES (row)
    Delete,           // DELETE FROM locks WHERE name = ? [AND owner = ?]
    AddCount,         // UPDATE locks SET count = count + delta WHERE name = ? AND owner = ?
    Select,           // SELECT * FROM locks WHERE name = ?          (a consistent read: no lock)
    SelectForUpdate,  // SELECT * FROM locks WHERE name = ? FOR UPDATE (an exclusive row lock)
  };
  Kind kind = Kind::Select;
  Row row;                           // Insert: the row; others: row.name is the key
  std::optional<std::string> owner;  // Delete/AddCount: "AND owner = ?"
  int64_t delta = 0;                 // AddCount

  static Statement begin() { return {Kind::Begin, {}, {}, 0}; }
  static Statement commit() { return {Kind::Commit, {}, {}, 0}; }
  static Statement rollback() { return {Kind::Rollback, {}, {}, 0}; }
  static Statement insert(Row row) { return {Kind::Insert, std::move(row), {}, 0}; }
  static Statement remove(std::string name, std::optional<std::string> owner = {}) {
    return {Kind::Delete, Row{std::move(name), {}, -1, 0}, std::move(owner), 0};
  }
  static Statement add_count(std::string name, std::string owner, int64_t delta) {
    return {Kind::AddCount, Row{std::move(name), {}, -1, 0}, std::move(owner), delta};
  }
  static Statement select(std::string name) { return {Kind::Select, Row{std::move(name), {}, -1, 0}, {}, 0}; }
  static Statement select_for_update(std::string name) {
    return {Kind::SelectForUpdate, Row{std::move(name), {}, -1, 0}, {}, 0};
  }
};

// MariaDB's error numbers for what the model can answer.
enum class Error : uint16_t {
  None = 0,
  DuplicateKey = 1062,     // Duplicate entry '%s' for key 'PRIMARY'
  LockWaitTimeout = 1205,  // Lock wait timeout exceeded; try restarting transaction
  Deadlock = 1213,         // Deadlock found when trying to get lock; try restarting transaction
};

struct Outcome {
  enum class Status : uint8_t { Done, Failed, Blocked };
  Status status = Status::Done;
  Error error = Error::None;
  uint64_t affected = 0;   // rows inserted, deleted or changed
  std::optional<Row> row;  // what a SELECT found

  bool done() const { return status == Status::Done; }
  bool blocked() const { return status == Status::Blocked; }
};

// MariaDB's message for an error of a statement on `name`.
std::string error_text(Error error, const std::string& name);
std::string describe(const Statement& s);  // the SQL it stands for, for timelines

}  // namespace locksim::db
