#pragma once
// LOCKSIM_ASSERT(condition, message): an internal invariant, checked in every
// build (release included). When it fails, the program prints where, the
// condition, the message and the notes in scope on this thread (the
// simulation seed, say: enough to replay the run), then aborts. It is for
// bugs in locksim itself, never for bad input: input gets a clear error.
//
// Header-only and below everything else (docs/architecture.md): sim/redis,
// which reaches nothing else of ours, may include it too.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace locksim::base {

// A line of context that a failed assertion prints, while it is in scope on
// this thread. The simulator keeps one naming the seed of the world it runs.
struct AssertNote {
  const char* label;
  uint64_t value;
  const AssertNote* outer;
};
inline thread_local const AssertNote* innermost_assert_note = nullptr;

class ScopedAssertNote {
 public:
  ScopedAssertNote(const char* label, uint64_t value) : note_{label, value, innermost_assert_note} {
    innermost_assert_note = &note_;
  }
  ~ScopedAssertNote() { innermost_assert_note = note_.outer; }
  ScopedAssertNote(const ScopedAssertNote&) = delete;
  ScopedAssertNote& operator=(const ScopedAssertNote&) = delete;

 private:
  AssertNote note_;
};

// What a failed assertion prints: testable without dying.
inline std::string assert_failure_text(std::string_view file, int line, std::string_view condition,
                                       std::string_view message) {
  std::string out = "locksim: internal error at " + std::string(file) + ":" + std::to_string(line) + ": " +
                    std::string(message) + "\n  check failed: " + std::string(condition) + "\n";
  for (const AssertNote* n = innermost_assert_note; n; n = n->outer)
    out += "  " + std::string(n->label) + ": " + std::to_string(n->value) + "\n";
  out += "  this is a bug in locksim: please report it with the lines above\n";
  return out;
}

[[noreturn]] inline void assert_failed(const char* file, int line, const char* condition, std::string_view message) {
  std::fflush(stdout);  // what the program printed so far comes first
  const std::string text = assert_failure_text(file, line, condition, message);
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  std::abort();
}

}  // namespace locksim::base

// `message` (anything a std::string_view takes) is evaluated only on failure.
#define LOCKSIM_ASSERT(condition, message)                                       \
  do {                                                                           \
    if (!(condition)) [[unlikely]]                                               \
      ::locksim::base::assert_failed(__FILE__, __LINE__, #condition, (message)); \
  } while (false)
