// locksim check: explore one algorithm under a fault model, print the shrunk
// counterexample (exit 1) or a summary (exit 0). Standard output depends only
// on the options, never on --jobs or on the machine: timing goes to standard
// error, and only with --timing.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <tuple>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/inventory_output.hpp"
#include "locksim/cli/progress.hpp"
#include "locksim/cli/signals.hpp"
#include "locksim/cli/subcommand.hpp"
#include "locksim/cli/verdicts.hpp"
#include "locksim/props/cause_proof.hpp"
#include "locksim/props/claims.hpp"
#include "locksim/props/exercised.hpp"
#include "locksim/props/defaults.hpp"
#include "locksim/props/explorer.hpp"
#include "locksim/props/inside_search.hpp"
#include "locksim/props/inventory.hpp"
#include "locksim/props/regression.hpp"
#include "locksim/props/search.hpp"
#include "locksim/props/shrink_memo.hpp"
#include "locksim/render/duration.hpp"

namespace locksim::cli {

Shard parse_shard(const std::string& s) {
  if (s.rfind("auto", 0) == 0) return shard_from_environment(s);
  Shard shard;
  size_t slash = s.find('/');
  bool ok = slash != std::string::npos;
  if (ok) {
    auto r1 = std::from_chars(s.data(), s.data() + slash, shard.index);
    auto r2 = std::from_chars(s.data() + slash + 1, s.data() + s.size(), shard.count);
    ok = slash > 0 && r1.ec == std::errc() && r1.ptr == s.data() + slash && r2.ec == std::errc() &&
         r2.ptr == s.data() + s.size();
  }
  if (!ok || shard.count == 0 || shard.index >= shard.count)
    throw UsageError(
        fmt::format("--shard '{}': expected I/N with 0 <= I < N, e.g. 0/4 (the first of four slices), or "
                    "auto (docs/scale-out.md)",
                    s));
  return shard;
}

uint32_t shard_runs(uint32_t runs, const Shard& shard) {
  if (shard.index >= runs) return 0;
  return (runs - shard.index + shard.count - 1) / shard.count;
}

namespace {

std::string property_list() {
  std::string s;
  for (props::Property p : props::kAllProperties) s += (s.empty() ? "" : ", ") + std::string(props::to_string(p));
  return s;
}

props::FaultModel make_model(const CheckFlags& o) {
  check_algorithm(o.algorithm);
  // The same search as the test kit's check_lock (props/search.hpp).
  return props::search_model({o.algorithm, o.faults, o.clients, o.clients_max, o.iterations, o.masters, o.replica,
                              o.nested, o.lock_params, o.assume, o.lag, o.failover});
}

std::string metrics_text(const props::Metrics& m) {
  return fmt::format("longest wait {}, longest unavailability {}, expiry drift {}, most overtakes {}, {} acquisitions",
                     render::human_duration(m.longest_wait), render::human_duration(m.unavailability),
                     render::human_duration(m.expiry_drift), m.max_overtakes, m.acquisitions);
}

}  // namespace

namespace {

// No failure found: 0, unless the runs exercised nothing (props/exercised.hpp),
// which is said on stderr and is exit status 2, as a variant that needs fixing.
int exercised_status(const props::Metrics& m, std::optional<props::Property> target, uint64_t runs) {
  const std::optional<std::string> why = props::unexercised(m, target, runs);
  if (!why) return 0;
  std::cerr << fmt::format("locksim: check: {}; nothing was exercised, so passing proves nothing\n", *why);
  return 2;
}

void save_regression(const std::string& path, props::Property p, const props::Scenario& s, std::string& out) {
  props::Regression reg;
  reg.violates = true;
  reg.property = p;
  reg.scenario = s;
  std::string error;
  if (!props::append_regression(path, reg, &error)) {
    std::cout << out;
    throw UsageError(fmt::format("--save: {}", error));
  }
}

// --first: today's stop-at-first exploration, the counterexample drawn.
int check_first(const CheckFlags& o, const props::FaultModel& model, props::ExploreOptions x,
                const std::vector<props::Property>& claims, const std::string& header) {
  std::cout << header << std::flush;
  x.properties = claims;  // a violation of a property the lock never claims does not stop it,
  x.inside = &model.assumed;  // nor one outside the assumptions (the inventory's exit status)
  const std::string looked_for = x.target ? std::string(props::to_string(*x.target)) : "any property";
  const auto started = std::chrono::steady_clock::now();
  Progress progress(fmt::format("check {}", o.algorithm), x.runs);
  x.progress = [&](uint32_t done) { progress.update(done); };
  props::ExploreResult r = props::explore_parallel(model, x, o.jobs);
  progress.finish();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (o.timing)
    std::cerr << fmt::format("locksim: check took {:.2f}s of wall time on {} job{}\n", secs, o.jobs,
                             o.jobs == 1 ? "" : "s");
  std::string out;
  if (!r.found) {
    out += fmt::format("{} run{}, no violation of {}; {}\n", r.runs, r.runs == 1 ? "" : "s",
                       x.target ? looked_for : "any claimed property (" + props::claims_text(claims) + ")", metrics_text(r.worst));
    std::cout << out;
    return exercised_status(r.worst, x.target, r.runs);
  }
  props::Counterexample& found = *r.found;
  // The cause proven on the shrunk example, as the inventory proves its examples' causes.
  std::optional<props::CauseProof> proof;
  if (!o.no_shrink) {
    props::ReplayCache replays(x.check);
    proof = props::prove_example(found, model.assumed, replays);
  }
  const uint32_t clients = found.shrunk.workload.clients;
  out += fmt::format("found: {} violated in run {}", props::to_string(found.violation.property), found.run);
  if (o.no_shrink)
    out += " (not shrunk)\n";
  else
    out +=
        fmt::format(", shrunk in {} more runs to {} client{}\n", found.shrink_runs, clients, clients == 1 ? "" : "s");
  out += "\n" + describe_counterexample(o.algorithm, found, o.output, model.assumed);
  if (proof && (!proof->elements.empty() || proof->relabelled_by))
    out += fmt::format("proof:      {}\n", props::proof_text(*proof));
  if (!o.save.empty()) {
    save_regression(o.save, found.violation.property, found.shrunk, out);
    out += fmt::format("saved to {}\n", o.save);
  }
  std::cout << out;
  return found.violation.property == props::Property::VariantError ? 2 : 1;
}

int check_inventory(const CheckFlags& o, const props::FaultModel& model, const props::ExploreOptions& x,
                    const props::Assumptions& assumptions, const std::vector<props::Property>& claims,
                    const std::string& header) {
  props::InventoryOptions io;
  io.claims = claims;
  io.seed = x.seed;
  io.first_run = x.first_run;
  io.stride = x.stride;
  io.runs = x.runs;
  io.target = x.target;
  io.shrink = x.shrink;
  if (!o.time.empty()) io.time_limit_s = static_cast<double>(parse_duration_arg(o.time, "--time").ns) / 1e9;
  // The whole sweep's budget, not this shard's: every shard searches alike (props/inside_search.hpp).
  if (o.time.empty()) io.inside_search_runs = props::inside_search_budget(o.runs);
  if (!o.json) std::cout << header << std::flush;
  const auto started = std::chrono::steady_clock::now();
  Progress progress(fmt::format("check {}", o.algorithm), x.runs);
  io.progress = [&](uint32_t done) { progress.update(done); };
  io.interrupted = &interrupted();
  const props::Inventory inv = [&] {
    const InterruptibleScope ctrl_c_stops_the_runs;
    return props::take_inventory(model, io, o.jobs);
  }();
  progress.finish();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (o.timing)
    std::cerr << fmt::format("locksim: check took {:.2f}s of wall time on {} job{}\n", secs, o.jobs,
                             o.jobs == 1 ? "" : "s");
  InventoryContext ctx{o.algorithm, x.seed, assumptions,
                       model,       o.runs, o.shard.empty() ? Shard{} : parse_shard(o.shard)};
  std::string out = o.json ? inventory_json(ctx, inv) : inventory_text(ctx, inv, x.target, o.output);
  if (inv.partial && !o.json)
    out += fmt::format("interrupted: a partial inventory, of {} of the {} runs asked for\n", inv.runs, x.runs);
  if (!o.save.empty()) {
    for (const auto& f : inv.failures) save_regression(o.save, f.property, f.example.shrunk, out);
    if (!inv.failures.empty() && !o.json)
      out +=
          fmt::format("saved {} failure{} to {}\n", inv.failures.size(), inv.failures.size() == 1 ? "" : "s", o.save);
  }
  std::cout << out;
  // A variant's own Lua error is a usage error of sorts: its file needs fixing.
  for (const auto& f : inv.failures)
    if (f.property == props::Property::VariantError) return 2;
  if (inv.failures.empty() && inv.partial) return 130;  // as a shell reports an interrupted command
  if (inv.failures.empty()) return exercised_status(inv.worst, x.target, inv.runs);
  // Failures outside the assumptions are listed for the deployment to rule out, and those of
  // properties the lock does not claim for the reader; only the lock's own fail the check.
  for (const auto& f : inv.failures)
    if (props::own_failure(f)) return 1;
  return 0;
}

}  // namespace

int cmd_check(const CheckFlags& o) {
  const props::FaultModel model = make_model(o);
  const props::Assumptions& assumptions = model.assumed;
  std::optional<props::Property> target;
  if (!o.property.empty()) {
    target = props::parse_property(o.property);
    if (!target)
      throw UsageError(fmt::format("--property: unknown property '{}' (known: {})", o.property, property_list()));
  }
  std::vector<props::Property> claims;
  try {
    claims = props::claimed_properties(o.algorithm);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());  // a variant's claim that is no property
  }
  if (!o.claims.empty()) {
    std::string error;
    const auto given = props::parse_claims(o.claims, &error);
    if (!given) throw UsageError(fmt::format("--claims '{}': {}", o.claims, error));
    claims = *given;
  }
  if (target) claims = props::with_claim(claims, *target);  // asked for by name
  const Shard shard = o.shard.empty() ? Shard{} : parse_shard(o.shard);
  check_output_paths(o.output, o.save);  // now, not after the exploration
  if (o.first && o.json) throw UsageError("--json prints the inventory; it does not go with --first");
  if (!o.time.empty()) {
    const sim::Duration limit = parse_duration_arg(o.time, "--time");
    if (limit.ns <= 0) throw UsageError(fmt::format("--time '{}': must be positive", o.time));
    if (o.first) throw UsageError("--time spends a budget on an inventory; it does not go with --first");
  }

