#include "locksim/cli/replay_real.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "locksim/cli/verdicts.hpp"
#include "locksim/real/process.hpp"
#include "locksim/real/run.hpp"
#include "locksim/real/scale.hpp"

namespace locksim::cli {

namespace {

// A real run seen in scenario time (real time / K), so that it reads like the simulation.
struct SceneTime {
  lock::History history;
  sim::Trace trace;
};

sim::Instant shrink(sim::Instant t, double k) { return sim::Instant{std::llround(static_cast<double>(t.ns) / k)}; }
int64_t shrink(int64_t ns, double k) { return std::llround(static_cast<double>(ns) / k); }

SceneTime in_scene_time(const real::RealRun& run, double k) {
  SceneTime s;
  s.history.set_clients(run.history().clients());
  for (lock::HistoryEvent e : run.history().events()) {
    e.at = shrink(e.at, k);
    e.local = shrink(e.local, k);
    if (e.expire_at_ms >= 0) e.expire_at_ms = lock::kEpochMs + shrink(e.expire_at_ms - lock::kEpochMs, k);
    s.history.add(std::move(e));
  }
  s.history.ledger() = run.history().ledger();
  s.history.ledger().map_times([k](sim::Instant t) { return shrink(t, k); });
  sim::NodeId last = 0;
  for (const sim::TraceEvent& e : run.trace().events())
    if (e.node != sim::kNoNode) last = std::max(last, e.node);
  for (sim::NodeId id = 0; id <= last + 1; ++id) s.trace.set_node_name(id, run.trace().node_name(id));
  for (const sim::TraceEvent& e : run.trace().events()) {
    int64_t first = e.first, second = e.second;
    if (e.kind == sim::TraceKind::Pause || e.kind == sim::TraceKind::ClockJump) first = shrink(first, k);
    if (e.kind == sim::TraceKind::Cut) second = shrink(second, k);
    s.trace.add(shrink(e.at, k), e.node, e.kind, first, second, e.text);
  }
  return s;
}

// The cause in a violation's sentence: what follows "(span): ".
std::string cause_of(const props::Violation& v) {
  const size_t at = v.sentence.find("): ");
  return at == std::string::npos ? v.sentence : v.sentence.substr(at + 3);
}

// The violation a run is known by: the first property, in the properties' order
// (mutual exclusion first), that it violates.
const props::Violation* headline(const props::Verdict& v) {
  for (props::Property p : props::kAllProperties)
    if (const props::Violation* found = v.find(p)) return found;
  return nullptr;
}

std::string verdict_line(const props::Verdict& v) {
  const props::Violation* first = headline(v);
  if (!first) return "every property held";
  std::string others;
  for (const props::Violation& x : v.violations)
    if (x.property != first->property)
      others += (others.empty() ? "" : ", ") + std::string(props::to_string(x.property));
  return fmt::format("{} violated: {}{}", props::to_string(first->property), first->sentence,
                     others.empty() ? "" : " (also violated: " + others + ")");
}

struct Attempt {
  std::unique_ptr<real::RealRun> run;
  SceneTime scene;
  props::Verdict verdict;
};

Attempt run_once(const props::Scenario& scenario, const ReplayOptions& options, const std::string& binary) {
  real::RealSetup setup;
  setup.redis_server = binary;
  setup.work_slice = real::scale(sim::milliseconds(10), options.time_scale);
  Attempt a;
  a.run = std::make_unique<real::RealRun>(real::scaled(scenario, options.time_scale), setup);
  a.run->run();
  a.scene = in_scene_time(*a.run, options.time_scale);
  props::RunEnd end;
  end.at = shrink(a.run->ended_at(), options.time_scale);
  end.key_pttl_ms = a.run->key_pttl_ms() >= 0 ? shrink(a.run->key_pttl_ms(), options.time_scale) : a.run->key_pttl_ms();
  end.key_exists = end.key_pttl_ms != -2;
  a.verdict = props::check(a.scene.history, scenario, end);
  return a;
}

// The comparison with the simulation, and whether the real runs agreed with it.
std::pair<std::string, bool> compare(const props::Verdict& simulated, const props::Verdict& real, uint32_t attempts) {
  if (simulated.violations.empty()) {
    if (real.violations.empty())
      return {fmt::format("confirmed: every property held in {} real attempt{} (as simulated)", attempts,
                          attempts == 1 ? "" : "s"),
              true};
    return {fmt::format("differs: {} for real, though the simulation held", verdict_line(real)), false};
  }
  const props::Violation& expected = *headline(simulated);
  const props::Violation* found = real.find(expected.property);
  if (!found) return {fmt::format("not reproduced in {} attempt{}", attempts, attempts == 1 ? "" : "s"), false};
  // The classified cause decides; its sentence carries times that differ by
  // a few milliseconds between a real run and the simulation.
  const bool same = found->cause == expected.cause;
  return {fmt::format("confirmed: {} violated, cause: {}: {} ({})", props::to_string(found->property),
                      props::to_string(found->cause), cause_of(*found),
                      same ? "as simulated" : "simulated: " + std::string(props::to_string(expected.cause))),
          true};
}

}  // namespace

int cmd_replay_real(const props::Scenario& scenario, const ReplayOptions& options) {
  if (!(options.time_scale >= 0.01 && options.time_scale <= 1000))
    throw UsageError("--time-scale must be between 0.01 and 1000");
  if (options.attempts == 0 || options.attempts > 100) throw UsageError("--attempts must be 1 to 100");
  std::string binary;
  try {
    binary = real::redis_server_binary(options.redis_server);
  } catch (const real::NoRedisServer& e) {
    throw UsageError(e.what());
  }
  if (auto bad = real::not_reproducible(scenario); !bad.empty()) {
    for (const std::string& why : bad) std::cout << "not reproducible for real: " << why << "\n";
    return 3;
  }
  Recorded simulated = run_recorded(scenario);
  Attempt last;
  uint32_t tried = 0;
  for (; tried < options.attempts;) {
    ++tried;
    try {
      last = run_once(scenario, options, binary);
    } catch (const real::NoRedisServer& e) {
      throw UsageError(e.what());
    }
    const bool violated = !last.verdict.violations.empty();
    if (!simulated.verdict.violations.empty() && last.verdict.find(headline(simulated.verdict)->property)) break;
    if (simulated.verdict.violations.empty() && violated) break;
  }
  const std::string title =
      fmt::format("{} for real (time scale {}, shown in scenario time): seed {}, {} clients", scenario.algorithm,
                  options.time_scale, scenario.seed, scenario.workload.clients);
  RunRecord record{last.scene.history, last.scene.trace, scenario.lock.key, 0, scenario.replica};
  ShownRun shown = show_run(record, title, options.output, highlights_of(last.verdict));
  auto [comparison, agreed] = compare(simulated.verdict, last.verdict, tried);
  std::string out = shown.text + "\n";
  out += fmt::format("scenario:   {}\n", props::to_string(scenario));
  out += fmt::format("real run:   {} with {}, time scale {}, attempt {} of at most {}\n", scenario.algorithm, binary,
                     options.time_scale, tried, options.attempts);
  out += fmt::format("simulated:  {}\n", verdict_line(simulated.verdict));
  out += fmt::format("real:       {}\n", verdict_line(last.verdict));
  out += comparison + "\n";
  if (!options.output.trace_json.empty())
    out += fmt::format("wrote {} (open it in https://ui.perfetto.dev)\n", options.output.trace_json);
  if (!options.output.svg.empty()) out += fmt::format("wrote {}\n", options.output.svg);
  if (options.output.raw_trace) out += "\n" + last.scene.trace.render();
  std::cout << out;
  return agreed ? 0 : 1;
}

}  // namespace locksim::cli
