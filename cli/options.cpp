#include "locksim/cli/options.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>

#include "locksim/cli/program_name.hpp"
#include "locksim/props/limits.hpp"
#include "locksim/props/scenario.hpp"
#include "locksim/render/text.hpp"

namespace locksim::cli {

bool OutputOptions::use_colour() const {
  if (colour == "always") return true;
  if (colour == "never") return false;
  return render::colour_wanted(1);
}

void check_algorithm(const std::string& id) {
  if (lock::find_algorithm(id)) return;
  std::string known;
  for (const auto& a : lock::algorithms()) known += (known.empty() ? "" : ", ") + std::string(a.id);
  throw UsageError(fmt::format("unknown algorithm '{}' (known: {})", id, known));
}

uint32_t parse_client(const std::string& text, uint32_t clients, const std::string& what) {
  uint32_t index = clients;
  if (text.size() == 1 && text[0] >= 'A' && text[0] <= 'Z') {
    index = static_cast<uint32_t>(text[0] - 'A');
  } else if (text.size() > 1 && text[0] == 'C') {
    auto r = std::from_chars(text.data() + 1, text.data() + text.size(), index);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size()) index = clients;
  } else {
    throw UsageError(fmt::format("{}: '{}' is not a client name (A, B, C, ...)", what, text));
  }
  if (index >= clients)
    throw UsageError(fmt::format("{}: there is no client '{}' in a run with {} client{}", what, text, clients,
                                 clients == 1 ? "" : "s"));
  return index;
}

sim::Duration parse_duration_arg(const std::string& text, const std::string& what) {
  sim::Duration d;
  std::string error;
  if (!sim::parse_duration(text, d, &error)) throw UsageError(fmt::format("{}: {}", what, error));
  return d;
}

CLI::Validator seed_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t seed = 0;
        auto r = std::from_chars(text.data(), text.data() + text.size(), seed);
        if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
          return "expected a whole number from 0 to 18446744073709551615";
        return {};
      },
      "SEED");
}

CLI::Validator non_empty_validator(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) -> std::string {
        if (text.find_first_not_of(" \t\r\n;,") == std::string::npos)
          return fmt::format("an empty {}: leave the option out instead", what);
        return {};
      },
      what);
}

namespace {

// A path as one shell word: as is when plain, else in single quotes.
std::string shell_word(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-+") ==
                           std::string::npos)
    return text;
  // Control characters would be mangled on the terminal (or run): ANSI-C quoting
  // (bash, zsh, ksh) writes them as \xNN.
  const bool controls = std::any_of(text.begin(), text.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c < 0x20 || c == 0x7f;
  });
  if (controls) {
    std::string out = "$'";
    for (char ch : text) {
      const auto c = static_cast<unsigned char>(ch);
      if (c < 0x20 || c == 0x7f)
        out += fmt::format("\\x{:02x}", c);
      else if (ch == '\\' || ch == '\'')
        out += std::string("\\") + ch;
      else
        out += ch;
    }
    return out + "'";
  }
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  for (;;) {
    size_t next = s.find(sep, pos);
    out.push_back(s.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
    if (next == std::string::npos) break;
    pos = next + 1;
  }
  return out;
}

uint32_t parse_count(const std::string& text, const std::string& what) {
  uint32_t v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
    throw UsageError(fmt::format("{}: '{}' is not a non-negative whole number", what, text));
  return v;
}

sim::Duration nonneg(const std::string& text, const std::string& what) {
  sim::Duration d = parse_duration_arg(text, what);
  if (d.ns < 0) throw UsageError(fmt::format("{}: must not be negative", what));
  return d;
}

}  // namespace

