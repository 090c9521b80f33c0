#include "locksim/cli/inventory_output.hpp"

#include <fmt/format.h>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/program_name.hpp"
#include "locksim/cli/verdicts.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/props/claims.hpp"
#include "locksim/render/chrome_trace.hpp"
#include "locksim/render/duration.hpp"
#include "locksim/render/terminal_safe.hpp"

namespace locksim::cli {

namespace {

std::string join(const std::vector<std::string>& words, std::string_view sep) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : std::string(sep)) + w;
  return out;
}

std::string needs_text(const std::vector<props::FaultFamily>& kinds) {
  std::vector<std::string> words;
  for (props::FaultFamily k : kinds) words.emplace_back(props::to_string(k));
  return words.empty() ? "no fault" : join(words, ", ");
}

std::string replay_line(const props::Scenario& s, const props::Assumptions& a) {
  std::string line = replay_command(s);
  const std::vector<std::string> words = props::assumption_words(a);
  if (!words.empty()) line += " --assume " + shell_quote(join(words, ","));
  return line;
}

// A cause the classifier has no mechanism for is never printed as 'unknown': the
// failure is named by its necessary elements instead.
std::string cause_name(const props::Failure& f) {
  if (f.cause != props::Cause::Unknown) return std::string(props::to_string(f.cause));
  return f.necessary.empty() ? "the faults of its example" : join(f.necessary, " with ");
}

std::string failure_title(const props::Failure& f) {
  return fmt::format("{} by {}{}", props::to_string(f.property), cause_name(f),
                     f.catalogue.empty() ? "" : fmt::format(" ({})", f.catalogue));
}

// A failure outside the assumptions replays without them (replay refuses a scenario that breaks them).
const props::Assumptions& replay_assumptions(const props::Failure& f, const props::Assumptions& a) {
  static const props::Assumptions none;
  return props::outside_assumptions(f) ? none : a;
}

std::string failure_entry(size_t number, const props::Failure& f, uint32_t runs, const props::Assumptions& a,
                          const std::string& deployment) {
  std::string out = fmt::format("{}. {}\n", number, failure_title(f));
  out += fmt::format("   cause:    {}\n", f.cause == props::Cause::Unknown
                                             ? "no mechanism fits; it needs each element below, as replays show"
                                             : std::string(props::describe(f.cause)));
  out += fmt::format("   runs:     {} of {}, first run {}\n", f.runs, runs, f.first_run);
  out += fmt::format("   needs:    {}\n", needs_text(f.needs));
  if (!f.necessary.empty()) out += fmt::format("   each necessary: {}\n", join(f.necessary, "; "));
  for (size_t i = 0; i < f.breaks.size(); ++i)
    out += fmt::format("   {}{}\n", i == 0 ? "breaks:   " : "          ", f.breaks[i]);
  if (f.found_by_search)
    out += fmt::format("   inside:   met only in runs beyond the assumptions; found inside them by a targeted search, "
                       "in {} run{}\n",
                       f.inside_search_runs, f.inside_search_runs == 1 ? "" : "s");
  else if (f.moved_inside)
    out += fmt::format("   inside:   met only in runs beyond the assumptions; run {} replayed with each of them made "
                       "to hold fails the same way\n",
                       f.example.run);
  else if (f.inside_search_runs > 0)
    out += fmt::format("   searched: {} more runs drawn inside the assumptions did not show it\n", f.inside_search_runs);
  out += fmt::format("   why:      {}\n", f.example.violation.sentence);
  if (!f.proof.elements.empty() || f.proof.relabelled_by) out += fmt::format("   proof:    {}\n", props::proof_text(f.proof));
  if (f.inherent)
    out += fmt::format("   also:     the {} lock fails this scenario the same way (inherent to {})\n",
                       props::reference_algorithm(f.example.shrunk), deployment);
  out += fmt::format("   replay:   {}\n", replay_line(f.example.shrunk, replay_assumptions(f, a)));
  return out;
}

}  // namespace

std::string deployment_text(const props::Scenario& s) {
  if (const lock::Algorithm* a = lock::find_algorithm(s.algorithm); a && a->uses_database)
    return "one database (the lock table)";
  if (s.masters > 1) return fmt::format("{} independent masters", s.masters);
  if (s.replica) return "a master with an asynchronous replica";
  return "one Redis";
}

