#include "locksim/trial/runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <thread>

#include "locksim/real/sync_client.hpp"
#include "locksim/server/server.hpp"
#include "locksim/trial/client_process.hpp"

namespace locksim::trial {

namespace {

using Clock = std::chrono::steady_clock;

// The run's directory of client logs, removed at the end.
struct LogDir {
  std::string path;
  LogDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "locksim-trial-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw CannotStart("cannot create a temporary directory");
    path = pattern;
    set_cleanup_directory(path);  // Ctrl-C removes it too
  }
  ~LogDir() {
    set_cleanup_directory("");
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

std::string tail_of(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> last;
  for (std::string line; std::getline(in, line);) {
    if (line.size() > 300) line = line.substr(0, 300) + "...";
    last.push_back(std::move(line));
    if (last.size() > lines) last.erase(last.begin());
  }
  std::string out;
  for (const auto& l : last) out += l + "\n";
  return out;
}

// A server of the trial, with a control connection for LOCKSIM.FAULT (reopened after a restart).
struct TrialServer {
  std::unique_ptr<server::Server> server;
  std::optional<real::SyncClient> control;

  void command(const redis::Command& argv) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      try {
        if (!control) control.emplace(real::SyncClient::loopback(server->port()));
        control->execute(argv);
        return;
      } catch (const std::runtime_error&) {
        control.reset();  // closed by a restart: once more on a new connection
      }
    }
  }
};

struct Event {
  Duration at;
  size_t fault;  // index in the schedule
  bool start;
};

// The longest the clients may take to enter their first critical section before the
// run's time starts anyway.
constexpr auto kReadyWait = std::chrono::seconds(10);

class Run {
 public:
  Run(const Schedule& schedule, const RunSetup& setup) : schedule_(schedule), setup_(setup) {}

  RunRecord go() {
    record_.schedule = schedule_;
    start_servers();
    for (uint32_t c = 0; c < schedule_.clients; ++c) record_.clients.push_back(fmt::format("c{}", c + 1));
    record_.ends.resize(schedule_.clients);
    for (uint32_t c = 0; c < schedule_.clients; ++c) record_.ends[c].name = record_.clients[c];
    build_events();
    t0_ = Clock::now();
    board_t0_ns_ = server::TrialBoard::now_ns();
    start_clients();
    settle();
    loop();
    record_.end = since_start();
    for (auto& client : clients_) client->end(setup_.grace);
    for (uint32_t c = 0; c < clients_.size(); ++c)
      if (record_.ends[c].how.empty()) record_.ends[c].how = "ended by the trial";
    for (auto& s : servers_) s.server->stop();
    // What clients did while being ended is not part of the run, but for an EXIT: it ends
    // a critical section the run saw begin.
    for (const server::TrialMark& m : board_->marks()) {
      const Instant at{std::max<int64_t>(0, m.at_ns - board_t0_ns_)};
      if (at <= record_.end || m.kind == server::TrialMark::Kind::Exit) record_.marks.push_back({m, at});
    }
    std::stable_sort(record_.marks.begin(), record_.marks.end(),
                     [](const RecordedMark& a, const RecordedMark& b) { return a.at < b.at; });
    return std::move(record_);
  }

 private:
  Instant since_start() const {
    return Instant{std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count()};
  }

  void start_servers() {
    board_ = std::make_shared<server::TrialBoard>();
    for (uint32_t s = 0; s < schedule_.servers; ++s) {
      server::Options o;
      o.port = 0;
      o.trial = board_;
      o.log = [](std::string_view) {};
      TrialServer ts;
      ts.server = std::make_unique<server::Server>(std::move(o));
      ts.server->start();
      servers_.push_back(std::move(ts));
    }
  }

