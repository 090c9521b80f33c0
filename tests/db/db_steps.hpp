#pragma once
// A sequence of steps over a few sessions, run alike on the database model
// and on a real MariaDB; each side reports what it saw as text lines, which
// the differential test compares.
#include <string>
#include <vector>

#include "locksim/sim/db/statement.hpp"

namespace locksim::db::testing {

struct Step {
  enum class Kind : uint8_t { Run, Disconnect, Timeout };
  Kind kind = Kind::Run;
  unsigned session = 0;  // Run, Disconnect (a new session takes its place)
  Statement statement;   // Run
};

inline constexpr unsigned kLockWaitTimeoutS = 1;

std::string to_sql(const Statement& s);
std::string describe(const Step& step);
// What happened, one line per step: the acting session's result, then each
// blocked statement that finished because of the step.
std::vector<std::string> run_on_model(const std::vector<Step>& steps, unsigned sessions);
class RealMariaDb;
std::vector<std::string> run_on_mariadb(const std::vector<Step>& steps, unsigned sessions, RealMariaDb& server);

}  // namespace locksim::db::testing
