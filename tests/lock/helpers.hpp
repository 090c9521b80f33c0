#pragma once
// Small helpers shared by the lock tests: run a configured simulation, read
// critical sections out of its History, find overlaps, collect the commands a
// client sent.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "locksim/lock/history.hpp"
#include "locksim/lock/simulation.hpp"

namespace locktest {

using namespace locksim;
using namespace locksim::lock;
using namespace locksim::sim::literals;

inline sim::Instant at(sim::Duration d) { return sim::Instant{} + d; }

// Runs a simulation to its end and hands it back for inspection.
inline std::unique_ptr<Simulation> run(const SimulationConfig& config) {
  auto s = std::make_unique<Simulation>(config);
  s->run();
  return s;
}

// One critical section of one client, in true time: from Enter to Leave, or to
// the client's crash; still open at the end of the history: to "forever".
struct Section {
  uint32_t client = kNoClient;
  int64_t from = 0, to = std::numeric_limits<int64_t>::max();  // ns of true time
  bool contains(int64_t t) const { return from <= t && t < to; }
};

inline std::vector<Section> sections(const History& h) {
  std::vector<Section> out;
  std::vector<std::optional<size_t>> open(h.clients().size());
  for (const HistoryEvent& e : h.events()) {
    if (e.client == kNoClient || e.client >= open.size()) continue;
    auto& o = open[e.client];
    if (e.step == Step::Enter && !o) {
      out.push_back(Section{e.client, e.at.ns});
      o = out.size() - 1;
    } else if ((e.step == Step::Leave || e.step == Step::Crashed) && o) {
      out[*o].to = e.at.ns;
      o.reset();
    }
  }
  return out;
}

struct Overlap {
  Section first, second;  // first entered no later than second
};

// Every pair of critical sections of different clients that share an instant of true time.
inline std::vector<Overlap> overlaps(const History& h) {
  std::vector<Overlap> out;
  auto s = sections(h);
  for (size_t i = 0; i < s.size(); ++i)
    for (size_t j = i + 1; j < s.size(); ++j) {
      if (s[i].client == s[j].client) continue;
      if (s[i].from < s[j].to && s[j].from < s[i].to) {
        if (s[i].from <= s[j].from)
          out.push_back({s[i], s[j]});
        else
          out.push_back({s[j], s[i]});
      }
    }
  return out;
}

inline std::vector<HistoryEvent> steps(const History& h, Step step, uint32_t client = kNoClient) {
  std::vector<HistoryEvent> out;
  for (const HistoryEvent& e : h.events())
    if (e.step == step && (client == kNoClient || e.client == client)) out.push_back(e);
  return out;
}

// The rendered commands client `name` sent to Redis, in order, with the
// random tokens ("A:0123456789abcdef") replaced by "<token>".
inline std::vector<std::string> commands_sent(Simulation& s, const std::string& name) {
  const sim::World& w = s.world();
  const sim::NodeId node = w.find_node(name);
  static const std::regex token("[A-Z]:[0-9a-f]{16}");
  std::vector<std::string> out;
  for (const sim::TraceEvent& e : w.trace().events())
    if (e.kind == sim::TraceKind::CallSent && e.node == node && !e.text.empty())
      out.push_back(std::regex_replace(e.text, token, "<token>"));
  return out;
}

}  // namespace locktest
