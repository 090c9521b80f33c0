// locksim merge: the `check --json` outputs of the shards of one sweep
// (--shard I/N, or auto) merged into the inventory one machine running every
// run would have printed: counts added, each failure's example taken from the
// shard that met it first (the lowest global run index), the algorithm's own
// failures first, then the inherent ones, each by first run. A shard leaves the
// failures a cause proof re-labelled apart; merge folds them as check does
// (props/cause_proof.hpp, props::fold_relabelled).
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <limits>
#include <map>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/inventory_output.hpp"
#include "locksim/cli/merge.hpp"
#include "locksim/cli/subcommand.hpp"
#include "locksim/props/cause.hpp"
#include "locksim/props/property.hpp"
#include "locksim/render/chrome_trace.hpp"
#include "locksim/sim/files.hpp"

namespace locksim::cli {

namespace {

using Json = nlohmann::ordered_json;

// A shard's inventory is a few KB per failure; far more is not a 'check --json' output.
constexpr size_t kMaxShardBytes = 64u * 1024 * 1024;
// Limits checked while parsing, before anything is built by them: the format is
// three levels deep and its objects have a dozen keys; nlohmann's ordered objects
// insert a key in linear time, and comparing or printing a value recurses.
constexpr int kMaxDepth = 16;
constexpr size_t kMaxKeys = 256;
constexpr uint64_t kMaxShards = 1'000'000;

// The fields every shard of one sweep shares.
const char* const kSweepFields[] = {"algorithm", "seed", "budget", "deployment", "assumptions", "claims"};

// The schema of `check --json` (inventory_output.cpp), as merge reads it. A field
// check adds goes here; fields not listed pass through as they are.
enum class Kind { String, StringOrNull, Unsigned, Boolean, Strings, Shard, Failures };
struct Field {
  const char* name;
  Kind kind;
};
constexpr Field kInventoryFields[] = {
    {"algorithm", Kind::String}, {"seed", Kind::Unsigned},     {"runs", Kind::Unsigned},
    {"budget", Kind::Unsigned},  {"shard", Kind::Shard},       {"deployment", Kind::String},
    {"assumptions", Kind::Strings}, {"failures", Kind::Failures},
};
constexpr Field kFailureFields[] = {
    {"property", Kind::String}, {"cause", Kind::String},    {"catalogue", Kind::StringOrNull},
    {"inherent", Kind::Boolean}, {"runs", Kind::Unsigned},  {"first_run", Kind::Unsigned},
    {"needs", Kind::Strings},   {"clients", Kind::Unsigned}, {"fault", Kind::String},
    {"why", Kind::String},      {"replay", Kind::String},
};

const char* kind_text(Kind kind) {
  switch (kind) {
    case Kind::String: return "a string";
    case Kind::StringOrNull: return "a string or null";
    case Kind::Unsigned: return "an integer from 0 to 2^64-1";
    case Kind::Boolean: return "true or false";
    case Kind::Strings: return "an array of strings";
    case Kind::Shard: return "[index, count] with index < count";
    case Kind::Failures: return "an array of failures";
  }
  return "";
}

bool all_strings(const Json& v) {
  return std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_string(); });
}

bool has_kind(const Json& v, Kind kind) {
  switch (kind) {
    case Kind::String: return v.is_string();
    case Kind::StringOrNull: return v.is_string() || v.is_null();
    case Kind::Unsigned: return v.is_number_unsigned();
    case Kind::Boolean: return v.is_boolean();
    case Kind::Strings: return v.is_array() && all_strings(v);
    case Kind::Shard:
      return v.is_array() && v.size() == 2 && v[0].is_number_unsigned() && v[1].is_number_unsigned() &&
             v[0].get<uint64_t>() < v[1].get<uint64_t>();
    case Kind::Failures: return v.is_array();
  }
  return false;
}

// Every field of `table` present in the object `v` with its kind; `what` names it in errors.
template <size_t N>
void check_fields(const Json& v, const Field (&table)[N], const std::string& what) {
  if (!v.is_object()) throw UsageError(fmt::format("merge: {} is not a JSON object", what));
  for (const Field& field : table) {
    const auto it = v.find(field.name);
    if (it == v.end())
      throw UsageError(
          fmt::format("merge: {} has no \"{}\": is it the output of 'locksim check --json'?", what, field.name));
    if (!has_kind(*it, field.kind))
      throw UsageError(fmt::format("merge: {}: \"{}\" must be {}", what, field.name, kind_text(field.kind)));
  }
}

