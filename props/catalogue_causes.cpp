// What docs/failures.md says made each documented failure possible, as causes
// the classifier names. A search for an entry counts only these.
#include <algorithm>
#include <chrono>
#include <map>

#include "locksim/lock/registry.hpp"
#include "locksim/props/catalogue.hpp"
#include "locksim/props/defaults.hpp"

namespace locksim::props {

const std::vector<Cause>& documented_causes(std::string_view id) {
  using C = Cause;
  static const std::map<std::string, std::vector<Cause>, std::less<>> table = {
      {"F01", {C::CrashNoTtl}},      {"F02", {C::CrashNoTtl}},      {"F03", {C::TakeoverRace}},
      {"F04", {C::ClientClockSkew}}, {"F05", {C::StaleRelease}},    {"F07", {C::LeaseOutworked}},
      {"F08", {C::StaleRelease}},    {"F09", {C::StaleRelease}},    {"F10", {C::LeaseOutworked}},
      {"F13", {C::LeasePaused}},     {"F14", {C::RenewalStopped}},  {"F15", {C::LeaseOutworked}},
      {"F16", {C::SelfDeadlock}},    {"F17", {C::FailoverLost}},    {"F18", {C::RedlockForgotVote}},
      {"F19", {C::LeasePaused}},     {"F20", {C::Overtaken}},       {"F23", {C::RedisRestartLost}},
      {"F22", {C::CrashNoTtl}},      {"F22a", {C::LeaseOutworked}},
  };
  static const std::vector<Cause> none;
  auto it = table.find(id);
  return it == table.end() ? none : it->second;
}

namespace {

// Whether the registry says the algorithm shows the entry ("shows F22" on db-reentrant), though the
// catalogue demonstrates it on another algorithm.
bool registry_shows(std::string_view algorithm, std::string_view id) {
  const lock::Algorithm* a = lock::find_algorithm(algorithm);
  if (!a) return false;
  const size_t shows = a->failures.find("shows ");
  if (shows == std::string_view::npos) return false;
  std::string_view rest = a->failures.substr(shows + 6);
  rest = rest.substr(0, rest.find(';'));
  for (size_t at = rest.find(id); at != std::string_view::npos; at = rest.find(id, at + 1)) {
    const size_t end = at + id.size();
    const bool whole = (at == 0 || rest[at - 1] == ' ' || rest[at - 1] == ',') &&
                       (end == rest.size() || rest[end] == ' ' || rest[end] == ',');
    if (whole) return true;
  }
  return false;
}

}  // namespace

const CatalogueEntry* match_entry(const Scenario& s, Property p, Cause c) {
  for (const CatalogueEntry& e : catalogue()) {
    if (e.expected != Expectation::Violated && e.expected != Expectation::ViolatedYetHolds) continue;
    if (e.property != p) continue;
    if (e.model.base.algorithm != s.algorithm && !registry_shows(s.algorithm, e.id)) continue;
    // An entry about a mode of the algorithm (F15: the explicit lease) needs that mode.
    if (e.model.base.lock.explicit_lease.ns != 0 && s.lock.explicit_lease.ns == 0) continue;
    const auto& causes = documented_causes(e.id);
    if (std::find(causes.begin(), causes.end(), c) != causes.end()) return &e;
  }
  return nullptr;
}

void find_generically(const CatalogueEntry& entry, const EntryOptions& options, EntryOutcome& out) {
  if (entry.expected != Expectation::Violated && entry.expected != Expectation::ViolatedYetHolds) return;
  const FaultModel model = default_model(entry.model.base.algorithm);
  ExploreOptions x;
  x.seed = options.seed;
  x.runs = options.generic_budget;
  x.target = entry.property;
  x.causes = documented_causes(entry.id);
  x.shrink = false;
  // Wall time of the search, reported beside it: outside any simulation.
  const auto started = std::chrono::steady_clock::now();
  const ExploreResult r = explore(model, x);
  out.generic_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  out.generic_budget = options.generic_budget;
  if (r.found && match_entry(r.found->shrunk, r.found->violation.property, r.found->violation.cause) == &entry)
    out.generic_run = r.found->run;
}

}  // namespace locksim::props
