#include "locksim/cli/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace locksim::cli {

Progress::Progress(std::string label, uint64_t total)
    : label_(std::move(label)),
      total_(total),
      enabled_(isatty(2) != 0),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() { finish(); }

void Progress::update(uint64_t done) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const int width = 30;
  double f = total_ ? static_cast<double>(done) / static_cast<double>(total_) : 0.0;
  if (f > 1) f = 1;
  int filled = static_cast<int>(f * width);
  double secs = std::chrono::duration<double>(now - start_).count();
  std::string bar =
      fmt::format("\r{} [{}{}] {:3.0f}%  {}/{}  {:.1f}s ", label_, std::string(static_cast<size_t>(filled), '#'),
                  std::string(static_cast<size_t>(width - filled), '.'), f * 100, done, total_, secs);
  std::fputs(bar.c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (!drawn_) return;
  std::fputs("\r\x1b[2K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace locksim::cli
