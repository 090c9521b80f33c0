#include "locksim/props/scenario.hpp"

#include "locksim/props/limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <vector>

namespace locksim::props {

using sim::Duration;
using sim::format_duration;

namespace {

std::string signed_duration(Duration d) { return (d.ns >= 0 ? "+" : "") + format_duration(d); }

std::string format_probability(double p) {
  // Shortest text that reads back to the same double.
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, p);
  return std::string(buf, r.ptr);
}

}  // namespace

std::optional<uint32_t> client_index(std::string_view name) {
  if (name.size() == 1 && name[0] >= 'A' && name[0] <= 'Z') return static_cast<uint32_t>(name[0] - 'A');
  if (name.size() > 1 && name[0] == 'C') {
    uint32_t n = 0;
    auto r = std::from_chars(name.data() + 1, name.data() + name.size(), n);
    if (r.ec == std::errc() && r.ptr == name.data() + name.size() && n >= 26) return n;
  }
  return std::nullopt;
}

// Two delays of one call's (or write's) request act as one of their sum (SimEnv adds
// them up): one element, so that the line, the cause and the shrinker agree. The first
// keeps its place. (Lines from before draws kept them apart read back merged.)
static void merge_delays(std::vector<lock::CallFault>& faults) {
  for (size_t i = 0; i < faults.size(); ++i) {
    if (faults[i].kind != lock::CallFault::Kind::Delay) continue;
    for (size_t j = i + 1; j < faults.size();) {
      const lock::CallFault& g = faults[j];
      if (g.kind == lock::CallFault::Kind::Delay && g.client == faults[i].client && g.call == faults[i].call &&
          g.on == faults[i].on) {
        faults[i].pause += g.pause;
        faults.erase(faults.begin() + static_cast<std::ptrdiff_t>(j));
      } else {
        ++j;
      }
    }
  }
}

void normalize(Scenario& s) {
  auto& w = s.workload;
  size_t n = std::max(w.clock_offsets.size(), w.drifts_ppm.size());
  w.clock_offsets.resize(n);
  w.drifts_ppm.resize(n);
  while (n > 0 && w.clock_offsets[n - 1].ns == 0 && w.drifts_ppm[n - 1] == 0) --n;
  w.clock_offsets.resize(n);
  w.drifts_ppm.resize(n);
  while (!s.redis_drifts_ppm.empty() && s.redis_drifts_ppm.back() == 0) s.redis_drifts_ppm.pop_back();
  bool identity = true;
  for (uint32_t c = 0; c < w.identities.size(); ++c) identity = identity && w.identities[c] == c;
  if (identity) w.identities.clear();
  merge_delays(w.call_faults);
}

std::string to_string(const lock::CallFault& f) {
  const std::string head = fmt::format("call={}:{}{}:", lock::client_name(f.client),
                                       f.on == lock::CallFault::On::Write ? "write" : "", f.call);
  switch (f.kind) {
    case lock::CallFault::Kind::Crash: return head + "crash";
    case lock::CallFault::Kind::Pause: return head + "pause:" + format_duration(f.pause);
    case lock::CallFault::Kind::RequestLost: return head + "request-lost";
    case lock::CallFault::Kind::ReplyLost: return head + "reply-lost";
    case lock::CallFault::Kind::Delay: return head + "delay:" + format_duration(f.pause);
  }
  return head + "?";
}

