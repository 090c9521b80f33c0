#include "locksim/props/shrink_memo.hpp"

#include "locksim/props/scenario.hpp"

namespace locksim::props {

std::optional<Violation> ShrinkMemo::operator()(const Scenario& candidate) {
  auto& same_text = seen_[to_string(candidate)];
  for (const auto& [scenario, answer] : same_text) {
    if (scenario == candidate) {
      ++hits_;
      return answer;
    }
  }
  std::optional<Violation> answer = inner_(candidate);
  same_text.emplace_back(candidate, answer);
  return answer;
}

StillFails memoized(StillFails still_fails) {
  auto memo = std::make_shared<ShrinkMemo>(std::move(still_fails));
  return [memo](const Scenario& candidate) { return (*memo)(candidate); };
}

}  // namespace locksim::props
