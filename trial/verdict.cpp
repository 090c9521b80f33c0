#include "locksim/trial/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "locksim/props/check.hpp"

namespace locksim::trial {

namespace {

using Kind = server::TrialMark::Kind;

uint32_t client_index(const RunRecord& run, const std::string& name) {
  for (uint32_t c = 0; c < run.clients.size(); ++c)
    if (run.clients[c] == name) return c;
  return lock::kNoClient;  // a connection named otherwise: not one of ours
}

}  // namespace

lock::History history_of(const RunRecord& run, const std::string& resource) {
  lock::History h;
  h.set_clients(run.clients);
  std::vector<std::pair<Instant, lock::HistoryEvent>> events;
  for (const RecordedMark& m : run.marks) {
    if (m.mark.resource != resource || (m.mark.kind != Kind::Enter && m.mark.kind != Kind::Exit)) continue;
    lock::HistoryEvent e;
    e.at = e.local = m.at;
    e.client = client_index(run, m.mark.client);
    e.step = m.mark.kind == Kind::Enter ? lock::Step::Enter : lock::Step::Leave;
    e.key = resource;
    events.push_back({m.at, std::move(e)});
  }
  for (const AppliedFault& f : run.faults) {
    if (f.fault.kind != FaultKind::Pause || f.fault.client >= run.clients.size()) continue;
    for (const auto& [at, step] : {std::pair{f.from, lock::Step::Paused}, std::pair{f.to, lock::Step::Resumed}}) {
      lock::HistoryEvent e;
      e.at = e.local = at;
      e.client = f.fault.client;
      e.step = step;
      events.push_back({at, std::move(e)});
    }
  }
  for (uint32_t c = 0; c < run.ends.size(); ++c) {
    if (run.ends[c].at == Instant::never()) continue;
    lock::HistoryEvent e;
    e.at = e.local = run.ends[c].at;
    e.client = c;
    e.step = lock::Step::Crashed;
    events.push_back({e.at, std::move(e)});
  }
  std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [at, e] : events) h.add(std::move(e));
  return h;
}

