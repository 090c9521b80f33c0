// The targeted inside search aimed at a cause's mechanism (props/mechanism_aims.hpp): a
// failure of the lock's own whose mechanism the drawn runs rarely meet (an acquire that took
// the whole lease, a write delayed past the next holder's, a slow clock under a long
// section) is found inside the assumptions on every seed, by runs that depend on (seed,
// algorithm, cause) alone: the label no longer hangs on sampling luck, and shards agree.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <string>

#include "locksim/props/assumptions.hpp"
#include "locksim/props/inside_search.hpp"
#include "locksim/props/inventory.hpp"
#include "locksim/props/mechanism_aims.hpp"
#include "locksim/props/search.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {

FaultModel aims_check_model(const std::string& algorithm) {
  SearchSettings s;
  s.algorithm = algorithm;
  return search_model(s);
}

// A search whose drawn runs cannot show `cause` (none at all: a budget of one run on a
// stream that does not fail), so that what is found is the aimed runs' doing.
InsideSearchOptions aims_search(uint64_t seed, uint32_t budget) {
  InsideSearchOptions o;
  o.seed = seed;
  o.budget = budget;
  return o;
}

bool has_fault(const Scenario& s, sim::FaultKind kind) {
  return std::any_of(s.faults.faults.begin(), s.faults.faults.end(),
                     [&](const sim::Fault& f) { return f.kind == kind; });
}

// What the search found: inside the assumptions, failing with the property and the cause
// sought on replay, and 1-minimal (each element necessary).
void check_found_inside(const FaultModel& m, const FailureKey& key, const InsideSearch& r) {
  REQUIRE(r.found);
  const Scenario& s = r.found->shrunk;
  INFO(to_string(s));
  CHECK(broken_assumptions(s, m.assumed).empty());
  CHECK(r.found->violation.property == key.first);
  CHECK(r.found->violation.cause == key.second);
  const RunResult again = run_scenario(s);
  const Violation* v = again.verdict.find(key.first);
  REQUIRE(v);
  CHECK(v->cause == key.second);
  const StillFails same = fails_with(key.first, {key.second}, {});
  for (const Element& e : elements_of(s)) {
    INFO("without " << e.what);
    CHECK_FALSE(same(e.without));
  }
}

}  // namespace

TEST_CASE("mechanism aims: one per cause, struck only where the model can draw it inside", "[props]") {
  for (const MechanismAim& aim : mechanism_aims()) {
    CHECK(mechanism_aim(aim.cause) == &aim);
    CHECK_FALSE(aim.kinds.empty());
    CHECK_FALSE(aim.adds.empty());
  }
  CHECK(mechanism_aim(Cause::LeaseOutworked) == nullptr);
  const MechanismAim& no_validity = *mechanism_aim(Cause::NoValidityLeft);
  const MechanismAim& skew = *mechanism_aim(Cause::ClientClockSkew);
  const MechanismAim& delayed = *mechanism_aim(Cause::DelayedWrite);
  FaultModel m = aims_check_model("token-lua");
  CHECK(aimable(no_validity, m));
  CHECK(aimable(skew, m));
  CHECK(aimable(delayed, m));
  // A pause bound below the lease rules out a pause of the whole lease; a sane client clock,
  // a slow one; a model that draws no delay spikes, the spikes.
  FaultModel bounded = m;
  bounded.assumed.max_pause = sim::milliseconds(100);
  CHECK_FALSE(aimable(no_validity, bounded));
  bounded.assumed.sane_client_clock = true;
  CHECK_FALSE(aimable(skew, bounded));
  FaultModel no_spikes = m;
  std::erase(no_spikes.kinds, FaultFamily::DelaySpikes);
  CHECK_FALSE(aimable(delayed, no_spikes));
  // Aimed scenarios stay inside the assumptions, and the same key aims the same way.
  for (uint32_t i = 0; i < 20; ++i) {
    const Scenario drawn = draw(m, aimed_search_draw(m, 1, Cause::DelayedWrite, i));
    const std::optional<Scenario> a = aimed_scenario(delayed, m, drawn, nullptr, 7 + i);
    REQUIRE(a);
    INFO(to_string(*a));
    CHECK(broken_assumptions(*a, m.assumed).empty());
    CHECK(a->latency.spike_probability >= 0.2);
    CHECK(a->latency.spike_cap >= m.base.lock.lease);
    CHECK(to_string(*a) == to_string(*aimed_scenario(delayed, m, drawn, nullptr, 7 + i)));
    const std::optional<Scenario> slow = aimed_scenario(skew, m, drawn, nullptr, 7 + i);
    REQUIRE(slow);
    CHECK(broken_assumptions(*slow, m.assumed).empty());
    CHECK(slow->workload.slow_work.size() == drawn.workload.slow_work.size() + 1);
  }
  // Without a probe there is nowhere to strike the pause.
  CHECK_FALSE(aimed_scenario(no_validity, m, draw(m, aimed_search_draw(m, 1, Cause::NoValidityLeft, 0)), nullptr, 1));
  // Each cause has its own stream, of the seed and the algorithm.
  CHECK(aimed_search_draw(m, 1, Cause::NoValidityLeft, 0).random_key !=
        aimed_search_draw(m, 1, Cause::DelayedWrite, 0).random_key);
  CHECK(aimed_search_draw(m, 1, Cause::NoValidityLeft, 0).random_key !=
        aimed_search_draw(m, 2, Cause::NoValidityLeft, 0).random_key);
  CHECK(aimed_search_draw(m, 1, Cause::NoValidityLeft, 0).random_key !=
        inside_search_draw(m, 1, 0).random_key);
}

TEST_CASE("mechanism aims: an acquire's grant comes before its reply, and a pause struck between makes it late",
          "[props]") {
  Scenario s = *parse_scenario("token-lua seed=3 clients=2 iterations=2");
  std::vector<GrantedAcquire> acquires;
  run_scenario(s, {}, [&](const lock::History& h) { acquires = granted_acquires(h); });
  REQUIRE(acquires.size() == 4);  // two clients, two sections each
  for (const GrantedAcquire& a : acquires) CHECK(a.granted < a.acquired);
  const FaultModel m = aims_check_model("token-lua");
  const MechanismAim& aim = *mechanism_aim(Cause::NoValidityLeft);
  std::optional<Scenario> aimed;
  run_scenario(s, {}, [&](const lock::History& h) { aimed = aimed_scenario(aim, m, s, &h, 11); });
  REQUIRE(aimed);
  INFO(to_string(*aimed));
  REQUIRE(aimed->faults.faults.size() == 1);
  const sim::Fault& pause = aimed->faults.faults[0];
  CHECK(pause.kind == sim::FaultKind::Pause);
  CHECK(pause.amount > s.lock.lease);
  CHECK(pause.amount <= s.lock.lease * 2);
  const bool between = std::any_of(acquires.begin(), acquires.end(), [&](const GrantedAcquire& a) {
    return lock::client_name(a.client) == pause.node && a.granted < pause.at && pause.at < a.acquired;
  });
  CHECK(between);
  // The printed scenario reads back exactly: the pause sits on a whole microsecond.
  CHECK(to_string(*parse_scenario(to_string(*aimed))) == to_string(*aimed));
  const RunResult r = run_scenario(*aimed);
  const Violation* v = r.verdict.find(Property::MutualExclusion);
  REQUIRE(v);
  CHECK(v->cause == Cause::NoValidityLeft);
}