void add_scenario_options(CLI::App& app, ScenarioOptions& o, std::vector<std::string>& values) {
  // Ranges are checked by make_config against props/limits.hpp, as scenario words are.
  app.add_option("--seed", o.seed, "the run's seed: same seed, same run (default 1)")->check(seed_validator());
  app.add_option("--clients", o.clients, "how many clients compete for the lock (1-26, default 3)");
  app.add_option("--iterations", o.iterations, "critical sections each client attempts (1-1000, default 3)");
  app.add_option("--faults", o.faults,
                 "a fault PLAN (concrete faults at given times; check's --faults takes fault kinds), e.g. \"crash A "
                 "@1s; restart A @3s; pause B @2s for 1.5s; jump redis @4s by +2s; "
                 "cut A redis @3s for 2s\"")
      ->check(non_empty_validator("PLAN"));
  app.add_option("--slow-work", o.slow_work,
                 "CLIENT:ITERATION:DURATION, e.g. A:0:1500ms: that critical section's length")
      ->take_all();
  app.add_option("--call-fault", o.call_faults,
                 "CLIENT:N:crash or CLIENT:N:pause:DURATION: strike just before the client's Nth Redis command; "
                 "CLIENT:N:request-lost or CLIENT:N:reply-lost: lose that command's request or reply; "
                 "CLIENT:N:delay:DURATION or CLIENT:writeN:delay:DURATION: hold that command's request, or the "
                 "client's Nth write to the resource, that much longer in flight")
      ->take_all();
  app.add_option("--clock-offset", o.clock_offsets, "CLIENT:DURATION, e.g. B:+2s: the client's clock runs ahead")
      ->take_all();
  app.add_option("--drift", o.drifts, "CLIENT:PPM, e.g. B:500: the client's clock rate error")->take_all();
  app.add_option("--work-min", o.work_min, "shortest critical section (default 20ms)");
  app.add_option("--work-max", o.work_max, "longest critical section (default 200ms)");
  app.add_option("--think-min", o.think_min, "shortest pause between iterations (default 0ms)");
  app.add_option("--think-max", o.think_max, "longest pause between iterations (default 100ms)");
  app.add_option("--start-spread", o.start_spread, "clients start at a drawn instant in [0, this] (default 20ms)");
  app.add_option("--horizon", o.horizon, "stop the run here (default 120s)");
  app.add_option("--nested", o.nested, "re-acquire this many times inside the critical section (reentrancy, 0-10)");
  app.add_flag("--stop-when-lost", o.stop_when_lost,
               "cut the critical section short once the lock knows it may be lost");
  app.add_flag("--no-resource-writes", o.no_resource_writes,
               "no write to the fenced resource at the end of each section");
  app.add_flag("--persistent-redis", o.persistent_redis, "Redis keeps its keys across a restart");
  add_lock_param_options(app, values);
}

void add_lock_param_options(CLI::App& app, std::vector<std::string>& values) {
  const auto& table = lock::lock_param_table();
  values.assign(table.size(), std::string());
  static const lock::LockParams defaults;
  for (size_t i = 0; i < table.size(); ++i)
    app.add_option("--" + std::string(table[i].name), values[i],
                   fmt::format("lock: {} (default {})", table[i].help, table[i].get(defaults)))
        ->group("Lock parameters");
}

