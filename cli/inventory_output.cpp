#include "locksim/cli/inventory_output.hpp"

#include <fmt/format.h>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/program_name.hpp"
#include "locksim/cli/verdicts.hpp"
#include "locksim/lock/registry.hpp"
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
  if (!words.empty())
    line.insert((program_name() + " replay ").size(), "--assume " + shell_quote(join(words, ",")) + " ");
  return line;
}

std::string failure_title(const props::Failure& f) {
  return fmt::format("{} by {}{}", props::to_string(f.property), props::to_string(f.cause),
                     f.catalogue.empty() ? "" : fmt::format(" ({})", f.catalogue));
}

std::string failure_entry(size_t number, const props::Failure& f, uint32_t runs, const props::Assumptions& a) {
  std::string out = fmt::format("{}. {}\n", number, failure_title(f));
  out += fmt::format("   cause:    {}\n", props::describe(f.cause));
  out += fmt::format("   runs:     {} of {}, first run {}\n", f.runs, runs, f.first_run);
  out += fmt::format("   needs:    {}\n", needs_text(f.needs));
  out += fmt::format("   why:      {}\n", f.example.violation.sentence);
  out += fmt::format("   replay:   {}\n", replay_line(f.example.shrunk, a));
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

std::string inventory_text(const InventoryContext& ctx, const props::Inventory& inv,
                           const std::optional<props::Property>& target, const OutputOptions& output) {
  std::string out;
  if (inv.failures.empty()) {
    const std::string looked = target ? std::string(props::to_string(*target)) : "any property";
    return fmt::format(
        "{} run{}, no violation of {}; longest wait {}, longest unavailability {}, expiry drift {}, "
        "most overtakes {}, {} acquisitions\n",
        inv.runs, inv.runs == 1 ? "" : "s", looked, render::human_duration(inv.worst.longest_wait),
        render::human_duration(inv.worst.unavailability), render::human_duration(inv.worst.expiry_drift),
        inv.worst.max_overtakes, inv.worst.acquisitions);
  }
  size_t own = 0;
  for (const auto& f : inv.failures) own += f.inherent ? 0 : 1;
  out += fmt::format("{} run{}: {} distinct failure{} ({} of {} itself, {} inherent to {})\n", inv.runs,
                     inv.runs == 1 ? "" : "s", inv.failures.size(), inv.failures.size() == 1 ? "" : "s", own,
                     ctx.algorithm, inv.failures.size() - own, deployment_text(ctx.model.base));
  const props::Failure& first = inv.failures.front();
  out += fmt::format("\nfound: {} violated in run {} by {}{}, shrunk in {} more runs to {} client{}\n\n",
                     props::to_string(first.property), first.first_run, props::to_string(first.cause),
                     first.catalogue.empty() ? "" : " (" + first.catalogue + ")", first.example.shrink_runs,
                     first.example.shrunk.workload.clients, first.example.shrunk.workload.clients == 1 ? "" : "s");
  out += describe_counterexample(ctx.algorithm, first.example, output, ctx.assumptions);
  size_t n = 0;
  if (own > 0) out += fmt::format("\nFailures of {} itself:\n", ctx.algorithm);
  for (const auto& f : inv.failures)
    if (!f.inherent) out += failure_entry(++n, f, inv.runs, ctx.assumptions);
  if (own < inv.failures.size()) {
    out += fmt::format("\nInherent to {} (the {} lock fails these scenarios the same way):\n",
                       deployment_text(ctx.model.base), props::reference_algorithm(ctx.model.base));
    for (const auto& f : inv.failures)
      if (f.inherent) out += failure_entry(++n, f, inv.runs, ctx.assumptions);
  }
  out += fmt::format("\n{} failure{} under the stated assumptions ({}); exit status 1.\n", inv.failures.size(),
                     inv.failures.size() == 1 ? "" : "s", assumptions_text(ctx.assumptions));
  return render::terminal_safe(out, output.use_colour());
}

std::string inventory_json(const InventoryContext& ctx, const props::Inventory& inv) {
  using render::json_string;
  std::vector<std::string> assumed;
  for (const auto& w : props::assumption_words(ctx.assumptions)) assumed.push_back(json_string(w));
  std::string out = fmt::format(
      "{{\"algorithm\": {}, \"seed\": {}, \"runs\": {}, \"budget\": {}, \"shard\": [{}, {}], "
      "\"deployment\": {}, \"assumptions\": [{}], \"failures\": [",
      json_string(ctx.algorithm), ctx.seed, inv.runs, ctx.budget, ctx.shard.index, ctx.shard.count,
      json_string(deployment_text(ctx.model.base)), join(assumed, ", "));
  for (size_t i = 0; i < inv.failures.size(); ++i) {
    const props::Failure& f = inv.failures[i];
    std::vector<std::string> needs;
    for (props::FaultFamily k : f.needs) needs.push_back(json_string(props::to_string(k)));
    out += fmt::format(
        "{}\n  {{\"property\": {}, \"cause\": {}, \"catalogue\": {}, \"inherent\": {}, \"runs\": {}, "
        "\"first_run\": {}, \"needs\": [{}], \"clients\": {}, \"fault\": {}, \"why\": {}, \"replay\": {}}}",
        i ? "," : "", json_string(props::to_string(f.property)), json_string(props::to_string(f.cause)),
        f.catalogue.empty() ? "null" : json_string(f.catalogue), f.inherent ? "true" : "false", f.runs, f.first_run,
        join(needs, ", "), f.example.shrunk.workload.clients, json_string(f.example.violation.fault),
        json_string(f.example.violation.sentence), json_string(replay_line(f.example.shrunk, ctx.assumptions)));
  }
  out += inv.failures.empty() ? "]" : "\n]";
  if (inv.partial) out += ", \"partial\": true";  // interrupted: merge refuses it as a shard
  out += "}\n";
  return out;
}

}  // namespace locksim::cli
