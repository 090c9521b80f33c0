// The catalogue: for every documented failure, the broken algorithm's
// violation is found — the right property, between no more clients than the
// documented schedule — and the fixing algorithm survives the same fault
// model. LOCKSIM_DEEP=N runs N times as many survival runs.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "lock/sources.hpp"
#include "props/catalogue.hpp"

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
    case Expectation::Survives:
      CHECK_FALSE(out.counterexample);
      break;
    case Expectation::Metric:
      CHECK(metric_value(out.metrics, entry->metric) >= entry->metric_at_least);
      break;
    case Expectation::NotModelled:
      CHECK(out.outcome.find("not yet modelled") == 0);
      CHECK(out.runs == 0);
      break;
  }
}

}  // namespace

TEST_CASE("catalogue: every entry of docs/failures.md is listed, in order") {
  std::vector<std::string> ids;
  for (const auto& e : catalogue()) ids.push_back(e.id);
  REQUIRE(ids.size() == 23);
  for (int i = 0; i < 23; ++i) CHECK(ids[i] == fmt::format("F{:02}", i + 1));
  CHECK(find_entry("F22")->expected == Expectation::NotModelled);
}

TEST_CASE("catalogue: every entry names its source posts by keys that exist (docs/failures.md#sources)") {
  for (const auto& e : catalogue()) {
    CAPTURE(e.id, e.seeds);
    REQUIRE_FALSE(e.seeds.empty());
    std::string_view keys = e.seeds;
    while (!keys.empty() && keys != "-") {
      const std::string_view key = keys.substr(0, keys.find(' '));
      CHECK(locksim::lock::find_source(key) != nullptr);
      keys.remove_prefix(std::min(keys.size(), key.size() + 1));
    }
  }
  // Beyond the posts: the critique of Redis locks, and fencing.
  for (const char* id : {"F13", "F14", "F19"}) CHECK(find_entry(id)->seeds == "-");
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
CATALOGUE_ENTRY("F23")
