#include "locksim/render/duration.hpp"

#include <fmt/format.h>

namespace locksim::render {

std::string human_duration(sim::Duration d, bool coarse) {
  if (d.ns < 0) return "-" + human_duration(-d, coarse);
  if (d.ns == 0) return "0s";
  if (coarse && d.ns >= 100'000'000) d.ns = (d.ns + 5'000'000) / 10'000'000 * 10'000'000;
  if (d.ns > 0 && d.ns < 1'000'000) return fmt::format("{}us", (d.ns + 500) / 1000);
  int64_t ms = (d.ns + 500'000) / 1'000'000;
  if (ms < 1000) return fmt::format("{}ms", ms);
  std::string frac = fmt::format("{:03}", ms % 1000);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return frac.empty() ? fmt::format("{}s", ms / 1000) : fmt::format("{}.{}s", ms / 1000, frac);
}

}  // namespace locksim::render
