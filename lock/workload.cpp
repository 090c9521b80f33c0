#include "locksim/lock/workload.hpp"

#include <fmt/format.h>

namespace locksim::lock {

std::string client_name(uint32_t index) {
  if (index < 26) return std::string(1, static_cast<char>('A' + index));
  return fmt::format("C{}", index);
}

}  // namespace locksim::lock
