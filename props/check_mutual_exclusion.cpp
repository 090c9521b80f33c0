// mutual-exclusion: at no instant of true time do two clients both believe
// they hold the lock. A critical section runs from Enter to Leave; a crash
// ends it, a pause does not (the paused client still believes it holds).
#include <fmt/format.h>

#include <algorithm>

#include "locksim/props/check.hpp"

namespace locksim::props::detail {

using lock::Step;

namespace {

struct Hold {
  uint32_t client;
  Instant from, to;
};

std::vector<Hold> holds(const Context& c) {
  std::vector<Hold> out;
  std::vector<std::optional<Instant>> open(c.history.clients().size());
  for (const auto& e : c.history.events()) {
    if (e.client >= open.size()) continue;
    if (e.step == Step::Enter) {
      open[e.client] = e.at;
    } else if ((e.step == Step::Leave || e.step == Step::Crashed) && open[e.client]) {
      out.push_back(Hold{e.client, *open[e.client], e.at});
      open[e.client].reset();
    }
  }
  for (uint32_t client = 0; client < open.size(); ++client)
    if (open[client]) out.push_back(Hold{client, *open[client], c.end.at});
  std::stable_sort(out.begin(), out.end(), [](const Hold& a, const Hold& b) { return a.from < b.from; });
  return out;
}

}  // namespace

std::optional<Violation> mutual_exclusion(const Context& c) {
  const std::vector<Hold> all = holds(c);
  for (size_t j = 0; j < all.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      if (all[i].client == all[j].client || all[i].to <= all[j].from) continue;
      Violation v;
      v.property = Property::MutualExclusion;
      v.clients = {all[i].client, all[j].client};
      v.key = c.config.lock.key;
      v.from = all[j].from;
      v.to = std::min(all[i].to, all[j].to);
      // Why is for the classifier (classify.cpp), which props::check runs on every violation.
      v.sentence =
          fmt::format("{} and {} both held {} from {} to {} ({})", c.name(all[i].client), c.name(all[j].client), v.key,
                      sim::format_instant(v.from), sim::format_instant(v.to), sim::format_span(v.to - v.from));
      return v;
    }
  }
  return std::nullopt;
}

}  // namespace locksim::props::detail
