#include "locksim/props/exercised.hpp"

#include <fmt/format.h>

namespace locksim::props {

std::optional<std::string> unexercised(const Metrics& m, std::optional<Property> target, uint64_t runs) {
  if (runs == 0) return std::nullopt;  // a shard past the last run: nothing was asked of it
  const std::string in_runs = fmt::format("in {} run{}", runs, runs == 1 ? "" : "s");
  if (m.acquisitions == 0)
    return fmt::format("the lock was never acquired {}: no property had anything to check", in_runs);
  if (target == Property::FencedWrites && m.held_writes == 0)
    return fmt::format("{} had nothing to check: no holder wrote to the protected resource {}", to_string(*target),
                       in_runs);
  if (target == Property::Reentrancy && m.nested_acquisitions == 0)
    return fmt::format("{} had nothing to check: no holder acquired the lock again while holding it {}",
                       to_string(*target), in_runs);
  return std::nullopt;
}

}  // namespace locksim::props