void add_output_options(CLI::App& app, OutputOptions& o, bool files) {
  app.add_option("--width", o.width, "columns of the terminal timeline (default 80)")
      ->check(CLI::Range(40, 400))
      ->group("Output");
  app.add_option("--colour,--color", o.colour, "auto (a terminal, NO_COLOR unset), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->group("Output");
  if (files) {
    app.add_option("--trace-json", o.trace_json, "write Chrome Trace Event JSON (open it in ui.perfetto.dev)")
        ->group("Output");
    app.add_option("--svg", o.svg, "write an SVG timeline")->group("Output");
    app.add_flag("--trace", o.raw_trace, "also print the simulator's trace, one event per line")->group("Output");
  }
}

void collect_lock_params(const CLI::App& app, ScenarioOptions& o, const std::vector<std::string>& values) {
  const auto& table = lock::lock_param_table();
  for (size_t i = 0; i < table.size(); ++i) {
    const CLI::Option* opt = app.get_option_no_throw("--" + std::string(table[i].name));
    if (opt && opt->count() > 0) o.lock_params[std::string(table[i].name)] = values[i];
  }
}

namespace {

lock::SlowWork parse_slow_work(const std::string& s, uint32_t clients) {
  auto parts = split(s, ':');
  if (parts.size() != 3)
    throw UsageError(fmt::format("--slow-work '{}': expected CLIENT:ITERATION:DURATION, e.g. A:0:1500ms", s));
  lock::SlowWork w;
  w.client = parse_client(parts[0], clients, "--slow-work");
  w.iteration = parse_count(parts[1], "--slow-work iteration");
  w.work = nonneg(parts[2], "--slow-work");
  return w;
}

lock::CallFault parse_call_fault(const std::string& s, uint32_t clients) {
  auto parts = split(s, ':');
  if (parts.size() < 3)
    throw UsageError(fmt::format(
        "--call-fault '{}': expected CLIENT:N:crash, CLIENT:N:pause:DURATION, CLIENT:N:request-lost, "
        "CLIENT:N:reply-lost, CLIENT:N:delay:DURATION or CLIENT:writeN:delay:DURATION",
        s));
  lock::CallFault f;
  f.client = parse_client(parts[0], clients, "--call-fault");
  if (parts[1].starts_with("write")) {  // writeN: the Nth write to the resource (a delay only)
    f.on = lock::CallFault::On::Write;
    parts[1] = parts[1].substr(5);
    if (parts[2] != "delay") throw UsageError("--call-fault: a write to the resource takes only a delay");
  }
  f.call = parse_count(parts[1], "--call-fault command number");
  if (f.call == 0) throw UsageError("--call-fault: commands and writes are numbered from 1");
  if (parts[2] == "crash" && parts.size() == 3) {
    f.kind = lock::CallFault::Kind::Crash;
  } else if (parts[2] == "request-lost" && parts.size() == 3) {
    f.kind = lock::CallFault::Kind::RequestLost;
  } else if (parts[2] == "reply-lost" && parts.size() == 3) {
    f.kind = lock::CallFault::Kind::ReplyLost;
  } else if (parts[2] == "pause" && parts.size() == 4) {
    f.kind = lock::CallFault::Kind::Pause;
    f.pause = nonneg(parts[3], "--call-fault pause");
  } else if (parts[2] == "delay" && parts.size() == 4) {
    f.kind = lock::CallFault::Kind::Delay;
    f.pause = nonneg(parts[3], "--call-fault delay");
    if (f.pause.ns <= 0) throw UsageError("--call-fault: a delay must be longer than 0");
  } else {
    throw UsageError(fmt::format(
        "--call-fault '{}': expected CLIENT:N:crash, CLIENT:N:pause:DURATION, CLIENT:N:request-lost, "
        "CLIENT:N:reply-lost, CLIENT:N:delay:DURATION or CLIENT:writeN:delay:DURATION",
        s));
  }
  return f;
}

// --clock-offset CLIENT:DURATION and --drift CLIENT:PPM.
void set_client_clocks(const ScenarioOptions& o, lock::WorkloadParams& w) {
  for (const auto& s : o.clock_offsets) {
    auto parts = split(s, ':');
    if (parts.size() != 2)
      throw UsageError(fmt::format("--clock-offset '{}': expected CLIENT:DURATION, e.g. B:+2s", s));
    uint32_t client = parse_client(parts[0], o.clients, "--clock-offset");
    w.clock_offsets.resize(std::max<size_t>(w.clock_offsets.size(), client + 1));
    w.clock_offsets[client] = parse_duration_arg(parts[1], "--clock-offset");
  }
  for (const auto& s : o.drifts) {
    auto parts = split(s, ':');
    if (parts.size() != 2) throw UsageError(fmt::format("--drift '{}': expected CLIENT:PPM, e.g. B:500", s));
    uint32_t client = parse_client(parts[0], o.clients, "--drift");
    int64_t ppm = 0;
    const std::string& v = parts[1];
    const char* begin = v.data() + (!v.empty() && v[0] == '+' ? 1 : 0);
    auto r = std::from_chars(begin, v.data() + v.size(), ppm);
    if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size())
      throw UsageError(fmt::format("--drift '{}': the rate error must be a whole number of ppm", s));
    w.drifts_ppm.resize(std::max<size_t>(w.drifts_ppm.size(), client + 1));
    w.drifts_ppm[client] = ppm;
  }
}

// --work-min/max, --think-min/max, --start-spread, --horizon.
void set_timings(const ScenarioOptions& o, lock::SimulationConfig& c) {
  if (!o.work_min.empty()) c.workload.work_min = nonneg(o.work_min, "--work-min");
  if (!o.work_max.empty()) c.workload.work_max = nonneg(o.work_max, "--work-max");
  if (!o.think_min.empty()) c.workload.think_min = nonneg(o.think_min, "--think-min");
  if (!o.think_max.empty()) c.workload.think_max = nonneg(o.think_max, "--think-max");
  if (!o.start_spread.empty()) c.workload.start_spread = nonneg(o.start_spread, "--start-spread");
  if (c.workload.work_min > c.workload.work_max) throw UsageError("--work-min: must not exceed --work-max");
  if (c.workload.think_min > c.workload.think_max) throw UsageError("--think-min: must not exceed --think-max");
  if (!o.horizon.empty()) {
    c.horizon = nonneg(o.horizon, "--horizon");
    if (c.horizon.ns == 0) throw UsageError("--horizon: must be positive");
  }
}

}  // namespace