  std::vector<std::pair<std::string, std::string>> environment(uint32_t c) const {
    std::string urls;
    for (const auto& s : servers_) urls += (urls.empty() ? "" : ",") + fmt::format("redis://127.0.0.1:{}", s.server->port());
    std::vector<std::pair<std::string, std::string>> env = {
        {"LOCKSIM_CLIENT", record_.clients[c]},
        {"LOCKSIM_REDIS", urls},
        {"LOCKSIM_CLIENTS", std::to_string(schedule_.clients)},
        {"LOCKSIM_DURATION_MS", std::to_string(schedule_.duration.ms())}};
    if (has_clock_faults(c)) {
      const std::string lib = find_libfaketime();
      if (lib.empty())
        throw std::invalid_argument("clock skew and jumps need libfaketime (Debian: faketime); leave skew and clock "
                                    "out of --faults");
      const char* preload = std::getenv("LD_PRELOAD");
      env.push_back({"LD_PRELOAD", preload && *preload ? lib + ":" + preload : lib});
      // The offset is read from a file at every clock reading, so that a jump takes effect at
      // once. Both the wall and the monotonic clock move by it: with the monotonic one left
      // alone, libfaketime 0.9.10 fails an absolute clock_nanosleep on it (EINVAL; Python's sleep).
      env.push_back({"FAKETIME_TIMESTAMP_FILE", clock_file(c)});
      env.push_back({"FAKETIME_NO_CACHE", "1"});
    }
    return env;
  }

  bool has_clock_faults(uint32_t c) const {
    for (const Fault& f : schedule_.faults)
      if ((f.kind == FaultKind::Skew || f.kind == FaultKind::Clock) && f.client == c) return true;
    return false;
  }

  std::string clock_file(uint32_t c) const { return fmt::format("{}/{}.faketime", dir_.path, record_.clients[c]); }

  // The client's clock offset, as libfaketime reads it ("+1.250"), written whole and renamed.
  void set_clock_offset(uint32_t c, Duration offset) {
    clock_offsets_[c] = offset;
    const std::string path = clock_file(c), partial = path + ".partial";
    {
      std::ofstream out(partial, std::ios::trunc);
      out << fmt::format("{:+.3f}\n", static_cast<double>(offset.ms()) / 1000.0);
    }
    std::rename(partial.c_str(), path.c_str());
  }

  void start_clients() {
    for (uint32_t c = 0; c < schedule_.clients; ++c) {
      if (has_clock_faults(c)) {
        Duration skew{};
        for (const Fault& f : schedule_.faults)
          if (f.kind == FaultKind::Skew && f.client == c) skew += f.amount;
        set_clock_offset(c, skew);
      }
      clients_.push_back(std::make_unique<ClientProcess>(setup_.command, environment(c),
                                                         fmt::format("{}/{}.log", dir_.path, record_.clients[c])));
      // Skew is in force from the start.
      for (const Fault& f : schedule_.faults)
        if (f.kind == FaultKind::Skew && f.client == c) record_.faults.push_back({f, Instant{}, Instant::never()});
    }
  }

