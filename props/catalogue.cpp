#include "locksim/props/catalogue.hpp"
#include "locksim/props/evidence.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

// Entries are designated initialisers that leave out what keeps its default;
// GCC's -Wextra would flag every field left out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

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

using FK = FaultFamily;
using namespace sim::literals;

// A base scenario from its words (the same text a user would write).
Scenario base(std::string_view words) {
  std::string error;
  auto s = parse_scenario(words, &error);
  if (!s) throw std::logic_error(fmt::format("catalogue scenario '{}': {}", words, error));
  return *s;
}

FaultModel model(std::string_view words, std::vector<FaultFamily> kinds, uint32_t min_clients, uint32_t max_clients,
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

// The same model with its faults striking within `window` (most runs are over
// within a second or two: later faults meet nobody).
// Pauses before early calls, several per run: one of them lands between a
// release's GET and DEL often enough for F09 (the others only slow things).
FaultModel at_calls(FaultModel m, uint32_t max_call) {
  m.max_call = max_call;
  m.max_faults = 12;
  return m;
}

FaultModel within(FaultModel m, Duration window) {
  m.window = window;
  return m;
}

// Waiters polling in step a lock whose holder crashed, over a network whose
// delays (one message in two) make one's DEL land after another's SETNX:
// F03's schedule. Every run has crashes, and crashed clients come back.
FaultModel racing_waiters(std::string_view algorithm) {
  FaultModel m = within(model(fmt::format("{} retry=10ms work=300ms..500ms spikes=0.5:30ms:1.5:200ms", algorithm),
                              {FK::ClientCrash, FK::ClientRestart}, 3, 5, false, 4),
                        2_s);
  m.max_faults = 4;
  return m;
}

// Up to `n` faults of each kind per run: one of them more often meets a holder.
FaultModel more_faults(FaultModel m, uint32_t n) {
  m.max_faults = n;
  return m;
}

using P = Property;
using E = Expectation;

void add_database_locks(std::vector<CatalogueEntry>& c) {
  // The database locks (the "db" node): the lock table's row outlives a
  // crashed inserter; an expiry column and the cleanup job fix that but
  // delete the row of a holder still at work; the row lock of SELECT ... FOR
  // UPDATE goes with the holder's session.
  c.push_back({.id = "F22",
               .title = "a database lock row outlives its crashed owner",
               .sources = "mysql-redis",
               .property = P::NoDeadlock,
               .model = model("db-insert-delete", {FK::ClientCrash, FK::CrashAtCall}, 1, 3),
               .max_clients = 2,
               .fix = "db-insert-expiry"});
  c.push_back({.id = "F22a",
               .title = "the cleanup job deletes the row of a holder still at work",
               .sources = "mysql-redis",
               .model = within(model("db-insert-expiry", {FK::SlowWork}, 2, 3), 1_s),
               .max_clients = 2,
               .fix = "db-for-update"});
  c.push_back({.id = "F22b",
               .title = "SELECT ... FOR UPDATE: the row lock goes with the crashed holder's session",
               .sources = "mysql-redis",
               .expected = E::Survives,
               .property = P::NoDeadlock,
               .also_holds = {P::MutualExclusion},
               .model = model("db-for-update", {FK::ClientCrash, FK::CrashAtCall}, 1, 3),
               .baseline = "db-insert-delete"});
}

// F01-F06: the locks before leases with a token: no expiry, SETNX + EXPIRE, timestamps in the value.
void add_before_leases(std::vector<CatalogueEntry>& c) {
  c.push_back({.id = "F01",
               .title = "a crash before DEL leaves the key forever",
               .sources = "approaches",
               .property = P::NoDeadlock,
               .model = model("setnx-del", {FK::ClientCrash, FK::CrashAtCall}, 1, 3),
               .max_clients = 2,
               .fix = "set-nx-px"});
  c.push_back({.id = "F02",
               .title = "a crash between SETNX and EXPIRE leaves a key without TTL",
               .sources = "methods-intro approaches layers evolution",
               .property = P::NoDeadlock,
               .model = model("setnx-expire", {FK::CrashAtCall}, 1, 3),
               .max_clients = 2,
               .fix = "set-nx-px"});
  // getset, the first post's own answer to F03, survives F03's schedules only until its
  // unconditional DEL arrives late (F05); SET NX PX with a token and a
  // compare-and-delete survives both.
  c.push_back({.id = "F03",
               .title = "two waiters DEL and SETNX an expired lock: both hold",
               .sources = "methods-intro",
               .model = racing_waiters("del-setnx"),
               .max_clients = 3,
               .fix = "token-lua",
               .fix_also_holds = {P::OwnerOnlyRelease}});
  c.push_back({.id = "F04",
               .title = "a client whose clock is ahead takes a live lock with GETSET",
               .sources = "approaches",
               .model = model("getset", {FK::ClockSkew}, 2, 3),
               .max_clients = 2,
               .fix = "set-nx-px"});
  c.push_back({.id = "F05",
               .title = "work outlasts the timestamp; the late DEL removes the next holder's lock",
               .sources = "methods-intro approaches",
               .property = P::OwnerOnlyRelease,
               .model = model("getset", {FK::SlowWork}, 2, 3),
               .max_clients = 3,
               .fix = "watchdog"});
  c.push_back({.id = "F06",
               .title = "the losing GETSET moves the winner's expiry (benign drift)",
               .sources = "methods-intro approaches",
               .expected = E::Metric,
               .metric = MetricKind::ExpiryDrift,
               .metric_at_least = sim::milliseconds(1),
               .model = model("getset", {FK::ClientCrash, FK::DelaySpikes}, 3, 4, true, 4),
               .survive_runs = 1000});
}

// F07-F12: leases, tokens and the watchdog.
void add_leases(std::vector<CatalogueEntry>& c) {
  c.push_back({.id = "F07",
               .title = "work longer than the lease: the key expires and B acquires",
               .sources = "mysql-redis approaches layers evolution",
               .model = model("set-nx-px", {FK::SlowWork}, 2, 3),
               .max_clients = 2,
               .fix = "watchdog"});
  c.push_back({.id = "F08",
               .title = "after F07, A's DEL removes B's lock",
               .sources = "approaches layers evolution",
               .property = P::OwnerOnlyRelease,
               .model = model("set-nx-px", {FK::SlowWork}, 2, 3),
               .max_clients = 3,
               .fix = "token-lua"});
  c.push_back({.id = "F09",
               .title = "between GET and DEL the lease ends; A's DEL removes B's lock",
               .sources = "approaches layers",
               .property = P::OwnerOnlyRelease,
               .model = at_calls(model("token-check-del", {FK::PauseAtCall}, 3, 3, true, 6), 10),
               .max_clients = 2,
               .fix = "token-lua"});
  c.push_back({.id = "F10",
               .title = "the lease ends while A works; B acquires (the release is harmless)",
               .sources = "approaches layers evolution",
               .model = model("token-lua", {FK::SlowWork}, 2, 3),
               .max_clients = 2,
               .fix = "watchdog"});
  c.push_back({.id = "F11",
               .title = "a long lease: a crashed holder blocks everyone for the whole lease",
               .sources = "evolution",
               .expected = E::Metric,
               .metric = MetricKind::Unavailability,
               .metric_at_least = sim::seconds(15),
               .model = within(model("token-lua lease=30s wait-limit=2s", {FK::ClientCrash}, 2, 3, false), 1_s),
               .fix = "watchdog",
               .fix_params = "lease=1s",
               .fix_property = P::NoDeadlock});
  // Without the watchdog (set-nx-px), long work loses the lock (F07).
  c.push_back({.id = "F12",
               .title = "the watchdog keeps long work safe, and a crash frees the lock within a lease",
               .sources = "approaches evolution",
               .expected = E::Survives,
               .also_holds = {P::NoDeadlock},
               .model = model("watchdog", {FK::ClientCrash, FK::SlowWork}, 2, 3),
               .baseline = "set-nx-px"});
}

// F13-F18: what the watchdog cannot help with: pauses, cuts, explicit leases, nesting, failover, Redlock restarts.
void add_beyond_the_watchdog(std::vector<CatalogueEntry>& c) {
  c.push_back({.id = "F13",
               .title = "a stop-the-world pause longer than the lease freezes the renewal too",
               .sources = "-",
               .model = within(model("watchdog", {FK::Pause}, 2, 3, true, 4), 800_ms),
               .max_clients = 2,
               .fix = "fenced",
               .fix_property = P::FencedWrites});
  c.push_back({.id = "F14",
               .title = "a cut longer than the lease starves the renewal; B acquires",
               .sources = "-",
               .model = more_faults(within(model("watchdog", {FK::Cut, FK::SlowWork}, 2, 3, false), 1_s), 3),
               .max_clients = 2,
               .fix = "fenced",
               .fix_property = P::FencedWrites});
  c.push_back({.id = "F15",
               .title = "an explicit lease disables the watchdog: F10 returns",
               .sources = "approaches",
               .model = model("watchdog explicit-lease=1s", {FK::SlowWork}, 2, 3),
               .max_clients = 2,
               .fix = "watchdog",
               .fix_params = "explicit-lease=0s"});
  c.push_back({.id = "F16",
               .title = "acquiring again from nested code deadlocks on itself",
               .sources = "approaches evolution",
               .property = P::Reentrancy,
               .model = model("token-lua nested=1 lease=30s wait-limit=2s", {}, 1, 2),
               .max_clients = 1,
               .fix = "reentrant"});
  c.push_back({.id = "F17",
               .title = "the master dies before replicating; the promoted replica lacks the key",
               .sources = "approaches evolution",
               .model = within(model("watchdog replica=1 lag=100ms failover=100ms work=100ms..400ms", {FK::MasterCrash},
                                     2, 2, false, 4),
                               500_ms),
               .max_clients = 2,
               .fix = "redlock",
               .fix_params = "replica=0 masters=3"});
  // F18 needs A to win only a bare majority, which happens when clients race
  // at the start; so they start within 1 ms of each other and the restart
  // strikes early.
  FaultModel redlock = model("redlock masters=3 spread=1ms", {FK::RedisRestart}, 2, 3, true, 1);
  redlock.window = sim::milliseconds(100);
  redlock.max_downtime = sim::milliseconds(50);
  c.push_back({.id = "F18",
               .title = "Redlock: a master restarts without persistence and forgets its part of A's majority",
               .sources = "evolution",
               .model = redlock,
               .max_clients = 2,
               .fix = "redlock",
               .fix_params = "persistent=1"});
}

// F19-F23: fencing, fairness, WATCH/MULTI, database locks and a forgetful single Redis.
void add_fencing_and_beyond(std::vector<CatalogueEntry>& c) {
  c.push_back({.id = "F19",
               .title = "fencing: the resource rejects the paused client's late write",
               .sources = "-",
               .expected = E::ViolatedYetHolds,
               .also_holds = {P::FencedWrites},
               .model = more_faults(within(model("fenced", {FK::Pause, FK::SlowWork}, 2, 3, false), 1_s), 3),
               .max_clients = 2,
               .baseline = "watchdog"});
  c.push_back({.id = "F20",
               .title = "fixed-interval retries: newcomers overtake long waiters",
               .sources = "methods-intro evolution",
               .property = P::BoundedWait,
               .model = model("token-lua work=20ms..100ms think=0s..50ms", {}, 5, 6, true, 5),
               .max_clients = 6,
               .fix = "fair"});
  c.push_back({.id = "F21",
               .title = "WATCH/MULTI/EXEC: never two winners at acquire",
               .sources = "mysql-redis",
               .expected = E::Survives,
               .model = racing_waiters("watch-multi"),
               .baseline = "del-setnx"});
  add_database_locks(c);
  // The restart bites when it strikes during a hold and Redis is back before
  // the holder is done: work is long enough, downtime short.
  FaultModel restarts = within(model("watchdog work=100ms..400ms", {FK::RedisRestart}, 2, 3, true, 4), 1_s);
  restarts.max_downtime = sim::milliseconds(100);
  // A fencing counter kept in the same forgetful Redis does not fix it: the
  // counter starts over with the lock (tests/regressions/findings.txt).
  c.push_back({.id = "F23",
               .title = "the only Redis restarts without persistence: the lock is gone",
               .sources = "approaches evolution",
               .model = restarts,
               .max_clients = 2,
               .fix = "watchdog",
               .fix_params = "persistent=1"});
}

std::vector<CatalogueEntry> build() {
  std::vector<CatalogueEntry> c;
  add_before_leases(c);
  add_leases(c);
  add_beyond_the_watchdog(c);
  add_fencing_and_beyond(c);
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
  for (const auto& e : catalogue())
    if (e.id == id) return &e;
  return nullptr;
}

namespace {
// The words of `text` (split at spaces outside [...]).
std::vector<std::string> scenario_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  int depth = 0;
  for (char c : text) {
    depth += (c == '[') - (c == ']');
    if (c == ' ' && depth == 0) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

// The base's words with those the fix sets again left out (a word may appear once).
std::string overlay(std::string_view base_words, std::string_view fix_params) {
  std::vector<std::string> fix = scenario_words(fix_params);
  auto name_of = [](const std::string& w) { return w.substr(0, w.find('=')); };
  std::string out;
  for (const std::string& w : scenario_words(base_words)) {
    bool overridden = false;
    for (const std::string& f : fix) overridden = overridden || name_of(f) == name_of(w);
    if (!overridden) out += " " + w;
  }
  for (const std::string& f : fix) out += " " + f;
  return out;
}

FaultModel with_algorithm(const CatalogueEntry& entry, const std::string& algorithm, const std::string& params) {
  FaultModel m = entry.model;
  std::string words =
      algorithm + overlay(to_string(entry.model.base).substr(entry.model.base.algorithm.size()), params);
  std::string error;
  auto s = parse_scenario(words, &error);
  if (!s) throw std::logic_error(fmt::format("{} in {}: {}", algorithm, entry.id, error));
  m.base = *s;
  return m;
}

// Whether a run violates any of `properties` (or, for a metric entry, costs
// at least the documented amount): the first such property, or nothing.
std::optional<Property> failed(const Verdict& v, const std::vector<Property>& properties) {
  for (Property p : properties)
    if (v.find(p)) return p;
  return std::nullopt;
}

// A survival or fix check: runs 0..runs-1 of `model` must violate none of
// `properties`; a run counts as held only if someone acquired. The pre-fix
// version runs the same draws (same seed and run index, so the same faults at
// the same instants) and its failures are the bites.
struct Survival {
  uint32_t runs = 0, bites = 0, held = 0;
  std::optional<uint32_t> failed_run;
  Property failed_property = Property::MutualExclusion;
};

// At least `runs` runs; with a pre-fix version, more until enough of them bite that a
// fix failing in 5 % of the biting runs would have shown with 95 % probability (59
// bites), at most kMaxSurvivalRuns.
inline constexpr uint32_t kMaxSurvivalRuns = 1500;
Survival survive(const FaultModel& model, const std::optional<FaultModel>& pre_fix, const CatalogueEntry& entry,
                 const std::vector<Property>& properties, uint64_t seed, uint32_t runs) {
  Survival out;
  const uint64_t enough_bites = biting_runs_for(kFixBound);
  const uint32_t most = std::max(runs, kMaxSurvivalRuns);
  for (uint32_t i = 0; i < most && (i < runs || (pre_fix && out.bites < enough_bites)); ++i) {
    const RunResult r = run_scenario(draw(model, seed, i));
    ++out.runs;
    if (pre_fix) {
      const Verdict pre = run_scenario(draw(*pre_fix, seed, i)).verdict;
      const bool metric_cost =
          entry.expected == Expectation::Metric && metric_value(pre.metrics, entry.metric) >= entry.metric_at_least;
      if (metric_cost || failed(pre, properties)) ++out.bites;
    }
    if (auto p = failed(r.verdict, properties)) {
      out.failed_run = i;
      out.failed_property = *p;
      return out;
    }
    if (r.verdict.metrics.acquisitions > 0) ++out.held;
  }
  return out;
}

// The bite and the held runs, for the one-line outcome; and whether they pass.
std::string survival_tally(const Survival& s) {
  const std::string unproved = s.held < s.runs ? fmt::format(" ({} acquired nothing)", s.runs - s.held) : "";
  std::string out = fmt::format("held in {} of {} runs{}; the pre-fix version fails in {} ({:.0f}%)", s.held, s.runs,
                                unproved, s.bites, s.runs ? 100.0 * s.bites / s.runs : 0.0);
  if (s.bites > 0)
    out += fmt::format(": a failure in {:.3g}% of those would have shown with 95% probability",
                       100.0 * detection_bound(s.bites));
  return out;
}

bool bites_enough(const Survival& s) {
  return s.runs > 0 && detection_bound(s.bites) <= kFixBound;
}
// Runs in which nobody acquired prove nothing; most runs must acquire.
bool held_enough(const Survival& s) { return s.held * 2 >= s.runs; }

std::string names_of(const std::vector<Property>& properties) {
  std::string names;
  for (Property p : properties) names += (names.empty() ? "" : " and ") + std::string(to_string(p));
  return names;
}

// A survival check's verdict, and its counterexample (shrunk) when it failed.
bool judge_survival(const FaultModel& model, const Survival& s, uint64_t seed, std::string& text,
                    std::optional<Counterexample>* counterexample) {
  if (s.failed_run) {
    ExploreOptions x;
    x.seed = seed;
    x.first_run = *s.failed_run;
    x.runs = 1;
    x.target = s.failed_property;
    x.shrink = counterexample != nullptr;
    ExploreResult r = explore(model, x);
    text = fmt::format("{} violated at run {} ({})", to_string(s.failed_property), *s.failed_run,
                       r.found ? clients_text(nullptr, r.found->violation.clients) : "");
    if (counterexample) *counterexample = r.found;
    return false;
  }
  const bool ok = bites_enough(s) && held_enough(s);
  text = survival_tally(s);
  if (!bites_enough(s))
    text += fmt::format(": fewer than {} biting runs, the check does not bite", biting_runs_for(kFixBound));
  else if (!held_enough(s))
    text += ": too few runs acquired to count";
  return ok;
}

void find_violation(const CatalogueEntry& entry, const EntryOptions& options, EntryOutcome& out) {
  ExploreOptions x;
  x.seed = options.seed;
  x.runs = options.budget;
  x.target = entry.property;
  x.causes = documented_causes(entry.id);  // found only with the documented cause
  ExploreResult r = explore(entry.model, x);
  out.runs = r.runs;
  out.metrics = r.worst;
  if (!r.found) {
    out.outcome =
        fmt::format("no {} violation with its documented cause in {} runs", to_string(entry.property), r.runs);
    return;
  }
  out.counterexample = r.found;
  out.cause_found = true;
  const Violation& v = r.found->violation;
  const uint32_t clients = r.found->shrunk.workload.clients;
  out.as_expected = entry.max_clients == 0 || clients <= entry.max_clients;
  out.outcome = fmt::format("{} violated ({}) by {}, {} client{} after shrinking", to_string(v.property),
                            clients_text(nullptr, v.clients), to_string(v.cause), clients, clients == 1 ? "" : "s");
  if (!out.as_expected) out.outcome += fmt::format(" (documented: {})", entry.max_clients);
  if (entry.also_holds.empty()) return;
  // ViolatedYetHolds: the other properties survive the same faults.
  const uint32_t runs = static_cast<uint32_t>(entry.survive_runs * options.survive_scale);
  Survival s = survive(entry.model, pre_fix_model(entry), entry, entry.also_holds, options.seed, runs);
  std::string text;
  const bool held = judge_survival(entry.model, s, options.seed, text, nullptr);
  out.as_expected = out.as_expected && held;
  out.outcome += fmt::format("; {} {}", names_of(entry.also_holds), text);
  out.fix_runs = s.runs;
  out.fix_bites = s.bites;
  out.fix_held = s.held;
}

void check_survivor(const CatalogueEntry& entry, const EntryOptions& options, EntryOutcome& out) {
  std::vector<Property> props{entry.property};
  props.insert(props.end(), entry.also_holds.begin(), entry.also_holds.end());
  const uint32_t runs = static_cast<uint32_t>(entry.survive_runs * options.survive_scale);
  Survival s = survive(entry.model, pre_fix_model(entry), entry, props, options.seed, runs);
  out.runs = s.runs;
  out.fix_runs = s.runs;
  out.fix_bites = s.bites;
  out.fix_held = s.held;
  std::string text;
  out.as_expected = judge_survival(entry.model, s, options.seed, text, &out.counterexample);
  out.outcome = s.failed_run ? text : fmt::format("{} {}", names_of(props), text);
}

void measure_metric(const CatalogueEntry& entry, const EntryOptions& options, EntryOutcome& out) {
  ExploreOptions x;
  x.seed = options.seed;
  x.runs = std::min<uint32_t>(options.budget, static_cast<uint32_t>(entry.survive_runs * options.survive_scale));
  x.stop_at_violation = false;
  x.shrink = false;
  ExploreResult r = explore(entry.model, x);
  out.runs = r.runs;
  out.metrics = r.worst;
  Duration value = metric_value(r.worst, entry.metric);
  out.as_expected = value >= entry.metric_at_least;
  out.outcome = fmt::format("{} up to {} (documented as a cost, not a violation)", to_string(entry.metric),
                            sim::format_duration(value));
}

void check_fix(const CatalogueEntry& entry, const EntryOptions& options, EntryOutcome& out) {
  std::vector<Property> props{entry.fix_property.value_or(entry.property)};
  props.insert(props.end(), entry.fix_also_holds.begin(), entry.fix_also_holds.end());
  const FaultModel fixed = fix_model(entry);
  const uint32_t runs = static_cast<uint32_t>(entry.survive_runs * options.survive_scale);
  Survival s = survive(fixed, pre_fix_model(entry), entry, props, options.seed, runs);
  out.fix_runs = s.runs;
  out.fix_bites = s.bites;
  out.fix_held = s.held;
  std::string text;
  out.fix_as_expected = judge_survival(fixed, s, options.seed, text, nullptr);
  out.fix_outcome = s.failed_run ? fmt::format("{} still violates {}", entry.fix, text)
                                 : fmt::format("{} keeps {}: {}", entry.fix, names_of(props), text);
}

}  // namespace

FaultModel fix_model(const CatalogueEntry& entry) { return with_algorithm(entry, entry.fix, entry.fix_params); }

std::optional<FaultModel> pre_fix_model(const CatalogueEntry& entry) {
  if (entry.expected == Expectation::Survives || entry.expected == Expectation::ViolatedYetHolds) {
    if (entry.baseline.empty()) return std::nullopt;
    return with_algorithm(entry, entry.baseline, entry.baseline_params);
  }
  return entry.model;
}

EntryOutcome run_entry(const CatalogueEntry& entry, const EntryOptions& options) {
  EntryOutcome out;
  out.entry = &entry;
  switch (entry.expected) {
    case Expectation::NotModelled:
      out.outcome = "not yet modelled (needs a database model)";
      out.as_expected = true;
      return out;
    case Expectation::Violated:
    case Expectation::ViolatedYetHolds: find_violation(entry, options, out); break;
    case Expectation::Survives: check_survivor(entry, options, out); break;
    case Expectation::Metric: measure_metric(entry, options, out); break;
  }
  if (options.generic_budget > 0) find_generically(entry, options, out);
  if (options.check_fix && !entry.fix.empty()) check_fix(entry, options, out);
  return out;
}

}  // namespace locksim::props