// Parses `text`, refusing nesting deeper than kMaxDepth and objects of more than
// kMaxKeys keys as they are met: what is past them is discarded unbuilt, so
// neither a deep value nor a flood of keys costs more than reading it.
Json parse_bounded(const std::string& text, const std::string& path) {
  std::string refused;
  std::vector<size_t> keys_at_depth;
  auto limit = [&](int depth, nlohmann::json::parse_event_t event, Json&) {
    using Event = nlohmann::json::parse_event_t;
    if (!refused.empty()) return false;
    if (depth > kMaxDepth) {
      refused = fmt::format("nested deeper than {} levels", kMaxDepth);
      return false;
    }
    const auto d = static_cast<size_t>(depth);
    if (event == Event::object_start) {
      if (keys_at_depth.size() <= d) keys_at_depth.resize(d + 1);
      keys_at_depth[d] = 0;
    } else if (event == Event::key && d >= 1 && d <= keys_at_depth.size() && ++keys_at_depth[d - 1] > kMaxKeys) {
      refused = fmt::format("an object with more than {} keys", kMaxKeys);
      return false;
    }
    return true;
  };
  Json j;
  try {
    j = Json::parse(text, limit);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("merge: '{}' is not JSON ({})", path, e.what()));
  }
  if (!refused.empty()) throw UsageError(fmt::format("merge: '{}' holds {}: it is not a 'check --json' output", path, refused));
  return j;
}

Json parse_inventory(const std::string& text, const std::string& path) {
  Json j = parse_bounded(text, path);
  if (!j.is_object()) throw UsageError(fmt::format("merge: '{}' is not a JSON object", path));
  check_fields(j, kInventoryFields, fmt::format("'{}'", path));
  if (const auto partial = j.find("partial"); partial != j.end() && *partial != false)
    throw UsageError(fmt::format("merge: '{}' is a partial inventory (its check was interrupted): run that shard again",
                                 path));
  size_t n = 0;
  for (const Json& f : j["failures"]) check_fields(f, kFailureFields, fmt::format("'{}', failure {}", path, ++n));
  return j;
}

Json read_json(const std::string& path) {
  // A regular file of bounded size: /dev/zero or a FIFO would never end.
  std::string error;
  const auto text = sim::read_input_file(path, kMaxShardBytes, &error);
  if (!text) throw UsageError(fmt::format("merge: {}", error));
  return parse_inventory(*text, path);
}

// Every shard 0..N-1 of the same sweep, once. Nothing is sized by N: it must be
// the number of files given, which is checked first.
void check_sweep(const std::vector<Json>& shards, const std::vector<std::string>& paths) {
  const uint64_t count = shards.front()["shard"][1];
  if (count > kMaxShards)
    throw UsageError(fmt::format("merge: '{}' claims {} shards; at most {} are merged", paths[0], count, kMaxShards));
  std::map<uint64_t, std::string> seen;  // shard index -> its file
  for (size_t i = 0; i < shards.size(); ++i) {
    // .value: a field an older check did not print (claims) is null in both, not an out-of-range read.
    for (const char* field : kSweepFields)
      if (shards[i].value(field, Json()) != shards.front().value(field, Json()))
        throw UsageError(fmt::format("merge: '{}' and '{}' are not shards of one sweep: their \"{}\" differ", paths[0],
                                     paths[i], field));
    const uint64_t index = shards[i]["shard"][0], n = shards[i]["shard"][1];
    if (n != count)
      throw UsageError(fmt::format("merge: '{}' is shard {}/{}, the others are of {}", paths[i], index, n, count));
    const auto [it, fresh] = seen.try_emplace(index, paths[i]);
    if (!fresh)
      throw UsageError(fmt::format("merge: shard {}/{} given twice ('{}', '{}')", index, count, it->second, paths[i]));
  }
  uint64_t expected = 0;
  for (const auto& [index, path] : seen) {
    if (index != expected) break;
    ++expected;
  }
  if (expected < count) throw UsageError(fmt::format("merge: shard {}/{} is missing", expected, count));
}

// a + b, refused when it does not fit the 64 bits of a count.
uint64_t checked_sum(uint64_t a, uint64_t b, const char* what) {
  if (b > std::numeric_limits<uint64_t>::max() - a)
    throw UsageError(fmt::format("merge: the shards' {} add up past 2^64-1: they are not one sweep's", what));
  return a + b;
}

