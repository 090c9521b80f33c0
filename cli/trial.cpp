// locksim trial [options] -- COMMAND [ARGS]: a team's own lock client, run as real
// processes against `locksim serve` instances under a fault schedule drawn from a seed,
// its critical sections (LOCKSIM.ENTER/EXIT) and fenced writes (LOCKSIM.WRITE) judged
// by the simulator's checkers (trial/). --replay re-runs a found schedule and says how
// often it reproduces: real time does not replay byte for byte.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "locksim/cli/options.hpp"
#include "locksim/cli/commands.hpp"
#include "locksim/cli/progress.hpp"
#include "locksim/cli/subcommand.hpp"
#include "locksim/cli/verdicts.hpp"
#include "locksim/render/chrome_trace.hpp"
#include "locksim/trial/client_process.hpp"
#include "locksim/trial/runner.hpp"
#include "locksim/trial/shrink.hpp"
#include "locksim/trial/verdict.hpp"

namespace locksim::cli {

namespace {

constexpr const char* kDefaultFaults = "pause,cut,delay,lose,skew";

struct TrialFlags {
  std::vector<std::string> command;
  uint32_t clients = 3, servers = 1, runs = 1, tries = 5;
  uint64_t seed = 1;
  std::string duration = "10s", faults = kDefaultFaults, max_pause = "1s", max_delay = "2s", max_skew = "2s",
              max_jump = "30s", mean_gap = "1s", stall = "10s", grace = "2s", replay;
  bool json = false;
  bool shrink = false;       // --replay: remove faults while it still reproduces
  double threshold = 0.5;    // ... at least this often
};

using render::json_string;

std::string joined(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : std::string(sep)) + i;
  return out;
}

std::string command_text(const std::vector<std::string>& command) {
  std::vector<std::string> words;
  for (const auto& w : command) words.push_back(shell_quote(w));
  return joined(words, " ");
}

std::string trial_replay_line(const trial::Schedule& s, const TrialFlags& f) {
  return fmt::format("locksim trial --replay {} -- {}", shell_quote(trial::to_text(s)), command_text(f.command));
}

std::vector<std::string> fault_texts(const std::vector<trial::AppliedFault>& faults) {
  std::vector<std::string> out;
  for (const auto& f : faults) out.push_back(trial::describe(f.fault));
  return out;
}

std::vector<std::string> client_names(const trial::RunRecord& run, const std::vector<uint32_t>& clients) {
  std::vector<std::string> out;
  for (uint32_t c : clients) out.push_back(c < run.clients.size() ? run.clients[c] : "?");
  return out;
}

// Clients that ended by themselves with a failure: what they said last.
std::string client_failures_text(const trial::RunRecord& run) {
  std::string out;
  for (const auto& e : run.ends) {
    if (e.at == sim::Instant::never() || e.how == "exited with status 0") continue;
    out += fmt::format("  note: {} {} at {}", e.name, e.how, sim::format_instant(e.at));
    out += e.log_tail.empty() ? " (no output)\n" : "; its last output:\n";
    std::istringstream lines(e.log_tail);
    for (std::string line; std::getline(lines, line);) out += "    | " + line + "\n";
  }
  return out;
}

// Nothing to judge is an error, not a pass: no client marked a critical section in any
// run. A run without marks whose clients all ended by themselves stops the trial at once
// (the program is broken); one whose clients ran on is judged (no-deadlock, if long).
std::string no_marks_text(const trial::RunRecord& run) {
  std::string why = "the clients sent no LOCKSIM.ENTER: nothing to judge. Each client marks its critical section with "
                    "LOCKSIM.ENTER resource / LOCKSIM.EXIT resource on a connection named $LOCKSIM_CLIENT "
                    "(docs/trial.md)";
  why += fmt::format("\n  schedule: {}", trial::to_text(run.schedule));
  std::string failures = client_failures_text(run);
  if (!failures.empty()) why += "\n" + failures;
  return why;
}

void stop_if_broken(const trial::RunRecord& run) {
  if (!run.marks.empty()) return;
  for (const auto& e : run.ends)
    if (e.at == sim::Instant::never()) return;
  throw UsageError(no_marks_text(run));
}

// The timeline of the violation's resource: the clients' critical sections and pauses,
// the overlap highlighted (the renderer of simulated runs, on the trial's history).
std::string timeline_text(const trial::RunRecord& run, const trial::Finding& f) {
  if (f.resource.empty()) return "";
  const lock::History history = trial::history_of(run, f.resource);
  const sim::Trace no_commands;
  props::Verdict verdict;
  verdict.violations.push_back(f.violation);
  OutputOptions output;
  output.colour = "never";
  ShowOptions show;
  show.indent = "  ";
  show.story_lines = 0;
  const ShownRun shown = show_run(RunRecord{history, no_commands, f.resource}, "resource " + f.resource, output,
                                  highlights_of(verdict), show);
  // The trial does not follow the lock's keys (they are the library's own): the drawing's
  // key lane would stay empty, so it and its legend line are left out.
  std::string out;
  std::istringstream lines(shown.text);
  const std::string lane = "  " + f.resource;
  for (std::string line; std::getline(lines, line);) {
    const bool empty_lane = line.rfind(lane, 0) == 0 && line.find_first_not_of(' ', lane.size()) == std::string::npos;
    if (empty_lane || line.ends_with("lane: who holds the key (small letter: no expiry)")) continue;
    out += line + "\n";
  }
  return out;
}

std::string finding_text(const trial::RunRecord& run, const trial::Finding& f, const TrialFlags& flags) {
  std::string out;
  out += fmt::format("  {} violated{}\n", props::to_string(f.violation.property),
                     f.resource.empty() ? "" : fmt::format(" on {}", f.resource));
  out += fmt::format("  why:      {}\n", f.violation.sentence);
  if (!f.violation.clients.empty()) out += fmt::format("  clients:  {}\n", joined(client_names(run, f.violation.clients), ", "));
  const auto faults = fault_texts(f.in_force);
  out += fmt::format("  faults in force: {}\n", faults.empty() ? "none" : joined(faults, "; "));
  out += timeline_text(run, f);
  out += fmt::format("  schedule: {}\n", trial::to_text(run.schedule));
  out += fmt::format("  replay:   {}\n", trial_replay_line(run.schedule, flags));
  return out;
}

std::string finding_json(const trial::RunRecord& run, const trial::Finding& f, const TrialFlags& flags) {
  std::vector<std::string> clients, faults;
  for (const auto& c : client_names(run, f.violation.clients)) clients.push_back(json_string(c));
  for (const auto& t : fault_texts(f.in_force)) faults.push_back(json_string(t));
  return fmt::format(
      "{{\"property\": {}, \"resource\": {}, \"clients\": [{}], \"from\": {}, \"to\": {}, \"why\": {}, "
      "\"faults\": [{}], \"schedule\": {}, \"replay\": {}}}",
      json_string(props::to_string(f.violation.property)), json_string(f.resource), joined(clients, ", "),
      json_string(sim::format_instant(f.violation.from)), json_string(sim::format_instant(f.violation.to)),
      json_string(f.violation.sentence), joined(faults, ", "), json_string(trial::to_text(run.schedule)),
      json_string(trial_replay_line(run.schedule, flags)));
}

trial::FaultModel fault_model(const TrialFlags& f, bool kinds_given) {
  trial::FaultModel m;
  m.kinds = trial::parse_fault_kinds(f.faults);
  // Skew by default only where libfaketime is installed; asked for by name (skew, clock), it must be.
  if (trial::find_libfaketime().empty()) {
    const auto named = [&](trial::FaultKind k) { return std::find(m.kinds.begin(), m.kinds.end(), k) != m.kinds.end(); };
    if (!kinds_given) std::erase(m.kinds, trial::FaultKind::Skew);
    else if (named(trial::FaultKind::Skew) || named(trial::FaultKind::Clock))
      throw UsageError("--faults skew and clock need libfaketime (Debian: faketime)");
  }
  m.mean_gap = parse_duration_arg(f.mean_gap, "--mean-gap");
  m.max_pause = parse_duration_arg(f.max_pause, "--max-pause");
  m.max_delay = parse_duration_arg(f.max_delay, "--max-delay");
  m.max_skew = parse_duration_arg(f.max_skew, "--max-skew");
  m.max_jump = parse_duration_arg(f.max_jump, "--max-jump");
  for (auto [d, name] : {std::pair{m.mean_gap, "--mean-gap"}, {m.max_pause, "--max-pause"}, {m.max_delay, "--max-delay"},
                         {m.max_skew, "--max-skew"}, {m.max_jump, "--max-jump"}})
    if (d < sim::milliseconds(10) || d > sim::seconds(3600)) throw UsageError(fmt::format("{} must be 10ms..1h", name));
  return m;
}

trial::RunSetup run_setup(const TrialFlags& f, Progress*& progress) {
  trial::RunSetup setup;
  setup.command = f.command;
  const sim::Duration grace = parse_duration_arg(f.grace, "--grace");
  if (grace.ns < 0 || grace > sim::seconds(60)) throw UsageError("--grace must be 0s..60s");
  setup.grace = std::chrono::milliseconds(grace.ms());
  setup.progress = [&progress](sim::Duration elapsed, size_t, size_t) {
    if (progress) progress->update(static_cast<uint64_t>(elapsed.ms()));
  };
  return setup;
}

trial::RunRecord run_schedule_once(const trial::Schedule& schedule, const trial::RunSetup& setup) {
  try {
    return trial::run_trial(schedule, setup);
  } catch (const trial::CannotStart& e) {
    throw UsageError(e.what());
  }
}

// A replay's tries: how many reproduced a violation, per property, and the JSON of each.
struct Tries {
  uint32_t reproduced = 0;
  size_t holds = 0;
  std::optional<trial::RunRecord> last;
  std::map<std::string, uint32_t> by_property;
  std::vector<std::string> json;
};

Tries run_tries(const trial::Schedule& schedule, const TrialFlags& f, const trial::RunSetup& setup,
                const trial::JudgeOptions& judge_options, Progress*& progress_slot) {
  Tries out;
  auto& last = out.last;
  for (uint32_t i = 0; i < f.tries; ++i) {
    Progress progress(fmt::format("try {}/{}", i + 1, f.tries), static_cast<uint64_t>(schedule.duration.ms()));
    progress_slot = &progress;
    const trial::RunRecord run = run_schedule_once(schedule, setup);
    progress_slot = nullptr;
    progress.finish();
    stop_if_broken(run);
    const trial::Judgement j = trial::judge(run, judge_options);
    out.holds += j.holds;
    if (!last || j.holds == 0) last = run;  // the one to explain a trial without marks
    if (j.violated()) ++out.reproduced;
    for (const auto& found : j.findings) ++out.by_property[std::string(props::to_string(found.violation.property))];
    if (f.json) {
      out.json.push_back(j.violated() ? finding_json(run, j.findings.front(), f) : "null");
      continue;
    }
    std::cout << fmt::format("try {}: {} critical sections{}\n", i + 1, j.holds, j.violated() ? "" : ", no violation");
    if (j.violated()) std::cout << finding_text(run, j.findings.front(), f);
    std::cout << client_failures_text(run) << std::flush;
  }
  return out;
}

// --shrink: faults removed while `target` is still violated in at least --threshold of --tries.
trial::Schedule shrink_schedule(const trial::Schedule& schedule, const std::string& target, const TrialFlags& f,
                                const trial::RunSetup& setup, const trial::JudgeOptions& judge_options) {
  const auto rate = [&](const trial::Schedule& candidate) {
    uint32_t hits = 0;
    for (uint32_t i = 0; i < f.tries; ++i) {
      const trial::RunRecord run = run_schedule_once(candidate, setup);
      for (const auto& found : trial::judge(run, judge_options).findings)
        if (props::to_string(found.violation.property) == target) {
          ++hits;
          break;
        }
    }
    return static_cast<double>(hits) / f.tries;
  };
  const auto said = [&](const trial::ShrinkStep& step) {
    if (!f.json)
      std::cout << fmt::format("  without {}: {:.0f}% -> {}\n", trial::describe(step.removed), step.rate * 100,
                               step.kept ? "kept" : "removed")
                << std::flush;
  };
  if (!f.json)
    std::cout << fmt::format("shrinking ({} violated at least {:.0f}% of {} tries):\n", target, f.threshold * 100, f.tries);
  const trial::Shrunk shrunk = trial::shrink(schedule, f.threshold, rate, said);
  if (!f.json)
    std::cout << fmt::format("shrunk to {} fault{}: {}\nreplay:   {}\n", shrunk.schedule.faults.size(),
                             shrunk.schedule.faults.size() == 1 ? "" : "s", trial::to_text(shrunk.schedule),
                             trial_replay_line(shrunk.schedule, f));
  return shrunk.schedule;
}

int cmd_replay(const TrialFlags& f, const trial::JudgeOptions& judge_options, Progress*& progress_slot) {
  std::string text = f.replay;
  if (std::ifstream file(f.replay); file && f.replay.find('=') == std::string::npos) {
    std::stringstream all;
    all << file.rdbuf();
    text = all.str();
  }
  const trial::Schedule schedule = trial::parse_schedule(text);
  if (f.tries < 1 || f.tries > 1000) throw UsageError("--tries must be 1..1000");
  if (f.threshold <= 0 || f.threshold > 1) throw UsageError("--threshold must be in (0, 1]");
  const trial::RunSetup setup = run_setup(f, progress_slot);
  if (!f.json) std::cout << fmt::format("locksim trial --replay: {} tries of {}\n", f.tries, trial::to_text(schedule));
  const Tries tries = run_tries(schedule, f, setup, judge_options, progress_slot);
  if (tries.holds == 0) throw UsageError(no_marks_text(*tries.last));
  std::vector<std::string> counts;
  std::string target;  // the property reproduced most often: the one shrinking keeps
  uint32_t most = 0;
  for (const auto& [p, n] : tries.by_property) {
    counts.push_back(f.json ? fmt::format("{}: {}", json_string(p), n) : fmt::format("{} {}", p, n));
    if (n > most) target = p, most = n;
  }
  if (!f.json)
    std::cout << fmt::format("reproduced in {} of {} tries ({}%){}{}\n", tries.reproduced, f.tries,
                             tries.reproduced * 100 / f.tries, counts.empty() ? "" : ": ", joined(counts, ", "))
              << std::flush;
  std::string shrunk_json = "null";
  if (f.shrink && tries.reproduced > 0)
    shrunk_json = json_string(trial::to_text(shrink_schedule(schedule, target, f, setup, judge_options)));
  if (f.json)
    std::cout << fmt::format("{{\"schedule\": {}, \"tries\": {}, \"reproduced\": {}, \"properties\": {{{}}}, "
                             "\"results\": [{}], \"shrunk\": {}}}\n",
                             json_string(trial::to_text(schedule)), f.tries, tries.reproduced, joined(counts, ", "),
                             joined(tries.json, ", "), shrunk_json);
  return tries.reproduced > 0 ? 1 : 0;
}

int cmd_trial(const TrialFlags& f, bool kinds_given) {
  if (f.command.empty()) throw UsageError("no client program: locksim trial [options] -- COMMAND [ARGS]");
  const sim::Duration stall = parse_duration_arg(f.stall, "--stall");
  if (stall < sim::milliseconds(100)) throw UsageError("--stall must be at least 100ms");
  const trial::JudgeOptions judge_options{.stall = stall};
  Progress* progress_slot = nullptr;
  if (f.shrink && f.replay.empty()) throw UsageError("--shrink goes with --replay SCHEDULE");
  if (!f.replay.empty()) return cmd_replay(f, judge_options, progress_slot);
  if (f.clients < 1 || f.clients > 64) throw UsageError("--clients must be 1..64");
  if (f.servers < 1 || f.servers > 16) throw UsageError("--servers must be 1..16");
  if (f.runs < 1 || f.runs > 100000) throw UsageError("--runs must be 1..100000");
  const sim::Duration duration = parse_duration_arg(f.duration, "--duration");
  if (duration < sim::milliseconds(100) || duration > sim::seconds(24 * 3600))
    throw UsageError("--duration must be 100ms..24h");
  const trial::FaultModel model = fault_model(f, kinds_given);
  const trial::RunSetup setup = run_setup(f, progress_slot);
  if (!f.json)
    std::cout << fmt::format("locksim trial: {} client{} x {}, {} server{}, faults {}, seed {}\n", f.clients,
                             f.clients == 1 ? "" : "s", sim::format_duration(duration), f.servers,
                             f.servers == 1 ? "" : "s", trial::kinds_text(model.kinds), f.seed)
              << std::flush;
  size_t holds = 0, writes = 0, refused = 0;
  for (uint32_t r = 0; r < f.runs; ++r) {
    const trial::Schedule schedule = trial::draw(f.seed, r, f.clients, f.servers, duration, model);
    Progress progress(fmt::format("run {}/{}", r + 1, f.runs), static_cast<uint64_t>(duration.ms()));
    progress_slot = &progress;
    const trial::RunRecord run = run_schedule_once(schedule, setup);
    progress_slot = nullptr;
    progress.finish();
    stop_if_broken(run);
    const trial::Judgement j = trial::judge(run, judge_options);
    holds += j.holds;
    if (holds == 0 && (j.violated() || r + 1 == f.runs)) throw UsageError(no_marks_text(run));
    writes += j.writes;
    refused += j.rejected_writes;
    const std::string counts = fmt::format("{} critical sections, {} writes ({} refused as stale), {} faults", j.holds,
                                           j.writes, j.rejected_writes, run.faults.size());
    if (!j.violated()) {
      if (!f.json)
        std::cout << fmt::format("run {}/{}: {}: no violation\n", r + 1, f.runs, counts) << client_failures_text(run)
                  << std::flush;
      continue;
    }
    if (f.json) {
      std::vector<std::string> all;
      for (const auto& found : j.findings) all.push_back(finding_json(run, found, f));
      std::cout << fmt::format("{{\"command\": {}, \"seed\": {}, \"runs\": {}, \"failed_run\": {}, \"holds\": {}, "
                               "\"writes\": {}, \"refused_writes\": {}, \"fault_kinds\": {}, \"violations\": [{}]}}\n",
                               json_string(command_text(f.command)), f.seed, r + 1, r + 1, holds, writes, refused,
                               json_string(trial::kinds_text(model.kinds)), joined(all, ", "));
      return 1;
    }
    std::cout << fmt::format("run {}/{}: {}\n", r + 1, f.runs, counts);
    for (const auto& found : j.findings) std::cout << finding_text(run, found, f);
    std::cout << client_failures_text(run);
    std::cout << fmt::format("violation found in run {}; exit status 1.\n", r + 1);
    return 1;
  }
  if (f.json)
    std::cout << fmt::format("{{\"command\": {}, \"seed\": {}, \"runs\": {}, \"failed_run\": null, \"holds\": {}, "
                             "\"writes\": {}, \"refused_writes\": {}, \"fault_kinds\": {}, \"violations\": []}}\n",
                             json_string(command_text(f.command)), f.seed, f.runs, holds, writes, refused,
                             json_string(trial::kinds_text(model.kinds)));
  else
    std::cout << fmt::format("no violation in {} run{} ({} critical sections); exit status 0.\n", f.runs,
                             f.runs == 1 ? "" : "s", holds);
  return 0;
}

}  // namespace