std::string assumptions_text(const props::Assumptions& a) {
  const std::vector<std::string> words = props::assumption_words(a);
  return words.empty() ? "nothing (--assume states what you accept)" : join(words, ", ");
}

std::string describe_counterexample(const std::string& algorithm, const props::Counterexample& found,
                                    const OutputOptions& output, const props::Assumptions& assumptions) {
  Recorded rec = run_recorded(found.shrunk);
  const props::Property p = found.violation.property;
  std::vector<render::Highlight> highlights = highlights_of(rec.verdict, p);
  const uint32_t clients = found.shrunk.workload.clients;
  std::string title =
      fmt::format("{}: {} violated, {} client{}", algorithm, props::to_string(p), clients, clients == 1 ? "" : "s");
  ShownRun shown = show_run(*rec.sim, title, output, &highlights);
  std::string out = shown.text;
  if (!rec.verdict.find(p)) out += "(the recorded re-run did not show the violation: please report this scenario)\n";
  out += fmt::format("\nproperty:   {}\n", props::to_string(p));
  if (found.violation.cause == props::Cause::Unknown)
    out += "cause:      no mechanism fits; the scenario's faults are each needed, as replays without them show\n";
  else
    out += fmt::format("cause:      {}: {}\n", props::to_string(found.violation.cause),
                       props::describe(found.violation.cause));
  if (!found.violation.fault.empty()) out += fmt::format("fault:      {}\n", found.violation.fault);
  out += fmt::format("why:        {}\n", found.violation.sentence);
  out += fmt::format("scenario:   {}\n", props::to_string(found.shrunk));
  out += fmt::format("trace hash: {:016x}\n", rec.trace_hash);
  out += fmt::format("replay:     {}\n", replay_line(found.shrunk, assumptions));
  if (!output.trace_json.empty())
    out += fmt::format("wrote {} (open it in https://ui.perfetto.dev)\n", output.trace_json);
  if (!output.svg.empty()) out += fmt::format("wrote {}\n", output.svg);
  return render::terminal_safe(out, output.use_colour());  // the why and the fault name the key: user text
}

namespace {

std::string percent(double p) { return fmt::format("{:.3g} %", 100.0 * p); }

std::string bound_sentence(const props::Evidence& e) {
  if (e.runs_bitten == 0) return "no fault bit in any run: this result says nothing about faults";
  return fmt::format(
      "a failure that shows in at least {} of the runs where these faults bite would have been seen with 95 % "
      "probability ({} biting run{})",
      percent(props::detection_bound(e.runs_bitten)), e.runs_bitten, e.runs_bitten == 1 ? "" : "s");
}

}  // namespace

std::string evidence_text(const props::Evidence& e, uint32_t runs_outside) {
  std::string out = fmt::format("\nEvidence, over the {} run{} inside your assumptions{}:\n", e.runs,
                                e.runs == 1 ? "" : "s",
                                runs_outside ? fmt::format(" ({} more broke them)", runs_outside) : "");
  const uint64_t idle = e.runs_with_faults - e.runs_bitten;
  if (e.runs == 1 && e.runs_with_faults == 1 && idle == 1)
    out += "  the run's faults never bit: they struck while no client was acquiring, holding or releasing\n";
  else
    out += fmt::format("  faults bit in {} run{}; in {} run{} the faults drawn never bit; {} run{} drew none\n",
                       e.runs_bitten, e.runs_bitten == 1 ? "" : "s", idle, idle == 1 ? "" : "s",
                       e.runs - e.runs_with_faults, e.runs - e.runs_with_faults == 1 ? "" : "s");
  if (e.runs_with_faults > 0) {
    out += fmt::format("  {:<14} {:>6} {:>6}", "fault", "drawn", "bit");
    for (props::Phase p : props::kAllPhases) out += fmt::format(" {:>9}", props::to_string(p));
    out += "\n";
    for (size_t k = 0; k < props::kFaultFamilyCount; ++k) {
      if (e.drawn[k] == 0) continue;
      out += fmt::format("  {:<14} {:>6} {:>6}", props::to_string(props::kAllFaultFamilies[k]), e.drawn[k],
                         e.bitten[k]);
      for (size_t p = 0; p < props::kPhaseCount; ++p) out += fmt::format(" {:>9}", e.coverage[k][p]);
      out += "\n";
    }
  }
  out += "  " + bound_sentence(e) + ".\n";
  return out;
}

