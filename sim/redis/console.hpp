#pragma once
// `locksim redis`: a console to a fresh model, reading redis-cli style lines and
// printing replies as `redis-cli --no-raw` does.
#include <cstdint>
#include <iosfwd>

namespace locksim::redis {

// The model clock at start: 2023-11-14T22:13:20Z, so TIME looks plausible.
inline constexpr int64_t kConsoleStartMs = 1'700'000'000'000;

// One command per line; `.advance <ms>` moves the clock; blank lines are
// skipped; `quit`/`exit` stop. Bad lines get a message on `err` and the console
// goes on. Returns 0.
int run_console(std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace locksim::redis
