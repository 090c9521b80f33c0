#include "locksim/props/assumptions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "locksim/lock/registry.hpp"
#include "locksim/lock/simulation.hpp"

namespace locksim::props {

namespace {

// A bound's word: "pause<=" and friends, with what it bounds.
struct BoundWord {
  std::string_view prefix;
  std::optional<Duration> Assumptions::*field;
  Duration lowest;
};
constexpr BoundWord kBounds[] = {
    {"work<=", &Assumptions::max_work, sim::milliseconds(1)},
    {"pause<=", &Assumptions::max_pause, sim::milliseconds(1)},
    {"delay<=", &Assumptions::max_delay, sim::milliseconds(1)},
    {"clock<=", &Assumptions::max_clock_error, sim::Duration{}},
};

struct FlagWord {
  std::string_view word;
  bool Assumptions::*field;
};
constexpr FlagWord kFlags[] = {
    {"durable-redis", &Assumptions::durable_redis},
    {"sane-redis-clock", &Assumptions::sane_redis_clock},
    {"sane-client-clock", &Assumptions::sane_client_clock},
    {"no-failover", &Assumptions::no_failover},
    {"redis-up", &Assumptions::redis_up},
};

std::string known_words() {
  return "durable-redis, sane-redis-clock, sane-client-clock, no-failover, redis-up, work<=D, pause<=D, delay<=D, clock<=D, "
         "none";
}

std::string bound_word(std::string_view prefix, Duration d) {
  return std::string(prefix) + sim::format_duration(d);
}

// The restart that ends the crash `f` of a node (its node's first restart at or after it), or nullptr.
const sim::Fault* restart_after(const std::vector<sim::Fault>& plan, const sim::Fault& f) {
  for (const sim::Fault& r : plan)
    if (r.kind == sim::FaultKind::Restart && r.node == f.node && r.at >= f.at) return &r;
  return nullptr;
}

}  // namespace

std::optional<Assumptions> parse_assumptions(std::string_view text, std::string* error) {
  Assumptions a;
  if (text == "none") return a;
  auto fail = [&](std::string message) -> std::optional<Assumptions> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  if (text.empty()) return a;  // nothing stated
  std::vector<std::string_view> seen;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string_view word =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    bool matched = false;
    for (const FlagWord& f : kFlags) {
      if (word != f.word) continue;
      if (std::find(seen.begin(), seen.end(), f.word) != seen.end())
        return fail(fmt::format("'{}' is stated twice", word));
      seen.push_back(f.word);
      a.*f.field = true;
      matched = true;
    }
    for (const BoundWord& b : kBounds) {
      if (matched || !word.starts_with(b.prefix)) continue;
      if (std::find(seen.begin(), seen.end(), b.prefix) != seen.end())
        return fail(fmt::format("'{}': {} is stated twice", word, b.prefix.substr(0, b.prefix.size() - 2)));
      seen.push_back(b.prefix);
      Duration d{};
      std::string why;
      if (!sim::parse_duration(word.substr(b.prefix.size()), d, &why)) return fail(fmt::format("'{}': {}", word, why));
      if (d < b.lowest || d > sim::seconds(3600))
        return fail(fmt::format("'{}': the bound must be {} to 1h", word, sim::format_duration(b.lowest)));
      a.*b.field = d;
      matched = true;
    }
    if (!matched) {
      if (word == "none") return fail("'none' stands alone: it means no assumption at all");
      return fail(fmt::format("unknown assumption '{}' (known: {})", word, known_words()));
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return a;
}

std::vector<std::string> assumption_words(const Assumptions& a) {
  std::vector<std::string> out;
  for (const FlagWord& f : kFlags)
    if (a.*f.field) out.emplace_back(f.word);
  for (const BoundWord& b : kBounds)
    if (a.*b.field) out.push_back(bound_word(b.prefix, *(a.*b.field)));
  return out;
}

Assumptions combined(const Assumptions& base, const Assumptions& extra) {
  Assumptions out = base;
  for (const FlagWord& f : kFlags) out.*f.field = base.*f.field || extra.*f.field;
  for (const BoundWord& b : kBounds)
    if (extra.*b.field) out.*b.field = extra.*b.field;
  return out;
}

namespace {
using BrokenLines = std::vector<std::pair<std::string, std::string>>;  // (word, line)
void note_broken(BrokenLines& found, std::string word, std::string what) {
  found.emplace_back(word, word + ": " + what);
}

// What the fault plan's crashes, restarts, jumps, pauses and cuts break.
void plan_breaks(const Scenario& s, const Assumptions& a, BrokenLines& found) {
  for (const sim::Fault& f : s.faults.faults) {
    const bool on_client = client_index(f.node).has_value();
    const std::string quoted = "'" + sim::to_string(f) + "'";
    // A restart loses the data without persistence, whether it ends a crash or is
    // one (a lone restart is a crash and an immediate start); a crash with no
    // restart leaves the server down, which no durability helps.
    if (f.kind == sim::FaultKind::Restart && !on_client && a.durable_redis && !s.persistent_redis)
      note_broken(found, "durable-redis", quoted + " restarts without persistence");
    if (f.kind == sim::FaultKind::Crash && !on_client && a.no_failover && s.replica && f.node == "redis")
      note_broken(found, "no-failover", quoted + " promotes the replica");
    if (f.kind == sim::FaultKind::Crash && f.node.starts_with("redis") && a.redis_up && !s.replica &&
        std::none_of(s.faults.faults.begin(), s.faults.faults.end(), [&](const sim::Fault& r) {
          return r.kind == sim::FaultKind::Restart && r.node == f.node && r.at >= f.at;
        }))
      note_broken(found, "redis-up", quoted + " and it never comes back");
    if (f.kind == sim::FaultKind::ClockJump && !on_client && a.sane_redis_clock) note_broken(found, "sane-redis-clock", quoted);
    if (f.kind == sim::FaultKind::ClockJump && on_client && a.sane_client_clock) note_broken(found, "sane-client-clock", quoted);
    if (f.kind == sim::FaultKind::ClockJump && on_client && a.max_clock_error &&
        std::abs(f.amount.ns) > a.max_clock_error->ns)
      note_broken(found, bound_word("clock<=", *a.max_clock_error), quoted);
    if (f.kind == sim::FaultKind::Pause && a.max_pause && f.amount > *a.max_pause)
      note_broken(found, bound_word("pause<=", *a.max_pause), quoted);
    // A cut loses the messages it catches, whatever its length: they never arrive.
    if (f.kind == sim::FaultKind::Cut && a.max_delay)
      note_broken(found, bound_word("delay<=", *a.max_delay), quoted + " loses the messages it catches");
    // A Redis that is down answers no one until it restarts: a cut of every client from it.
    if (f.kind == sim::FaultKind::Crash && !on_client && a.max_delay)
      if (const sim::Fault* back = restart_after(s.faults.faults, f); back && back->at - f.at > *a.max_delay)
        note_broken(found, bound_word("delay<=", *a.max_delay),
               fmt::format("{} keeps {} down for {}", quoted, f.node, sim::format_duration(back->at - f.at)));
  }
}

// What the drifts, offsets, call faults, work and message delays break.
void workload_breaks(const Scenario& s, const Assumptions& a, BrokenLines& found) {
  const lock::WorkloadParams& w = s.workload;
  for (size_t n = 0; n < s.redis_drifts_ppm.size(); ++n)
    if (a.sane_redis_clock && std::abs(s.redis_drifts_ppm[n]) > kSaneDriftPpm)
      note_broken(found, "sane-redis-clock", fmt::format("{}'s clock drifts {:+} ppm (more than {})", lock::redis_node_name(s, n),
                                             s.redis_drifts_ppm[n], kSaneDriftPpm));
  for (size_t c = 0; c < w.drifts_ppm.size(); ++c)
    if (a.sane_client_clock && std::abs(w.drifts_ppm[c]) > kSaneDriftPpm)
      note_broken(found, "sane-client-clock", fmt::format("{}'s clock drifts {:+} ppm (more than {})", lock::client_name(c),
                                              w.drifts_ppm[c], kSaneDriftPpm));
  for (size_t c = 0; c < w.clock_offsets.size(); ++c)
    if (a.max_clock_error && std::abs(w.clock_offsets[c].ns) > a.max_clock_error->ns)
      note_broken(found, bound_word("clock<=", *a.max_clock_error),
             fmt::format("{}'s clock is off by {}", lock::client_name(c), sim::format_duration(w.clock_offsets[c])));
  for (const lock::CallFault& c : w.call_faults)
    if (a.max_pause && c.kind == lock::CallFault::Kind::Pause && c.pause > *a.max_pause)
      note_broken(found, bound_word("pause<=", *a.max_pause),
             fmt::format("{} pauses {} before its call {}", lock::client_name(c.client),
                         sim::format_duration(c.pause), c.call));
  for (const lock::CallFault& c : w.call_faults)
    if (a.max_delay && c.loses_message())
      note_broken(found, bound_word("delay<=", *a.max_delay),
             fmt::format("{}'s call {} never gets its answer (its {} is lost)", lock::client_name(c.client), c.call,
                         c.kind == lock::CallFault::Kind::ReplyLost ? "reply" : "request"));
  if (a.max_work) {
    for (const lock::SlowWork& sw : w.slow_work)
      if (sw.work > *a.max_work)
        note_broken(found, bound_word("work<=", *a.max_work),
               fmt::format("{} works {} in its section {}", lock::client_name(sw.client),
                           sim::format_duration(sw.work), sw.iteration));
    if (w.work_max > *a.max_work)
      note_broken(found, bound_word("work<=", *a.max_work),
             fmt::format("sections are drawn up to {}", sim::format_duration(w.work_max)));
  }
  if (a.max_delay) {
    const sim::LatencyDist& l = s.latency;
    const Duration longest = l.base + l.jitter + (l.spike_probability > 0 ? l.spike_cap : Duration{});
    if (longest > *a.max_delay)
      note_broken(found, bound_word("delay<=", *a.max_delay),
             fmt::format("a message may take {} one way", sim::format_duration(longest)));
    // A delayed request takes its drawn latency and then the delay: as a spike's cap, the whole is bounded.
    for (const lock::CallFault& c : w.call_faults)
      if (c.kind == lock::CallFault::Kind::Delay && l.base + l.jitter + c.pause > *a.max_delay)
        note_broken(found, bound_word("delay<=", *a.max_delay),
                    fmt::format("{}'s {} {} is held {} longer in flight", lock::client_name(c.client),
                                c.on == lock::CallFault::On::Write ? "write" : "call", c.call,
                                sim::format_duration(c.pause)));
  }
}
}  // namespace

std::vector<std::string> broken_assumptions(const Scenario& s, const Assumptions& a) {
  BrokenLines found;
  plan_breaks(s, a, found);
  workload_breaks(s, a, found);
  // In assumption_words order, each line once.
  std::vector<std::string> order;
  for (const FlagWord& f : kFlags) order.emplace_back(f.word);
  for (const BoundWord& b : kBounds) order.emplace_back(b.prefix);
  std::vector<std::string> out;
  for (const std::string& word : order)
    for (const auto& [w2, line] : found)
      if (w2.starts_with(word) && std::find(out.begin(), out.end(), line) == out.end()) out.push_back(line);
  return out;
}

std::vector<std::string> broken_words(const Scenario& s, const Assumptions& a) {
  std::vector<std::string> words;
  for (const std::string& line : broken_assumptions(s, a)) {
    std::string word = line.substr(0, line.find(':'));
    if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
  }
  return words;
}

std::optional<std::string> breaks_assumptions(const Scenario& s, const Assumptions& a) {
  std::vector<std::string> lines = broken_assumptions(s, a);
  if (lines.empty()) return std::nullopt;
  return lines.front();
}

namespace {

Duration clamped(Duration d, Duration bound) {
  return d.ns < 0 ? std::max(d, Duration{-bound.ns}) : std::min(d, bound);
}
int64_t sane_ppm(int64_t ppm) { return std::clamp(ppm, -kSaneDriftPpm, kSaneDriftPpm); }

}  // namespace

Scenario held_inside(const Scenario& s, const Assumptions& a) {
  Scenario out = s;
  auto& plan = out.faults.faults;
  const bool has_restart = std::any_of(plan.begin(), plan.end(), [](const sim::Fault& f) {
    return f.kind == sim::FaultKind::Restart && !client_index(f.node).has_value();
  });
  if (a.durable_redis && has_restart) out.persistent_redis = true;
  // The crashes that no-failover or redis-up rule out go, each with its restarts.
  auto ruled_out_crash = [&](const sim::Fault& f) {
    if (f.kind != sim::FaultKind::Crash || client_index(f.node).has_value()) return false;
    if (a.no_failover && s.replica && f.node == "redis") return true;
    return a.redis_up && !s.replica && f.node.starts_with("redis") && !restart_after(s.faults.faults, f);
  };
  std::vector<std::string> gone;
  for (const sim::Fault& f : plan)
    if (ruled_out_crash(f)) gone.push_back(f.node);
  std::erase_if(plan, [&](const sim::Fault& f) {
    const bool on_gone = std::find(gone.begin(), gone.end(), f.node) != gone.end();
    if (on_gone && (f.kind == sim::FaultKind::Crash || f.kind == sim::FaultKind::Restart)) return true;
    if (f.kind == sim::FaultKind::Cut) return a.max_delay.has_value();  // it loses messages: none are, inside
    if (f.kind != sim::FaultKind::ClockJump) return false;
    return client_index(f.node).has_value() ? a.sane_client_clock : a.sane_redis_clock;
  });
  // A Redis down longer than the delay bound comes back within it.
  for (size_t i = 0; a.max_delay && i < plan.size(); ++i) {
    if (plan[i].kind != sim::FaultKind::Crash || client_index(plan[i].node)) continue;
    for (sim::Fault& back : plan)
      if (back.kind == sim::FaultKind::Restart && back.node == plan[i].node && back.at >= plan[i].at) {
        back.at = std::min(back.at, plan[i].at + *a.max_delay);
        break;
      }
  }
  std::stable_sort(plan.begin(), plan.end(), [](const sim::Fault& x, const sim::Fault& y) { return x.at < y.at; });
  for (sim::Fault& f : plan) {
    if (f.kind == sim::FaultKind::Pause && a.max_pause) f.amount = std::min(f.amount, *a.max_pause);
    if (f.kind == sim::FaultKind::ClockJump && client_index(f.node) && a.max_clock_error)
      f.amount = clamped(f.amount, *a.max_clock_error);
  }
  if (a.sane_redis_clock)
    for (int64_t& ppm : out.redis_drifts_ppm) ppm = sane_ppm(ppm);
  lock::WorkloadParams& w = out.workload;
  if (a.sane_client_clock)
    for (int64_t& ppm : w.drifts_ppm) ppm = sane_ppm(ppm);
  if (a.max_clock_error)
    for (Duration& offset : w.clock_offsets) offset = clamped(offset, *a.max_clock_error);
  if (a.max_pause)
    for (lock::CallFault& c : w.call_faults)
      if (c.kind == lock::CallFault::Kind::Pause) c.pause = std::min(c.pause, *a.max_pause);
  if (a.max_work) {
    for (lock::SlowWork& sw : w.slow_work) sw.work = std::min(sw.work, *a.max_work);
    w.work_max = std::min(w.work_max, *a.max_work);
    w.work_min = std::min(w.work_min, w.work_max);
  }
  if (a.max_delay) {
    // A delayed request keeps to the bound with its latency; where the latency alone fills it, the delay goes.
    const Duration room = *a.max_delay - out.latency.base - out.latency.jitter;
    for (lock::CallFault& c : w.call_faults)
      if (c.kind == lock::CallFault::Kind::Delay) c.pause = std::min(c.pause, room);
    std::erase_if(w.call_faults, [](const lock::CallFault& c) {
      return (c.kind == lock::CallFault::Kind::Delay && c.pause.ns <= 0) || c.loses_message();
    });
  }
  if (a.max_delay && out.latency.spike_probability > 0) {
    const Duration room = *a.max_delay - out.latency.base - out.latency.jitter;
    if (room.ns > 0)
      out.latency.spike_cap = std::min(out.latency.spike_cap, room);
    else
      out.latency = Scenario{}.latency;
  }
  normalize(out);
  return out;
}

Assumptions default_assumptions(std::string_view algorithm, uint32_t masters) {
  Assumptions a;
  const lock::Algorithm* algo = lock::find_algorithm(algorithm);
  if (algo && algo->uses_database) return a;  // a database lock needs nothing of Redis
  a.durable_redis = true;
  a.sane_redis_clock = true;
  // The deployment decides, not the name: Redlock, a variant of it, or any lock run on
  // several masters (--masters N) is designed to outlive a master that stays down.
  if (masters == 0) masters = algorithm == "redlock" ? 3 : algo ? algo->masters : 0;
  if (masters > 1) {
    // antirez's condition for Redlock's validity time: clocks that run at about the same
    // rate. Its other one, pauses and work well inside the lease, is the user's to state
    // (--assume pause<=D,work<=D): without it Redlock fails (Kleppmann), as check shows.
    a.sane_client_clock = true;
  } else {
    a.no_failover = true;  // one Redis: a promoted replica is a different deployment (--replica)
    a.redis_up = true;     // one Redis and no replica: while it is down there is no lock to speak of
  }
  return a;
}

}  // namespace locksim::props
