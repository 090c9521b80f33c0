// locksim check: explore one algorithm under a fault model, print the shrunk
// counterexample (exit 1) or a summary (exit 0). Standard output depends only
// on the options, never on --jobs or on the machine: timing goes to standard
// error, and only with --timing.
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/subcommand.hpp"
#include "cli/progress.hpp"
#include "cli/verdicts.hpp"
#include "props/explorer.hpp"
#include "props/regression.hpp"
#include "render/duration.hpp"

namespace locksim::cli {

Shard parse_shard(const std::string& s) {
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
    throw UsageError(fmt::format("--shard '{}': expected I/N with 0 <= I < N, e.g. 0/4 (the first of four slices)", s));
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

props::FaultModel make_model(const CheckOptions& o) {
  check_algorithm(o.algorithm);
  props::FaultModel m;
  m.base.algorithm = o.algorithm;
  if (o.replica && o.masters != 1) throw UsageError("--replica goes with a single master");
  m.base.masters = o.masters;
  const lock::Algorithm* algorithm = lock::find_algorithm(o.algorithm);
  m.base.lock = algorithm->defaults;  // a variant's own defaults; flags override them
  if (algorithm->reentrant) m.base.workload.nested = std::max<uint32_t>(m.base.workload.nested, 1);
  m.base.replica = o.replica;
  for (const auto& [name, value] : o.lock_params) {
    const lock::ParamInfo* info = lock::find_lock_param(name);
    if (!info) throw UsageError(fmt::format("unknown lock parameter '{}'", name));
    if (auto error = info->set(m.base.lock, value)) throw UsageError(fmt::format("--{}: {}", name, *error));
  }
  std::string error;
  auto kinds = props::parse_fault_kinds(o.faults, &error);
  if (!kinds) throw UsageError("--faults: " + error);
  m.kinds = *kinds;
  m.swarm = true;
  if (o.clients) m.min_clients = m.max_clients = o.clients;
  if (o.clients_max) {
    if (o.clients && o.clients_max < o.clients)
      throw UsageError(fmt::format("--clients-max {}: less than --clients {}", o.clients_max, o.clients));
    m.max_clients = o.clients_max;
    m.min_clients = std::min(m.min_clients, m.max_clients);
  }
  if (o.iterations) m.max_iterations = o.iterations;
  return m;
}

std::string metrics_text(const props::Metrics& m) {
  return fmt::format("longest wait {}, longest unavailability {}, expiry drift {}, most overtakes {}, {} acquisitions",
                     render::human_duration(m.longest_wait), render::human_duration(m.unavailability),
                     render::human_duration(m.expiry_drift), m.max_overtakes, m.acquisitions);
}

}  // namespace

int cmd_check(const CheckOptions& o) {
  const props::FaultModel model = make_model(o);
  std::optional<props::Property> target;
  if (!o.property.empty()) {
    target = props::parse_property(o.property);
    if (!target) throw UsageError(fmt::format("--property: unknown property '{}' (known: {})", o.property, property_list()));
  }
  const Shard shard = o.shard.empty() ? Shard{} : parse_shard(o.shard);
  if (!o.save.empty()) {
    // Say now, not after the exploration, when the file cannot be written.
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path path(o.save);
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    if (fs::exists(path, ec) ? (fs::is_directory(path, ec) || access(o.save.c_str(), W_OK) != 0)
                             : (!fs::is_directory(dir, ec) || access(dir.c_str(), W_OK) != 0))
      throw UsageError(fmt::format("--save: cannot write '{}'", o.save));
  }

  props::ExploreOptions x;
  x.seed = o.seed;
  x.first_run = shard.index;
  x.stride = shard.count;
  x.runs = shard_runs(o.runs, shard);
  x.target = target;
  x.shrink = !o.no_shrink;

  if (o.list_runs) {
    std::string out;
    for (uint32_t k = 0; k < x.runs; ++k) out += fmt::format("{}\n", x.first_run + k * x.stride);
    std::cout << out;
    return 0;
  }

  const std::string looked_for = target ? std::string(props::to_string(*target)) : "any property";
  std::string out = fmt::format("check {}: seed {}, {} run{}{}, faults {}, looking for {}\n", o.algorithm, o.seed, x.runs,
                                x.runs == 1 ? "" : "s",
                                o.shard.empty() ? std::string() : fmt::format(" (shard {}/{} of {})", shard.index, shard.count, o.runs),
                                o.faults, looked_for);
  std::cout << out << std::flush;

  const auto started = std::chrono::steady_clock::now();
  Progress progress(fmt::format("check {}", o.algorithm), x.runs);
  x.progress = [&](uint32_t done) { progress.update(done); };
  props::ExploreResult r = props::explore_parallel(model, x, o.jobs);
  progress.finish();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (o.timing) std::cerr << fmt::format("locksim: check took {:.2f}s of wall time on {} job{}\n", secs, o.jobs, o.jobs == 1 ? "" : "s");

  out.clear();
  if (!r.found) {
    out += fmt::format("{} run{}, no violation of {}; {}\n", r.runs, r.runs == 1 ? "" : "s",
                       target ? looked_for : "any property (" + property_list() + ")", metrics_text(r.worst));
    std::cout << out;
    return 0;
  }

  const props::Counterexample& found = *r.found;
  Recorded rec = run_recorded(found.shrunk);
  const props::Property p = found.violation.property;
  std::vector<render::Highlight> highlights = highlights_of(rec.verdict, p);
  const uint32_t clients = found.shrunk.workload.clients;
  out += fmt::format("found: {} violated in run {}", props::to_string(p), found.run);
  if (o.no_shrink) out += " (not shrunk)\n";
  else out += fmt::format(", shrunk in {} more runs to {} client{}\n", found.shrink_runs, clients, clients == 1 ? "" : "s");
  out += "\n";
  std::string title = fmt::format("{}: {} violated, {} client{}", o.algorithm, props::to_string(p), clients, clients == 1 ? "" : "s");
  ShownRun shown = show_run(*rec.sim, title, o.output, &highlights);
  out += shown.text;
  if (!rec.verdict.find(p))
    out += "(the recorded re-run did not show the violation: please report this scenario)\n";
  out += fmt::format("\nproperty:   {}\n", props::to_string(p));
  out += fmt::format("why:        {}\n", found.violation.sentence);
  out += fmt::format("scenario:   {}\n", props::to_string(found.shrunk));
  out += fmt::format("trace hash: {:016x}\n", rec.trace_hash);
  out += fmt::format("replay:     {}\n", replay_command(found.shrunk));
  if (!o.output.trace_json.empty()) out += fmt::format("wrote {} (open it in https://ui.perfetto.dev)\n", o.output.trace_json);
  if (!o.output.svg.empty()) out += fmt::format("wrote {}\n", o.output.svg);
  if (!o.save.empty()) {
    props::Regression reg;
    reg.violates = true;
    reg.property = p;
    reg.scenario = found.shrunk;
    std::string error;
    if (!props::append_regression(o.save, reg, &error)) {
      std::cout << out;
      throw UsageError(fmt::format("--save: {}", error));
    }
    out += fmt::format("saved to {}\n", o.save);
  }
  std::cout << out;
  // A variant's own Lua error is a usage error of sorts: its file needs fixing.
  return p == props::Property::VariantError ? 2 : 1;
}

}  // namespace locksim::cli

