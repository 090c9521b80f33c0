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
  // Waits until the server has ended session `thread_id` (a closed client's
  // rollback is done once its thread is gone).
  void wait_gone(unsigned long thread_id);
  // Keeps a consistent snapshot open from now on, so that purge never removes
  // a deleted row while the test runs (its timing would otherwise decide
  // whether a deleted key is locked as a row or as a gap).
  void hold_purge();

 private:
  std::string dir_, socket_;
  int pid_ = -1;
  MYSQL* snapshot_ = nullptr;
};

// One session; statements may block, and finish later. Whether a statement
// is blocked is asked of the server (its transaction is in LOCK WAIT), never
// guessed from how long it takes, so a loaded machine cannot fake a wait.
class RealSession {
 public:
  struct Result {
    bool finished = false;  // false: still blocked on a lock
    unsigned error = 0;     // MariaDB error number, 0 for none
    uint64_t affected = 0;
    std::vector<std::vector<std::string>> rows;  // "NULL" for NULL
  };
  RealSession(const std::string& socket, unsigned lock_wait_timeout_s);
  ~RealSession();
  RealSession(const RealSession&) = delete;
  RealSession& operator=(const RealSession&) = delete;

  // Starts a statement; returns once it finished or waits for a lock.
  Result start(const std::string& sql);
  // A statement that was waiting: returns once it finished, or is (still) waiting.
  Result poll();
  bool blocked() const { return status_ != 0; }
  unsigned long thread_id() const { return thread_id_; }
  void close();  // drops the connection (the server ends the session)

 private:
  bool in_lock_wait();
  Result finish();
  MYSQL* mysql_ = nullptr;
  MYSQL* watch_ = nullptr;  // a second connection that asks about this one
  unsigned long thread_id_ = 0;
  int status_ = 0;
  int ret_ = 0;
};

}  // namespace locksim::db::testing
