// The tour: the lock evolution in order. For each version: what it changes,
// the failure the documents describe for it, a run that shows that failure
// drawn as a timeline, and which later version fixes it.
//
// The runs are hand-picked scenarios (the documented schedules, made
// concrete) and the first of seeds 1..kSeeds that shows the expected
// violation, found with the stand-in checker of render/findings.hpp. They are
// meant to be replaced by explorer-found, shrunk counterexamples from props/.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "render/findings.hpp"

namespace locksim::cli {

namespace {

constexpr uint64_t kSeeds = 40;

struct Stop {
  std::string_view algorithm;
  std::string_view failure;   // the catalogue entry and what goes wrong
  std::string_view expect;    // the property the run should violate ("" : the run should be clean)
  std::string_view fixed_by;  // what fixes it
  std::function<void(lock::SimulationConfig&)> setup;
};

sim::FaultPlan plan(const char* text) {
  auto p = sim::parse_fault_plan(text);
  return p ? *p : sim::FaultPlan{};
}

const std::vector<Stop>& stops() {
  using namespace sim::literals;
  static const std::vector<Stop> list = {
      {"setnx-del", "F01: the holder crashes before its DEL; the key has no expiry, so it stays forever",
       "no-deadlock", "setnx-expire (give the key an expiry)",
       [](lock::SimulationConfig& c) {
         c.workload.clients = 2;
         c.workload.iterations = 1;
         c.workload.call_faults = {{0, 2, lock::CallFault::Kind::Crash, {}}};
       }},
      {"setnx-expire", "F02: the holder crashes between SETNX and EXPIRE; the key never gets its expiry",
       "no-deadlock", "set-nx-px (value and expiry in one atomic SET)",
       [](lock::SimulationConfig& c) {
         c.workload.clients = 2;
         c.workload.iterations = 1;
         c.workload.call_faults = {{0, 2, lock::CallFault::Kind::Crash, {}}};
       }},
      {"del-setnx", "F03: two waiters see an expired timestamp; one DELs and SETNXes, the other DELs that new lock",
       "mutual-exclusion", "getset (take an expired lock with one atomic GETSET)",
       [](lock::SimulationConfig& c) {
         c.workload.clients = 3;
         c.workload.iterations = 1;
         c.workload.slow_work = {{0, 0, 2_s}};
       }},
      {"getset", "F05: the holder's work outlasts its timestamp; a waiter takes the lock over with GETSET",
       "mutual-exclusion", "set-nx-px (an expiry kept by the server, not client timestamps)",
       [](lock::SimulationConfig& c) {
         c.workload.clients = 3;
         c.workload.iterations = 1;
         c.workload.slow_work = {{0, 0, 1500_ms}};
       }},
      {"set-nx-px", "F07: A's work (1.5s) outlasts the lease (1s): the key expires and another client gets in while "
       "A still works (F08: A's DEL can then remove that client's lock)",
       "mutual-exclusion", "token-check-del (a unique token), then watchdog (renewal)",
       [](lock::SimulationConfig& c) {
         c.workload.clients = 3;
         c.workload.slow_work = {{0, 0, 1500_ms}};
       }},
      {"token-check-del", "F09: A's GET sees its token, then A stalls before its DEL; the key expires, B acquires, "
       "and A's DEL removes B's lock",
       "owner-only-release", "token-lua (compare and delete in one Lua script)",
       [](lock::SimulationConfig& c) {
         c.workload.clients = 3;
         c.workload.iterations = 2;
         c.workload.call_faults = {{0, 3, lock::CallFault::Kind::Pause, 1500_ms}};
       }},
      {"token-lua", "F10: the release is safe now, but a lease shorter than the work still lets B in while A works",
       "mutual-exclusion", "watchdog (renew the lease while the work goes on)",
       [](lock::SimulationConfig& c) {
         c.workload.clients = 2;
         c.workload.slow_work = {{0, 0, 1500_ms}};
       }},
      {"watchdog", "F13: a stop-the-world pause freezes the renewal task too; the lease ends, B acquires, and A "
       "resumes believing it holds",
       "mutual-exclusion", "fenced (the resource rejects the stale holder's writes)",
       [](lock::SimulationConfig& c) {
         c.workload.clients = 2;
         c.workload.slow_work = {{0, 0, 600_ms}};
         c.faults = plan("pause A @300ms for 2s");
       }},
      {"reentrant", "F16: nested code takes the lock again; a plain token lock would wait for itself, the hash "
       "lock counts holds",
       "", "(its pauses are those of watchdog: fenced)",
       [](lock::SimulationConfig& c) {
         c.workload.clients = 2;
         c.workload.nested = 1;
         c.workload.iterations = 2;
       }},
      {"watch-multi", "F21: optimistic locking never lets two racing clients both win, but its lease still ends "
       "under long work",
       "mutual-exclusion", "watchdog (renewal), fenced",
       [](lock::SimulationConfig& c) {
         c.workload.clients = 2;
         c.workload.slow_work = {{0, 0, 1500_ms}};
       }},
      {"fenced", "F19: the pause of F13 still overlaps two holders, but the resource rejects the stale write",
       "mutual-exclusion", "nothing more is needed: fenced-writes holds",
       [](lock::SimulationConfig& c) {
         c.workload.clients = 2;
         c.workload.slow_work = {{0, 0, 600_ms}};
         c.faults = plan("pause A @300ms for 2s");
       }},
      {"fair", "F20: spinning waiters can be overtaken forever; a FIFO queue serves them in order", "",
       "(it keeps the lease of token-lua: fenced for pauses)",
       [](lock::SimulationConfig& c) {
         c.workload.clients = 4;
         c.workload.iterations = 2;
       }},
  };
  return list;
}

// "Label:   text that wraps" with the continuation lines under the text.
std::string wrap_field(std::string_view label, std::string_view text, int width) {
  std::string out(label), line;
  const std::string indent(label.size(), ' ');
  size_t pos = 0, used = label.size();
  while (pos < text.size()) {
    size_t space = text.find(' ', pos);
    std::string_view word = text.substr(pos, space == std::string_view::npos ? std::string_view::npos : space - pos);
    pos = space == std::string_view::npos ? text.size() : space + 1;
    if (used > label.size() && static_cast<int>(used + 1 + word.size()) > width) {
      out += "\n" + indent;
      used = label.size();
    } else if (used > label.size()) {
      out += ' ';
      ++used;
    }
    out += word;
    used += word.size();
  }
  return out + "\n";
}

struct Found {
  std::unique_ptr<lock::Simulation> sim;
  std::vector<render::Highlight> highlights;
  bool as_expected = false;
};

Found find_run(const Stop& stop) {
  Found best;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    lock::SimulationConfig c;
    c.algorithm = std::string(stop.algorithm);
    c.seed = seed;
    stop.setup(c);
    auto sim = std::make_unique<lock::Simulation>(c);
    sim->run();
    render::TimelineOptions o;
    o.key = c.lock.key;
    render::Timeline t = render::build_timeline(sim->history(), &sim->world().trace(), o);
    auto found = render::find_violations(t);
    bool ok;
    if (stop.expect.empty()) {
      ok = found.empty();
    } else {
      // The expected property first, then anything else the run shows.
      std::stable_partition(found.begin(), found.end(), [&](const render::Highlight& h) { return h.property == stop.expect; });
      ok = !found.empty() && found.front().property == stop.expect;
    }
    if (ok || !best.sim) {
      best.sim = std::move(sim);
      best.highlights = std::move(found);
      best.as_expected = ok;
    }
    if (ok) break;
  }
  if (best.highlights.size() > 2) best.highlights.resize(2);
  return best;
}

}  // namespace

