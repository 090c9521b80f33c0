#pragma once
// A real MariaDB server for the differential test: installed into a temporary
// directory, listening on a Unix socket only, killed (and the directory
// removed) when the object goes. Sessions use the C connector's non-blocking
// API, so one thread can drive several sessions and see which are blocked on
// a lock.
#include <mysql.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace locksim::db::testing {

class RealMariaDb {
 public:
  // Throws std::runtime_error with a readable reason when the server cannot
  // be installed or started (mariadb-server not installed, ...).
  RealMariaDb();
  ~RealMariaDb();
  RealMariaDb(const RealMariaDb&) = delete;
  RealMariaDb& operator=(const RealMariaDb&) = delete;
  const std::string& socket() const { return socket_; }
  // Runs SQL on a short-lived session of its own (DDL, setup); throws on error.
  void admin(const std::string& sql);

 private:
  std::string dir_, socket_;
  int pid_ = -1;
};

// One session; statements may block, and finish later.
class RealSession {
 public:
  struct Result {
    bool finished = false;          // false: still blocked on a lock
    unsigned error = 0;             // MariaDB error number, 0 for none
    uint64_t affected = 0;
    std::vector<std::vector<std::string>> rows;  // "NULL" for NULL
  };
  RealSession(const std::string& socket, unsigned lock_wait_timeout_s);
  ~RealSession();
  RealSession(const RealSession&) = delete;
  RealSession& operator=(const RealSession&) = delete;

  // Starts a statement and waits up to wait_ms for it to finish.
  Result start(const std::string& sql, int wait_ms);
  // A blocked statement: waits up to wait_ms more.
  Result poll(int wait_ms);
  bool blocked() const { return status_ != 0; }
  void close();  // drops the connection (the server ends the session)

 private:
  Result finish();
  MYSQL* mysql_ = nullptr;
  int status_ = 0;
  int ret_ = 0;
};

}  // namespace locksim::db::testing
