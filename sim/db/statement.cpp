#include "locksim/sim/db/statement.hpp"

namespace locksim::db {

std::string error_text(Error error, const std::string& name) {
  switch (error) {
    case Error::None: return "";
    case Error::DuplicateKey: return "Duplicate entry '" + name + "' for key 'PRIMARY'";
    case Error::LockWaitTimeout: return "Lock wait timeout exceeded; try restarting transaction";
    case Error::Deadlock: return "Deadlock found when trying to get lock; try restarting transaction";
  }
  return "unknown error";
}

std::string describe(const Statement& s) {
  const std::string& name = s.row.name;
  const std::string owner = s.owner ? " AND owner='" + *s.owner + "'" : "";
  switch (s.kind) {
    case Statement::Kind::Begin: return "BEGIN";
    case Statement::Kind::Commit: return "COMMIT";
    case Statement::Kind::Rollback: return "ROLLBACK";
    case Statement::Kind::Insert:
      return "INSERT INTO locks VALUES ('" + name + "','" + s.row.owner + "'," +
             (s.row.expires_at_ms < 0 ? std::string("NULL") : std::to_string(s.row.expires_at_ms)) + "," +
             std::to_string(s.row.count) + ")";
    case Statement::Kind::Delete: return "DELETE FROM locks WHERE name='" + name + "'" + owner;
    case Statement::Kind::AddCount:
      return "UPDATE locks SET count=count+" + std::to_string(s.delta) + " WHERE name='" + name + "'" + owner;
    case Statement::Kind::Select: return "SELECT * FROM locks WHERE name='" + name + "'";
    case Statement::Kind::SelectForUpdate: return "SELECT * FROM locks WHERE name='" + name + "' FOR UPDATE";
  }
  return "?";
}

}  // namespace locksim::db
