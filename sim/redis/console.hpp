#pragma once
// `locksim redis`: a console to a fresh model, reading redis-cli style lines and
// printing replies as `redis-cli --no-raw` does.
#include <cstdint>
#include <iosfwd>

namespace locksim::redis {

// The model clock at start: 2023-11-14T22:13:20Z, so TIME looks plausible.
inline constexpr int64_t kConsoleStartMs = 1'700'000'000'000;
// The latest time .advance may reach: 10^13 ms, in the year 2286.
inline constexpr int64_t kConsoleMaxMs = 10'000'000'000'000;

struct ConsoleOptions {
  bool fail_on_error = false;  // exit 1 once any line was bad or any reply an error
  bool prompt = false;         // a person at a terminal: a prompt before each line, a greeting
};

// One command per line; `.advance <ms>` (or LOCKSIM.ADVANCE) moves the clock;
// HELP lists what the console adds to Redis; blank lines are skipped;
// `quit`/`exit` stop. Bad lines get a message on `err` and the console goes
// on. Returns 0, or with fail_on_error 1 once any line was bad or any reply an error.
int run_console(std::istream& in, std::ostream& out, std::ostream& err, const ConsoleOptions& options);
int run_console(std::istream& in, std::ostream& out, std::ostream& err, bool fail_on_error = false);
// The text HELP prints.
extern const char* const kConsoleHelp;

}  // namespace locksim::redis
