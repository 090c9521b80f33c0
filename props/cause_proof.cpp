#include "locksim/props/cause_proof.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>

#include "locksim/props/shrink_memo.hpp"

namespace locksim::props {

namespace {

using K = ElementKind;

// What holds a holder up: it pauses, works long, or its calls wait on the network.
constexpr std::initializer_list<K> kHeldUp = {K::Pause,       K::PauseAtCall, K::SlowWork, K::DelaySpikes,
                                              K::DelayAtCall, K::Cut,         K::Reset,    K::LostAtCall};

// The element kinds each cause's mechanism rests on, the stage aside (account_of's callers
// add it). A kind outside a cause's account that is necessary to its example is a fault
// the cause does not name: the proof replays without it.
std::vector<K> declared_account(Cause c) {
  std::vector<K> held_up(kHeldUp);
  auto with = [&](std::initializer_list<K> more) {
    std::vector<K> out = held_up;
    out.insert(out.end(), more);
    return out;
  };
  switch (c) {
    case Cause::Unknown: return {};
    case Cause::LeasePaused: return {K::Pause, K::PauseAtCall, K::SlowWork};
    case Cause::LeaseOutworked: return {K::SlowWork, K::DelaySpikes, K::DelayAtCall};
    case Cause::LeaseDelayed: return {K::DelaySpikes, K::DelayAtCall, K::SlowWork, K::Cut, K::Reset, K::LostAtCall};
    // Renewals stop or come late when the holder, its calls or its connection are held up or die.
    case Cause::RenewalStopped: return with({K::ClientCrash, K::CrashAtCall});
    case Cause::RenewalLate: return held_up;
    // Its own clock said the acquire took the whole lease: slow calls, or that clock.
    case Cause::NoValidityLeft: return with({K::ClientClockOffset, K::ClientClockDrift, K::ClientClockJump});
    // Redis's clock, stepped or run fast: the two together are one mechanism.
    case Cause::RedisClockJump:
    case Cause::RedisClockDrift: return {K::RedisClockJump, K::RedisDrift, K::SlowWork};
    case Cause::ClientClockSkew: return {K::ClientClockOffset, K::ClientClockDrift, K::ClientClockJump, K::SlowWork};
    // A release or renewal made stale by a holder held up past its lease.
    case Cause::StaleRelease:
    case Cause::StaleRenewal: return held_up;
    case Cause::TakeoverRace: return with({K::ClientCrash, K::CrashAtCall});
    case Cause::RedisRestartLost: return {K::RedisRestart, K::SlowWork};
    case Cause::FailoverLost: return {K::MasterCrash, K::RedisRestart, K::SlowWork};
    case Cause::RedlockForgotVote: return {K::RedisRestart, K::MasterCrash, K::SlowWork};
    case Cause::WatchLost: return with({K::RedisRestart, K::ClientCrash, K::CrashAtCall});
    case Cause::WatchLostInFailover: return with({K::MasterCrash, K::RedisRestart});
    case Cause::FenceBackwards: return {K::RedisRestart, K::MasterCrash};
    case Cause::DelayedWrite: return held_up;
    case Cause::AmbiguousReply: return with({K::RedisRestart, K::MasterCrash});
    case Cause::CrashNoTtl:
    case Cause::CrashBlocked: return {K::ClientCrash, K::ClientRestart, K::CrashAtCall};
    case Cause::SelfDeadlock:
    case Cause::InnerRelease: return {};
    case Cause::Overtaken: return with({K::ClientCrash, K::CrashAtCall});
    case Cause::RenewalOutlivedRelease: return with({K::ClientCrash, K::CrashAtCall});
    case Cause::QueueStalled: return with({K::ClientCrash, K::CrashAtCall, K::ClientRestart});
    case Cause::RedisDown: return {K::MasterCrash, K::RedisRestart};
    case Cause::RequestLost: return {K::LostAtCall, K::Cut, K::Reset};
    case Cause::NoQuorum: return with({K::MasterCrash, K::RedisRestart});
  }
  return {};
}

bool is_stage(K kind) {
  return kind == K::Client || kind == K::Replica || kind == K::Nested || kind == K::ExplicitLease || kind == K::Persistence;
}

// The fault an element stands for, as a violation names one: a planned fault without its
// quotes, anything else by its words.
std::string fault_words(const std::string& what) {
  if (what.size() >= 2 && what.front() == '\'' && what.back() == '\'') return what.substr(1, what.size() - 2);
  return what;
}

// Whether `e` breaks an assumption in force: its scenario breaks fewer without it.
bool breaks_assumption(const Element& e, const Scenario& s, const Assumptions& assumed) {
  return broken_assumptions(e.without, assumed).size() < broken_assumptions(s, assumed).size();
}

std::optional<Cause> fails_as(const std::vector<Violation>& violations, Property p) {
  for (const Violation& v : violations)
    if (v.property == p) return v.cause;
  return std::nullopt;
}

}  // namespace

bool accounts_for(Cause cause, ElementKind kind) {
  if (is_stage(kind)) return true;
  const std::vector<K> account = declared_account(cause);
  return std::find(account.begin(), account.end(), kind) != account.end();
}

std::string_view to_string(ElementKind kind) {
  switch (kind) {
    case K::ClientCrash: return "a client crash";
    case K::ClientRestart: return "a client restart";
    case K::Pause: return "a pause";
    case K::SlowWork: return "a slow section";
    case K::DelaySpikes: return "delay spikes";
    case K::Cut: return "a cut";
    case K::Reset: return "a connection reset";
    case K::ClientClockOffset: return "a client clock offset";
    case K::ClientClockDrift: return "a client clock drift";
    case K::ClientClockJump: return "a client clock jump";
    case K::RedisClockJump: return "a Redis clock jump";
    case K::RedisDrift: return "a Redis clock drift";
    case K::RedisRestart: return "a Redis restart";
    case K::MasterCrash: return "a Redis crash for good";
    case K::CrashAtCall: return "a crash at a call";
    case K::PauseAtCall: return "a pause at a call";
    case K::LostAtCall: return "a lost message";
    case K::DelayAtCall: return "a message held in flight";
    case K::Replica: return "the replica";
    case K::Nested: return "the nested acquire";
    case K::ExplicitLease: return "the explicit lease";
    case K::Persistence: return "Redis's persistence";
    case K::Client: return "a client";
  }
  return "?";
}

std::optional<Cause> own_mechanism(const Element& e, const Scenario& s) {
  // A drift within what an NTP-disciplined clock keeps only shifts timings: no mechanism of its own.
  auto beyond_sane = [](const std::vector<int64_t>& before, const std::vector<int64_t>& after) {
    for (size_t i = 0; i < before.size(); ++i)
      if ((i >= after.size() || after[i] != before[i]) && std::abs(before[i]) > kSaneDriftPpm) return true;
    return false;
  };
  switch (e.kind) {
    case K::RedisClockJump: return Cause::RedisClockJump;
    case K::RedisDrift:
      if (beyond_sane(s.redis_drifts_ppm, e.without.redis_drifts_ppm)) return Cause::RedisClockDrift;
      return std::nullopt;
    // A client clock's offset or pace mostly times when its client acts (a drift stretches
    // the work it sleeps): what it did to a lease is the classifier's to read, and it moves a
    // failure only beyond an assumption that bounds it (mechanism_of). A step is a fault.
    case K::ClientClockJump: return Cause::ClientClockSkew;
    case K::RedisRestart:
      if (s.persistent_redis) return std::nullopt;
      return s.masters > 1 ? Cause::RedlockForgotVote : Cause::RedisRestartLost;
    case K::MasterCrash:
      if (s.replica) return Cause::FailoverLost;
      return std::nullopt;
    default: return std::nullopt;
  }
}

std::optional<Cause> mechanism_of(const Element& e, const Scenario& s) {
  if (std::optional<Cause> own = own_mechanism(e, s)) return own;
  switch (e.kind) {
    case K::ClientClockOffset:
    case K::ClientClockDrift: return Cause::ClientClockSkew;
    case K::Pause:
    case K::PauseAtCall: return Cause::LeasePaused;
    case K::SlowWork: return Cause::LeaseOutworked;
    case K::DelaySpikes:
    case K::DelayAtCall:
    case K::Cut: return Cause::LeaseDelayed;
    case K::MasterCrash: return Cause::RedisDown;  // no replica: Redis stays down
    default: return std::nullopt;
  }
}

CauseProof prove_cause(const Scenario& minimal, const Violation& v, const Assumptions& assumed, ReplayCache& replays) {
  CauseProof proof;
  proof.classified = proof.proven = v.cause;
  // Whether the cause already names a fault of the example that is a mechanism of its own
  // or breaks an assumption: then it says why the failure is (or is not) outside them.
  bool names_one = false;
  // The best re-labelling fault so far: one beyond the assumptions before one that is
  // only a mechanism of its own; then one without which the property holds at all (a
  // but-for fault) before one without which it fails another way; then the first.
  std::optional<std::pair<int, size_t>> best;
  for (const Element& e : elements_of(minimal)) {
    if (e.kind == K::Client) continue;
    ElementProof shown{e.what, e.kind, accounts_for(v.cause, e.kind), fails_as(*replays.violations(e.without), v.property)};
    proof.elements.push_back(shown);
    const bool breaks = breaks_assumption(e, minimal, assumed);
    const std::optional<Cause> named = breaks ? mechanism_of(e, minimal) : own_mechanism(e, minimal);
    if (shown.accounted) {
      names_one = names_one || (!is_stage(e.kind) && (breaks || own_mechanism(e, minimal)));
      continue;
    }
    // Without it the same failure shows (kept only because its removal would break an
    // assumption, as a Redis's restart under redis-up): it is not what made this failure.
    if (!named || *named == v.cause || shown.fails_as == v.cause) continue;
    const int rank = (breaks ? 0 : 2) + (shown.fails_as ? 1 : 0);
    if (!best || rank < best->first) {
      best = {rank, proof.elements.size() - 1};
      proof.proven = *named;
    }
  }
  if (names_one || !best) {
    proof.proven = v.cause;
    return proof;
  }
  proof.relabelled_by = best->second;
  // What each element is to the cause that stands: in its account or not.
  for (ElementProof& e : proof.elements) e.accounted = accounts_for(proof.proven, e.kind);
  return proof;
}

Violation proven_violation(const Violation& v, const CauseProof& proof) {
  if (!proof.relabelled_by) return v;
  const ElementProof& by = proof.elements[*proof.relabelled_by];
  Violation out = v;
  out.cause = proof.proven;
  out.fault = fault_words(by.what);
  std::string sentence = v.sentence;
  while (!sentence.empty() && (sentence.back() == '.' || sentence.back() == ' ')) sentence.pop_back();
  out.sentence = by.fails_as ? fmt::format("{}. This needed {}: {} (without it, the failure is {} instead).", sentence,
                                           by.what, describe(proof.proven), to_string(*by.fails_as))
                             : fmt::format("{}. But without {} there is no failure: {}.", sentence, by.what,
                                           describe(proof.proven));
  return out;
}

CauseProof prove_example(Counterexample& c, const Assumptions& assumed, ReplayCache& replays) {
  if (c.violation.property == Property::VariantError)
    return CauseProof{c.violation.cause, c.violation.cause, {}, std::nullopt};
  CauseProof proof = prove_cause(c.shrunk, c.violation, assumed, replays);
  c.violation = proven_violation(c.violation, proof);
  return proof;
}

std::string without_text(const ElementProof& e) {
  return e.fails_as ? fmt::format("fails as {}", to_string(*e.fails_as)) : std::string("no failure");
}

std::string proof_text(const CauseProof& proof) {
  if (proof.elements.empty()) return "no fault is needed: it fails on the clients' own schedule";
  std::vector<std::string> parts;
  if (proof.relabelled_by) {
    const ElementProof& by = proof.elements[*proof.relabelled_by];
    parts.push_back(fmt::format("re-labelled from {}: {} is necessary and outside that mechanism (without it, {})",
                                to_string(proof.classified), by.what, without_text(by)));
  }
  // The elements whose replay says more than "in the mechanism, and needed": the others are summed up.
  size_t plain = 0;
  for (size_t i = 0; i < proof.elements.size(); ++i) {
    const ElementProof& e = proof.elements[i];
    if (proof.relabelled_by && *proof.relabelled_by == i) continue;
    if (e.accounted && !e.fails_as) {
      ++plain;
      continue;
    }
    parts.push_back(fmt::format("without {}{}: {}", e.what, e.accounted ? "" : " (not in its mechanism)", without_text(e)));
  }
  if (plain > 0)
    parts.push_back(plain == proof.elements.size()
                        ? std::string("each necessary element is in its mechanism, and without any one there is no failure")
                        : fmt::format("without any other: no failure"));
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace locksim::props
