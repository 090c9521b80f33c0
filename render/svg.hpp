#pragma once
// A self-contained SVG timeline (no scripts, no external fonts or styles),
// sized for slides and READMEs: a lane per client (waiting, holding, paused,
// crashed), its commands as ticks with tooltips, the lock key's holders and
// expiries, faults, the violating interval shaded red and explained.
#include <string>
#include <string_view>

#include "locksim/render/timeline.hpp"

namespace locksim::render {

struct SvgOptions {
  int width = 1000;  // pixels
};

std::string render_svg(const Timeline& t, const SvgOptions& options = {});

// Text escaped for XML content and attribute values.
std::string xml_escape(std::string_view s);

}  // namespace locksim::render
