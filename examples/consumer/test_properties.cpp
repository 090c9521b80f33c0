// (c) locksim's scenario generators inside the user's own rapidcheck property.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>
#include <locksim/testing/generators.hpp>

using locksim::props::Property;

TEST_CASE("my-lock releases only its own lock under network delays") {
  const auto model = locksim::testing::fault_model("my-lock", "delay,slow-work");
  rc::prop("owner-only release holds", [&] {
    const auto scenario = *locksim::testing::gen::scenario(model);
    RC_ASSERT(locksim::testing::run(scenario).verdict.holds(Property::OwnerOnlyRelease));
  });
}