std::string to_string(const Scenario& s) {
  static const Scenario d;
  const lock::WorkloadParams& w = s.workload;
  const lock::WorkloadParams& dw = d.workload;
  std::vector<std::string> words{s.algorithm, fmt::format("seed={}", s.seed), fmt::format("clients={}", w.clients)};
  auto add = [&](bool differs, std::string word) {
    if (differs) words.push_back(std::move(word));
  };
  add(w.iterations != dw.iterations, fmt::format("iterations={}", w.iterations));
  add(w.work_min != dw.work_min || w.work_max != dw.work_max,
      fmt::format("work={}..{}", format_duration(w.work_min), format_duration(w.work_max)));
  add(w.think_min != dw.think_min || w.think_max != dw.think_max,
      fmt::format("think={}..{}", format_duration(w.think_min), format_duration(w.think_max)));
  add(w.start_spread != dw.start_spread, "spread=" + format_duration(w.start_spread));
  add(w.nested != dw.nested, fmt::format("nested={}", w.nested));
  add(w.write_resource != dw.write_resource, fmt::format("write={}", w.write_resource ? 1 : 0));
  add(w.stop_when_lost != dw.stop_when_lost, fmt::format("stop-when-lost={}", w.stop_when_lost ? 1 : 0));
  add(s.horizon != d.horizon, "horizon=" + format_duration(s.horizon));
  add(s.persistent_redis != d.persistent_redis, fmt::format("persistent={}", s.persistent_redis ? 1 : 0));
  add(s.masters != d.masters, fmt::format("masters={}", s.masters));
  add(s.replica != d.replica, fmt::format("replica={}", s.replica ? 1 : 0));
  add(s.replication_lag != d.replication_lag, "lag=" + format_duration(s.replication_lag));
  add(s.failover_after != d.failover_after, "failover=" + format_duration(s.failover_after));
  add(s.latency.base != d.latency.base || s.latency.jitter != d.latency.jitter,
      fmt::format("latency={}+{}", format_duration(s.latency.base), format_duration(s.latency.jitter)));
  add(s.latency.spike_probability != d.latency.spike_probability || s.latency.spike_scale != d.latency.spike_scale ||
          s.latency.spike_alpha != d.latency.spike_alpha || s.latency.spike_cap != d.latency.spike_cap,
      fmt::format("spikes={}:{}:{}:{}", format_probability(s.latency.spike_probability),
                  format_duration(s.latency.spike_scale), format_probability(s.latency.spike_alpha),
                  format_duration(s.latency.spike_cap)));
  for (uint32_t c = 0; c < w.clients; ++c) {
    Duration offset = c < w.clock_offsets.size() ? w.clock_offsets[c] : Duration{};
    int64_t drift = c < w.drifts_ppm.size() ? w.drifts_ppm[c] : 0;
    add(offset.ns != 0 || drift != 0,
        fmt::format("clock={}:{}:{}", lock::client_name(c), signed_duration(offset), drift));
  }
  for (uint32_t n = 0; n < s.redis_drifts_ppm.size(); ++n)
    add(s.redis_drifts_ppm[n] != 0,
        fmt::format("redis-drift={}:{:+}", lock::redis_node_name(s, n), s.redis_drifts_ppm[n]));
  for (const auto& sw : w.slow_work)
    words.push_back(fmt::format("slow={}:{}:{}", lock::client_name(sw.client), sw.iteration, format_duration(sw.work)));
  for (const auto& cf : w.call_faults) words.push_back(to_string(cf));
  if (!w.identities.empty()) {
    std::string ids;
    for (uint32_t id : w.identities) ids += (ids.empty() ? "" : ",") + std::to_string(id);
    words.push_back("ids=" + ids);
  }
  std::string params = lock::to_string(s.lock);
  if (!params.empty()) words.push_back(params);
  if (!s.faults.empty()) words.push_back("faults=[" + sim::to_string(s.faults) + "]");
  std::string out;
  for (const auto& word : words) {
    if (!out.empty()) out += ' ';
    out += word;
  }
  return out;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string* error) : error_(error) {}

  bool fail(std::string_view word, const std::string& why) {
    if (error_) *error_ = fmt::format("in '{}': {}", (word), why);
    return false;
  }

  template <class T>
  bool number(std::string_view word, std::string_view text, T& out) {
    auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size())
      return fail(word, fmt::format("'{}' is not a valid number", (text)));
    return true;
  }

  bool duration(std::string_view word, std::string_view text, Duration& out, bool allow_negative = false) {
    std::string why;
    if (!sim::parse_duration(text, out, &why)) return fail(word, why);
    if (!allow_negative && out.ns < 0) return fail(word, "must not be negative");
    return true;
  }

  bool range(std::string_view word, std::string_view text, Duration& lo, Duration& hi) {
    size_t dots = text.find("..");
    if (dots == std::string_view::npos) return fail(word, "expected MIN..MAX");
    if (!duration(word, text.substr(0, dots), lo) || !duration(word, text.substr(dots + 2), hi)) return false;
    if (hi < lo) return fail(word, "MAX is below MIN");
    return true;
  }

  bool flag(std::string_view word, std::string_view text, bool& out) {
    if (text == "1" || text == "true")
      out = true;
    else if (text == "0" || text == "false")
      out = false;
    else
      return fail(word, "expected 0 or 1");
    return true;
  }

  bool client(std::string_view word, std::string_view text, uint32_t& out) {
    auto c = client_index(text);
    if (!c) return fail(word, fmt::format("'{}' is not a client name (A, B, ...)", (text)));
    out = *c;
    return true;
  }

 private:
  std::string* error_;
};

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

}  // namespace

