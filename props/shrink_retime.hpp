#pragma once
// Retiming: a step of 1-minimal shrinking (one_minimal, explorer.hpp) for the elements
// that may be kept only for the TIMING they give the faults, not for the failure's
// mechanism (issue 27). A client's clock offset or drift, a Redis clock's drift, a slow
// section or the delay spikes move when a client reaches each step, and so where its
// faults at fixed instants (`crash A @10ms`) land between those steps. Removing such an
// element alone may fail only because a crash then lands before the SET it followed; the
// same failure without it needs the crash moved, not the clock.
//
// So before an element of that kind is taken as necessary, the scenario without it is
// tried with the timed faults it moved slid to where they were, in a fixed order:
//   1. relative to their client's own steps: as long after the client's last step
//      before the fault (its history) as they were (half-way to its next step, at most);
//   2. by the element's own effect: the instant on the removed clock (T + offset +
//      T * drift), the other way (T - ...), or a slow section's work earlier and later;
//   3. at the client's next call: `crash A @T` becomes `call=A:N:crash` (a pause, a
//      `pause:D`), N the call A was about to send at T;
//   4. pauses and calls held in flight lengthened or shortened by the element's effect;
//   5. the client's call faults aimed one call later, or one earlier.
// A candidate is taken only when it shows the same failure (property and cause): the
// element then goes and the 1-minimal passes go on. Each success removes one element, so
// the step is bounded by their number; no budget, no wall clock.
#include <vector>

#include "locksim/props/explorer.hpp"

namespace locksim::props {

// The replacements tried for `s`'s timing elements, in the order tried (each element's
// candidates together, elements in elements_of's order). The plain removals are not among
// them: one_minimal tries those.
std::vector<Scenario> retimings(const Scenario& s);

// Replaces `s` by the first of retimings(s) that still fails; true if one did. Counts its
// replays into `found`, if given, and keeps the violation of the replacement there.
bool retimed(Scenario& s, const StillFails& still_fails, Counterexample* found = nullptr);

}  // namespace locksim::props