namespace locksim::cli {

namespace {

void add_check_lock_params(CLI::App& app, std::vector<std::string>& values) {
  const auto& table = lock::lock_param_table();
  values.assign(table.size(), std::string());
  static const lock::LockParams defaults;
  for (size_t i = 0; i < table.size(); ++i)
    app.add_option("--" + std::string(table[i].name), values[i],
                   fmt::format("lock: {} (default {})", table[i].help, table[i].get(defaults)))
        ->group("Lock parameters");
}

}  // namespace

Subcommand add_check_command(CLI::App& parent) {
  struct State {
    CheckOptions check;
    std::vector<std::string> params;
  };
  auto state = std::make_shared<State>();
  CheckOptions& check = state->check;
  auto* app = parent.add_subcommand(
      "check", "explore one algorithm over many drawn scenarios; exit 1 with a shrunk counterexample if a property is violated");
  app->footer(
      "Note: check's --faults names fault KINDS the explorer may draw (e.g. --faults crash,pause,slow-work), while "
      "run's --faults takes a fault PLAN (concrete faults at given times). Kinds: crash, restart, pause, slow-work, "
      "delay, cut, reset, skew, drift, jump, redis-restart, crash-at-call, pause-at-call, master-crash; or all, none.\n"
      "The output does not depend on --jobs; --shard I/N runs the run indices i < --runs with i % N == I, so N "
      "machines with shards 0/N..N-1/N together cover every run once.");
  app->add_option("ALGORITHM", check.algorithm, "an algorithm id (see 'locksim list')")->required();
  app->add_option("--runs", check.runs, "how many scenarios to draw and run (default 1000)")
      ->check(CLI::Range(1, 100'000'000));
  app->add_option("--seed", check.seed, "the exploration's seed (default 1)")->check(CLI::NonNegativeNumber);
  app->add_option("--faults", check.faults, "fault KINDS the explorer may draw, comma-separated, or all/none (default all)");
  app->add_option("--property", check.property,
                  "look for this property only: mutual-exclusion, no-deadlock, owner-only-release, fenced-writes, "
                  "reentrancy, bounded-wait (default any)");
  app->add_option("--clients", check.clients, "exactly this many clients per run (default 2 to 3)")->check(CLI::Range(1, 26));
  app->add_option("--clients-max", check.clients_max, "at most this many clients per run (default 3)")
      ->check(CLI::Range(1, 26));
  app->add_option("--iterations", check.iterations, "at most this many critical sections per client (default 3)")
      ->check(CLI::Range(1, 1000));
  app->add_option("--masters", check.masters, "independent Redis masters, for redlock (default 1)")->check(CLI::Range(1, 9));
  app->add_flag("--replica", check.replica, "one master with an asynchronous replica, promoted when the master dies (F17)");
  app->add_option("--jobs", check.jobs, "parallel simulations (the result is the same as with one)")->check(CLI::Range(1, 256));
  app->add_option("--shard", check.shard, "I/N: run only the I-th (from 0) of N interleaved slices of the runs");
  app->add_option("--save", check.save, "append the counterexample to this regression file");
  app->add_flag("--no-shrink", check.no_shrink, "show the counterexample as found, unshrunk");
  app->add_flag("--timing", check.timing, "print the wall time to standard error");
  app->add_flag("--list-runs", check.list_runs, "print the run indices this shard would run, and stop")->group("");
  add_check_lock_params(*app, state->params);
  add_output_options(*app, check.output);
  return {app, [state, app] {
            ScenarioOptions given;
            collect_lock_params(*app, given, state->params);
            state->check.lock_params = given.lock_params;
            return cmd_check(state->check);
          }};
}

}  // namespace locksim::cli
