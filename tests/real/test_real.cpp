// The real environment as a library: a scenario run against redis-server
// processes, recorded in the simulator's History, checked by props::check,
// and every child gone when the run is.
#include <catch2/catch.hpp>

#include <algorithm>

#include "locksim/props/check.hpp"
#include "locksim/props/scenario.hpp"
#include "locksim/real/process.hpp"
#include "locksim/real/run.hpp"
#include "locksim/real/scale.hpp"

using namespace locksim;

namespace {

props::Scenario scenario(const std::string& text) {
  std::string error;
  auto s = props::parse_scenario(text, &error);
  INFO(error);
  REQUIRE(s);
  return *s;
}

props::Verdict check(const real::RealRun& run) {
  props::RunEnd end;
  end.at = run.ended_at();
  end.key_pttl_ms = run.key_pttl_ms();
  end.key_exists = end.key_pttl_ms != -2;
  return props::check(run.history(), run.config(), end);
}

bool has_step(const lock::History& h, lock::Step step) {
  for (const auto& e : h.events())
    if (e.step == step) return true;
  return false;
}

}  // namespace

TEST_CASE("a restart without persistence forgets the lock on a real redis-server (F23)") {
  // B holds for 1s; the restart at 300ms forgets its lock and A takes it while B works.
  const props::Scenario s =
      real::scaled(scenario("watchdog seed=1 clients=2 iterations=1 work=1s..1s faults=[restart redis @300ms]"), 2);
  real::RealSetup setup;
  setup.redis_server = real::redis_server_binary();
  props::Verdict verdict;
  bool restarted = false;
  for (int attempt = 0; attempt < 3 && verdict.holds(props::Property::MutualExclusion); ++attempt) {
    real::RealRun run(s, setup);
    REQUIRE(real::running_children() == 1);
    run.run();
    restarted =
        has_step(run.history(), lock::Step::ServerCrashed) && has_step(run.history(), lock::Step::ServerRestarted);
    verdict = check(run);
  }
  REQUIRE(real::running_children() == 0);
  REQUIRE(restarted);
  const props::Violation* v = verdict.find(props::Property::MutualExclusion);
  REQUIRE(v);
  // Which of the two took the lock first is real timing (a loaded machine may start A first).
  std::vector<uint32_t> clients = v->clients;
  std::sort(clients.begin(), clients.end());
  CHECK(clients == std::vector<uint32_t>{0, 1});
  CHECK(v->cause == props::Cause::RedisRestartLost);
}

TEST_CASE("the key effects of a real run are recorded as the simulator records them") {
  const props::Scenario s = scenario("token-lua seed=3 clients=2 iterations=1");
  real::RealSetup setup;
  setup.redis_server = real::redis_server_binary();
  real::RealRun run(s, setup);
  run.run();
  uint32_t sets = 0, deletes = 0, acquired = 0;
  for (const auto& e : run.history().events()) {
    if (e.step == lock::Step::KeySet && e.key == "lock" && e.purpose == lock::Purpose::Acquire) ++sets;
    if (e.step == lock::Step::KeyDeleted && e.key == "lock" && e.purpose == lock::Purpose::Release) ++deletes;
    if (e.step == lock::Step::Acquired) ++acquired;
  }
  CHECK(acquired == 2);
  CHECK(sets == 2);
  CHECK(deletes == 2);
  CHECK(check(run).violations.empty());
  CHECK(run.key_pttl_ms() == -2);  // both released
}

TEST_CASE("a redis-server that will not start is a clear error, and nothing is left running") {
  const props::Scenario s = scenario("token-lua seed=1 clients=1 iterations=1");
  real::RealSetup setup;
  setup.redis_server = "/bin/false";
  REQUIRE_THROWS_AS(real::RealRun(s, setup), real::NoRedisServer);
  CHECK(real::running_children() == 0);
  REQUIRE_THROWS_WITH(real::redis_server_binary("/nonexistent/redis-server"),
                      Catch::Contains("not an executable file"));
}

TEST_CASE("a fault that cannot be injected for real is named, not ignored") {
  const auto bad = real::not_reproducible(scenario("getset seed=1 clients=2 faults=[jump redis @1s by +2s]"));
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].find("jump redis") != std::string::npos);
  // A delay of one message in flight: a write to the in-process resource, or a request (no delaying proxy).
  const auto delayed =
      real::not_reproducible(scenario("redlock seed=1 clients=2 call=A:write1:delay:700ms call=B:3:delay:200ms"));
  REQUIRE(delayed.size() == 2);
  CHECK(delayed[0].find("call=A:write1:delay:700ms: the fenced resource") == 0);
  CHECK(delayed[1].find("call=B:3:delay:200ms: a real client's request cannot be held") == 0);
  CHECK(
      real::not_reproducible(scenario("watchdog seed=1 clients=2 faults=[pause A @1s for 2s; cut B redis @1s for 1s]"))
          .empty());
}
