#pragma once
// Where a scenario's random choices come from. Inside rapidcheck's gen::exec (the
// generator users and shrinking use), each choice is rapidcheck's own `*gen::inRange`
// or `*gen::arbitrary<bool>`. The explorer draws thousands of scenarios and never
// shrinks most of them: for it, the same choices are made straight from the run's
// rc::Random, with no generation context, shrink tree or lock around rapidcheck's
// global state. Both give the same value for the same random state and size — the
// drawn scenarios, and so every pinned hash, stay as they were (a test compares them).
#include <rapidcheck.h>
#include <rapidcheck/gen/detail/ScaleInteger.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace locksim::props {

class ScenarioDraws {
 public:
  // Each choice from rapidcheck, inside gen::exec.
  ScenarioDraws() = default;
  // Each choice made directly, as gen::exec(...)(random, size) would make it: gen::exec
  // splits a fresh state off its random state for each choice, in order, and a choice
  // reads that state as inRange and arbitrary<bool> do.
  ScenarioDraws(const rc::Random& random, int size) : direct_(true), random_(random), size_(size) {}

  // A value in [lo, hi): rapidcheck's inRange.
  template <typename T>
  T range(T lo, T hi) {
    static_assert(std::is_integral_v<T>);
    if (!direct_) return *rc::gen::inRange<T>(lo, hi);
    if (hi <= lo) throw rc::GenerationFailure("Invalid range [" + std::to_string(lo) + ", " + std::to_string(hi) + ")");
    rc::Random choice = random_.split();
    // inRange's arithmetic, in its types: the span scaled by the size, then the value.
    const uint64_t span =
        rc::gen::detail::scaleInteger(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) - 1, size_) + 1;
    return static_cast<T>((choice.next() % span) + lo);
  }
  // A fair coin: rapidcheck's arbitrary<bool> (the lowest bit of the state's first number).
  bool coin() {
    if (!direct_) return *rc::gen::arbitrary<bool>();
    rc::Random choice = random_.split();
    return (choice.next() & 1u) != 0;
  }

 private:
  bool direct_ = false;
  rc::Random random_;
  int size_ = 0;
};

}  // namespace locksim::props
