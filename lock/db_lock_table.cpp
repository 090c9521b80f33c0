// db-insert-delete and db-insert-expiry ("Implementing distributed locks:
// MySQL and Redis", the lock table; F22): a row in a table whose primary key
// is the lock's name. INSERT takes the lock (the unique key admits one
// inserter; the others get error 1062 and retry); DELETE ... AND owner = me
// releases it. Without an expiry a holder that dies leaves its row forever
// (F22). With one, the row carries expires_at (on the holder's clock) and the
// database's cleanup job deletes rows whose time has passed — which also
// deletes the row of a holder whose work outlasts it (F22's fix, and its own
// failure).
#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/unix_time.hpp"

namespace locksim::lock {
namespace {

class LockTable final : public SpinLock {
 public:
  LockTable(const LockParams& p, bool expiry) : SpinLock(p), expiry_(expiry) {}

  Task<bool> release(Env& env) override {
    db::Statement remove = db::Statement::remove(key(), owner_);
    auto r = co_await env.db(std::move(remove), Purpose::Release);
    co_return r.ok() && r.value.done() && r.value.affected == 1;
  }

 protected:
  Task<bool> try_acquire(Env& env) override {
    std::string owner = new_token(env);
    const int64_t expires_at = expiry_ ? unix_ms(env.local_now(ClockUse::Validity)) + params().lease.ns / 1'000'000 : -1;
    // Built before the co_await: GCC 12 double-destroys a braced temporary inside one (lock.hpp).
    db::Statement insert = db::Statement::insert(db::Row{key(), owner, expires_at, 1});
    auto r = co_await env.db(std::move(insert), Purpose::Acquire);
    const bool took = r.ok() && r.value.done();  // 1062: someone holds it; no reply: it may have run
    if (took) owner_ = std::move(owner);
    co_return took;
  }

 private:
  bool expiry_;
  std::string owner_;
};

}  // namespace
std::unique_ptr<Lock> make_db_insert_delete(const LockParams& p) { return std::make_unique<LockTable>(p, false); }
std::unique_ptr<Lock> make_db_insert_expiry(const LockParams& p) { return std::make_unique<LockTable>(p, true); }
}  // namespace locksim::lock
