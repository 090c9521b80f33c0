#pragma once
// The subcommands of `locksim`. Each returns the process's exit status:
// 0 fine, 1 a violation was found (check), 2 usage error (thrown as
// UsageError and reported by main), 3 not available in this build yet.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "lock/simulation.hpp"
#include "render/timeline.hpp"

namespace locksim::cli {

inline constexpr int kNotYetAvailable = 3;

struct CheckOptions {
  ScenarioOptions scenario;        // algorithm, parameter overrides, clients, ...
  uint64_t runs = 1000;
  std::vector<std::string> fault_kinds;  // --faults for check: which kinds the explorer may draw
  unsigned jobs = 1;
  std::string shard = "1/1";       // I/N
  OutputOptions output;
};

struct CatalogueOptions {
  bool json = false;
  unsigned jobs = 1;
  std::string only;                // an entry id, e.g. F07
  OutputOptions output;
};

struct ReplayOptions {
  std::string scenario;            // a scenario file, or the scenario text itself
  OutputOptions output;
};

struct TourOptions {
  OutputOptions output;
  std::string only;                // one algorithm id
  bool quick = false;
};

int cmd_list(const OutputOptions& output);
int cmd_run(const ScenarioOptions& scenario, const OutputOptions& output);
int cmd_tour(const TourOptions& options);
int cmd_check(const CheckOptions& options);
int cmd_catalogue(const CatalogueOptions& options);
int cmd_replay(const ReplayOptions& options);
int cmd_redis();

// One finished simulation, drawn: the timeline (with the given highlights, or
// the stand-in findings when none are given), files if asked, returns the
// text for standard output.
struct ShownRun {
  std::string text;
  std::vector<render::Highlight> highlights;
  uint64_t trace_hash = 0;
};
ShownRun show_run(lock::Simulation& sim, const std::string& title, const OutputOptions& output,
                  const std::vector<render::Highlight>* highlights = nullptr, const std::string& indent = "");

// Writes text to path; throws UsageError naming the file on failure.
void write_file(const std::string& path, const std::string& text);

}  // namespace locksim::cli
