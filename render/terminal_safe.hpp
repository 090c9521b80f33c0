#pragma once
// Text for a terminal: user text (a lock key, a variant's log line) may hold
// control characters that would move the cursor, retitle the window or worse.
#include <string>
#include <string_view>

namespace locksim::render {

// `text` with every control character other than a newline, and every byte that
// is not valid UTF-8 (or encodes a C1 control), written as \xNN; with
// `keep_colour`, colour sequences (ESC [ digits ; ... m), which change nothing
// but colour, stay (the renderer's own, when it draws in colour).
// Idempotent: what it returns it returns unchanged.
std::string terminal_safe(std::string_view text, bool keep_colour = true);

}  // namespace locksim::render
