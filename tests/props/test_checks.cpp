// The property checkers on runs whose outcome is known from docs/failures.md:
// each violation names the property, the clients and the interval.
#include <catch2/catch.hpp>

#include "locksim/props/explorer.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {
Verdict verdict_of(std::string_view text) {
  std::string error;
  auto s = parse_scenario(text, &error);
  INFO(error);
  REQUIRE(s);
  return run_scenario(*s).verdict;
}
const std::string kSlowA = " seed=2 clients=2 iterations=1 slow=A:0:1.5s";
}  // namespace

TEST_CASE(
    "checks: set-nx-px with work longer than the lease breaks mutual exclusion and owner-only release (F07, F08)") {
  Verdict v = verdict_of("set-nx-px" + kSlowA);
  const Violation* me = v.find(Property::MutualExclusion);
  REQUIRE(me);
  CHECK(me->clients == std::vector<uint32_t>{0, 1});  // A held first, B came in
  CHECK(me->key == "lock");
  CHECK(me->from >= sim::Instant{} + sim::seconds(1));        // not before A's lease ran out
  CHECK(me->to <= sim::Instant{} + sim::milliseconds(1600));  // nor after A left
  CHECK(me->sentence.find("A and B both held lock") == 0);
  CHECK(me->cause == Cause::LeaseOutworked);  // classified from the run: A worked past its lease
  CHECK(me->fault == "slow=A:0:1.5s");
  CHECK(me->sentence.find("A's lease expired at") != std::string::npos);
  // F08: when A's slow work ends while B holds, A's DEL removes B's lock.
  Verdict late = verdict_of("set-nx-px seed=2 clients=2 iterations=1 slow=A:0:1.017s");
  const Violation* owner = late.find(Property::OwnerOnlyRelease);
  REQUIRE(owner);
  CHECK(owner->clients == std::vector<uint32_t>{1, 0});  // B's lock, A's release
  CHECK(owner->sentence.find("A's release deleted the lock B had acquired") == 0);
  CHECK(owner->cause == Cause::StaleRelease);
}

TEST_CASE("checks: token-lua on the same schedule overlaps, but its late release is harmless (F10)") {
  Verdict v = verdict_of("token-lua" + kSlowA);
  CHECK_FALSE(v.holds(Property::MutualExclusion));
  CHECK(v.holds(Property::OwnerOnlyRelease));
}

TEST_CASE("checks: the watchdog keeps the same schedule safe") {
  Verdict v = verdict_of("watchdog" + kSlowA);
  CHECK(v.violations.empty());
}

TEST_CASE("checks: a holder that dies leaves setnx-del's key forever, but set-nx-px's expires (F01)") {
  Verdict broken = verdict_of("setnx-del seed=44 clients=2 iterations=1 faults=[crash A @14ms]");
  const Violation* v = broken.find(Property::NoDeadlock);
  REQUIRE(v);
  CHECK(v->clients.front() == 0);
  CHECK(v->sentence.find("A died at 0.014s holding lock") == 0);
  Verdict fixed = verdict_of("set-nx-px seed=44 clients=2 iterations=1 faults=[crash A @14ms]");
  CHECK(fixed.holds(Property::NoDeadlock));
  CHECK(fixed.metrics.unavailability <= sim::seconds(1));
}

TEST_CASE("checks: a long lease costs its whole length when the holder dies (F11's metric)") {
  Verdict v = verdict_of("token-lua seed=44 clients=2 iterations=1 lease=30s wait-limit=2s faults=[crash A @14ms]");
  CHECK(v.holds(Property::NoDeadlock));
  CHECK(v.metrics.unavailability > sim::seconds(29));
  CHECK(v.metrics.unavailability <= sim::seconds(30));
}

TEST_CASE("checks: token-lua deadlocks on itself when nested, reentrant does not (F16)") {
  Verdict broken = verdict_of("token-lua seed=0 clients=1 iterations=1 nested=1 lease=30s wait-limit=2s");
  const Violation* v = broken.find(Property::Reentrancy);
  REQUIRE(v);
  CHECK(v->clients == std::vector<uint32_t>{0});
  CHECK(v->to - v->from >= sim::seconds(2));
  CHECK(verdict_of("reentrant seed=0 clients=1 iterations=1 nested=2 lease=30s wait-limit=2s").violations.empty());
}

TEST_CASE("checks: fixed-interval spinning lets newcomers overtake, the fair lock does not (F20)") {
  const std::string contention = " seed=4 clients=3 iterations=2 work=20ms..100ms think=0s..50ms";
  Verdict spin = verdict_of("token-lua" + contention);
  REQUIRE(spin.find(Property::BoundedWait));
  CHECK(spin.metrics.max_overtakes > 2);
  Verdict fair = verdict_of("fair" + contention);
  CHECK(fair.holds(Property::BoundedWait));
  CHECK(fair.holds(Property::MutualExclusion));
}

TEST_CASE("checks: a client whose clock runs ahead takes a live getset lock (F04)") {
  Verdict v = verdict_of("getset seed=2 clients=2 iterations=1 clock=A:-722ms:0 clock=B:+171ms:0");
  const Violation* me = v.find(Property::MutualExclusion);
  REQUIRE(me);
  CHECK(me->cause == Cause::ClientClockSkew);
  CHECK(me->sentence.find("judged A's timestamp expired by a skewed clock") != std::string::npos);
  CHECK(verdict_of("set-nx-px seed=2 clients=2 iterations=1 clock=A:-722ms:0 clock=B:+171ms:0").violations.empty());
}
