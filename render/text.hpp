#pragma once
// The terminal timeline: one lane per client over true time, a row of its
// Redis commands under it, a lane for the lock key (who holds it, when it
// expired or was deleted), the violating interval marked with ^^^ (and in
// colour when asked), the explanation, a legend and the story of the run.
//
//   A     ##############################
//         S                              d
//   B     ------------------------######################
//         s  s  s  s  s  s  s  s  s  S                  L
//   lock  AAAAAAAAAAAAAAAAAAAAAAA    BBBBBBBBBBBBBBBBBBBB
//                                ^expired
//                                 ^^^^^^ mutual-exclusion
#include <cstddef>
#include <string>

#include "locksim/render/timeline.hpp"

namespace locksim::render {

struct TextOptions {
  int width = 80;           // columns, at least 40
  bool colour = false;      // ANSI colours (the caller decides: a terminal, and NO_COLOR unset)
  bool legend = true;       // the key to the symbols
  bool story = true;        // the list of what happened, under the picture
  size_t story_lines = 16;  // at most this many story lines (those around the first violation)
};

std::string render_text(const Timeline& t, const TextOptions& options = {});

// Only the story: "  1.012s  lock expired: A's lease ran out", one per line.
std::string render_story(const Timeline& t, size_t max_lines, bool colour = false);

// Whether standard output should get colour: a terminal, and NO_COLOR unset or empty.
bool colour_wanted(int fd);

}  // namespace locksim::render
