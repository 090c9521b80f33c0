#pragma once
// The algorithms in evolution order, by the ids of docs/failures.md#algorithms,
// with what each changes, which posts describe it, and which parameters it reads.
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/lock/lock.hpp"

namespace locksim::lock {

struct Algorithm {
  std::string_view id;
  std::string_view summary;              // one line
  std::string_view documents;            // source keys of the posts that describe it (lock/sources.hpp)
  std::string_view failures;             // catalogue entries it shows or fixes
  std::vector<std::string_view> params;  // names in lock_param_table() it reads
  // Holds mutual exclusion when nothing fails, even if the work outlasts the
  // lease (no expiry at all, or a renewal). The others rely on short work.
  bool safe_without_faults;
  std::function<std::unique_ptr<Lock>(const LockParams&)> make;
  // The properties (docs/failures.md#properties, by id) the lock promises under its
  // assumptions: only their failures are the lock's own and fail `check`; the
  // others are listed apart. None: the basic claims (lock_claims()).
  std::optional<std::vector<std::string_view>> claims = {};
  // Declared by a Lua variant: `check` draws nested acquires for a reentrant
  // lock, and runs start from the variant's parameter defaults (flags override).
  bool reentrant = false;
  LockParams defaults{};
  // The deployment it is designed for (0 / false: the default, one Redis): check
  // and run start from it; --masters / --replica override it.
  uint32_t masters = 0;
  bool replica = false;
  // A variant's own parameters (param(), --param NAME=VALUE; check draws the ranged ones).
  std::vector<VariantParam> own_params{};
  // Keeps its lock in the database (the "db" node), not in Redis.
  bool uses_database = false;
  // Waits on Redis (pub/sub messages, blocking commands): the simulator can
  // run it; a real run cannot yet (Env::WaitUnsupported).
  bool waits_on_redis = false;
};

// What every lock promises: one holder at a time, a dead holder does not block the
// others for good, only the holder releases, and nothing holds the lock or keeps a
// waiter waiting while no one works. Fencing, reentrancy and fairness are claims a
// lock adds (`extra`).
std::vector<std::string_view> lock_claims(std::vector<std::string_view> extra = {});
// The algorithm's claims, the basic ones where it states none.
std::vector<std::string_view> claims_of(const Algorithm& a);

// A deque: entries never move, so pointers from find_algorithm stay valid
// when a variant is registered later.
const std::deque<Algorithm>& algorithms();
const Algorithm* find_algorithm(std::string_view id);
// A user-written variant joins the registry (for examples and tests); ids must be unique.
void register_algorithm(Algorithm algorithm);

}  // namespace locksim::lock
