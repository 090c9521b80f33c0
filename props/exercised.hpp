#pragma once
// Whether a check exercised anything: a lock that never acquired in any run, or a
// property that never had anything to check, proves nothing however many runs
// passed, and must not read as a pass.
#include <cstdint>
#include <optional>
#include <string>

#include "locksim/props/property.hpp"

namespace locksim::props {

// Why `runs` runs whose summed metrics are `m` checked nothing of `target` (or of
// any property), as a sentence; nullopt when they did check something.
std::optional<std::string> unexercised(const Metrics& m, std::optional<Property> target, uint64_t runs);

}  // namespace locksim::props
