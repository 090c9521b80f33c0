// The targeted inside search (props/inside_search.hpp): a failure a check met only beyond
// its assumptions is sought inside them on a stream of the seed and the algorithm alone,
// so a rare failure of the lock's own is not labelled "outside" on one seed and "own" on
// the next, and every shard that searches finds the same answer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <optional>

#include "locksim/props/assumptions.hpp"
#include "locksim/props/inside_search.hpp"
#include "locksim/props/inventory.hpp"
#include "locksim/props/search.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {

constexpr uint32_t kSearchBudget = 300;

// check ALGO's model: its default faults and assumptions.
FaultModel check_model(const std::string& algorithm) {
  SearchSettings s;
  s.algorithm = algorithm;
  return search_model(s);
}

InventoryOptions small_check(uint64_t seed, uint32_t runs) {
  InventoryOptions o;
  o.seed = seed;
  o.runs = runs;
  o.inside_search_runs = kSearchBudget;
  return o;
}

const Failure* failure_of(const Inventory& inv, Property p, Cause c) {
  for (const Failure& f : inv.failures)
    if (f.property == p && f.cause == c) return &f;
  return nullptr;
}

// The failure the first seed (from 1) of a 60-run check of set-nx-px moved inside by the
// search: a rare one, met in those runs only beyond the assumptions.
struct Moved {
  uint64_t seed = 0;
  Inventory inv;
  Failure failure;
};
std::optional<Moved> first_moved_by_search(const FaultModel& m) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    Inventory inv = take_inventory(m, small_check(seed, 60));
    for (const Failure& f : inv.failures)
      if (f.found_by_search) return Moved{seed, inv, f};
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("inside search: a failure met only beyond the assumptions is found inside them, and is the lock's own",
          "[props]") {
  const FaultModel m = check_model("set-nx-px");
  const std::optional<Moved> moved = first_moved_by_search(m);
  REQUIRE(moved);
  const Failure& f = moved->failure;
  INFO("seed " << moved->seed << ": " << to_string(f.property) << " by " << to_string(f.cause) << ": "
               << to_string(f.example.shrunk));
  // The check's own runs met it only outside: none inside, and its first run replayed inside did not fail.
  CHECK_FALSE(f.first_inside_run.has_value());
  CHECK(f.moved_inside);
  CHECK(f.inside_search_runs >= 1);
  CHECK(f.inside_search_runs <= kSearchBudget);
  CHECK(f.example.run == f.inside_search_runs - 1);  // the search's last run found it
  // Its example is inside the assumptions, and fails with the same property and cause.
  CHECK_FALSE(outside_assumptions(f));
  CHECK(broken_assumptions(f.example.shrunk, m.assumed).empty());
  const RunResult again = run_scenario(f.example.shrunk);
  const Violation* v = again.verdict.find(f.property);
  REQUIRE(v);
  CHECK(v->cause == f.cause);
  CHECK(f.example.violation.property == f.property);
  CHECK(f.example.violation.cause == f.cause);
  // Clients and necessary faults: each element of the example is needed, by replay.
  CHECK(f.example.shrunk.workload.clients >= 1);
  CHECK(f.example.shrunk.workload.clients <= m.max_clients);
  const StillFails same = fails_with(f.property, {f.cause}, {});
  size_t named = 0;
  for (const Element& e : elements_of(f.example.shrunk)) {
    INFO("without " << e.what);
    CHECK_FALSE(same(e.without));
    if (!e.what.starts_with("client ")) ++named;
  }
  CHECK(named == f.necessary.size());
  CHECK(f.needs == kinds_in(f.example.shrunk));
  // The search is the stream of (seed, algorithm): searched alone, the failure is found
  // in the same run with the same example, whatever else was sought beside it.
  InsideSearchOptions o;
  o.seed = moved->seed;
  o.budget = kSearchBudget;
  const std::vector<InsideSearch> alone = search_inside(m, {{f.property, f.cause}}, o);
  REQUIRE(alone.size() == 1);
  REQUIRE(alone[0].found);
  CHECK(alone[0].runs == f.inside_search_runs);
  CHECK(to_string(alone[0].found->shrunk) == to_string(f.example.shrunk));
  // And on two jobs.
  const std::vector<InsideSearch> two = search_inside(m, {{f.property, f.cause}}, o, 2);
  REQUIRE(two[0].found);
  CHECK(two[0].runs == f.inside_search_runs);
  CHECK(to_string(two[0].found->shrunk) == to_string(f.example.shrunk));
}