  void build_events() {
    for (size_t i = 0; i < schedule_.faults.size(); ++i) {
      const Fault& f = schedule_.faults[i];
      if (f.kind == FaultKind::Skew) continue;
      events_.push_back({f.at, i, true});
      if (f.kind == FaultKind::Pause) events_.push_back({f.at + f.length, i, false});
    }
    std::stable_sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) { return a.at < b.at; });
  }

  std::vector<TrialServer*> targets(const Fault& f) {
    std::vector<TrialServer*> out;
    for (uint32_t s = 0; s < servers_.size(); ++s)
      if (f.server == kAllServers || f.server == s) out.push_back(&servers_[s]);
    return out;
  }

  void apply(const Event& e) {
    const Fault& f = schedule_.faults[e.fault];
    const Instant now = since_start();
    const std::string name = record_.clients[std::min<size_t>(f.client, record_.clients.size() - 1)];
    const std::string length = std::to_string(std::max<int64_t>(1, f.length.ms()));
    switch (f.kind) {
      case FaultKind::Pause:
        // Pauses of one client may overlap: it continues when the last of them ends.
        if (e.start) {
          if (pauses_[f.client]++ == 0) clients_[f.client]->stop();
          paused_at_[e.fault] = record_.faults.size();
          record_.faults.push_back({f, now, now});
        } else {
          if (--pauses_[f.client] == 0) clients_[f.client]->cont();
          record_.faults[paused_at_[e.fault]].to = now;
        }
        return;
      case FaultKind::Cut:
        for (TrialServer* s : targets(f)) s->command({"LOCKSIM.FAULT", "ADD", "DROP-REQUEST", "NAME", name, "FOR", length});
        break;
      case FaultKind::Delay:
        for (TrialServer* s : targets(f))
          s->command({"LOCKSIM.FAULT", "ADD", "DELAY", std::to_string(f.amount.ms()), "NAME", name, "FOR", length});
        break;
      case FaultKind::Lose:
        for (TrialServer* s : targets(f))
          s->command({"LOCKSIM.FAULT", "ADD", "DROP-REPLY", "NAME", name, "COUNT", "1", "FOR", length});
        break;
      case FaultKind::Restart:
        for (TrialServer* s : targets(f)) s->server->restart();
        break;
      case FaultKind::Jump:
        for (TrialServer* s : targets(f)) {
          try {
            s->server->jump(f.amount.ms());
          } catch (const std::out_of_range&) {  // the clock would leave 1970..2262: not applied
            return;
          }
        }
        break;
      case FaultKind::Clock:
        set_clock_offset(f.client, clock_offsets_[f.client] + f.amount);
        break;
      case FaultKind::Skew: return;
    }
    record_.faults.push_back({f, now, now + f.length});
  }

  // Notes the clients that ended by themselves; true when none runs any more.
  bool poll_clients() {
    bool all_ended = true;
    for (uint32_t c = 0; c < clients_.size(); ++c) {
      if (!clients_[c]->ended() && clients_[c]->poll()) {
        ClientEnd& ended = record_.ends[c];
        ended.at = since_start();
        ended.how = clients_[c]->how_it_ended();
        ended.log_tail = tail_of(fmt::format("{}/{}.log", dir_.path, record_.clients[c]), 8);
      }
      all_ended = all_ended && clients_[c]->ended();
    }
    return all_ended;
  }

  // The run's time starts at the first critical section entered: the clients' start-up
  // (an interpreter loading its libraries) is not part of it, so that an early fault does
  // not strike a client that has not begun. If none enters within kReadyWait, it starts then.
  void settle() {
    const auto deadline = Clock::now() + kReadyWait;
    while (board_->size() == 0 && Clock::now() < deadline && !poll_clients())
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    int64_t first = server::TrialBoard::now_ns();
    for (const server::TrialMark& m : board_->marks()) first = std::min(first, m.at_ns);
    const Duration shift{first - board_t0_ns_};
    t0_ += std::chrono::nanoseconds(shift.ns);
    board_t0_ns_ = first;
    for (ClientEnd& e : record_.ends)
      if (e.at != Instant::never()) e.at = Instant{std::max<int64_t>(0, (e.at - shift).ns)};
  }

  void loop() {
    const auto end = t0_ + std::chrono::nanoseconds(schedule_.duration.ns);
    size_t next = 0;
    for (;;) {
      const auto now = Clock::now();
      while (next < events_.size() && t0_ + std::chrono::nanoseconds(events_[next].at.ns) <= now) apply(events_[next++]);
      const bool all_ended = poll_clients();
      if (now >= end || all_ended) break;
      if (setup_.progress) setup_.progress(since_start() - Instant{}, board_->size(), record_.faults.size());
      auto wake = std::min(end, now + std::chrono::milliseconds(100));
      if (next < events_.size()) wake = std::min(wake, t0_ + std::chrono::nanoseconds(events_[next].at.ns));
      std::this_thread::sleep_until(wake);
    }
    // Pauses still in force end with the run.
    for (; next < events_.size(); ++next)
      if (!events_[next].start) apply(events_[next]);
  }

  const Schedule& schedule_;
  const RunSetup& setup_;
  LogDir dir_;
  std::shared_ptr<server::TrialBoard> board_;
  std::vector<TrialServer> servers_;
  std::vector<std::unique_ptr<ClientProcess>> clients_;
  std::vector<Event> events_;
  std::map<size_t, size_t> paused_at_;  // schedule index -> record_.faults index
  std::map<uint32_t, int> pauses_;       // client -> pauses in force
  std::map<uint32_t, Duration> clock_offsets_;  // client -> its clock's offset now
  Clock::time_point t0_;
  int64_t board_t0_ns_ = 0;
  RunRecord record_;
};

}  // namespace

std::string find_libfaketime() {
  for (const char* dir : {"/usr/lib/x86_64-linux-gnu/faketime", "/usr/lib/aarch64-linux-gnu/faketime",
                          "/usr/lib/faketime", "/usr/local/lib/faketime"}) {
    const std::string path = std::string(dir) + "/libfaketime.so.1";
    if (::access(path.c_str(), R_OK) == 0) return path;
  }
  return {};
}

RunRecord run_trial(const Schedule& schedule, const RunSetup& setup) {
  install_trial_cleanup();
  Run run(schedule, setup);
  return run.go();
}

}  // namespace locksim::trial