// As check orders them: the lock's own (claimed, inside the assumptions) 0, an unclaimed
// property's inside them 1, outside them 2. An inventory from before claims has every failure claimed.
int group_of(const Json& failure) {
  if (failure.value("outside_assumptions", false)) return 2;
  return failure.value("claimed", true) ? 0 : 1;
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

// A failure's (property, cause) in the order props declares them (an unknown word last).
std::pair<int, int> declared_order(const Json& failure) {
  const auto p = props::parse_property(failure["property"].get<std::string>());
  const auto c = props::parse_cause(failure["cause"].get<std::string>());
  return {p ? static_cast<int>(*p) : 1000, c ? static_cast<int>(*c) : 1000};
}

// `f` (the `place`-th of its shard) taken into `kept`: runs added, the lowest first run,
// the example from the first run inside the assumptions, if any shard met one (then the
// failure is the lock's own), else from the first run of all.
void absorb(Found& kept, const Json& f, size_t place) {
  Json& k = kept.failure;
  const uint64_t total = checked_sum(k["runs"].get<uint64_t>(), f["runs"].get<uint64_t>(), "runs of a failure");
  const uint64_t first = std::min(k["first_run"].get<uint64_t>(), f["first_run"].get<uint64_t>());
  const Json none;
  const Json& a = k.contains("first_inside_run") ? k["first_inside_run"] : none;
  const Json& b = f.contains("first_inside_run") ? f["first_inside_run"] : none;
  const bool take = a.is_number() || b.is_number()
                        ? !a.is_number() || (b.is_number() && b.get<uint64_t>() < a.get<uint64_t>())
                        : f["first_run"].get<uint64_t>() < k["first_run"].get<uint64_t>();
  if (take) kept = Found{f, place};
  kept.failure["runs"] = total;
  kept.failure["first_run"] = first;
}

// The cause the classifier named, before a proof re-labelled it (props/cause_proof.hpp);
// an inventory from before proofs: its cause.
std::string classified_cause(const Json& f) {
  const Json& proof = f.value("proof", Json::object());
  const auto it = proof.is_object() ? proof.find("classified") : proof.end();
  return it != proof.end() && it->is_string() ? it->get<std::string>() : f["cause"].get<std::string>();
}

Json merge(const std::vector<Json>& shards) {
  // First each classified bucket across the shards: its example, and so the cause its proof
  // gives the whole bucket, is its first run's (check proves one example per bucket).
  std::map<std::pair<std::string, std::string>, Found> by_bucket;  // (property, classified cause)
  uint64_t runs = 0;
  for (const Json& s : shards) {
    runs = checked_sum(runs, s["runs"].get<uint64_t>(), "runs");
    size_t place = 0;
    for (const Json& f : s["failures"]) {
      auto key = std::make_pair(f["property"].get<std::string>(), classified_cause(f));
      auto [it, fresh] = by_bucket.try_emplace(key, Found{f, place++});
      if (!fresh) absorb(it->second, f, place - 1);
    }
  }
  // Then the buckets a proof re-labelled onto the same (property, cause) fold, as check folds them.
  std::map<std::pair<std::string, std::string>, Found> by_failure;  // (property, cause)
  for (auto& [bucket, b] : by_bucket) {
    auto key = std::make_pair(b.failure["property"].get<std::string>(), b.failure["cause"].get<std::string>());
    auto [it, fresh] = by_failure.try_emplace(key, b);
    if (!fresh) absorb(it->second, b.failure, b.place);
  }
  std::vector<Found> found;
  for (auto& [key, f] : by_failure) found.push_back(f);
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    if (group_of(a.failure) != group_of(b.failure)) return group_of(a.failure) < group_of(b.failure);
    const uint64_t ra = a.failure["first_run"].get<uint64_t>(), rb = b.failure["first_run"].get<uint64_t>();
    if (ra != rb) return ra < rb;
    // A tie in first run keeps check's order: its tally's, by property and cause as declared.
    const auto da = declared_order(a.failure), db = declared_order(b.failure);
    return da != db ? da < db : a.place < b.place;
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
    if (group_of(f) == 0) return 1;  // as check: only the lock's own failures fail
  return 0;
}

}  // namespace

void check_shard_text(const std::string& text, const std::string& name) { parse_inventory(text, name); }

Subcommand add_merge_command(CLI::App& parent) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto* app = parent.add_subcommand(
      "merge", "merge the 'check --json' outputs of a sharded sweep into one inventory (as one machine would print)");
  app->add_option("FILE", *paths, "the JSON output of each shard, 0/N to N-1/N, in any order")->required();
  app->footer("Exit status: 0 no failure, 1 failures (as check), 2 files that are not the shards of one sweep.");
  return {app, [paths] { return cmd_merge(*paths); }};
}

}  // namespace locksim::cli
