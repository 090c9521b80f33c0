// The one-line scenario format: every scenario the generators can draw prints
// and reads back to an equal value, and bad text names what is wrong.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include "locksim/props/fault_model.hpp"
#include "locksim/props/scenario.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {
std::string parse_error(std::string_view text) {
  std::string error;
  auto s = parse_scenario(text, &error);
  return s ? "(parsed)" : error;
}
}  // namespace

TEST_CASE("scenario: the defaults print as the algorithm, seed and clients") {
  Scenario s;
  CHECK(to_string(s) == "token-lua seed=1 clients=3");
}

TEST_CASE("scenario: a hand-written line reads back and prints the same") {
  const std::string line =
      "getset seed=7 clients=3 iterations=2 work=10ms..1.5s latency=1ms+2ms spikes=0.05:20ms:1.5:500ms "
      "clock=B:+2s:100 slow=A:0:1.5s call=C:2:crash call=A:3:pause:800ms ids=0,2,5 lease=2s release-if-unexpired=true "
      "faults=[crash A @1.5s; restart A @3s; cut B redis @2s for 1s; jump redis @4s by -1s]";
  auto s = parse_scenario(line);
  REQUIRE(s);
  CHECK(s->algorithm == "getset");
  CHECK(s->workload.clients == 3);
  CHECK(s->workload.clock_offsets == std::vector<sim::Duration>{{}, sim::seconds(2)});
  CHECK(s->workload.drifts_ppm == std::vector<int64_t>{0, 100});
  CHECK(s->workload.identities == std::vector<uint32_t>{0, 2, 5});
  CHECK(s->lock.lease == sim::seconds(2));
  CHECK(s->faults.faults.size() == 4);
  CHECK(to_string(*s) == line);
}

TEST_CASE("scenario: whatever the generators draw round-trips through text") {
  FaultModel model;
  model.kinds.assign(std::begin(kAllFaultFamilies), std::end(kAllFaultFamilies));
  model.max_clients = 5;
  rc::prop("to_string then parse_scenario gives an equal scenario", [&] {
    Scenario s = *scenario_generator(model);
    std::string error;
    auto back = parse_scenario(to_string(s), &error);
    RC_ASSERT(error.empty());
    RC_ASSERT(back.has_value());
    RC_ASSERT(*back == s);
  });
}

TEST_CASE("scenario: bad text says which word is wrong") {
  CHECK(parse_error("") == "empty scenario: it starts with the algorithm's id");
  CHECK(parse_error("no-such-lock seed=1") == "unknown algorithm 'no-such-lock' (see 'locksim list')");
  CHECK(parse_error("token-lua seed") == "in 'seed': expected name=value");
  CHECK(parse_error("token-lua seed=x") == "in 'seed=x': 'x' is not a valid number");
  CHECK(parse_error("token-lua lease=fast") == "in 'lease=fast': bad duration 'fast': expected a number");
  CHECK(parse_error("token-lua colour=red") == "in 'colour=red': unknown setting 'colour'");
  CHECK(parse_error("token-lua clients=0") == "clients: 0 is out of range [1, 26]");
  CHECK(parse_error("token-lua clients=2 slow=C:0:1s") == "slow= names client C but the scenario has 2 clients");
  CHECK(parse_error("token-lua clients=2 faults=[crash C @1s]") ==
        "fault 'crash C @1s' names node 'C', which this scenario does not have");
  CHECK(parse_error("token-lua faults=[crash A @1s") == "unbalanced '[' in faults=[...]");
  CHECK(parse_error("token-lua faults=[explode A @1s]") ==
        "in 'faults=[explode A @1s]': fault 1 ('explode A @1s'): unknown fault kind 'explode' (crash, restart, pause, "
        "jump, cut, heal, reset)");
  CHECK(parse_error("token-lua clients=2 ids=0,0") == "in 'ids=0,0': identity 0 appears twice");
  CHECK(parse_error("token-lua clients=2 ids=0") == "ids= lists 1 identities for 2 clients");
  CHECK(parse_error("token-lua call=A:0:crash") == "in 'call=A:0:crash': commands are counted from 1");
  CHECK(parse_error("token-lua spikes=2:1ms:1.5:1s") == "in 'spikes=2:1ms:1.5:1s': P must be in [0, 1]");
}

TEST_CASE("scenario: fault kinds parse by name, 'all' and 'none'") {
  std::string error;
  auto kinds = parse_fault_kinds("crash,pause,crash", &error);
  REQUIRE(kinds);
  CHECK(*kinds == std::vector<FaultFamily>{FaultFamily::ClientCrash, FaultFamily::Pause});
  CHECK(parse_fault_kinds("all")->size() == std::size(kAllFaultFamilies));
  CHECK(parse_fault_kinds("none")->empty());
  CHECK_FALSE(parse_fault_kinds("crash,meteor", &error));
  CHECK(error.rfind("unknown fault kind 'meteor' (known: crash, restart, pause", 0) == 0);
}

TEST_CASE("scenario: out-of-range clients and NaN numbers are refused, not trusted") {
  CHECK(parse_error("token-lua clock=C100000000:+1s:0") == "in 'clock=C100000000:+1s:0': at most 26 clients");
  CHECK(parse_error("token-lua spikes=nan:1ms:1.5:1s") == "in 'spikes=nan:1ms:1.5:1s': P must be in [0, 1]");
  CHECK(parse_error("token-lua spikes=0.1:1ms:nan:1s") == "in 'spikes=0.1:1ms:nan:1s': ALPHA must be above 1");
  CHECK(parse_error("token-lua faults=[crash * @1s]") ==
        "fault 'crash * @1s' names node '*', which this scenario does not have");
  CHECK(parse_error("token-lua retry=0ms") == "in 'retry=0ms': must be at least 1ms");
  CHECK(parse_error("redlock masters=3 faults=[restart redis2 @1s]") == "(parsed)");
  CHECK(parse_error("redlock masters=3 faults=[restart redis @1s]") ==
        "fault 'restart redis @1s' names node 'redis', which this scenario does not have");
  CHECK(parse_error("watchdog masters=2 replica=1") == "replica=1 goes with a single master");
}
