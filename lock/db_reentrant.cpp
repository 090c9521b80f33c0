// db-reentrant ("Implementing distributed locks: MySQL and Redis": record the
// holder's host and thread, and give the lock straight back to them): the
// lock table with owner = host/thread and a hold count. Acquire reads the row
// first: if it is this host and thread's, the count goes up; otherwise it
// INSERTs as db-insert-delete does. Release counts down, and deletes the row
// at the outermost release. No expiry: a holder that dies leaves its row
// (F22) — until the same host and thread come back and take it as their own.
#include <fmt/format.h>

#include "locksim/lock/algorithms.hpp"

namespace locksim::lock {
namespace {

class ReentrantLockTable final : public SpinLock {
 public:
  using SpinLock::SpinLock;

  Task<bool> acquire(Env& env) override {
    owner_ = fmt::format("{}/main", env.client_name());  // host and thread: the same after a restart
    const bool held = co_await SpinLock::acquire(env);
    if (held) ++holds_;
    co_return held;
  }

  Task<bool> release(Env& env) override {
    const bool outermost = holds_ <= 1;
    if (holds_ > 0) --holds_;
    if (!outermost) {
      db::Statement count_down = db::Statement::add_count(key(), owner_, -1);
      auto r = co_await env.db(std::move(count_down), Purpose::Release);
      co_return r.ok() && r.value.done() && r.value.affected == 1;
    }
    db::Statement remove = db::Statement::remove(key(), owner_);
    auto r = co_await env.db(std::move(remove), Purpose::Release);
    co_return r.ok() && r.value.done() && r.value.affected == 1;
  }

 protected:
  Task<bool> try_acquire(Env& env) override {
    db::Statement select = db::Statement::select(key());
    auto read = co_await env.db(std::move(select), Purpose::Other);
    if (!read.ok()) co_return false;
    if (read.value.row && read.value.row->owner == owner_) {
      db::Statement count_up = db::Statement::add_count(key(), owner_, 1);
      auto again = co_await env.db(std::move(count_up), Purpose::Acquire);
      co_return again.ok() && again.value.done() && again.value.affected == 1;
    }
    // Built before the co_await: GCC 12 double-destroys a braced temporary inside one (lock.hpp).
    db::Statement insert = db::Statement::insert(db::Row{key(), owner_, -1, 1});
    auto r = co_await env.db(std::move(insert), Purpose::Acquire);
    co_return r.ok() && r.value.done();
  }

 private:
  std::string owner_;
  int holds_ = 0;
};

}  // namespace
std::unique_ptr<Lock> make_db_reentrant(const LockParams& p) { return std::make_unique<ReentrantLockTable>(p); }
}  // namespace locksim::lock
