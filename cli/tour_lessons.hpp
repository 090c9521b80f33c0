#pragma once
// The tour's teaching scenarios: for each documented failure, one scenario a
// person can follow (one fault where one suffices, an overlap one can see, the
// title's mechanism and nothing else), replayed every time the tour runs and
// checked to fail the way its title says. The live search's minimal
// counterexample stays under it as the proof that the failure is found
// without help (cli/tour.cpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/cli/verdicts.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/props/catalogue.hpp"

namespace locksim::cli {

// The tour's three parts, in locksim list's order: the Redis main line, the
// variants beside it, the database locks as an appendix.
enum class Part : uint8_t { MainLine, Variants, Appendix };
Part part_of(const lock::Algorithm& algorithm);
// Every algorithm, in the tour's order (cli/tour.cpp).
std::vector<const lock::Algorithm*> tour_order();

struct Lesson {
  std::string_view entry;     // catalogue id, "F07"
  std::string_view title;     // what goes wrong, as the scenario shows it
  std::string_view scenario;  // replayed: a scenario line (props/scenario.hpp)
  std::string_view setup;     // the scenario in words: what it sets up, never what comes of it
  props::Cause cause;         // the mechanism the title names
  std::string_view fault;     // the fault that sets it off, as the scenario writes it ("" : none)
  std::string_view knob;      // "try it": the scenario word the HTML tour varies ("" : none)
  std::vector<std::string_view> knob_values;
};

const std::vector<Lesson>& lessons();
const Lesson* find_lesson(std::string_view entry);

// A lesson replayed: the run, the violation of the entry's property, and
// whatever keeps it from failing the way the title says (empty: as told).
struct LessonRun {
  Recorded run;
  props::Scenario scenario;
  const props::Violation* violation = nullptr;
  std::vector<std::string> problems;
  bool as_told() const { return problems.empty(); }
};
LessonRun replay_lesson(const Lesson& lesson, const props::CatalogueEntry& entry);
// The same with one word of the scenario replaced (the "try it" control): no checks.
std::optional<LessonRun> replay_variation(const Lesson& lesson, const props::CatalogueEntry& entry,
                                          std::string_view word);

// The scenario with the word that sets what `word` sets replaced by it (or added):
// "slow=A:0:2s" replaces "slow=A:0:1.5s", "faults=[...]" the fault plan.
std::string vary_scenario(std::string_view scenario, std::string_view word);

// The most a lesson's overlap of two holders must last to be seen: 100 ms, or a third of the lease.
sim::Duration visible_overlap(const props::Scenario& scenario);

}  // namespace locksim::cli