namespace {

// Splits at spaces, except inside faults=[...]; false on an unbalanced '['.
bool split_words(std::string_view text, std::vector<std::string_view>& words) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  for (size_t i = 0; i < text.size();) {
    while (i < text.size() && space(text[i])) ++i;
    if (i >= text.size()) break;
    size_t start = i;
    int depth = 0;
    while (i < text.size() && (depth > 0 || !space(text[i]))) {
      if (text[i] == '[') ++depth;
      if (text[i] == ']') --depth;
      ++i;
    }
    if (depth != 0) return false;
    words.push_back(text.substr(start, i - start));
  }
  return true;
}

// The state of one parse: the scenario so far and the per-client clock settings.
struct ParseState {
  Scenario s;
  std::vector<Duration> offsets;
  std::vector<int64_t> drifts;
  std::vector<std::pair<std::string, int64_t>> redis_drifts;  // by node name: the deployment is known at the end
};

bool parse_spikes(Parser& p, std::string_view word, std::string_view value, sim::LatencyDist& latency) {
  auto parts = split(value, ':');
  if (parts.size() != 4) return p.fail(word, "expected P:SCALE:ALPHA:CAP, as 0.05:20ms:1.5:500ms");
  if (!(p.number(word, parts[0], latency.spike_probability) && p.duration(word, parts[1], latency.spike_scale) &&
        p.number(word, parts[2], latency.spike_alpha) && p.duration(word, parts[3], latency.spike_cap)))
    return false;
  // Written so that NaN fails too.
  if (!(latency.spike_probability >= 0 && latency.spike_probability <= 1)) return p.fail(word, "P must be in [0, 1]");
  if (!(latency.spike_alpha > 1 && latency.spike_alpha < 1e6)) return p.fail(word, "ALPHA must be above 1");
  return true;
}

bool parse_clock(Parser& p, std::string_view word, std::string_view value, ParseState& st) {
  auto parts = split(value, ':');
  uint32_t c = 0;
  Duration offset;
  int64_t drift = 0;
  if (parts.size() != 3) return p.fail(word, "expected A:+OFFSET:PPM, as B:+2s:0");
  if (!(p.client(word, parts[0], c) && p.duration(word, parts[1], offset, true) && p.number(word, parts[2], drift)))
    return false;
  if (drift <= -1'000'000 || drift > 1'000'000) return p.fail(word, "PPM must be in (-1000000, 1000000]");
  if (c >= 26) return p.fail(word, "at most 26 clients");
  if (st.offsets.size() <= c) {
    st.offsets.resize(c + 1);
    st.drifts.resize(c + 1);
  }
  st.offsets[c] = offset;
  st.drifts[c] = drift;
  return true;
}

bool parse_call(Parser& p, std::string_view word, std::string_view value, lock::WorkloadParams& w) {
  auto parts = split(value, ':');
  lock::CallFault cf;
  // "writeN": the client's Nth write to the resource, counted apart from its commands.
  std::string_view number = parts.size() >= 2 ? parts[1] : std::string_view{};
  if (number.starts_with("write")) {
    cf.on = lock::CallFault::On::Write;
    number.remove_prefix(5);
  }
  bool ok = parts.size() >= 3 && p.client(word, parts[0], cf.client) && p.number(word, number, cf.call);
  if (ok && cf.call == 0)
    return p.fail(word, cf.on == lock::CallFault::On::Write ? "writes are counted from 1" : "commands are counted from 1");
  if (ok && cf.on == lock::CallFault::On::Write && parts[2] != "delay")
    return p.fail(word, "a write to the resource takes only a delay: A:writeN:delay:DURATION");
  if (ok && parts[2] == "crash" && parts.size() == 3) {
    cf.kind = lock::CallFault::Kind::Crash;
  } else if (ok && parts[2] == "request-lost" && parts.size() == 3) {
    cf.kind = lock::CallFault::Kind::RequestLost;
  } else if (ok && parts[2] == "reply-lost" && parts.size() == 3) {
    cf.kind = lock::CallFault::Kind::ReplyLost;
  } else if (ok && parts[2] == "pause" && parts.size() == 4) {
    cf.kind = lock::CallFault::Kind::Pause;
    ok = p.duration(word, parts[3], cf.pause);
  } else if (ok && parts[2] == "delay" && parts.size() == 4) {
    cf.kind = lock::CallFault::Kind::Delay;
    ok = p.duration(word, parts[3], cf.pause);
    if (ok && cf.pause.ns <= 0) ok = p.fail(word, "a delay must be longer than 0");
  } else if (ok || parts.size() < 3) {
    ok = p.fail(word, "expected A:N:crash, A:N:pause:DURATION, A:N:request-lost, A:N:reply-lost, A:N:delay:DURATION "
                      "or A:writeN:delay:DURATION");
  }
  if (ok) w.call_faults.push_back(cf);
  return ok;
}

