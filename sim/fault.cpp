#include "locksim/sim/fault.hpp"

#include <fmt/format.h>

#include <sstream>

namespace locksim::sim {

std::string_view to_string(FaultKind k) {
  switch (k) {
    case FaultKind::Crash: return "crash";
    case FaultKind::Restart: return "restart";
    case FaultKind::Pause: return "pause";
    case FaultKind::ClockJump: return "jump";
    case FaultKind::Cut: return "cut";
    case FaultKind::Heal: return "heal";
    case FaultKind::Reset: return "reset";
  }
  return "?";
}

namespace {
bool has_peer(FaultKind k) { return k == FaultKind::Cut || k == FaultKind::Heal || k == FaultKind::Reset; }

std::string format_at(Instant t) { return format_duration(Duration{t.ns}); }
}  // namespace

std::string to_string(const Fault& f) {
  std::string s = fmt::format("{} {}", to_string(f.kind), f.node);
  if (has_peer(f.kind)) s += " " + f.peer;
  s += " @" + format_at(f.at);
  if (f.kind == FaultKind::Pause || (f.kind == FaultKind::Cut && f.amount.ns > 0))
    s += " for " + format_duration(f.amount);
  if (f.kind == FaultKind::ClockJump)
    s += std::string(" by ") + (f.amount.ns >= 0 ? "+" : "") + format_duration(f.amount);
  return s;
}

std::string to_string(const FaultPlan& plan) {
  if (plan.faults.empty()) return "none";
  std::string s;
  for (const auto& f : plan.faults) {
    if (!s.empty()) s += "; ";
    s += to_string(f);
  }
  return s;
}

std::optional<FaultPlan> parse_fault_plan(std::string_view text, std::string* error) {
  FaultPlan plan;
  std::string all(text);
  for (char& c : all)
    if (c == '\n') c = ';';
  std::istringstream items(all);
  std::string item;
  int index = 0;
  auto fail = [&](const std::string& why) -> std::optional<FaultPlan> {
    if (error) *error = fmt::format("fault {} ('{}'): {}", index, item, why);
    return std::nullopt;
  };
  while (std::getline(items, item, ';')) {
    // Name the fault without the spaces around it.
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    std::istringstream words(item);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    ++index;
    if (w.size() == 1 && w[0] == "none" && index == 1) continue;
    Fault f;
    static const FaultKind kinds[] = {FaultKind::Crash, FaultKind::Restart, FaultKind::Pause, FaultKind::ClockJump,
                                      FaultKind::Cut,   FaultKind::Heal,    FaultKind::Reset};
    bool known = false;
    for (FaultKind k : kinds)
      if (w[0] == to_string(k)) {
        f.kind = k;
        known = true;
      }
    if (!known) return fail("unknown fault kind '" + w[0] + "' (crash, restart, pause, jump, cut, heal, reset)");
    size_t i = 1;
    if (i >= w.size()) return fail("missing node name");
    f.node = w[i++];
    if (has_peer(f.kind)) {
      if (i >= w.size() || w[i][0] == '@') return fail("missing peer node name (or *)");
      f.peer = w[i++];
    }
    if (i >= w.size() || w[i][0] != '@') return fail("missing time, as @1.5s");
    Duration at;
    std::string why;
    if (!parse_duration(std::string_view(w[i]).substr(1), at, &why)) return fail(why);
    if (at.ns < 0) return fail("time must not be negative");
    f.at = Instant{at.ns};
    ++i;
    if (f.kind == FaultKind::Pause || f.kind == FaultKind::Cut) {
      if (i < w.size()) {
        if (w[i] != "for" || i + 1 >= w.size()) return fail("expected 'for <duration>'");
        if (!parse_duration(w[i + 1], f.amount, &why)) return fail(why);
        if (f.amount.ns <= 0) return fail("duration must be positive");
        i += 2;
      } else if (f.kind == FaultKind::Pause) {
        return fail("pause needs 'for <duration>'");
      }
    } else if (f.kind == FaultKind::ClockJump) {
      if (i + 1 >= w.size() || w[i] != "by") return fail("jump needs 'by <duration>', as by +2s");
      if (!parse_duration(w[i + 1], f.amount, &why)) return fail(why);
      i += 2;
    }
    if (i != w.size()) return fail("unexpected '" + w[i] + "'");
    plan.faults.push_back(std::move(f));
  }
  return plan;
}

}  // namespace locksim::sim
