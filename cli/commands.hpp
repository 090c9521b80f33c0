#pragma once
// The subcommands of `locksim`. Each returns the process's exit status:
// 0 fine, 1 a violation was found (check), 2 usage error (thrown as
// UsageError and reported by main).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "locksim/cli/options.hpp"
#include "locksim/lock/simulation.hpp"
#include "locksim/render/timeline.hpp"

namespace locksim::cli {

// `check`: its --faults are fault KINDS the explorer may draw (run's
// --faults is a fault PLAN, a schedule of concrete faults).
struct CheckFlags {
  std::string algorithm;
  uint64_t seed = 1;
  uint32_t runs = 1000;
  std::string faults = "all";  // crash,pause,slow-work,... | all | none
  std::string property;        // the property looked for ("" : any)
  uint32_t clients = 0;        // 0: the fault model's 2..3
  uint32_t clients_max = 0;
  uint32_t iterations = 0;  // most iterations per client (0: the model's 3)
  uint32_t masters = 0;     // independent Redis masters (0: the algorithm's own deployment; redlock: 3)
  bool replica = false;     // one master with an asynchronous replica and failover
  std::string lag;          // the replication lag drawn, D or MIN..MAX ("": 1ms..100ms)
  std::string failover;     // the failover's delay drawn, D or MIN..MAX ("": 50ms..one lease)
  std::map<std::string, std::string> lock_params;
  unsigned jobs = 1;
  std::string shard;  // "I/N", 0 <= I < N
  std::string save;   // append the counterexample here, as a regression line
  bool no_shrink = false;
  bool list_runs = false;  // print the run indices of this shard and stop
  bool timing = false;     // wall time on standard error
  bool first = false;      // stop at the first violation (no inventory)
  bool json = false;       // the inventory as one JSON object
  std::string assume;      // stated assumptions: durable-redis,sane-redis-clock,pause<=D,no-failover
  std::string claims;      // the properties the lock promises, replacing the algorithm's ("": its own)
  uint32_t nested = 0;     // draw nested acquires up to this depth (0: the algorithm's default)
  std::string time;        // spend this much wall time instead of a run count
  OutputOptions output;
};

struct CatalogueOptions {
  bool json = false;
  bool no_fix = false;
  uint64_t seed = 1;
  uint32_t budget = 2000;
  uint32_t generic = 0;  // runs of plain `check ALGO` per entry (0: not measured)
  std::string only;      // entry ids, e.g. F07,F10
  unsigned jobs = 1;     // entries run at once
  OutputOptions output;
};

struct ReplayOptions {
  std::string scenario;  // a scenario file, or the scenario text itself
  std::string assume;    // the assumptions the scenario was found under (check's --assume)
  int line = 0;          // with a file: the line to replay (0: its first scenario line)
  OutputOptions output;
  // --real: run it against real redis-server processes too (cli/replay_real.cpp)
  bool real = false;
  double time_scale = 2.0;   // every duration stretched this many times
  std::string redis_server;  // "" : the first on PATH
  uint32_t attempts = 3;
};

struct TourOptions {
  OutputOptions output;
  std::string only;  // one algorithm id
  bool verbose = false;  // the search's statistics too
  std::string html;      // write the tour as one HTML page here instead
};

// --shard I/N: the I-th of N interleaved slices of the run indices (0-based).
struct Shard {
  uint32_t index = 0, count = 1;
};
Shard parse_shard(const std::string& text);  // throws UsageError; "auto..." as below
// "auto" or "auto/N": the slice from a batch engine's variables (cli/shard_env.cpp).
Shard shard_from_environment(const std::string& spec);
// How many of the run indices 0..runs-1 fall in the shard's slice.
uint32_t shard_runs(uint32_t runs, const Shard& shard);

int cmd_list(const OutputOptions& output);
int cmd_run(const ScenarioOptions& scenario, const OutputOptions& output);
int cmd_tour(const TourOptions& options);
int cmd_check(const CheckFlags& options);
int cmd_catalogue(const CatalogueOptions& options);
int cmd_replay(const ReplayOptions& options);
int cmd_redis(bool fail_on_error = false);

// How much of a timeline to print.
struct ShowOptions {
  std::string indent;       // before every line
  size_t story_lines = 16;  // 0: no story
  bool legend = true;
};

// One finished simulation, drawn: the timeline (with the given highlights, or
// props::check's violations when none are given), files if asked, returns
// the text for standard output.
struct ShownRun {
  std::string text;
  std::vector<render::Highlight> highlights;
  uint64_t trace_hash = 0;
  // The files asked for (--trace-json, --svg), rendered: path -> content. They are
  // written by write_outputs once the run's text is out, so a failed write
  // never hides a found counterexample.
  std::vector<std::pair<std::string, std::string>> files;
};
ShownRun show_run(lock::Simulation& sim, const std::string& title, const OutputOptions& output,
                  const std::vector<render::Highlight>* highlights = nullptr, const ShowOptions& show = {});
// The same for a run recorded anywhere (a real run): its history, its trace, the lock key drawn.
struct RunRecord {
  const lock::History& history;
  const sim::Trace& trace;
  std::string key;
  uint64_t trace_hash = 0;
  bool replica = false;  // the deployment had a replica: the lock lane follows the serving node
};
ShownRun show_run(const RunRecord& run, const std::string& title, const OutputOptions& output,
                  const std::vector<render::Highlight>& highlights, const ShowOptions& show = {});

// Writes text to path (a temporary file renamed over it); throws UsageError naming the file on failure.
void write_file(const std::string& path, const std::string& text);
// Refuses, before any work, output paths that cannot be written (a directory, a
// FIFO, a device, /proc, an unwritable directory) or that are given twice.
// `save` is check's regression file, if any.
void check_output_paths(const OutputOptions& output, const std::string& save = {});
// Writes the rendered files, saying "wrote PATH" on out after each.
void write_outputs(const ShownRun& shown, std::ostream& out);

}  // namespace locksim::cli