bool parse_ids(Parser& p, std::string_view word, std::string_view value, lock::WorkloadParams& w) {
  w.identities.clear();
  for (std::string_view part : split(value, ',')) {
    uint32_t id = 0;
    if (!p.number(word, part, id)) return false;
    if (std::find(w.identities.begin(), w.identities.end(), id) != w.identities.end())
      return p.fail(word, fmt::format("identity {} appears twice", id));
    w.identities.push_back(id);
  }
  return true;
}

// The words that take a list element each time (clock=, redis-drift=, slow=, call=) may repeat.
bool parse_list_word(Parser& p, std::string_view word, std::string_view name, std::string_view value, ParseState& st,
                     bool& known) {
  known = true;
  lock::WorkloadParams& w = st.s.workload;
  if (name == "clock") return parse_clock(p, word, value, st);
  if (name == "redis-drift") {
    auto parts = split(value, ':');
    int64_t ppm = 0;
    if (parts.size() != 2) return p.fail(word, "expected NODE:PPM, as redis:+50000");
    if (!p.number(word, parts[1].starts_with('+') ? parts[1].substr(1) : parts[1], ppm)) return false;
    if (ppm <= -1'000'000 || ppm > 1'000'000) return p.fail(word, "PPM must be in (-1000000, 1000000]");
    st.redis_drifts.emplace_back(std::string(parts[0]), ppm);
    return true;
  }
  if (name == "call") return parse_call(p, word, value, w);
  if (name == "slow") {
    auto parts = split(value, ':');
    lock::SlowWork sw;
    bool ok = parts.size() == 3 ? p.client(word, parts[0], sw.client) && p.number(word, parts[1], sw.iteration) &&
                                      p.duration(word, parts[2], sw.work)
                                : p.fail(word, "expected A:ITERATION:WORK, as A:0:1500ms");
    if (ok) w.slow_work.push_back(sw);
    return ok;
  }
  known = false;
  return true;
}

bool parse_run_word(Parser& p, std::string_view word, std::string_view name, std::string_view value, Scenario& s,
                    bool& known) {
  known = true;
  lock::WorkloadParams& w = s.workload;
  if (name == "seed") return p.number(word, value, s.seed);
  if (name == "clients") return p.number(word, value, w.clients);
  if (name == "iterations") return p.number(word, value, w.iterations);
  if (name == "work") return p.range(word, value, w.work_min, w.work_max);
  if (name == "think") return p.range(word, value, w.think_min, w.think_max);
  if (name == "spread") return p.duration(word, value, w.start_spread);
  if (name == "nested") return p.number(word, value, w.nested);
  if (name == "write") return p.flag(word, value, w.write_resource);
  if (name == "stop-when-lost") return p.flag(word, value, w.stop_when_lost);
  if (name == "horizon") return p.duration(word, value, s.horizon);
  if (name == "persistent") return p.flag(word, value, s.persistent_redis);
  if (name == "masters") return p.number(word, value, s.masters);
  if (name == "replica") return p.flag(word, value, s.replica);
  if (name == "lag") return p.duration(word, value, s.replication_lag);
  if (name == "failover") return p.duration(word, value, s.failover_after);
  if (name == "ids") return parse_ids(p, word, value, w);
  if (name == "spikes") return parse_spikes(p, word, value, s.latency);
  if (name == "latency") {
    size_t plus = value.find('+');
    if (plus == std::string_view::npos) return p.fail(word, "expected BASE+JITTER, as 500us+1ms");
    return p.duration(word, value.substr(0, plus), s.latency.base) &&
           p.duration(word, value.substr(plus + 1), s.latency.jitter);
  }
  if (name == "faults") {
    if (value.size() < 2 || value.front() != '[' || value.back() != ']') return p.fail(word, "expected faults=[...]");
    std::string why;
    auto plan = sim::parse_fault_plan(value.substr(1, value.size() - 2), &why);
    return plan ? (s.faults = *plan, true) : p.fail(word, why);
  }
  known = false;
  return true;
}

