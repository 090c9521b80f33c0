#pragma once
// The lock properties of docs/failures.md#properties, a violation of one (which clients,
// which lock, which true-time interval, in one sentence), and the metrics of
// the entries that are measured rather than violated (F06, F11, F20).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/props/cause.hpp"
#include "locksim/sim/time.hpp"

namespace locksim::props {

using sim::Duration;
using sim::Instant;

enum class Property : uint8_t {
  MutualExclusion,
  NoDeadlock,
  OwnerOnlyRelease,
  FencedWrites,
  Reentrancy,
  BoundedWait,
  // Liveness (check_zombie.cpp): the lock is not kept alive while no client holds it
  // (a zombie lock), and a waiter is not kept waiting while the lock is free (a
  // stalled queue), each for longer than the lease plus the deadlock slack.
  NoZombieLock,
  NoStalledWait,
  // Not a lock property: a Lua variant failed (a Lua error, an unhandled error
  // reply, a budget). Reported before any other, as it says the run is not the
  // lock's but the variant's bug.
  VariantError,
};
// The lock properties (VariantError is not one).
inline constexpr Property kAllProperties[] = {Property::MutualExclusion,  Property::NoDeadlock,
                                              Property::OwnerOnlyRelease, Property::FencedWrites,
                                              Property::Reentrancy,       Property::BoundedWait,
                                              Property::NoZombieLock,     Property::NoStalledWait};
std::string_view to_string(Property p);
std::optional<Property> parse_property(std::string_view text);

struct Violation {
  Property property = Property::MutualExclusion;
  std::vector<uint32_t> clients;  // the clients involved, the earlier holder first
  std::string key;                // the lock key
  Instant from, to;               // the true-time interval of the violation
  std::string sentence;           // "A and B both held lock from 1.000s to 1.500s: <why>"
  Cause cause = Cause::Unknown;   // what made it possible (classify.hpp)
  std::string fault = {};         // the fault that produced it, as the scenario writes it, or ""
};

struct Metrics {
  Duration expiry_drift{};     // F06: how far a losing GETSET moved the winner's expiry
  Duration unavailability{};   // F11: longest time the lock stayed with a dead holder
  Duration longest_wait{};     // F20: longest acquire wait (successful or not)
  uint32_t max_overtakes = 0;  // F20: most later arrivals that won while one client waited
  uint32_t acquisitions = 0;
  // What the other properties had to check (props/exercised.hpp): resource writes
  // made while holding (fenced-writes), acquires made while holding (reentrancy).
  uint32_t held_writes = 0;
  uint32_t nested_acquisitions = 0;
};

struct Verdict {
  std::vector<Violation> violations;  // the first of each property, in time order
  Metrics metrics;
  const Violation* find(Property p) const {
    for (const auto& v : violations)
      if (v.property == p) return &v;
    return nullptr;
  }
  bool holds(Property p) const { return find(p) == nullptr; }
};

}  // namespace locksim::props
