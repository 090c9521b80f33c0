#pragma once
// Durations for people, in the timelines' labels and stories.
#include <string>

#include "locksim/sim/time.hpp"

namespace locksim::render {

// "1.5s", "250ms", "2.013s": a duration rounded to the millisecond, for people;
// coarse: from 100ms up, to 10ms (a 999.4ms lease reads "1s").
std::string human_duration(sim::Duration d, bool coarse = false);

}  // namespace locksim::render