Subcommand add_trial_command(CLI::App& parent) {
  auto* app = parent.add_subcommand(
      "trial", "your own lock client, as real processes against the model with faults, judged (trial -- COMMAND)");
  auto f = std::make_shared<TrialFlags>();
  app->footer(
      "Each of --clients copies of COMMAND gets LOCKSIM_CLIENT (its name: c1, c2...; name every Redis connection "
      "so) and LOCKSIM_REDIS (the servers' redis:// URLs, comma-separated), and marks its critical section with "
      "LOCKSIM.ENTER resource [token] and LOCKSIM.EXIT resource; LOCKSIM.WRITE resource token value writes to a fenced "
      "resource. Fault kinds: pause (SIGSTOP/SIGCONT), cut (requests lost), delay (replies late), lose (a reply "
      "lost), skew (the client's clock off, libfaketime), clock (the client's clock jumps), restart (Redis without persistence), jump (Redis's clock). "
      "Exit status: 0 no violation, 1 a violation (replay: reproduced), 2 usage error. See docs/trial.md.");
  app->add_option("command", f->command, "the client program and its arguments (after --)");
  app->add_option("--clients", f->clients, "copies of the program run at once (default 3)");
  app->add_option("--servers", f->servers, "independent Redis servers (default 1; 3 for Redlock)");
  app->add_option("--duration", f->duration, "how long each run lasts (default 10s)");
  app->add_option("--runs", f->runs, "runs, each with a schedule of its own; stops at the first violation (default 1)");
  app->add_option("--seed", f->seed, "draws the fault schedules (default 1)");
  auto* kinds = app->add_option("--faults", f->faults,
                                "fault kinds drawn: pause,cut,delay,lose,skew (default: those; skew only with "
                                "libfaketime), clock, restart, jump; all; none");
  app->add_option("--max-pause", f->max_pause, "longest pause, cut or lost-reply window (default 1s: keep it below your lease)");
  app->add_option("--max-delay", f->max_delay, "longest reply delay (default 2s)");
  app->add_option("--max-skew", f->max_skew, "largest client clock offset or jump (default 2s)");
  app->add_option("--max-jump", f->max_jump, "largest Redis clock jump (default 30s)");
  app->add_option("--mean-gap", f->mean_gap, "mean time between faults (default 1s)");
  app->add_option("--stall", f->stall, "no-deadlock: longest time without a critical section while clients run (default 10s)");
  app->add_option("--grace", f->grace, "at the end, SIGTERM, then SIGKILL after this long (default 2s)");
  app->add_option("--replay", f->replay, "re-run this schedule (its text, or a file holding it) --tries times");
  app->add_option("--tries", f->tries, "--replay: how many times (default 5)");
  app->add_flag("--shrink", f->shrink,
                "--replay: then remove faults, last first, while the violation still reproduces at --threshold");
  app->add_option("--threshold", f->threshold, "--shrink: the reproduction rate a fault's removal must keep (default 0.5)");
  app->add_flag("--json", f->json, "the result as one JSON object");
  return {app, [f, kinds] { return cmd_trial(*f, kinds->count() > 0); }};
}

}  // namespace locksim::cli
