#include "locksim/trial/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace locksim::trial {

namespace {
struct KindName {
  FaultKind kind;
  std::string_view name;
};
constexpr std::array<KindName, 8> kKinds = {{{FaultKind::Pause, "pause"},
                                             {FaultKind::Cut, "cut"},
                                             {FaultKind::Delay, "delay"},
                                             {FaultKind::Lose, "lose"},
                                             {FaultKind::Skew, "skew"},
                                             {FaultKind::Clock, "clock"},
                                             {FaultKind::Restart, "restart"},
                                             {FaultKind::Jump, "jump"}}};

// splitmix64: a small generator of our own, the same on every platform.
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
  // A duration in [lo, hi], in whole milliseconds.
  Duration between(Duration lo, Duration hi) {
    const int64_t a = lo.ms(), b = std::max(hi.ms(), a);
    return sim::milliseconds(a + static_cast<int64_t>(below(static_cast<uint64_t>(b - a + 1))));
  }
};

std::string target_text(const Fault& f) {
  if (!aims_at_client(f.kind)) return fmt::format("r{}", f.server == kAllServers ? 0 : f.server);
  std::string text = fmt::format("c{}", f.client + 1);
  if (f.server != kAllServers) text += fmt::format(">r{}", f.server);
  return text;
}

// Cuts, delays and lost replies are on a client's link to a server; the others are the client's own.
bool aims_at_link(FaultKind k) { return k == FaultKind::Cut || k == FaultKind::Delay || k == FaultKind::Lose; }

bool has_length(FaultKind k) {
  return k == FaultKind::Pause || k == FaultKind::Cut || k == FaultKind::Delay || k == FaultKind::Lose;
}
bool has_amount(FaultKind k) {
  return k == FaultKind::Delay || k == FaultKind::Skew || k == FaultKind::Clock || k == FaultKind::Jump;
}

std::string signed_duration(Duration d) { return (d.ns >= 0 ? "+" : "") + sim::format_duration(d); }

Duration duration_of(std::string_view text, std::string_view what) {
  Duration d;
  std::string error;
  if (!sim::parse_duration(text, d, &error))
    throw std::invalid_argument(fmt::format("the schedule's {} '{}': {}", what, text, error));
  return d;
}

uint32_t index_of(std::string_view text, char letter, std::string_view fault) {
  if (text.size() < 2 || text[0] != letter || text.size() > 6)
    throw std::invalid_argument(fmt::format("the fault '{}' names '{}', not {}N", fault, text, letter));
  uint32_t n = 0;
  for (char c : text.substr(1)) {
    if (c < '0' || c > '9') throw std::invalid_argument(fmt::format("the fault '{}': bad index in '{}'", fault, text));
    n = n * 10 + static_cast<uint32_t>(c - '0');
  }
  return n;
}

Fault parse_fault(std::string_view text) {
  const size_t colon = text.find(':'), at = text.find('@');
  if (colon == std::string_view::npos || at == std::string_view::npos || at < colon)
    throw std::invalid_argument(fmt::format("the fault '{}' is not kind:target@time", text));
  Fault f;
  const auto kind = parse_fault_kind(text.substr(0, colon));
  if (!kind) throw std::invalid_argument(fmt::format("the fault '{}': unknown kind", text));
  f.kind = *kind;
  std::string_view target = text.substr(colon + 1, at - colon - 1);
  if (aims_at_client(f.kind)) {
    const size_t arrow = target.find('>');
    f.client = index_of(target.substr(0, arrow), 'c', text);
    if (f.client == 0) throw std::invalid_argument(fmt::format("the fault '{}': clients count from c1", text));
    --f.client;
    if (arrow != std::string_view::npos) {
      if (!aims_at_link(f.kind))
        throw std::invalid_argument(fmt::format("the fault '{}' is the client's own, not on a link to a server", text));
      f.server = index_of(target.substr(arrow + 1), 'r', text);
    }
  } else {
    f.server = index_of(target, 'r', text);
  }
  std::string_view rest = text.substr(at + 1);
  const size_t slash = rest.find('/');
  std::string_view amount = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
  rest = rest.substr(0, slash);
  const size_t plus = rest.find('+', 1);
  f.at = duration_of(rest.substr(0, plus), "time");
  if (plus != std::string_view::npos) f.length = duration_of(rest.substr(plus + 1), "length");
  if (!amount.empty()) f.amount = duration_of(amount, "amount");
  if (f.at.ns < 0 || f.length.ns < 0) throw std::invalid_argument(fmt::format("the fault '{}': negative time", text));
  if (has_length(f.kind) && f.length.ns <= 0)
    throw std::invalid_argument(fmt::format("the fault '{}' needs a length (+D)", text));
  if (has_amount(f.kind) && f.amount.ns == 0)
    throw std::invalid_argument(fmt::format("the fault '{}' needs an amount (/D)", text));
  if (f.kind == FaultKind::Delay && f.amount.ns < 0)
    throw std::invalid_argument(fmt::format("the fault '{}': a delay cannot be negative", text));
  return f;
}
}  // namespace