  props::ExploreOptions x;
  x.seed = o.seed;
  x.first_run = shard.index;
  x.stride = shard.count;
  x.runs = shard_runs(o.runs, shard);
  x.target = target;
  x.shrink = !o.no_shrink;

  if (o.list_runs) {
    // One line per run: 100 million lines would take seconds to print and a gigabyte to keep.
    constexpr uint32_t kMaxListedRuns = 10'000'000;
    if (x.runs > kMaxListedRuns)
      throw UsageError(
          fmt::format("--list-runs prints one line per run: at most {} (this shard has {})", kMaxListedRuns, x.runs));
    std::string out;  // written in chunks: --runs 100000000 must not hold a gigabyte
    for (uint32_t k = 0; k < x.runs; ++k) {
      out += fmt::format("{}\n", x.first_run + k * x.stride);
      if (out.size() > 65536) std::cout << out, out.clear();
    }
    std::cout << out;
    return 0;
  }

  const std::string looked_for = target ? std::string(props::to_string(*target)) : "any property";
  std::string header = fmt::format(
      "check {}: seed {}, {} run{}{}, faults {}, looking for {}\n", o.algorithm, o.seed, x.runs, x.runs == 1 ? "" : "s",
      o.shard.empty() ? std::string() : fmt::format(" (shard {}/{} of {})", shard.index, shard.count, o.runs), o.faults,
      looked_for);
  // A master crash alone is an outage: the explorer gives that master a Sentinel-promoted replica.
  const bool fails_over =
      model.failover_on_master_crash && !model.base.replica &&
      std::find(model.kinds.begin(), model.kinds.end(), props::FaultFamily::MasterCrash) != model.kinds.end();
  header += fmt::format("deployment: {}{}; assuming: {}\n", deployment_text(model.base),
                        fails_over ? " (a drawn master crash fails over to an asynchronous replica)" : "",
                        assumptions_text(assumptions));
  header += fmt::format("claims: {}\n", props::claims_text(claims));
  if (o.first) return check_first(o, model, x, claims, header);
  return check_inventory(o, model, x, assumptions, claims, header);
}

}  // namespace locksim::cli

