// Claims: what each lock promises (lock/registry.cpp, a variant's `claims = {...}`),
// and the inventory's split of the failures under the assumptions into the lock's
// own (claimed) and those of properties it does not claim (listed, not counted).
#include <catch2/catch.hpp>

#include <stdexcept>

#include "locksim/lock/lua_variant.hpp"
#include "locksim/props/claims.hpp"
#include "locksim/props/inventory.hpp"
#include "locksim/props/search.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {

const char* kVariantBody = R"(
function acquire()
  while true do
    if call('SET', 'lock', token(), 'NX', 'PX', 1000) then return true end
    sleep(100)
  end
end
function release()
  return call('EVAL', "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0", 1, 'lock', token()) == 1
end
)";

const lock::Algorithm* variant(const std::string& name, const std::string& declarations) {
  std::string error;
  auto v = lock::load_lua_variant_text("name = '" + name + "'\n" + declarations + kVariantBody, "t/" + name + ".lua",
                                       &error);
  INFO(error);
  REQUIRE(v);
  const lock::Algorithm* a = lock::register_lua_variant(v, &error);
  INFO(error);
  REQUIRE(a);
  return a;
}

}  // namespace

TEST_CASE("claims: each built-in claims what its design promises") {
  const std::vector<Property> basic{Property::MutualExclusion, Property::NoDeadlock, Property::OwnerOnlyRelease,
                                    Property::NoZombieLock, Property::NoStalledWait};
  for (const char* a : {"setnx-del", "set-nx-px", "token-lua", "watchdog", "redlock", "pubsub-wait", "db-for-update"}) {
    INFO(a);
    CHECK(claimed_properties(a) == basic);
  }
  // The spin locks promise no fairness, no reentrancy and no fencing: F20, F16 and a late write are not theirs.
  for (Property p : {Property::BoundedWait, Property::Reentrancy, Property::FencedWrites})
    CHECK_FALSE(claims_property(claimed_properties("token-lua"), p));
  CHECK(claims_property(claimed_properties("fair"), Property::BoundedWait));
  CHECK(claims_property(claimed_properties("reentrant"), Property::Reentrancy));
  CHECK(claims_property(claimed_properties("db-reentrant"), Property::Reentrancy));
  // The fence protects the resource; overlapping holds are what it makes harmless.
  CHECK(claims_property(claimed_properties("fenced"), Property::FencedWrites));
  CHECK_FALSE(claims_property(claimed_properties("fenced"), Property::MutualExclusion));
  CHECK_THROWS_AS(claimed_properties("no-such-lock"), std::invalid_argument);
}

TEST_CASE("claims: a variant declares its own, or gets the basic ones with what its shape adds") {
  CHECK(claimed_properties(variant("claims-declared", "claims = { 'bounded-wait', 'mutual-exclusion' }\n")->id) ==
        std::vector<Property>{Property::MutualExclusion, Property::BoundedWait});
  CHECK(claimed_properties(variant("claims-nothing", "claims = {}\n")->id).empty());
  const std::vector<Property> reentrant = claimed_properties(variant("claims-reentrant", "reentrant = true\n")->id);
  CHECK(claims_property(reentrant, Property::Reentrancy));
  CHECK(claims_property(reentrant, Property::MutualExclusion));
  CHECK_FALSE(claims_property(reentrant, Property::FencedWrites));
  // A typo is named with the file, when check reads the claims.
  const lock::Algorithm* typo = variant("claims-typo", "claims = { 'mutual-exclusoin' }\n");
  try {
    claimed_properties(typo->id);
    FAIL("a claim that is no property was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("t/claims-typo.lua: claims: 'mutual-exclusoin' is no property") !=
          std::string::npos);
  }
  // Not a list of ids: refused at load, with the file's name.
  for (const char* bad : {"claims = { fenced = true }\n", "claims = { 1 }\n", "claims = 'mutual-exclusion'\n"}) {
    INFO(bad);
    std::string error;
    CHECK_FALSE(lock::load_lua_variant_text(std::string(bad) + kVariantBody, "t/bad.lua", &error));
    CHECK(error.find("claims") != std::string::npos);
  }
}

TEST_CASE("claims: --claims words") {
  std::string error;
  CHECK(parse_claims("none")->empty());
  CHECK(parse_claims("all")->size() == std::size(kAllProperties));
  CHECK(*parse_claims("reentrancy,mutual-exclusion") ==
        std::vector<Property>{Property::MutualExclusion, Property::Reentrancy});
  CHECK_FALSE(parse_claims("mutual-exclusion,fairness", &error));
  CHECK(error.find("'fairness' is no property") != std::string::npos);
  CHECK_FALSE(parse_claims("", &error));
  CHECK_FALSE(parse_claims("variant-error", &error));
  CHECK(claims_text({}) == "nothing");
  CHECK(with_claim({Property::Reentrancy}, Property::MutualExclusion) ==
        std::vector<Property>{Property::MutualExclusion, Property::Reentrancy});
}

// The issue's case: a 30 s-lease token lock under work<=10s,pause<=5s, client clocks
// unbounded (its waits are timed on the monotonic clock: a clock that jumps back a minute
// while a nested acquire waits stretches nothing; test_monotonic_waits.cpp). What it fails
// under those assumptions is of properties it never claims (fairness, fencing,
// reentrancy); its own list is empty, and nothing is hidden.
TEST_CASE("claims: a 30 s token-lua under work<=10s,pause<=5s has no failure of its own") {
  SearchSettings s;
  s.algorithm = "token-lua";
  s.lock_params = {{"lease", "30s"}};
  s.assume = "work<=10s,pause<=5s";
  const FaultModel model = search_model(s);
  InventoryOptions o;
  o.runs = 300;
  const Inventory inv = take_inventory(model, o);
  CHECK(inv.claims == claimed_properties("token-lua"));
  bool unclaimed_seen = false;
  for (const Failure& f : inv.failures) {
    INFO(to_string(f.property) << " by " << to_string(f.cause) << ": " << to_string(f.example.shrunk));
    CHECK_FALSE(own_failure(f));
    CHECK(f.claimed == claims_property(inv.claims, f.property));
    if (unclaimed_failure(f)) unclaimed_seen = true;
  }
  CHECK(unclaimed_seen);  // listed, not hidden
  // Grouped: the lock's own, then unclaimed inside the assumptions, then outside them.
  auto group = [](const Failure& f) { return own_failure(f) ? 0 : unclaimed_failure(f) ? 1 : 2; };
  for (size_t i = 1; i < inv.failures.size(); ++i) CHECK(group(inv.failures[i - 1]) <= group(inv.failures[i]));

  // Claimed by name (--property, or --claims): the same failures become its own.
  o.claims = std::vector<Property>(std::begin(kAllProperties), std::end(kAllProperties));
  const Inventory all = take_inventory(model, o);
  REQUIRE(all.failures.size() == inv.failures.size());
  for (size_t i = 0; i < all.failures.size(); ++i) CHECK(all.failures[i].claimed);
  o.claims.reset();
  o.target = Property::BoundedWait;
  CHECK(claims_property(claims_in_force(model, o), Property::BoundedWait));
}
