#include "render/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace locksim::render {

std::string human_duration(Duration d, bool coarse) {
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

namespace {

using Interval = std::pair<Instant, Instant>;

std::vector<Interval> holds(const ClientLane& lane) {
  std::vector<Interval> out;
  for (const auto& s : lane.spans) {
    bool held = s.state == State::Holding || (s.state == State::Paused && s.holding);
    if (!held) continue;
    if (!out.empty() && out.back().second == s.from) out.back().second = s.to;
    else out.emplace_back(s.from, s.to);
  }
  return out;
}

const Span* span_at(const ClientLane& lane, Instant at) {
  for (const auto& s : lane.spans)
    if (s.from <= at && at < s.to) return &s;
  return nullptr;
}

std::string command_name(const std::string& text) { return text.substr(0, text.find(' ')); }

}  // namespace

std::string explain_overlap(const Timeline& t, uint32_t first, uint32_t second, Instant first_enter,
                            Instant second_enter) {
  const std::string a = lane_name(t, first);
  for (const auto& m : t.key_moments) {
    if (m.at < first_enter || m.at > second_enter) continue;
    if (m.owner != first) continue;
    if (m.kind == KeyMoment::Kind::Rearmed) continue;
    if (m.kind == KeyMoment::Kind::Set && m.client == first) continue;
    const std::string z = lane_name(t, m.client);
    switch (m.kind) {
      case KeyMoment::Kind::Expired: {
        const Span* s = span_at(t.clients[first], m.at);
        if (s && s->state == State::Paused) {
          return fmt::format("{}'s lease expired at {} while {} was paused for {}", a, sim::format_instant(m.at), a,
                             human_duration(s->to - s->from, true));
        }
        Duration lease{};
        for (const auto& k : t.key_spans)
          if (k.to == m.at && k.owner == first) lease = k.to - k.from;
        Duration cs{};
        bool ended = false;
        for (const auto& h : holds(t.clients[first]))
          if (h.first <= first_enter && first_enter < h.second) {
            cs = h.second - h.first;
            ended = h.second < t.end;
          }
        std::string lease_text = lease.ns > 0 ? fmt::format(" ({})", human_duration(lease, true)) : std::string();
        if (ended)
          return fmt::format("{}'s lease{} expired during its {} critical section", a, lease_text, human_duration(cs, true));
        return fmt::format("{}'s lease{} expired while {} was still in its critical section", a, lease_text, a);
      }
      case KeyMoment::Kind::Deleted:
        if (m.client == first) break;
        if (m.purpose == lock::Purpose::Release)
          return fmt::format("{}'s release ({}) deleted {}'s lock", z, m.text.empty() ? "DEL" : command_name(m.text), a);
        if (m.purpose == lock::Purpose::Acquire)
          return fmt::format("{} judged {}'s lock expired and deleted it before taking it", z, a);
        return fmt::format("{} deleted {}'s lock", z, a);
      case KeyMoment::Kind::Set:
        return fmt::format("{} found {}'s lock expired by {}'s clock and took it over{}", z, a, z,
                           m.text.empty() ? std::string() : " with " + command_name(m.text));
      case KeyMoment::Kind::Lost:
        return fmt::format("the Redis server crashed at {} and lost {}'s lock", sim::format_instant(m.at), a);
      default: break;
    }
  }
  // The lock never showed as the first client's: look for how the second got in.
  for (const auto& m : t.key_moments) {
    if (m.at < first_enter || m.at > second_enter) continue;
    if (m.kind == KeyMoment::Kind::Deleted && m.client != second && m.owner != m.client && m.owner != kNoClient)
      return fmt::format("{} deleted {}'s lock", lane_name(t, m.client), lane_name(t, m.owner));
  }
  (void)second;
  return "their critical sections overlap";
}

std::vector<Highlight> find_violations(const Timeline& t) {
  std::vector<Highlight> out;
  const uint32_t n = static_cast<uint32_t>(t.clients.size());
  std::vector<std::vector<Interval>> held(n);
  for (uint32_t c = 0; c < n; ++c) held[c] = holds(t.clients[c]);

  // mutual-exclusion
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = i + 1; j < n; ++j)
      for (const auto& hi : held[i])
        for (const auto& hj : held[j]) {
          Instant from = std::max(hi.first, hj.first), to = std::min(hi.second, hj.second);
          if (!(from < to)) continue;
          bool i_first = hi.first <= hj.first;
          uint32_t x = i_first ? i : j, y = i_first ? j : i;
          Instant xe = i_first ? hi.first : hj.first, ye = i_first ? hj.first : hi.first;
          Highlight h;
          h.clients = {x, y};
          h.from = from;
          h.to = to;
          h.property = "mutual-exclusion";
          h.sentence = fmt::format("{} and {} both held {} from {} to {}: {}", lane_name(t, x), lane_name(t, y), t.key,
                                   sim::format_instant(from), sim::format_instant(to), explain_overlap(t, x, y, xe, ye));
          out.push_back(std::move(h));
        }

  // owner-only-release
  for (const auto& m : t.key_moments) {
    if (m.kind != KeyMoment::Kind::Deleted || m.purpose != lock::Purpose::Release) continue;
    if (m.client >= n || m.owner >= n || m.client == m.owner) continue;
    Highlight h;
    h.clients = {m.client, m.owner};
    h.from = h.to = m.at;
    h.property = "owner-only-release";
    h.sentence = fmt::format("{}'s release{} at {} deleted {}'s lock, not its own", lane_name(t, m.client),
                             m.text.empty() ? std::string() : " (" + m.text + ")", sim::format_instant(m.at),
                             lane_name(t, m.owner));
    out.push_back(std::move(h));
  }

  // no-deadlock: a dead client's key without expiry that outlives it
  for (const auto& k : t.key_spans) {
    if (k.ttl || k.owner >= n || k.to < t.end) continue;
    for (const auto& s : t.clients[k.owner].spans) {
      if (s.state != State::Crashed || s.from < k.from || s.from >= k.to) continue;
      Highlight h;
      h.clients = {k.owner};
      h.from = s.from;
      h.to = t.end;
      h.property = "no-deadlock";
      std::string gave_up;
      for (uint32_t c = 0; c < n; ++c) {
        if (c == k.owner) continue;
        bool waited = false;
        for (const auto& w : t.clients[c].spans)
          if (w.state == State::Waiting && w.to > s.from) waited = true;
        if (waited) h.clients.push_back(c);
      }
      for (const auto& e : t.notable)
        if (e.step == lock::Step::AcquireFailed && e.at > s.from && e.client < n) {
          gave_up = fmt::format(" ({} gave up waiting at {})", lane_name(t, e.client), sim::format_instant(e.at));
          break;
        }
      h.sentence = fmt::format("{} crashed at {} while {} had no expiry: the key outlives it and no one can take the lock again{}",
                               lane_name(t, k.owner), sim::format_instant(s.from), t.key, gave_up);
      out.push_back(std::move(h));
      break;
    }
  }

  std::stable_sort(out.begin(), out.end(), [](const Highlight& a, const Highlight& b) { return a.from < b.from; });
  return out;
}

}  // namespace locksim::render