int cmd_tour(const TourOptions& options) {
  if (!options.only.empty()) check_algorithm(options.only);
  const bool colour = options.output.use_colour();
  const int width = options.output.width;
  auto bold = [&](const std::string& s) { return colour ? "\x1b[1m" + s + "\x1b[0m" : s; };
  auto rule = [&](const std::string& head) {
    std::string line = "== " + head + " ";
    while (static_cast<int>(line.size()) < width) line += '=';
    return bold(line) + "\n";
  };

  std::string out;
  if (options.only.empty()) {
    out += bold("The Redis lock evolution, one failure at a time") + "\n";
    out += "Each version below fixes the failure of the one before and has a failure of\n"
           "its own, shown as a run of the deterministic simulator: lanes are clients\n"
           "over true time.\n\n";
  }
  struct Row {
    std::string algorithm, property, verdict;
  };
  std::vector<Row> matrix;
  const auto& all = stops();
  for (size_t i = 0; i < all.size(); ++i) {
    const Stop& stop = all[i];
    if (!options.only.empty() && stop.algorithm != options.only) continue;
    const lock::Algorithm* algo = lock::find_algorithm(stop.algorithm);
    if (!algo) continue;
    Found f = find_run(stop);
    const lock::SimulationConfig& c = f.sim->config();
    out += rule(fmt::format("{}/{}  {}", i + 1, all.size(), stop.algorithm));
    out += wrap_field("What it does:  ", algo->summary, width);
    out += fmt::format("Documented in: {}   Catalogue: {}\n", algo->documents, algo->failures);
    out += wrap_field("Failure:       ", stop.failure, width);
    std::string title = fmt::format("{}, seed {}, {} clients", stop.algorithm, c.seed, c.workload.clients);
    ShownRun shown = show_run(*f.sim, title, options.output, &f.highlights);
    out += "\n" + shown.text;
    if (!f.as_expected && !stop.expect.empty())
      out += fmt::format("(no {} violation in seeds 1..{} of this scenario: the run above is the first seed)\n", stop.expect, kSeeds);
    if (stop.expect.empty() && f.as_expected) out += "No violation: this version survives the scenario.\n";
    out += wrap_field("Fixed by:      ", stop.fixed_by, width);
    out += fmt::format("Replay:        {}\n\n", run_command(c));
    std::string verdict = stop.expect.empty() ? (f.as_expected ? "survives" : "VIOLATED")
                                              : (f.as_expected ? "violated" : "not shown");
    matrix.push_back({std::string(stop.algorithm), stop.expect.empty() ? "(its scenario)" : std::string(stop.expect), verdict});
  }
  if (options.only.empty()) {
    out += rule("summary");
    out += fmt::format("{:<17} {:<20} {}\n", "algorithm", "property", "its tour scenario");
    for (const auto& r : matrix) out += fmt::format("{:<17} {:<20} {}\n", r.algorithm, r.property, r.verdict);
    out += "\nExplore any of them further: locksim run ALGORITHM --help\n";
  }
  std::cout << out;
  return 0;
}

}  // namespace locksim::cli