bool parse_word(Parser& p, std::string_view word, ParseState& st, std::vector<std::string_view>& seen) {
  size_t eq = word.find('=');
  if (eq == std::string_view::npos) return p.fail(word, "expected name=value");
  std::string_view name = word.substr(0, eq), value = word.substr(eq + 1);
  bool known = false;
  const bool ok = parse_list_word(p, word, name, value, st, known);
  if (known) return ok;
  if (std::find(seen.begin(), seen.end(), name) != seen.end())
    return p.fail(word, fmt::format("'{}' is given twice", name));
  seen.push_back(name);
  if (!parse_run_word(p, word, name, value, st.s, known)) return false;
  if (known) return true;
  if (const lock::ParamInfo* param = lock::find_lock_param(name)) {
    auto why = param->set(st.s.lock, lock::decode_param_value(value));
    return !why || p.fail(word, *why);
  }
  return p.fail(word, fmt::format("unknown setting '{}'", name));
}

// Per-client settings must name clients the run has, faults nodes it has.
std::optional<std::string> check_names(const Scenario& s) {
  const lock::WorkloadParams& w = s.workload;
  auto beyond = [&](uint32_t c, std::string_view what) {
    return fmt::format("{} names client {} but the scenario has {} clients", what, lock::client_name(c), w.clients);
  };
  if (w.clock_offsets.size() > w.clients) return beyond(static_cast<uint32_t>(w.clock_offsets.size() - 1), "clock=");
  if (!w.identities.empty() && w.identities.size() != w.clients)
    return fmt::format("ids= lists {} identities for {} clients", w.identities.size(), w.clients);
  for (const auto& sw : w.slow_work)
    if (sw.client >= w.clients) return beyond(sw.client, "slow=");
  for (const auto& cf : w.call_faults)
    if (cf.client >= w.clients) return beyond(cf.client, "call=");
  if (s.replica && s.masters != 1) return "replica=1 goes with a single master";
  const std::vector<std::string> servers = lock::redis_node_names(s);
  for (const auto& f : s.faults.faults) {
    for (const std::string* n : {&f.node, &f.peer}) {
      if ((n == &f.peer && (n->empty() || *n == "*")) || *n == "store" ||
          std::find(servers.begin(), servers.end(), *n) != servers.end())
        continue;
      auto c = client_index(*n);
      if (!c || *c >= w.clients)
        return fmt::format("fault '{}' names node '{}', which this scenario does not have", sim::to_string(f), *n);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Scenario> parse_scenario(std::string_view text, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<Scenario> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  std::vector<std::string_view> words;
  if (!split_words(text, words)) return fail("unbalanced '[' in faults=[...]");
  if (words.empty()) return fail("empty scenario: it starts with the algorithm's id");
  if (!lock::find_algorithm(words[0]))
    return fail(fmt::format("unknown algorithm '{}' (see 'locksim list')", (words[0])));
  Parser p(error);
  ParseState st;
  st.s.algorithm = std::string(words[0]);
  std::vector<std::string_view> seen;
  for (size_t i = 1; i < words.size(); ++i)
    if (!parse_word(p, words[i], st, seen)) return std::nullopt;
  st.s.workload.clock_offsets = st.offsets;
  st.s.workload.drifts_ppm = st.drifts;
  // Limits first: naming the servers of masters=30000000 would itself run away.
  if (auto why = check_limits(st.s, false)) return fail(*why);
  const std::vector<std::string> servers = lock::redis_node_names(st.s);
  for (const auto& [node, ppm] : st.redis_drifts) {
    const auto at = std::find(servers.begin(), servers.end(), node);
    if (at == servers.end())
      return fail(fmt::format("redis-drift= names node '{}', which this scenario does not have", node));
    const auto index = static_cast<size_t>(at - servers.begin());
    if (st.s.redis_drifts_ppm.size() <= index) st.s.redis_drifts_ppm.resize(index + 1);
    st.s.redis_drifts_ppm[index] = ppm;
  }
  if (auto why = check_names(st.s)) return fail(*why);
  normalize(st.s);
  return st.s;
}

}  // namespace locksim::props