std::string evidence_json(const props::Evidence& e, uint32_t runs_outside) {
  using render::json_string;
  std::string kinds;
  for (size_t k = 0; k < props::kFaultFamilyCount; ++k) {
    if (e.drawn[k] == 0) continue;
    std::string phases;
    for (size_t p = 0; p < props::kPhaseCount; ++p)
      phases += fmt::format("{}{}: {}", p ? ", " : "", json_string(props::to_string(props::kAllPhases[p])),
                            e.coverage[k][p]);
    kinds += fmt::format("{}{}: {{\"drawn\": {}, \"bitten\": {}, \"phases\": {{{}}}}}", kinds.empty() ? "" : ", ",
                         json_string(props::to_string(props::kAllFaultFamilies[k])), e.drawn[k], e.bitten[k], phases);
  }
  return fmt::format(
      "{{\"runs\": {}, \"runs_outside\": {}, \"runs_with_faults\": {}, \"runs_bitten\": {}, \"bound\": {}, "
      "\"kinds\": {{{}}}}}",
      e.runs, runs_outside, e.runs_with_faults, e.runs_bitten,
      e.runs_bitten ? json_string(percent(props::detection_bound(e.runs_bitten))) : "null", kinds);
}

std::string inventory_text(const InventoryContext& ctx, const props::Inventory& inv,
                           const std::optional<props::Property>& target, const OutputOptions& output) {
  std::string out;
  if (inv.failures.empty()) {
    const std::string looked = target ? std::string(props::to_string(*target)) : "any property";
    return fmt::format("{} run{}, no violation of {}; longest wait {}, longest unavailability {}, expiry drift {}, "
                       "most overtakes {}, {} acquisitions\n",
               inv.runs, inv.runs == 1 ? "" : "s", looked, render::human_duration(inv.worst.longest_wait),
               render::human_duration(inv.worst.unavailability), render::human_duration(inv.worst.expiry_drift),
               inv.worst.max_overtakes, inv.worst.acquisitions) +
           evidence_text(inv.evidence, inv.runs_outside);
  }
  size_t own = 0, unclaimed = 0;
  for (const auto& f : inv.failures) {
    own += props::own_failure(f) ? 1 : 0;
    unclaimed += props::unclaimed_failure(f) ? 1 : 0;
  }
  const size_t outside = inv.failures.size() - own - unclaimed;
  const std::string deployment = deployment_text(ctx.model.base);
  out += fmt::format("{} run{}: {} distinct failure{} ({} under your assumptions, {} outside them{})\n", inv.runs,
                     inv.runs == 1 ? "" : "s", inv.failures.size(), inv.failures.size() == 1 ? "" : "s",
                     own + unclaimed, outside,
                     unclaimed ? fmt::format("; {} of properties {} does not claim", unclaimed, ctx.algorithm) : "");
  const props::Failure& first = inv.failures.front();
  out += fmt::format("\nfound: {} violated in run {} by {}{}, shrunk in {} more runs to {} client{}\n\n",
                     props::to_string(first.property), first.example.run, cause_name(first),
                     first.catalogue.empty() ? "" : " (" + first.catalogue + ")", first.example.shrink_runs,
                     first.example.shrunk.workload.clients, first.example.shrunk.workload.clients == 1 ? "" : "s");
  out += describe_counterexample(ctx.algorithm, first.example, output, replay_assumptions(first, ctx.assumptions));
  size_t n = 0;
  if (own > 0) out += fmt::format("\nFailures under your assumptions ({}'s own):\n", ctx.algorithm);
  for (const auto& f : inv.failures)
    if (props::own_failure(f)) out += failure_entry(++n, f, inv.runs, ctx.assumptions, deployment);
  if (unclaimed > 0) {
    out += fmt::format(
        "\nFailures under your assumptions of properties {} does not claim (listed, not counted; it claims {}):\n",
        ctx.algorithm, props::claims_text(inv.claims));
    for (const auto& f : inv.failures)
      if (props::unclaimed_failure(f)) out += failure_entry(++n, f, inv.runs, ctx.assumptions, deployment);
  }
  if (outside > 0) {
    out += "\nFailures outside your assumptions (what the deployment must rule out):\n";
    for (const auto& f : inv.failures)
      if (props::outside_assumptions(f)) out += failure_entry(++n, f, inv.runs, ctx.assumptions, deployment);
  }
  out += evidence_text(inv.evidence, inv.runs_outside);
  if (own > 0)
    out += fmt::format("\n{} failure{} {}under your assumptions ({}); exit status 1.\n", own, own == 1 ? "" : "s",
                       unclaimed ? "of claimed properties " : "", assumptions_text(ctx.assumptions));
  else
    out += fmt::format("\nNo failure {}under your assumptions ({}); exit status 0.\n",
                       unclaimed ? "of a claimed property " : "", assumptions_text(ctx.assumptions));
  return render::terminal_safe(out, output.use_colour());
}