namespace {

// The start of `client`'s last hold of `resource` begun at or before `at`.
Instant hold_start(const RunRecord& run, const std::string& resource, uint32_t client, Instant at) {
  Instant start = at;
  for (const RecordedMark& m : run.marks) {
    if (m.at > at) break;
    if (m.mark.kind == Kind::Enter && m.mark.resource == resource && client_index(run, m.mark.client) == client)
      start = m.at;
  }
  return start;
}

// When a fault stops acting: a late reply arrives `amount` after the window it was sent in;
// a lost request or reply is noticed only at the client's timeout.
Instant effect_end(const AppliedFault& f, Duration aftermath) {
  switch (f.fault.kind) {
    case FaultKind::Delay: return f.to + f.fault.amount;
    case FaultKind::Cut:
    case FaultKind::Lose: return f.to + aftermath;
    default: return f.to;
  }
}

std::vector<AppliedFault> in_force(const RunRecord& run, Instant from, Instant to,
                                   const std::vector<uint32_t>& clients, Duration aftermath) {
  std::vector<AppliedFault> out;
  for (const AppliedFault& f : run.faults) {
    if (f.fault.kind == FaultKind::Skew) {
      if (std::find(clients.begin(), clients.end(), f.fault.client) != clients.end()) out.push_back(f);
      continue;
    }
    if (f.from <= to && effect_end(f, aftermath) >= from) out.push_back(f);
  }
  return out;
}

struct Hold {
  uint32_t client;
  Instant from;
  std::optional<int64_t> token;
};

// Whether hold a is older than hold b: by their tokens when both gave one, else by when they began.
bool older(const Hold& a, const Hold& b) {
  if (a.token && b.token) return *a.token < *b.token;
  return a.from < b.from;
}

std::optional<props::Violation> fenced_writes(const RunRecord& run, const std::string& resource) {
  std::vector<std::optional<Hold>> holding(run.clients.size());
  std::optional<Hold> newest;  // the newest hold that has written
  Instant newest_at;
  for (const RecordedMark& m : run.marks) {
    if (m.mark.resource != resource) continue;
    const uint32_t c = client_index(run, m.mark.client);
    if (c == lock::kNoClient) continue;
    if (m.mark.kind == Kind::Enter) holding[c] = Hold{c, m.at, m.mark.token};
    if (m.mark.kind == Kind::Exit) holding[c].reset();
    if (m.mark.kind != Kind::WriteAccepted || !holding[c]) continue;
    const Hold& hold = *holding[c];
    if (newest && newest->client != c && older(hold, *newest)) {
      props::Violation v;
      v.property = props::Property::FencedWrites;
      v.clients = {c, newest->client};
      v.key = resource;
      v.from = hold.from;
      v.to = m.at;
      v.sentence = fmt::format(
          "{} resource accepted {}'s stale write (token {}) at {}, after {}'s newer hold had written at {}", resource,
          run.clients[c], m.mark.token.value_or(0), sim::format_instant(m.at), run.clients[newest->client],
          sim::format_instant(newest_at));
      return v;
    }
    if (!newest || !older(hold, *newest)) {
      newest = hold;
      newest_at = m.at;
    }
  }
  return std::nullopt;
}

// The longest stretch in which nobody entered any resource while some client still ran.
std::optional<props::Violation> no_deadlock(const RunRecord& run, Duration stall) {
  Instant last_end;  // the run's start, then the end of the latest hold
  std::vector<std::optional<Instant>> open(run.clients.size());
  size_t open_count = 0;
  Instant running_until;  // the last client to end by itself, or the run's end
  for (const ClientEnd& e : run.ends) running_until = std::max(running_until, std::min(e.at, run.end));
  auto gap_to = [&](Instant at) -> std::optional<props::Violation> {
    if (open_count > 0 || at - last_end <= stall) return std::nullopt;
    props::Violation v;
    v.property = props::Property::NoDeadlock;
    v.from = last_end;
    v.to = at;
    v.sentence = fmt::format("no client entered a critical section for {} (from {} to {}) while clients ran",
                             sim::format_span(at - last_end), sim::format_instant(last_end), sim::format_instant(at));
    return v;
  };
  for (const RecordedMark& m : run.marks) {
    const uint32_t c = client_index(run, m.mark.client);
    if (c == lock::kNoClient) continue;
    if (m.mark.kind == Kind::Enter) {
      if (auto v = gap_to(std::min(m.at, running_until))) return v;
      if (!open[c]) ++open_count;
      open[c] = m.at;
    } else if (m.mark.kind == Kind::Exit && open[c]) {
      open[c].reset();
      --open_count;
      if (open_count == 0) last_end = m.at;
    }
  }
  return gap_to(running_until);
}

}  // namespace

Judgement judge(const RunRecord& run, const JudgeOptions& options) {
  Judgement j;
  std::map<std::string, bool> resources;
  for (const RecordedMark& m : run.marks) {
    resources[m.mark.resource] = true;
    if (m.mark.kind == Kind::Enter) ++j.holds;
    if (m.mark.kind == Kind::WriteAccepted) ++j.writes;
    if (m.mark.kind == Kind::WriteRejected) ++j.rejected_writes, ++j.writes;
  }
  std::vector<Finding> found;
  auto add = [&](std::optional<props::Violation> v, const std::string& resource) {
    if (!v) return;
    for (const Finding& f : found)
      if (f.violation.property == v->property) {
        if (f.violation.from <= v->from) return;
      }
    std::erase_if(found, [&](const Finding& f) { return f.violation.property == v->property; });
    Instant from = v->from;
    if (!v->clients.empty()) from = hold_start(run, resource, v->clients.front(), v->from);
    Finding f{*v, resource, in_force(run, from, v->to, v->clients, options.aftermath)};
    found.push_back(std::move(f));
  };
  for (const auto& [resource, unused] : resources) {
    j.resources.push_back(resource);
    const lock::History history = history_of(run, resource);
    lock::SimulationConfig config;
    config.lock.key = resource;
    props::RunEnd end;
    end.at = run.end;
    props::CheckOptions check_options;
    const props::detail::Context context{history, config, end, check_options};
    // The simulator's own checker, on the history the marks make.
    add(props::detail::mutual_exclusion(context), resource);
    add(fenced_writes(run, resource), resource);
  }
  // Also without a single mark: clients that ran the whole stall bound without entering.
  add(no_deadlock(run, options.stall), "");
  std::stable_sort(found.begin(), found.end(),
                   [](const Finding& a, const Finding& b) { return a.violation.from < b.violation.from; });
  j.findings = std::move(found);
  return j;
}

}  // namespace locksim::trial
