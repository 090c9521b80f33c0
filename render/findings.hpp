#pragma once
// A small stand-in for props/'s checkers, read straight off a Timeline, so
// that `locksim run` and the tour can point at what went wrong before the
// explorer exists (and so the renderers can be tested alone). props/ owns the
// real properties; convert its violations into Highlights instead when it is
// there. Each finding carries a one-sentence explanation of why it happened.
#include <string>
#include <vector>

#include "render/timeline.hpp"

namespace locksim::render {

// In time order:
//  - mutual-exclusion: two clients' critical sections (as they believe them,
//    paused ones included) overlap in true time;
//  - owner-only-release: a client's command deleted the lock key while it
//    held another client's lock;
//  - no-deadlock: a client crashed while its lock key had no expiry, and the
//    key outlived it to the end of the run.
std::vector<Highlight> find_violations(const Timeline& t);

// Why two clients' holds overlap: "A's lease expired during its 1.5s
// critical section", "C deleted B's lock", ... (no trailing full stop).
std::string explain_overlap(const Timeline& t, uint32_t first, uint32_t second, Instant first_enter, Instant second_enter);

// "1.5s", "250ms", "2.013s": a duration rounded to the millisecond, for people;
// coarse: from 100ms up, to 10ms (a 999.4ms lease reads "1s").
std::string human_duration(Duration d, bool coarse = false);

}  // namespace locksim::render
