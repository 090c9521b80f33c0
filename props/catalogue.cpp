#include "props/catalogue.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace locksim::props {

std::string_view to_string(Expectation e) {
  switch (e) {
    case Expectation::Violated: return "violated";
    case Expectation::ViolatedYetHolds: return "violated-yet-holds";
    case Expectation::Survives: return "survives";
    case Expectation::Metric: return "metric";
    case Expectation::NotModelled: return "not-modelled";
  }
  return "?";
}

std::string_view to_string(MetricKind m) {
  switch (m) {
    case MetricKind::None: return "-";
    case MetricKind::ExpiryDrift: return "expiry-drift";
    case MetricKind::Unavailability: return "unavailability";
    case MetricKind::LongestWait: return "longest-wait";
  }
  return "?";
}

Duration metric_value(const Metrics& m, MetricKind kind) {
  switch (kind) {
    case MetricKind::ExpiryDrift: return m.expiry_drift;
    case MetricKind::Unavailability: return m.unavailability;
    case MetricKind::LongestWait: return m.longest_wait;
    case MetricKind::None: break;
  }
  return {};
}

namespace {

using FK = FaultKind;

// A base scenario from its words (the same text a user would write).
Scenario base(std::string_view words) {
  std::string error;
  auto s = parse_scenario(words, &error);
  if (!s) throw std::logic_error(fmt::format("catalogue scenario '{}': {}", words, error));
  return *s;
}

FaultModel model(std::string_view words, std::vector<FaultKind> kinds, uint32_t min_clients, uint32_t max_clients,
                 bool swarm = true, uint32_t max_iterations = 3) {
  FaultModel m;
  m.base = base(words);
  m.kinds = std::move(kinds);
  m.min_clients = min_clients;
  m.max_clients = max_clients;
  m.swarm = swarm;
  m.max_iterations = max_iterations;
  return m;
}

// An entry whose system the simulator does not have yet: named, never run.
FaultModel unmodelled(std::string_view system) {
  FaultModel m;
  m.base.algorithm = std::string(system);
  return m;
}

std::vector<CatalogueEntry> build() {
  std::vector<CatalogueEntry> c;
  auto add = [&](CatalogueEntry e) { c.push_back(std::move(e)); };
  using P = Property;
  using E = Expectation;

  add({"F01", "a crash before DEL leaves the key forever", "approaches", E::Violated, P::NoDeadlock, {}, MetricKind::None, {},
       model("setnx-del", {FK::ClientCrash, FK::CrashAtCall}, 1, 3), 2, "set-nx-px", "", {}});
  add({"F02", "a crash between SETNX and EXPIRE leaves a key without TTL", "methods-intro approaches layers evolution", E::Violated,
       P::NoDeadlock, {}, MetricKind::None, {}, model("setnx-expire", {FK::CrashAtCall}, 1, 3), 2, "set-nx-px", "", {}});
  add({"F03", "two waiters DEL and SETNX an expired lock: both hold", "methods-intro", E::Violated, P::MutualExclusion, {},
       MetricKind::None, {}, model("del-setnx iterations=3", {FK::ClientCrash, FK::DelaySpikes}, 3, 4, true, 4), 3,
       "getset", "", {}});
  add({"F04", "a client whose clock is ahead takes a live lock with GETSET", "approaches", E::Violated, P::MutualExclusion,
       {}, MetricKind::None, {}, model("getset", {FK::ClockSkew}, 2, 3), 2, "set-nx-px", "", {}});
  add({"F05", "work outlasts the timestamp; the late DEL removes the next holder's lock", "methods-intro approaches", E::Violated,
       P::OwnerOnlyRelease, {}, MetricKind::None, {}, model("getset", {FK::SlowWork}, 2, 3), 3, "watchdog", "", {}});
  add({"F06", "the losing GETSET moves the winner's expiry (benign drift)", "methods-intro approaches", E::Metric, P::MutualExclusion,
       {}, MetricKind::ExpiryDrift, sim::milliseconds(1), model("getset", {FK::ClientCrash, FK::DelaySpikes}, 3, 4, true, 4),
       0, "", "", {}, 1000});
  add({"F07", "work longer than the lease: the key expires and B acquires", "mysql-redis approaches layers evolution", E::Violated,
       P::MutualExclusion, {}, MetricKind::None, {}, model("set-nx-px", {FK::SlowWork}, 2, 3), 2, "watchdog", "", {}});
  add({"F08", "after F07, A's DEL removes B's lock", "approaches layers evolution", E::Violated, P::OwnerOnlyRelease, {},
       MetricKind::None, {}, model("set-nx-px", {FK::SlowWork}, 2, 3), 3, "token-lua", "", {}});
  add({"F09", "between GET and DEL the lease ends; A's DEL removes B's lock", "approaches layers", E::Violated,
       P::OwnerOnlyRelease, {}, MetricKind::None, {}, model("token-check-del", {FK::PauseAtCall, FK::DelaySpikes}, 2, 3),
       2, "token-lua", "", {}});
  add({"F10", "the lease ends while A works; B acquires (the release is harmless)", "approaches layers evolution", E::Violated,
       P::MutualExclusion, {}, MetricKind::None, {}, model("token-lua", {FK::SlowWork}, 2, 3), 2, "watchdog", "", {}});
  add({"F11", "a long lease: a crashed holder blocks everyone for the whole lease", "evolution", E::Metric,
       P::MutualExclusion, {}, MetricKind::Unavailability, sim::seconds(15),
       model("token-lua lease=30s wait-limit=2s", {FK::ClientCrash}, 2, 3, false), 0, "watchdog", "lease=1s",
       P::NoDeadlock});
  add({"F12", "the watchdog keeps long work safe, and a crash frees the lock within a lease", "approaches evolution",
       E::Survives, P::MutualExclusion, {P::NoDeadlock}, MetricKind::None, {},
       model("watchdog", {FK::ClientCrash, FK::SlowWork}, 2, 3), 0, "", "", {}});
  add({"F13", "a stop-the-world pause longer than the lease freezes the renewal too", "-", E::Violated,
       P::MutualExclusion, {}, MetricKind::None, {}, model("watchdog", {FK::Pause}, 2, 3), 2, "fenced", "",
       P::FencedWrites});
  add({"F14", "a cut longer than the lease starves the renewal; B acquires", "-", E::Violated, P::MutualExclusion, {},
       MetricKind::None, {}, model("watchdog", {FK::Cut, FK::SlowWork}, 2, 3, false), 2, "fenced", "", P::FencedWrites});
  add({"F15", "an explicit lease disables the watchdog: F10 returns", "approaches", E::Violated, P::MutualExclusion, {},
       MetricKind::None, {}, model("watchdog explicit-lease=1s", {FK::SlowWork}, 2, 3), 2, "watchdog",
       "explicit-lease=0s", {}});
  add({"F16", "acquiring again from nested code deadlocks on itself", "approaches evolution", E::Violated, P::Reentrancy, {},
       MetricKind::None, {}, model("token-lua nested=1 lease=30s wait-limit=2s", {}, 1, 2), 1, "reentrant", "", {}});
  add({"F17", "the master dies before replicating; the promoted replica lacks the key", "approaches evolution", E::Violated,
       P::MutualExclusion, {}, MetricKind::None, {}, model("watchdog replica=1 lag=50ms failover=100ms work=100ms..400ms", {FK::MasterCrash}, 2, 2, false),
       2, "redlock", "replica=0 masters=3", {}});
  // F18 needs A to win only a bare majority, which happens when clients race
  // at the start; so they start within 1 ms of each other and the restart
  // strikes early.
  FaultModel redlock = model("redlock masters=3 spread=1ms", {FK::RedisRestart}, 2, 3, true, 1);
  redlock.window = sim::milliseconds(100);
  add({"F18", "Redlock: a master restarts without persistence and forgets its part of A's majority", "evolution",
       E::Violated, P::MutualExclusion, {}, MetricKind::None, {}, redlock, 2, "redlock", "persistent=1", {}});
  add({"F19", "fencing: the resource rejects the paused client's late write", "-", E::ViolatedYetHolds,
       P::MutualExclusion, {P::FencedWrites}, MetricKind::None, {}, model("fenced", {FK::Pause, FK::SlowWork}, 2, 3),
       2, "", "", {}});
  add({"F20", "fixed-interval retries: newcomers overtake long waiters", "methods-intro evolution", E::Violated, P::BoundedWait, {},
       MetricKind::None, {}, model("token-lua work=20ms..100ms think=0s..50ms", {}, 5, 6, true, 5), 6, "fair", "", {}});
  add({"F21", "WATCH/MULTI/EXEC: never two winners at acquire", "mysql-redis", E::Survives, P::MutualExclusion, {},
       MetricKind::None, {}, model("watch-multi", {FK::DelaySpikes}, 2, 4), 0, "", "", {}});
  add({"F22", "a database lock row outlives its crashed owner", "mysql-redis", E::NotModelled, P::NoDeadlock, {},
       MetricKind::None, {}, unmodelled("db-lock-table"), 2, "", "", {}});
  add({"F23", "the only Redis restarts without persistence: the lock is gone", "approaches evolution", E::Violated,
       P::MutualExclusion, {}, MetricKind::None, {}, model("watchdog", {FK::RedisRestart}, 2, 3), 2, "fenced", "",
       P::FencedWrites});
  return c;
}

std::string clients_text(const lock::History* h, const std::vector<uint32_t>& clients) {
  std::string s;
  for (uint32_t c : clients) s += (s.empty() ? "" : ", ") + (h ? h->client_name(c) : lock::client_name(c));
  return s;
}

}  // namespace

