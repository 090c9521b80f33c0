#pragma once
// How the program ends on a signal: the temporary file of an output being
// written is removed (sim/files.hpp), then the signal takes its default course;
// a write past the file-size limit is an error reported like any other (SIGXFSZ
// is ignored, so write() fails with EFBIG) rather than a silent death; and while
// a check takes its inventory, the first Ctrl-C asks it to stop and print what it
// has (the second ends the program).
#include <atomic>

namespace locksim::cli {

// Once, at the start of the program.
void install_signal_handlers();

// While one lives, SIGINT sets interrupted() instead of ending the program.
class InterruptibleScope {
 public:
  InterruptibleScope();
  ~InterruptibleScope();
  InterruptibleScope(const InterruptibleScope&) = delete;
  InterruptibleScope& operator=(const InterruptibleScope&) = delete;
};
const std::atomic<bool>& interrupted();

}  // namespace locksim::cli
