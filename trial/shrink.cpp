#include "locksim/trial/shrink.hpp"

namespace locksim::trial {

Shrunk shrink(const Schedule& found, double threshold, const std::function<double(const Schedule&)>& rate,
              const std::function<void(const ShrinkStep&)>& on_step) {
  Shrunk out{found, {}};
  for (size_t i = found.faults.size(); i-- > 0;) {
    Schedule without = out.schedule;
    without.faults.erase(without.faults.begin() + static_cast<std::ptrdiff_t>(i));
    ShrinkStep step{out.schedule.faults[i], rate(without), false};
    step.kept = step.rate < threshold;
    if (!step.kept) out.schedule = std::move(without);
    if (on_step) on_step(step);
    out.steps.push_back(step);
  }
  return out;
}

}  // namespace locksim::trial
