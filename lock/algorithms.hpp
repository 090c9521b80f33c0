#pragma once
// Factories of the built-in algorithms, one per file of this folder.
#include <memory>

#include "locksim/lock/lock.hpp"

namespace locksim::lock {

std::unique_ptr<Lock> make_setnx_del(const LockParams&);
std::unique_ptr<Lock> make_setnx_expire(const LockParams&);
std::unique_ptr<Lock> make_del_setnx(const LockParams&);
std::unique_ptr<Lock> make_getset(const LockParams&);
std::unique_ptr<Lock> make_set_nx_px(const LockParams&);
std::unique_ptr<Lock> make_token_check_del(const LockParams&);
std::unique_ptr<Lock> make_token_lua(const LockParams&);
std::unique_ptr<Lock> make_watchdog(const LockParams&);
std::unique_ptr<Lock> make_reentrant(const LockParams&);
std::unique_ptr<Lock> make_watch_multi(const LockParams&);
std::unique_ptr<Lock> make_fenced(const LockParams&);
std::unique_ptr<Lock> make_fair(const LockParams&);
std::unique_ptr<Lock> make_redlock(const LockParams&);
std::unique_ptr<Lock> make_pubsub_wait(const LockParams&);
std::unique_ptr<Lock> make_db_insert_delete(const LockParams&);
std::unique_ptr<Lock> make_db_insert_expiry(const LockParams&);
std::unique_ptr<Lock> make_db_for_update(const LockParams&);
std::unique_ptr<Lock> make_db_reentrant(const LockParams&);

}  // namespace locksim::lock
