#pragma once
// A progress bar on standard error, drawn only when standard error is a
// terminal and only once the work has taken more than a second; it never
// touches standard output, so piped results stay clean and deterministic.
#include <chrono>
#include <cstdint>
#include <string>

namespace locksim::cli {

class Progress {
 public:
  Progress(std::string label, uint64_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void update(uint64_t done);  // cheap: redraws at most ten times a second
  void finish();               // erases the bar (idempotent)
  bool enabled() const { return enabled_; }

 private:
  std::string label_;
  uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace locksim::cli
