// locksim merge: the `check --json` outputs of the shards of one sweep
// (--shard I/N, or auto) merged into the inventory one machine running every
// run would have printed: counts added, each failure's example taken from the
// shard that met it first (the lowest global run index), the algorithm's own
// failures first, then the inherent ones, each by first run.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <map>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/inventory_output.hpp"
#include "locksim/cli/subcommand.hpp"
#include "locksim/render/chrome_trace.hpp"
#include "locksim/sim/files.hpp"

namespace locksim::cli {

namespace {

using Json = nlohmann::ordered_json;

// A shard's inventory is a few KB per failure; far more is not a 'check --json' output.
constexpr size_t kMaxShardBytes = 64u * 1024 * 1024;

// The fields every shard of one sweep shares.
const char* const kSweepFields[] = {"algorithm", "seed", "budget", "deployment", "assumptions"};

Json read_json(const std::string& path) {
  // A regular file of bounded size: /dev/zero or a FIFO would never end.
  std::string error;
  const auto text = sim::read_input_file(path, kMaxShardBytes, &error);
  if (!text) throw UsageError(fmt::format("merge: {}", error));
  Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw UsageError(fmt::format("merge: '{}' is not a JSON object", path));
  for (const char* field : {"algorithm", "seed", "runs", "budget", "shard", "deployment", "assumptions", "failures"})
    if (!j.contains(field))
      throw UsageError(
          fmt::format("merge: '{}' has no \"{}\": is it the output of 'locksim check --json'?", path, field));
  const Json& shard = j["shard"];
  if (!shard.is_array() || shard.size() != 2 || !shard[0].is_number_unsigned() || !shard[1].is_number_unsigned() ||
      !j["failures"].is_array() || !j["runs"].is_number_unsigned())
    throw UsageError(fmt::format("merge: '{}': malformed shard, runs or failures", path));
  return j;
}

// Every shard 0..N-1 of the same sweep, once.
void check_sweep(const std::vector<Json>& shards, const std::vector<std::string>& paths) {
  const uint64_t count = shards.front()["shard"][1];
  std::vector<std::string> seen(count);
  for (size_t i = 0; i < shards.size(); ++i) {
    for (const char* field : kSweepFields)
      if (shards[i][field] != shards.front()[field])
        throw UsageError(fmt::format("merge: '{}' and '{}' are not shards of one sweep: their \"{}\" differ", paths[0],
                                     paths[i], field));
    const uint64_t index = shards[i]["shard"][0], n = shards[i]["shard"][1];
    if (n != count || index >= count)
      throw UsageError(fmt::format("merge: '{}' is shard {}/{}, the others are of {}", paths[i], index, n, count));
    if (!seen[index].empty())
      throw UsageError(fmt::format("merge: shard {}/{} given twice ('{}', '{}')", index, count, seen[index], paths[i]));
    seen[index] = paths[i];
  }
  for (uint64_t i = 0; i < count; ++i)
    if (seen[i].empty()) throw UsageError(fmt::format("merge: shard {}/{} is missing", i, count));
}

// One failure as a shard reported it, with its place in that shard's list:
// two failures first met in the same run keep the order that shard gave them.
struct Found {
  Json failure;
  size_t place = 0;
};

// The shards' evidence summed (bites and coverage add up; the bound is worked out again over all runs).
props::Evidence sum_evidence(const std::vector<Json>& shards) {
  props::Evidence sum;
  for (const Json& s : shards) {
    const Json& e = s.value("evidence", Json::object());
    props::Evidence part;
    part.runs = e.value("runs", uint64_t{0});
    part.runs_with_faults = e.value("runs_with_faults", uint64_t{0});
    part.runs_bitten = e.value("runs_bitten", uint64_t{0});
    const Json& kinds = e.value("kinds", Json::object());
    for (size_t k = 0; k < props::kFaultFamilyCount; ++k) {
      const std::string name(props::to_string(props::kAllFaultFamilies[k]));
      if (!kinds.contains(name)) continue;
      const Json& kind = kinds[name];
      part.drawn[k] = kind.value("drawn", uint64_t{0});
      part.bitten[k] = kind.value("bitten", uint64_t{0});
      const Json& phases = kind.value("phases", Json::object());
      for (size_t p = 0; p < props::kPhaseCount; ++p)
        part.coverage[k][p] = phases.value(std::string(props::to_string(props::kAllPhases[p])), uint64_t{0});
    }
    sum.add(part);
  }
  return sum;
}

uint32_t runs_outside(const std::vector<Json>& shards) {
  uint64_t n = 0;
  for (const Json& s : shards) n += s.value("evidence", Json::object()).value("runs_outside", uint64_t{0});
  return static_cast<uint32_t>(n);
}

Json merge(const std::vector<Json>& shards) {
  std::map<std::pair<std::string, std::string>, Found> by_failure;  // (property, cause)
  uint64_t runs = 0;
  for (const Json& s : shards) {
    runs += s["runs"].get<uint64_t>();
    size_t place = 0;
    for (const Json& f : s["failures"]) {
      auto key = std::make_pair(f.value("property", ""), f.value("cause", ""));
      auto [it, fresh] = by_failure.try_emplace(key, Found{f, place++});
      if (fresh) continue;
      Json& kept = it->second.failure;
      const uint64_t total = kept["runs"].get<uint64_t>() + f["runs"].get<uint64_t>();
      const uint64_t first = std::min(kept["first_run"].get<uint64_t>(), f["first_run"].get<uint64_t>());
      // The example comes from the first run inside the assumptions, if any shard met one
      // (then the failure is the lock's own), else from the first run of all.
      const Json none;
      const Json& a = kept.contains("first_inside_run") ? kept["first_inside_run"] : none;
      const Json& b = f.contains("first_inside_run") ? f["first_inside_run"] : none;
      const bool take = a.is_number() || b.is_number()
                            ? !a.is_number() || (b.is_number() && b.get<uint64_t>() < a.get<uint64_t>())
                            : f["first_run"].get<uint64_t>() < kept["first_run"].get<uint64_t>();
      if (take) it->second = Found{f, place - 1};
      it->second.failure["runs"] = total;
      it->second.failure["first_run"] = first;
    }
  }
  std::vector<Found> found;
  for (auto& [key, f] : by_failure) found.push_back(f);
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    const bool a_own = !a.failure.value("outside_assumptions", false),
               b_own = !b.failure.value("outside_assumptions", false);
    if (a_own != b_own) return a_own;
    const uint64_t ra = a.failure["first_run"].get<uint64_t>(), rb = b.failure["first_run"].get<uint64_t>();
    return ra != rb ? ra < rb : a.place < b.place;
  });
  Json out = shards.front();
  out["runs"] = runs;
  if (out.contains("evidence")) out["evidence"] = Json::parse(evidence_json(sum_evidence(shards), runs_outside(shards)));
  out["shard"] = Json::array({0, 1});
  out["failures"] = Json::array();
  for (const Found& f : found) out["failures"].push_back(f.failure);
  return out;
}