lock::SimulationConfig make_config(const ScenarioOptions& o) {
  check_algorithm(o.algorithm);
  lock::SimulationConfig c;
  c.algorithm = o.algorithm;
  c.lock = lock::find_algorithm(o.algorithm)->defaults;  // a variant's own defaults; flags override them
  if (const uint32_t m = lock::find_algorithm(o.algorithm)->masters) c.masters = m;  // its declared deployment
  if (lock::find_algorithm(o.algorithm)->replica) c.replica = true;
  c.seed = o.seed;
  // Before client names are read against it.
  if (auto why = props::check_limit("clients", o.clients, true)) throw UsageError(*why);
  c.workload.clients = o.clients;
  c.workload.iterations = o.iterations;
  for (const auto& [name, value] : o.lock_params) {
    const lock::ParamInfo* info = lock::find_lock_param(name);
    if (!info) throw UsageError(fmt::format("unknown lock parameter '{}'", name));
    if (auto error = info->set(c.lock, value)) throw UsageError(fmt::format("--{}: {}", name, *error));
  }
  if (!o.faults.empty()) {
    std::string error;
    auto plan = sim::parse_fault_plan(o.faults, &error);
    if (!plan) throw UsageError("--faults: " + error);
    c.faults = *plan;
  }
  for (const auto& s : o.slow_work) c.workload.slow_work.push_back(parse_slow_work(s, o.clients));
  for (const auto& s : o.call_faults) c.workload.call_faults.push_back(parse_call_fault(s, o.clients));
  set_client_clocks(o, c.workload);
  set_timings(o, c);
  c.workload.nested = o.nested;
  c.workload.stop_when_lost = o.stop_when_lost;
  c.workload.write_resource = !o.no_resource_writes;
  c.persistent_redis = o.persistent_redis;
  if (auto why = props::check_limits(c, true)) throw UsageError(*why);
  return c;
}

std::string run_command(const lock::SimulationConfig& c) {
  static const lock::SimulationConfig d;
  // A Lua variant runs again only with its file loaded, from its own defaults.
  const lock::Algorithm* algorithm = lock::find_algorithm(c.algorithm);
  const bool variant = algorithm && algorithm->failures == "user variant";
  std::string s = fmt::format("{} run {}{} --seed {}", program_name(),
                              variant ? "--variant " + shell_word(std::string(algorithm->documents)) + " " : "",
                              c.algorithm, c.seed);
  const auto& w = c.workload;
  if (w.clients != d.workload.clients) s += fmt::format(" --clients {}", w.clients);
  if (w.iterations != d.workload.iterations) s += fmt::format(" --iterations {}", w.iterations);
  const lock::LockParams defaults = algorithm ? algorithm->defaults : lock::LockParams{};
  for (const auto& p : lock::lock_param_table())
    if (p.get(c.lock) != p.get(defaults)) s += fmt::format(" --{} {}", p.name, shell_word(p.get(c.lock)));
  if (!c.faults.empty()) s += fmt::format(" --faults \"{}\"", sim::to_string(c.faults));
  for (const auto& x : w.slow_work)
    s += fmt::format(" --slow-work {}:{}:{}", lock::client_name(x.client), x.iteration, sim::format_duration(x.work));
  for (const auto& f : w.call_faults)
    s += " --call-fault " + props::to_string(f).substr(std::string_view("call=").size());
  for (size_t i = 0; i < w.clock_offsets.size(); ++i)
    if (w.clock_offsets[i].ns != 0)
      s += fmt::format(" --clock-offset {}:{}{}", lock::client_name(static_cast<uint32_t>(i)),
                       w.clock_offsets[i].ns > 0 ? "+" : "", sim::format_duration(w.clock_offsets[i]));
  for (size_t i = 0; i < w.drifts_ppm.size(); ++i)
    if (w.drifts_ppm[i] != 0)
      s += fmt::format(" --drift {}:{}", lock::client_name(static_cast<uint32_t>(i)), w.drifts_ppm[i]);
  if (w.work_min != d.workload.work_min) s += " --work-min " + sim::format_duration(w.work_min);
  if (w.work_max != d.workload.work_max) s += " --work-max " + sim::format_duration(w.work_max);
  if (w.think_min != d.workload.think_min) s += " --think-min " + sim::format_duration(w.think_min);
  if (w.think_max != d.workload.think_max) s += " --think-max " + sim::format_duration(w.think_max);
  if (w.start_spread != d.workload.start_spread) s += " --start-spread " + sim::format_duration(w.start_spread);
  if (c.horizon != d.horizon) s += " --horizon " + sim::format_duration(c.horizon);
  if (w.nested) s += fmt::format(" --nested {}", w.nested);
  if (w.stop_when_lost) s += " --stop-when-lost";
  if (!w.write_resource) s += " --no-resource-writes";
  if (c.persistent_redis) s += " --persistent-redis";
  return s;
}

}  // namespace locksim::cli
