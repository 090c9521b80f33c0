#pragma once
// `locksim tour --html FILE`: the tour as one self-contained page (no network,
// no external file): a chapter per failure, in the tour's order, each with
// what changed from the previous version, the failure in one sentence (from
// the replayed run), its sequence diagram with a step-through, why, the fix,
// and a "try it" control whose choices are runs computed when the page is made.
#include <string>
#include <string_view>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/tour_lessons.hpp"
#include "locksim/render/timeline.hpp"

namespace locksim::cli {

int write_tour_html(const TourOptions& options);
// The page itself (write_tour_html writes it to options.html).
// all_as_told: whether every chapter failed as its title says and was found by the search.
std::string tour_html(const TourOptions& options, bool* all_as_told = nullptr);

// A lesson's run as the pictures draw it: the violation of the entry's property highlighted.
render::Timeline lesson_timeline(const LessonRun& run, const props::CatalogueEntry& entry, const std::string& title);

}  // namespace locksim::cli