std::string_view to_string(FaultKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k.name;
  return "?";
}

std::optional<FaultKind> parse_fault_kind(std::string_view word) {
  for (const auto& k : kKinds)
    if (k.name == word) return k.kind;
  return std::nullopt;
}

bool aims_at_client(FaultKind kind) { return kind != FaultKind::Restart && kind != FaultKind::Jump; }

// A client's clock stepping during a run breaks locks that time their lease on the client
// (Redlock's validity): their assumption is clocks that advance at the same rate.
bool beyond_default_assumptions(FaultKind kind) { return !aims_at_client(kind) || kind == FaultKind::Clock; }

std::string describe(const Fault& f) {
  const std::string who = aims_at_client(f.kind) ? fmt::format("c{}", f.client + 1) : fmt::format("r{}", f.server);
  const std::string server = aims_at_client(f.kind) && f.server != kAllServers ? fmt::format(" on r{}", f.server) : "";
  const std::string at = sim::format_instant(sim::Instant{} + f.at);
  switch (f.kind) {
    case FaultKind::Pause: return fmt::format("pause of {} at {} for {}", who, at, sim::format_span(f.length));
    case FaultKind::Cut: return fmt::format("cut of {}{} at {} for {}", who, server, at, sim::format_span(f.length));
    case FaultKind::Delay:
      return fmt::format("{} delay of {}'s replies{} at {} for {}", sim::format_span(f.amount), who, server, at,
                         sim::format_span(f.length));
    case FaultKind::Lose: return fmt::format("lost reply to {}{} at {}", who, server, at);
    case FaultKind::Skew: return fmt::format("clock of {} off by {}", who, signed_duration(f.amount));
    case FaultKind::Clock: return fmt::format("clock of {} jumps by {} at {}", who, signed_duration(f.amount), at);
    case FaultKind::Restart: return fmt::format("restart of {} without persistence at {}", who, at);
    case FaultKind::Jump: return fmt::format("clock jump of {} by {} at {}", who, signed_duration(f.amount), at);
  }
  return "?";
}

std::vector<FaultKind> parse_fault_kinds(std::string_view text) {
  std::vector<FaultKind> out;
  if (text == "none") return out;
  if (text == "all") {
    for (const auto& k : kKinds) out.push_back(k.kind);
    return out;
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    const auto kind = parse_fault_kind(word);
    if (!kind)
      throw std::invalid_argument(fmt::format(
          "unknown fault kind '{}' (pause, cut, delay, lose, skew, clock, restart, jump; all; none)", word));
    if (std::find(out.begin(), out.end(), *kind) == out.end()) out.push_back(*kind);
    start = end + 1;
  }
  return out;
}

std::string kinds_text(const std::vector<FaultKind>& kinds) {
  if (kinds.empty()) return "none";
  std::string out;
  for (FaultKind k : kinds) out += (out.empty() ? "" : ",") + std::string(to_string(k));
  return out;
}