namespace locksim::cli {

// The world each run draws: its clients, their work, the deployment and its failover.
void add_world_options(CLI::App& app_ref, CheckFlags& check) {
  CLI::App* app = &app_ref;
  app->add_option("--clients", check.clients, "exactly this many clients per run (default 2 to 3)")
      ->check(CLI::Range(1, 26));
  app->add_option("--clients-max", check.clients_max, "at most this many clients per run (default 3)")
      ->check(CLI::Range(1, 26));
  app->add_option("--iterations", check.iterations, "at most this many critical sections per client (default 3)")
      ->check(CLI::Range(1, 1000));
  app->add_option("--masters", check.masters, "independent Redis masters (default: 3 for redlock, 1 for the others)")
      ->check(CLI::Range(1, 9));
  app->add_flag("--replica", check.replica,
                "one master with an asynchronous replica, promoted when the master dies (F17)");
  app->add_option("--lag", check.lag,
                  "the replica's replication lag: a duration, or MIN..MAX to draw from (default 1ms..100ms, drawn "
                  "whenever a replica is in play)");
  app->add_option("--failover", check.failover,
                  "how long after the master dies the replica is promoted: a duration, or MIN..MAX (default 50ms.."
                  "one lease)");
}

Subcommand add_check_command(CLI::App& parent) {
  struct State {
    CheckFlags check;
    std::vector<std::string> params;
  };
  auto state = std::make_shared<State>();
  CheckFlags& check = state->check;
  auto* app = parent.add_subcommand(
      "check",
      "explore one algorithm over many drawn scenarios and list every distinct failure (property + cause), "
      "each with a shrunk counterexample; exit 1 while any remains");
  app->footer(
      "Note: check's --faults names fault KINDS the explorer may draw (e.g. --faults crash,pause,slow-work), while "
      "run's --faults takes a fault PLAN (concrete faults at given times). Kinds: crash, restart, pause, slow-work, "
      "delay, cut, reset, skew, drift, jump, redis-restart, crash-at-call, pause-at-call, master-crash, redis-drift, "
      "lost-at-call; "
      "or all, none.\n"
      "The output does not depend on --jobs; --shard I/N runs the run indices i < --runs with i % N == I, so N "
      "machines with shards 0/N..N-1/N together cover every run once; their --json outputs merge by adding each "
      "failure's runs and keeping its lowest first_run.\n"
      "Each failure is the lock's own when its counterexample stays inside the assumptions in force (the "
      "algorithm's documented ones plus --assume; printed in the header and the JSON), else it is listed outside "
      "them with the assumptions it breaks: what the deployment must rule out. A failure under the assumptions of a "
      "property the lock does not claim (the header's claims: e.g. fairness of a spin lock) is listed in a section "
      "of its own. Only the lock's own failures, of claimed properties under the assumptions, make "
      "the exit status 1. Where the deployment's built-in counterpart (the watchdog on one Redis, redlock on "
      "several masters) fails the same scenario the same way, the entry says so.");
  app->add_option("ALGORITHM", check.algorithm, "an algorithm id (see 'locksim list')")->required();
  auto* runs = app->add_option("--runs", check.runs, "how many scenarios to draw and run (default 1000)")
                   ->check(CLI::Range(1, 100'000'000));
  app->add_option("--seed", check.seed, "the exploration's seed (default 1)")->check(seed_validator());
  app->add_option("--faults", check.faults,
                  "fault KINDS the explorer may draw, comma-separated, or all/none (default all)")
      ->check(non_empty_validator("KINDS"));
  app->add_option("--property", check.property,
                  "look for this property only: mutual-exclusion, no-deadlock, owner-only-release, fenced-writes, "
                  "reentrancy, bounded-wait (default any)");
  add_world_options(*app, check);
  app->add_option("--jobs", check.jobs, "parallel simulations (the result is the same as with one)")
      ->check(CLI::Range(1, 256));
  app->add_option("--shard", check.shard,
                  "I/N: run only the I-th (from 0) of N interleaved slices of the runs; auto or auto/N: the slice a "
                  "batch engine gives this task (Slurm, Kubernetes Indexed Jobs, GNU parallel; docs/scale-out.md)");
  app->add_option("--save", check.save, "append the counterexample to this regression file");
  app->add_flag("--no-shrink", check.no_shrink, "show the counterexample as found, unshrunk");
  app->add_flag("--first", check.first, "stop at the first violation of a claimed property (or --property) and draw it, instead of the whole inventory");
  app->add_flag("--json", check.json,
                "print the inventory as one JSON object {algorithm, seed, runs, assumptions, claims, failures: "
                "[{property, cause, catalogue, claimed, inherent, runs, first_run, needs, proof, replay}]}; shards' outputs merge by adding runs "
                "and keeping the lowest first_run");
  app->add_option("--assume", check.assume,
                  "what the deployment guarantees, added to the algorithm's documented assumptions, comma-separated: "
                  "durable-redis (a restart keeps the data), sane-redis-clock, sane-client-clock (no jumps, drift "
                  "within 1000 ppm), no-failover, work<=D, pause<=D, delay<=D, clock<=D (bounds); none: assume "
                  "nothing at all. Failures that need more are listed outside the assumptions; bounds shape the "
                  "faults drawn");
  app->add_option("--claims", check.claims,
                  "the properties the lock promises, comma-separated, or all/none, replacing the algorithm's own "
                  "(the header prints them; a variant file's `claims = {...}`): only failures of claimed properties "
                  "under the assumptions fail the check; the others are listed apart")
      ->check(non_empty_validator("PROPERTIES"));
  app->add_option("--nested", check.nested,
                  "draw nested acquires up to this depth in half the runs (default: 1 for "
                  "algorithms whose story includes reentrancy, else 0)")
      ->check(CLI::Range(0, 8));
  app->add_option("--time", check.time,
                  "spend this much wall time (e.g. 30s) instead of a number of runs; --runs "
                  "then caps it (the runs made depend on the machine)");
  app->add_flag("--timing", check.timing, "print the wall time to standard error");
  app->add_flag("--list-runs", check.list_runs, "print the run indices this shard would run, and stop")->group("");
  add_lock_param_options(*app, state->params);
  add_output_options(*app, check.output);
  return {app, [state, app, runs] {
            if (!state->check.time.empty() && runs->count() == 0) state->check.runs = 100'000'000;
            ScenarioOptions given;
            collect_lock_params(*app, given, state->params);
            state->check.lock_params = given.lock_params;
            return cmd_check(state->check);
          }};
}

}  // namespace locksim::cli
