// The explorer draws its scenarios without rapidcheck's generation machinery
// (draw_scenario): each must equal what rapidcheck's generator draws from the same
// random state and size, or every pinned hash and seed-dependent answer would move.
#include <catch2/catch.hpp>

#include "locksim/lock/registry.hpp"
#include "locksim/props/defaults.hpp"
#include "locksim/props/fault_model.hpp"
#include "locksim/sim/random.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {

// Every built-in's model as check draws it: as designed, under its default assumptions,
// and under bounds on every bounded kind (which reshape the draws most).
std::vector<FaultModel> models_of(std::string_view algorithm) {
  std::vector<FaultModel> out;
  out.push_back(default_model(algorithm));
  out.push_back(default_model(algorithm));
  assume(out.back(), default_assumptions(algorithm));
  out.push_back(default_model(algorithm));
  std::string error;
  const auto bounds = parse_assumptions("work<=1s,pause<=300ms,delay<=100ms,clock<=5s", &error);
  REQUIRE(bounds);
  assume(out.back(), *bounds);
  return out;
}

void require_same_draws(const FaultModel& model, uint64_t seed, uint32_t runs, const std::vector<int>& sizes) {
  for (uint32_t run = 0; run < runs; ++run) {
    uint64_t state = seed * 1000003 + run;
    const rc::Random random(sim::splitmix64(state));
    const int size = sizes[run % sizes.size()];
    for (bool inside : {false, true}) {
      const Scenario by_rapidcheck = scenario_generator(model, inside)(random, size).value();
      const Scenario direct = draw_scenario(model, inside, random, size);
      INFO(model.base.algorithm << " run " << run << " size " << size << " inside " << inside);
      REQUIRE(to_string(direct) == to_string(by_rapidcheck));
      REQUIRE(direct == by_rapidcheck);
    }
  }
}

}  // namespace

TEST_CASE("scenario draws: drawn directly, every built-in's scenarios are rapidcheck's", "[draws]") {
  // The explorer's sizes (10 + 3 run, at most 100), and the ends of rapidcheck's range.
  const std::vector<int> sizes{10, 13, 40, 73, 100, 100, 0, 1, 250};
  for (const lock::Algorithm& a : lock::algorithms())
    for (const FaultModel& model : models_of(a.id)) require_same_draws(model, 7, 60, sizes);
}

TEST_CASE("scenario draws: a model with every kind, crowds, nesting and pinned failovers draws the same",
          "[draws]") {
  FaultModel model;
  model.kinds.assign(std::begin(kAllFaultFamilies), std::end(kAllFaultFamilies));
  model.max_clients = 5;
  model.nested = 2;
  model.contention = true;
  model.explicit_lease_mode = true;
  model.failover_on_master_crash = true;
  model.lag_min = model.lag_max = sim::Duration{1'500'000};  // pinned, below a millisecond's grain
  model.failover_min = sim::milliseconds(10);
  model.failover_max = sim::milliseconds(900);
  model.max_downtime = sim::milliseconds(300);
  require_same_draws(model, 11, 400, {10, 55, 100});
  model.swarm = false;
  model.base.masters = 3;
  require_same_draws(model, 12, 200, {10, 55, 100});
}