Schedule draw(uint64_t seed, uint32_t run, uint32_t clients, uint32_t servers, Duration duration,
              const FaultModel& model) {
  Schedule s;
  s.clients = clients;
  s.servers = servers;
  s.duration = duration;
  Random random{seed * 0x100000001b3ULL + run};
  std::vector<FaultKind> timed;
  for (FaultKind k : model.kinds) {
    if (k != FaultKind::Skew) {
      timed.push_back(k);
      continue;
    }
    // Clock skew: each client's clock drawn once, for the whole run (about half of them off).
    for (uint32_t c = 0; c < clients; ++c) {
      if (random.below(2) == 0) continue;
      Fault f{.kind = FaultKind::Skew, .client = c};
      f.amount = random.between(sim::milliseconds(1), model.max_skew);
      if (random.below(2)) f.amount = -f.amount;
      s.faults.push_back(f);
    }
  }
  if (timed.empty() || model.mean_gap.ns <= 0) return s;
  // Faults start at gaps drawn in [mean/2, 3*mean/2], from a short settling time on.
  Duration at = random.between(model.mean_gap / 2, model.mean_gap);
  const Duration last = duration - sim::milliseconds(200);
  while (at < last && s.faults.size() < 1000) {
    Fault f{.kind = timed[random.below(timed.size())], .at = at};
    const Duration pause_floor = std::min(sim::milliseconds(50), model.max_pause);
    if (aims_at_client(f.kind)) {
      f.client = static_cast<uint32_t>(random.below(clients));
      if (servers > 1 && aims_at_link(f.kind)) f.server = static_cast<uint32_t>(random.below(servers));
    } else {
      f.server = static_cast<uint32_t>(random.below(servers));
    }
    switch (f.kind) {
      case FaultKind::Pause:
      case FaultKind::Cut:
      case FaultKind::Lose: f.length = random.between(pause_floor, model.max_pause); break;
      case FaultKind::Delay:
        f.length = random.between(pause_floor, model.max_pause);
        f.amount = random.between(std::min(sim::milliseconds(10), model.max_delay), model.max_delay);
        break;
      case FaultKind::Jump:
        f.amount = random.between(sim::milliseconds(100), model.max_jump);
        if (random.below(4) == 0) f.amount = -f.amount;
        break;
      case FaultKind::Clock:
        f.amount = random.between(std::min(sim::milliseconds(100), model.max_skew), model.max_skew);
        if (random.below(2) == 0) f.amount = -f.amount;
        break;
      case FaultKind::Restart:
      case FaultKind::Skew: break;
    }
    s.faults.push_back(f);
    at += random.between(model.mean_gap / 2, model.mean_gap + model.mean_gap / 2);
  }
  std::stable_sort(s.faults.begin(), s.faults.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  return s;
}

std::string to_text(const Schedule& s) {
  std::string faults;
  for (const Fault& f : s.faults) {
    faults += faults.empty() ? "" : ",";
    faults += fmt::format("{}:{}@{}", to_string(f.kind), target_text(f), sim::format_duration(f.at));
    if (has_length(f.kind)) faults += "+" + sim::format_duration(f.length);
    if (has_amount(f.kind)) faults += "/" + signed_duration(f.amount);
  }
  return fmt::format("clients={} servers={} duration={} faults={}", s.clients, s.servers,
                     sim::format_duration(s.duration), faults.empty() ? "none" : faults);
}

Schedule parse_schedule(std::string_view text) {
  Schedule s;
  bool saw_faults = false;
  size_t start = 0;
  while (start < text.size()) {
    while (start < text.size() && (text[start] == ' ' || text[start] == '\n' || text[start] == '\t')) ++start;
    if (start >= text.size()) break;
    size_t end = text.find_first_of(" \n\t", start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    start = end;
    const size_t eq = word.find('=');
    if (eq == std::string_view::npos)
      throw std::invalid_argument(fmt::format("the schedule's word '{}' is not name=value", word));
    const std::string_view name = word.substr(0, eq), value = word.substr(eq + 1);
    auto count = [&](uint32_t lo, uint32_t hi) {
      uint32_t n = 0;
      if (value.empty() || value.size() > 4) throw std::invalid_argument(fmt::format("the schedule's {}: '{}'", name, value));
      for (char c : value) {
        if (c < '0' || c > '9') throw std::invalid_argument(fmt::format("the schedule's {}: '{}'", name, value));
        n = n * 10 + static_cast<uint32_t>(c - '0');
      }
      if (n < lo || n > hi)
        throw std::invalid_argument(fmt::format("the schedule's {} must be {}..{}, not {}", name, lo, hi, n));
      return n;
    };
    if (name == "clients") {
      s.clients = count(1, 64);
    } else if (name == "servers") {
      s.servers = count(1, 16);
    } else if (name == "duration") {
      s.duration = duration_of(value, "duration");
      if (s.duration < sim::milliseconds(100) || s.duration > sim::seconds(24 * 3600))
        throw std::invalid_argument("the schedule's duration must be 100ms..24h");
    } else if (name == "faults") {
      saw_faults = true;
      if (value == "none") continue;
      size_t from = 0;
      while (from <= value.size()) {
        size_t comma = value.find(',', from);
        if (comma == std::string_view::npos) comma = value.size();
        s.faults.push_back(parse_fault(value.substr(from, comma - from)));
        from = comma + 1;
      }
    } else {
      throw std::invalid_argument(fmt::format("the schedule's word '{}' is unknown (clients servers duration faults)", name));
    }
  }
  if (!saw_faults) throw std::invalid_argument("the schedule has no faults=... (faults=none for none)");
  for (const Fault& f : s.faults) {
    if (aims_at_client(f.kind) && f.client >= s.clients)
      throw std::invalid_argument(fmt::format("the fault '{}' names a client beyond clients={}", describe(f), s.clients));
    if (f.server != kAllServers && f.server >= s.servers)
      throw std::invalid_argument(fmt::format("the fault '{}' names a server beyond servers={}", describe(f), s.servers));
    if (f.at > s.duration)
      throw std::invalid_argument(fmt::format("the fault '{}' starts after the run's end", describe(f)));
  }
  std::stable_sort(s.faults.begin(), s.faults.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  return s;
}

}  // namespace locksim::trial