namespace {

// How the cause was proven: the classifier's cause, the element that re-labelled it, and
// what the replay without each necessary element showed.
std::string proof_json(const props::CauseProof& p) {
  using render::json_string;
  std::vector<std::string> elements;
  for (const props::ElementProof& e : p.elements)
    elements.push_back(fmt::format("{{\"element\": {}, \"accounted\": {}, \"without\": {}}}", json_string(e.what),
                                   e.accounted ? "true" : "false", json_string(props::without_text(e))));
  return fmt::format("{{\"classified\": {}, \"relabelled_by\": {}, \"elements\": [{}]}}",
                     json_string(props::to_string(p.classified)),
                     p.relabelled_by ? json_string(p.elements[*p.relabelled_by].what) : "null", join(elements, ", "));
}

}  // namespace

std::string inventory_json(const InventoryContext& ctx, const props::Inventory& inv) {
  using render::json_string;
  std::vector<std::string> assumed;
  for (const auto& w : props::assumption_words(ctx.assumptions)) assumed.push_back(json_string(w));
  std::vector<std::string> claimed;
  for (props::Property p : inv.claims) claimed.push_back(json_string(props::to_string(p)));
  std::string out = fmt::format(
      "{{\"algorithm\": {}, \"seed\": {}, \"runs\": {}, \"budget\": {}, \"shard\": [{}, {}], "
      "\"deployment\": {}, \"assumptions\": [{}], \"claims\": [{}], \"evidence\": {}, \"failures\": [",
      json_string(ctx.algorithm), ctx.seed, inv.runs, ctx.budget, ctx.shard.index, ctx.shard.count,
      json_string(deployment_text(ctx.model.base)), join(assumed, ", "), join(claimed, ", "),
      evidence_json(inv.evidence, inv.runs_outside));
  for (size_t i = 0; i < inv.failures.size(); ++i) {
    const props::Failure& f = inv.failures[i];
    std::vector<std::string> needs;
    for (props::FaultFamily k : f.needs) needs.push_back(json_string(props::to_string(k)));
    std::vector<std::string> breaks;
    for (const std::string& b : f.breaks) breaks.push_back(json_string(b));
    out += fmt::format(
        "{}\n  {{\"property\": {}, \"cause\": {}, \"catalogue\": {}, \"outside_assumptions\": {}, "
        "\"breaks\": [{}], \"claimed\": {}, \"inherent\": {}, \"runs\": {}, "
        "\"first_run\": {}, \"first_inside_run\": {}, \"moved_inside\": {}, \"moved_by\": {}, \"inside_search_runs\": {}, "
        "\"example_run\": {}, \"needs\": [{}], "
        "\"clients\": {}, "
        "\"fault\": {}, \"why\": {}, \"proof\": {}, \"replay\": {}}}",
        i ? "," : "", json_string(props::to_string(f.property)), json_string(props::to_string(f.cause)),
        f.catalogue.empty() ? "null" : json_string(f.catalogue), props::outside_assumptions(f) ? "true" : "false",
        join(breaks, ", "), f.claimed ? "true" : "false", f.inherent ? "true" : "false", f.runs, f.first_run,
        f.first_inside_run ? std::to_string(*f.first_inside_run) : "null", f.moved_inside ? "true" : "false",
        !f.moved_inside ? "null" : f.found_by_search ? "\"search\"" : "\"replay\"", f.inside_search_runs,
        f.found_by_search ? "null" : std::to_string(f.example.run), join(needs, ", "),
        f.example.shrunk.workload.clients, json_string(f.example.violation.fault),
        json_string(f.example.violation.sentence), proof_json(f.proof),
        json_string(replay_line(f.example.shrunk, replay_assumptions(f, ctx.assumptions))));
  }
  out += inv.failures.empty() ? "]" : "\n]";
  if (inv.partial) out += ", \"partial\": true";  // interrupted: merge refuses it as a shard
  out += "}\n";
  return out;
}

}  // namespace locksim::cli
