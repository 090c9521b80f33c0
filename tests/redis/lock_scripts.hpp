#pragma once
// The Lua scripts of the lock algorithms in docs/failures.md, exactly as the lock
// clients send them (lock/scripts.hpp, header-only: no link dependency).
#include "locksim/lock/scripts.hpp"

namespace locksim::redis::testing {

inline constexpr const char* kCompareAndDelete = lock::scripts::kCompareAndDelete.data();
inline constexpr const char* kCompareAndPexpire = lock::scripts::kCompareAndPexpire.data();
inline constexpr const char* kRedissonLock = lock::scripts::kReentrantLock.data();
inline constexpr const char* kRedissonUnlock = lock::scripts::kReentrantUnlock.data();
inline constexpr const char* kRedissonRenew = lock::scripts::kReentrantRenew.data();

}  // namespace locksim::redis::testing