// The layout of `check --json`, so that the merged inventory of a sweep is
// byte for byte what one machine would have printed.
std::string print_value(const Json& v) {
  if (v.is_string()) return render::json_string(v.get<std::string>());
  if (v.is_array()) {
    std::string out;
    for (const Json& e : v) out += (out.empty() ? "" : ", ") + print_value(e);
    return "[" + out + "]";
  }
  if (v.is_object()) {
    std::string out;
    for (const auto& [k, e] : v.items())
      out += (out.empty() ? "" : ", ") + render::json_string(k) + ": " + print_value(e);
    return "{" + out + "}";
  }
  return v.dump();
}

std::string print_inventory(const Json& inv) {
  std::string out;
  for (const auto& [k, v] : inv.items()) {
    if (k == "failures") continue;
    out += (out.empty() ? "" : ", ") + render::json_string(k) + ": " + print_value(v);
  }
  std::string failures;
  for (const Json& f : inv["failures"]) failures += (failures.empty() ? "\n  " : ",\n  ") + print_value(f);
  return "{" + out + ", \"failures\": [" + failures + (failures.empty() ? "]}\n" : "\n]}\n");
}

int cmd_merge(const std::vector<std::string>& paths) {
  std::vector<Json> shards;
  for (const std::string& p : paths) shards.push_back(read_json(p));
  check_sweep(shards, paths);
  const Json merged = merge(shards);
  std::cout << print_inventory(merged);
  for (const Json& f : merged["failures"])
    if (!f.value("outside_assumptions", false)) return 1;  // as check: only the lock's own failures fail
  return 0;
}

}  // namespace

Subcommand add_merge_command(CLI::App& parent) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto* app = parent.add_subcommand(
      "merge", "merge the 'check --json' outputs of a sharded sweep into one inventory (as one machine would print)");
  app->add_option("FILE", *paths, "the JSON output of each shard, 0/N to N-1/N, in any order")->required();
  app->footer("Exit status: 0 no failure, 1 failures (as check), 2 files that are not the shards of one sweep.");
  return {app, [paths] { return cmd_merge(*paths); }};
}

}  // namespace locksim::cli
