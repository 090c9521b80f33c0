// LOCKSIM_ASSERT: on in every build; on failure it says where, what and why,
// with the notes in scope (the simulation seed), then aborts.
#include <catch2/catch.hpp>

#include "death.hpp"
#include "locksim/base/assert.hpp"

using locksim::base::assert_failure_text;
using locksim::base::ScopedAssertNote;

TEST_CASE("assert: the failure text names the place, the condition, the message and the notes", "[assert]") {
  CHECK(assert_failure_text("sim/world.cpp", 12, "at >= now_", "in the past") ==
        "locksim: internal error at sim/world.cpp:12: in the past\n"
        "  check failed: at >= now_\n"
        "  this is a bug in locksim: please report it with the lines above\n");
  {
    const ScopedAssertNote outer("simulation seed", 7);
    const ScopedAssertNote inner("run", 3);
    const std::string text = assert_failure_text("f.cpp", 1, "x", "m");
    CHECK(text.find("  run: 3\n  simulation seed: 7\n") != std::string::npos);
  }
  // Out of scope, the notes are gone.
  CHECK(assert_failure_text("f.cpp", 1, "x", "m").find("seed") == std::string::npos);
}

TEST_CASE("assert: a failed check aborts even in a release build, a passing one costs nothing", "[assert]") {
  int evaluated = 0;
  LOCKSIM_ASSERT(1 + 1 == 2, (++evaluated, "never built"));
  CHECK(evaluated == 0);  // the message is built only on failure
  const ChildEnd end = run_in_child([] {
    const ScopedAssertNote note("simulation seed", 99);
    const int lease_ms = -1;
    LOCKSIM_ASSERT(lease_ms > 0, "a lease must be positive");
  });
  CHECK(end.aborted);
  CHECK(end.stderr_text.find("tests/sim/test_assert.cpp:") != std::string::npos);
  CHECK(end.stderr_text.find("a lease must be positive") != std::string::npos);
  CHECK(end.stderr_text.find("check failed: lease_ms > 0") != std::string::npos);
  CHECK(end.stderr_text.find("simulation seed: 99") != std::string::npos);
}