TEST_CASE("inside search: a failure that needs what the assumptions rule out spends the budget and stays outside",
          "[props]") {
  // Under durable-redis no run inside forgets the key on a restart; under no-failover none
  // loses it to a promoted replica.
  const FaultModel m = check_model("set-nx-px");
  InsideSearchOptions o;
  o.seed = 1;
  o.budget = 60;
  const std::vector<InsideSearch> r =
      search_inside(m, {{Property::MutualExclusion, Cause::RedisRestartLost}, {Property::MutualExclusion, Cause::FailoverLost}}, o);
  REQUIRE(r.size() == 2);
  CHECK(r[0].runs == 60);
  CHECK_FALSE(r[0].found);
  CHECK_FALSE(r[1].found);
  // Every search run is drawn wholly inside the assumptions.
  for (uint32_t i = 0; i < 40; ++i) {
    const Scenario s = draw(m, inside_search_draw(m, 1, i));
    INFO(to_string(s));
    CHECK(broken_assumptions(s, m.assumed).empty());
  }
  // The stream is the seed's and the algorithm's: another seed or algorithm draws another.
  CHECK(inside_search_draw(m, 1, 0).random_key != inside_search_draw(m, 2, 0).random_key);
  CHECK(inside_search_draw(m, 1, 0).random_key != inside_search_draw(check_model("token-lua"), 1, 0).random_key);
  // Without assumptions there is nothing outside, and nothing to search.
  FaultModel none = m;
  none.assumed = Assumptions{};
  CHECK_FALSE(search_inside(none, {{Property::MutualExclusion, Cause::LeaseOutworked}}, o)[0].found);
  CHECK(search_inside(none, {{Property::MutualExclusion, Cause::LeaseOutworked}}, o)[0].runs == 0);
  // The budget: a tenth of the check's runs, within its bounds.
  CHECK(inside_search_budget(0) == 0);
  CHECK(inside_search_budget(60) == kMinInsideSearchRuns);
  CHECK(inside_search_budget(5000) == 500);
  CHECK(inside_search_budget(100'000'000) == kMaxInsideSearchRuns);
}

TEST_CASE("inside search: shards merged as merge does equal the unsharded inventory", "[props]") {
  const FaultModel m = check_model("set-nx-px");
  const std::optional<Moved> moved = first_moved_by_search(m);
  REQUIRE(moved);
  const Inventory& whole = moved->inv;
  for (uint32_t count : {2u, 3u}) {
    std::vector<Inventory> shards;
    for (uint32_t i = 0; i < count; ++i) {
      InventoryOptions o = small_check(moved->seed, (60 - i + count - 1) / count);
      o.first_run = i;
      o.stride = count;
      shards.push_back(take_inventory(m, o));
    }
    for (const Failure& f : whole.failures) {
      INFO(count << " shards: " << to_string(f.property) << " by " << to_string(f.cause));
      // merge's rule (cli/merge.cpp): the shard that met it first inside the assumptions,
      // if any did, else the one that met it first.
      const Failure* kept = nullptr;
      uint32_t runs = 0;
      for (const Inventory& s : shards) {
        const Failure* g = failure_of(s, f.property, f.cause);
        if (!g) continue;
        runs += g->runs;
        const bool take = !kept || (kept->first_inside_run || g->first_inside_run
                                        ? !kept->first_inside_run ||
                                              (g->first_inside_run && *g->first_inside_run < *kept->first_inside_run)
                                        : g->first_run < kept->first_run);
        if (take) kept = g;
      }
      REQUIRE(kept);
      CHECK(runs == f.runs);
      uint32_t first = UINT32_MAX;
      for (const Inventory& s : shards)
        if (const Failure* g = failure_of(s, f.property, f.cause)) first = std::min(first, g->first_run);
      CHECK(first == f.first_run);
      CHECK(kept->first_inside_run == f.first_inside_run);
      CHECK(kept->moved_inside == f.moved_inside);
      CHECK(kept->found_by_search == f.found_by_search);
      CHECK(kept->inside_search_runs == f.inside_search_runs);
      CHECK(kept->breaks == f.breaks);
      CHECK(to_string(kept->example.shrunk) == to_string(f.example.shrunk));
    }
  }
}