const std::vector<CatalogueEntry>& catalogue() {
  static const std::vector<CatalogueEntry> entries = build();
  return entries;
}

const CatalogueEntry* find_entry(std::string_view id) {
  for (const auto& e : catalogue()) if (e.id == id) return &e;
  return nullptr;
}

FaultModel fix_model(const CatalogueEntry& entry) {
  FaultModel m = entry.model;
  std::string words = entry.fix + " " + to_string(entry.model.base).substr(entry.model.base.algorithm.size()) + " " +
                      entry.fix_params;
  std::string error;
  auto s = parse_scenario(words, &error);
  if (!s) throw std::logic_error(fmt::format("fix of {}: {}", entry.id, error));
  m.base = *s;
  return m;
}

EntryOutcome run_entry(const CatalogueEntry& entry, const EntryOptions& options) {
  EntryOutcome out;
  out.entry = &entry;
  const uint32_t survive_runs = static_cast<uint32_t>(entry.survive_runs * options.survive_scale);
  ExploreOptions x;
  x.seed = options.seed;
  switch (entry.expected) {
    case Expectation::NotModelled:
      out.outcome = "not yet modelled (needs a database model)";
      out.as_expected = true;
      return out;
    case Expectation::Violated:
    case Expectation::ViolatedYetHolds: {
      x.runs = options.budget;
      x.target = entry.property;
      ExploreResult r = explore(entry.model, x);
      out.runs = r.runs;
      out.metrics = r.worst;
      if (!r.found) {
        out.outcome = fmt::format("no {} violation in {} runs", to_string(entry.property), r.runs);
        break;
      }
      out.counterexample = r.found;
      const Violation& v = r.found->violation;
      const uint32_t clients = r.found->shrunk.workload.clients;
      out.as_expected = entry.max_clients == 0 || clients <= entry.max_clients;
      out.outcome = fmt::format("{} violated ({}), {} client{} after shrinking", to_string(v.property),
                                clients_text(nullptr, v.clients), clients, clients == 1 ? "" : "s");
      if (!out.as_expected) out.outcome += fmt::format(" (documented: {})", entry.max_clients);
      for (Property p : entry.also_holds) {
        ExploreOptions y = x;
        y.target = p;
        y.runs = survive_runs;
        y.shrink = false;
        ExploreResult held = explore(entry.model, y);
        if (held.found) {
          out.as_expected = false;
          out.outcome += fmt::format("; but {} failed too", to_string(p));
        } else {
          out.outcome += fmt::format("; {} held in {} runs", to_string(p), held.runs);
        }
      }
      break;
    }
    case Expectation::Survives: {
      out.as_expected = true;
      std::vector<Property> props{entry.property};
      props.insert(props.end(), entry.also_holds.begin(), entry.also_holds.end());
      for (Property p : props) {
        x.runs = survive_runs;
        x.target = p;
        ExploreResult r = explore(entry.model, x);
        out.runs = std::max(out.runs, r.runs);
        out.metrics = r.worst;
        if (r.found) {
          out.as_expected = false;
          out.counterexample = r.found;
          out.outcome = fmt::format("{} violated ({})", to_string(p), clients_text(nullptr, r.found->violation.clients));
          break;
        }
      }
      if (out.as_expected) {
        std::string names;
        for (Property p : props) names += (names.empty() ? "" : " and ") + std::string(to_string(p));
        out.outcome = fmt::format("{} held in {} runs", names, survive_runs);
      }
      break;
    }
    case Expectation::Metric: {
      x.runs = std::min<uint32_t>(options.budget, survive_runs);
      x.stop_at_violation = false;
      x.shrink = false;
      ExploreResult r = explore(entry.model, x);
      out.runs = r.runs;
      out.metrics = r.worst;
      Duration value = metric_value(r.worst, entry.metric);
      out.as_expected = value >= entry.metric_at_least;
      out.outcome = fmt::format("{} up to {} (documented as a cost, not a violation)", to_string(entry.metric),
                                sim::format_duration(value));
      break;
    }
  }
  if (options.check_fix && !entry.fix.empty() && entry.expected != Expectation::NotModelled) {
    ExploreOptions y;
    y.seed = options.seed;
    y.runs = survive_runs;
    y.target = entry.fix_property.value_or(entry.property);
    y.shrink = false;
    ExploreResult fixed = explore(fix_model(entry), y);
    out.fix_as_expected = !fixed.found;
    out.fix_outcome = fixed.found ? fmt::format("{} still violates {} ({})", entry.fix, to_string(*y.target),
                                                clients_text(nullptr, fixed.found->violation.clients))
                                  : fmt::format("{} keeps {} in {} runs", entry.fix, to_string(*y.target), fixed.runs);
  }
  return out;
}

}  // namespace locksim::props
