// The catalogue: for every documented failure, the broken algorithm's
// violation is found — the right property, between no more clients than the
// documented schedule — and the fixing algorithm survives the same fault
// model. LOCKSIM_DEEP=N runs N times as many survival runs.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "locksim/lock/sources.hpp"
#include "locksim/props/catalogue.hpp"
#include "locksim/props/evidence.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {

double depth() {
  const char* deep = std::getenv("LOCKSIM_DEEP");
  return deep ? std::max(1.0, std::atof(deep)) : 1.0;
}

void check_entry(const std::string& id) {
  const CatalogueEntry* entry = find_entry(id);
  REQUIRE(entry);
  EntryOptions options;
  options.survive_scale = depth();
  options.budget = static_cast<uint32_t>(options.budget * depth());
  EntryOutcome out = run_entry(*entry, options);
  INFO(id << ": " << out.outcome << " | fix: " << out.fix_outcome);
  if (out.counterexample) INFO("replay: " << to_string(out.counterexample->shrunk));
  CHECK(out.as_expected);
  CHECK(out.fix_as_expected);
  // A survival or fix check bites: over the same drawn runs, the pre-fix
  // version fails in enough of them to bound a fix's failure rate at 5 %, and most runs acquired.
  const bool survival = entry->expected == Expectation::Survives || entry->expected == Expectation::ViolatedYetHolds;
  if (survival || (!entry->fix.empty() && entry->expected != Expectation::NotModelled)) {
    INFO("fix_runs " << out.fix_runs << ", fix_bites " << out.fix_bites << ", fix_held " << out.fix_held);
    REQUIRE(out.has_fix_check());
    CHECK(detection_bound(out.fix_bites) <= kFixBound);
    CHECK(out.fix_held * 2 >= out.fix_runs);
  }
  switch (entry->expected) {
    case Expectation::Violated:
    case Expectation::ViolatedYetHolds: {
      REQUIRE(out.counterexample);
      const Violation& v = out.counterexample->violation;
      CHECK(v.property == entry->property);
      CHECK(out.counterexample->shrunk.workload.clients <= entry->max_clients);
      CHECK(out.counterexample->shrunk.algorithm == entry->model.base.algorithm);
      if (v.property == Property::MutualExclusion) {
        REQUIRE(v.clients.size() == 2);
        CHECK(v.clients[0] != v.clients[1]);
        CHECK(v.from < v.to);
      }
      // The shrunk scenario replays to the same violation.
      CHECK(run_scenario(out.counterexample->shrunk).verdict.find(entry->property));
      break;
    }
    case Expectation::Survives: CHECK_FALSE(out.counterexample); break;
    case Expectation::Metric: CHECK(metric_value(out.metrics, entry->metric) >= entry->metric_at_least); break;
    case Expectation::NotModelled:
      CHECK(out.outcome.find("not yet modelled") == 0);
      CHECK(out.runs == 0);
      break;
  }
}

}  // namespace

TEST_CASE("catalogue: every entry of docs/failures.md is listed, in order") {
  std::vector<std::string> ids, documented;
  for (const auto& e : catalogue()) ids.push_back(e.id);
  for (int i = 1; i <= 23; ++i) {
    documented.push_back(fmt::format("F{:02}", i));
    if (i == 22) documented.insert(documented.end(), {"F22a", "F22b"});  // the database locks' fix and its failure
  }
  CHECK(ids == documented);
  for (const auto& e : catalogue()) CHECK(e.expected != Expectation::NotModelled);
}

TEST_CASE("catalogue: every entry names its source posts by keys that exist (docs/failures.md#sources)") {
  for (const auto& e : catalogue()) {
    CAPTURE(e.id, e.sources);
    REQUIRE_FALSE(e.sources.empty());
    std::string_view keys = e.sources;
    while (!keys.empty() && keys != "-") {
      const std::string_view key = keys.substr(0, keys.find(' '));
      CHECK(locksim::lock::find_source(key) != nullptr);
      keys.remove_prefix(std::min(keys.size(), key.size() + 1));
    }
  }
  // Beyond the posts: the critique of Redis locks, and fencing.
  for (const char* id : {"F13", "F14", "F19"}) CHECK(find_entry(id)->sources == "-");
}

TEST_CASE("catalogue: F23 is fixed by a durable Redis, F03 by a version that does not bring in F05") {
  // Not by a fencing counter kept in the Redis that forgets (tests/regressions/findings.txt).
  const CatalogueEntry* f23 = find_entry("F23");
  CHECK(f23->fix == "watchdog");
  CHECK(fix_model(*f23).base.persistent_redis);
  // getset, the first post's answer to F03, deletes the next holder's lock with its late DEL (F05).
  const CatalogueEntry* f03 = find_entry("F03");
  CHECK(f03->fix != "getset");
  CHECK(std::find(f03->fix_also_holds.begin(), f03->fix_also_holds.end(), Property::OwnerOnlyRelease) !=
        f03->fix_also_holds.end());
  // And getset under F03's faults does fail one of the two: the reason it is not the fix.
  FaultModel getset = f03->model;
  getset.base.algorithm = "getset";
  ExploreOptions x;
  x.runs = 2000;
  x.shrink = false;
  x.target = Property::OwnerOnlyRelease;
  CHECK(explore(getset, x).found);
}

TEST_CASE("catalogue: runs in which nobody acquired never count as held") {
  // One client, crashed at the start of every run: nothing is violated, and nothing is proved.
  CatalogueEntry entry;
  entry.id = "T01";
  entry.expected = Expectation::Survives;
  entry.model.base = *parse_scenario("token-lua");
  entry.model.kinds = {FaultFamily::ClientCrash};
  entry.model.min_clients = entry.model.max_clients = 1;
  entry.model.window = sim::Duration{};
  entry.model.max_faults = 1;
  entry.survive_runs = 20;
  EntryOutcome out = run_entry(entry);
  CHECK_FALSE(out.counterexample);
  CHECK(out.fix_runs == 20);
  CHECK(out.fix_held == 0);
  CHECK_FALSE(out.as_expected);
}

#define CATALOGUE_ENTRY(ID) \
  TEST_CASE("catalogue: " ID " comes out as documented") { check_entry(ID); }

CATALOGUE_ENTRY("F01")
CATALOGUE_ENTRY("F02")
CATALOGUE_ENTRY("F03")
CATALOGUE_ENTRY("F04")
CATALOGUE_ENTRY("F05")
CATALOGUE_ENTRY("F06")
CATALOGUE_ENTRY("F07")
CATALOGUE_ENTRY("F08")
CATALOGUE_ENTRY("F09")
CATALOGUE_ENTRY("F10")
CATALOGUE_ENTRY("F11")
CATALOGUE_ENTRY("F12")
CATALOGUE_ENTRY("F13")
CATALOGUE_ENTRY("F14")
CATALOGUE_ENTRY("F15")
CATALOGUE_ENTRY("F16")
CATALOGUE_ENTRY("F17")
CATALOGUE_ENTRY("F18")
CATALOGUE_ENTRY("F19")
CATALOGUE_ENTRY("F20")
CATALOGUE_ENTRY("F21")
CATALOGUE_ENTRY("F22")
CATALOGUE_ENTRY("F22a")
CATALOGUE_ENTRY("F22b")
CATALOGUE_ENTRY("F23")
