#include <iostream>

#include "cli/commands.hpp"

namespace locksim::cli {
int cmd_tour(const TourOptions&) { return kNotYetAvailable; }
}  // namespace locksim::cli
