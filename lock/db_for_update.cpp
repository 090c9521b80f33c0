// db-for-update ("Implementing distributed locks: MySQL and Redis", the
// exclusive lock; F22's fix): BEGIN, then SELECT ... WHERE name = ? FOR
// UPDATE, which waits in the database's queue until the row lock is granted
// or the lock-wait timeout (the wait limit) passes; the lock is held through
// the critical section and released by COMMIT. Nothing is written: the lock
// is the transaction's, so the database releases it when the session ends —
// after it notices that a crashed holder is gone.
#include "locksim/lock/algorithms.hpp"

namespace locksim::lock {
namespace {

class ForUpdateLock final : public Lock {
 public:
  using Lock::Lock;

  Task<bool> acquire(Env& env) override {
    auto begun = co_await env.db(db::Statement::begin(), Purpose::Other);  // cmd(...)'s pattern: a call, no braces
    if (!begun.ok()) co_return false;
    db::Statement select = db::Statement::select_for_update(key());  // a local: GCC 12 (lock.hpp)
    auto r = co_await env.db(std::move(select), Purpose::Acquire);
    if (r.ok() && r.value.done()) co_return true;
    // Error 1205 or 1213, or no answer in time: end the transaction (a ROLLBACK
    // sent behind a statement still waiting runs when that statement ends).
    auto rolled_back = co_await env.db(db::Statement::rollback(), Purpose::Other);
    (void)rolled_back;
    co_return false;
  }

  Task<bool> release(Env& env) override {
    auto r = co_await env.db(db::Statement::commit(), Purpose::Release);
    co_return r.ok() && r.value.done();
  }
};

}  // namespace
std::unique_ptr<Lock> make_db_for_update(const LockParams& p) { return std::make_unique<ForUpdateLock>(p); }
}  // namespace locksim::lock
