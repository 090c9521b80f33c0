#pragma once
// A sequence diagram of one run, in SVG: time runs down; a lifeline per
// client, one for Redis (or the database), and one for the protected resource
// when anything was written to it. Each command is an arrow from its client to
// the server, labelled with the command and its reply (a run of identical
// failed retries gets one label); the lock key's life is a bar beside the
// server, coloured by its owner, from set to expiry or deletion; writes reach
// the resource with their fencing token, accepted or REJECTED; faults are
// shaded windows on the node they struck; the violation is a red band.
//
// Time is drawn to scale, except that where events crowd, the drawing opens a
// row for each label: labels never overlap (layout_sequence returns their
// boxes, so tests can check that).
#include <string>
#include <vector>

#include "locksim/render/timeline.hpp"

namespace locksim::render {

struct Box {
  double x = 0, y = 0, width = 0, height = 0;  // y: the top
  bool intersects(const Box& o) const {
    return x < o.x + o.width && o.x < x + width && y < o.y + o.height && o.y < y + height;
  }
};

// One piece of text in the diagram, and the step of the run it belongs to.
struct SequenceLabel {
  Box box;
  std::string text;
  std::string css;  // its class: "cmd", "key", "fault", "write", "rejected", "violation", "time"
  int step = 0;     // 1-based order of the event in the run; 0: always shown (lane names)
};

struct SequenceLayout {
  double width = 0, height = 0;
  std::vector<SequenceLabel> labels;
  std::string svg;  // the whole picture
  int steps = 0;    // events, numbered 1..steps in time order
  std::vector<std::string> step_text;  // [step-1]: "1.000s  B: SET lock tok NX PX 1000 -> OK"
};

struct SequenceOptions {
  double font_size = 11;
  double row = 16;            // the least distance between two labelled events
  double pixels_per_ms = 0.2;  // the scale where events do not crowd (1 s: 200 px)
  bool steps = false;         // mark each element with data-step (the HTML tour's step-through)
};

SequenceLayout layout_sequence(const Timeline& t, const SequenceOptions& options = {});
inline std::string render_sequence_svg(const Timeline& t, const SequenceOptions& options = {}) {
  return layout_sequence(t, options).svg;
}

}  // namespace locksim::render
