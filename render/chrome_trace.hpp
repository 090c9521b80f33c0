#pragma once
// Chrome Trace Event JSON (the format Perfetto and chrome://tracing open):
// one track per client, one for the lock key, one per server of the trace
// ("redis", "store") and one named "violation". Critical sections, waits,
// pauses and crashes are "X" slices on the client tracks; commands are "i"
// instants on the sender's track (and on the server's track where they
// executed); faults are instants on the node they struck; the key's holders
// are slices on the key track and its expiries/deletions instants; each
// highlighted violation is a slice on the violation track.
#include <string>
#include <string_view>

#include "locksim/render/timeline.hpp"

namespace locksim::render {

std::string render_chrome_trace(const Timeline& t);

// A JSON string literal, quotes included, with every control character escaped.
std::string json_string(std::string_view s);

}  // namespace locksim::render
