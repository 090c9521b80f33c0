#include "locksim/cli/tour_lessons.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "locksim/props/scenario.hpp"

// Lessons are aggregates whose "try it" fields most leave out; -Wextra would flag each.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace locksim::cli {

namespace {

using C = props::Cause;

// Round numbers, one fault, work long enough that the second holder's hold is
// plain to see. The outcome is never written here: the tour replays each
// scenario and prints what the run did.
// One Redis, version by version: F01 to F16.
std::vector<Lesson> one_redis() {
  return {
      {"F01", "a crash before DEL leaves the key forever",
       "setnx-del spread=0s clients=2 iterations=1 work=300ms..300ms faults=[crash A @100ms]",
       "A holds the lock and crashes at 100 ms, before its DEL; B waits.", C::CrashNoTtl, "crash A @100ms"},
      {"F02", "a crash between SETNX and EXPIRE leaves a key without TTL",
       "setnx-expire spread=0s clients=2 iterations=1 work=300ms..300ms call=A:2:crash",
       "A's SETNX succeeds; A crashes before its second command, the EXPIRE; B waits.", C::CrashNoTtl, "call=A:2:crash"},
      {"F03", "two waiters DEL and SETNX an expired lock: both hold",
       "del-setnx seed=51 clients=3 iterations=1 retry=10ms work=300ms..300ms spikes=0.5:30ms:1.5:200ms "
       "faults=[crash A @100ms]",
       "A locks (value: its expiry time) and crashes at 100 ms; B and C poll every 10 ms over a spiky network; "
       "each finds A's time passed, DELs the key and SETNXes.",
       C::TakeoverRace, "crash A @100ms"},
      {"F04", "a client whose clock is ahead takes a live lock with GETSET",
       "getset spread=0s clients=2 iterations=1 work=500ms..500ms clock=B:+2s:0",
       "B's clock runs 2 s ahead: A's timestamp (1 s after A locked) looks past to B.", C::ClientClockSkew,
       "clock=B:+2s:0", "clock", {"clock=B:+500ms:0", "clock=B:+1s:0", "clock=B:+2s:0"}},
      {"F05", "work outlasts the timestamp; the late DEL removes the next holder's lock",
       "getset spread=0s clients=2 iterations=1 work=800ms..800ms slow=A:0:1.5s",
       "A's work takes 1.5 s on a 1 s timestamp lease; B takes the expired lock with GETSET.", C::StaleRelease,
       "slow=A:0:1.5s", "slow", {"slow=A:0:900ms", "slow=A:0:1.2s", "slow=A:0:1.5s"}},
      {"F07", "work longer than the lease: the key expires and B acquires",
       "set-nx-px spread=0s clients=2 iterations=1 work=400ms..400ms slow=A:0:1.5s",
       "A's work takes 1.5 s; the key's lease is 1 s (SET NX PX 1000).", C::LeaseOutworked, "slow=A:0:1.5s", "slow",
       {"slow=A:0:900ms", "slow=A:0:1.2s", "slow=A:0:1.5s", "slow=A:0:2s"}},
      {"F08", "after F07, A's DEL removes B's lock", "set-nx-px spread=0s clients=2 iterations=1 work=800ms..800ms slow=A:0:1.5s",
       "A's work takes 1.5 s on a 1 s lease; B acquires the expired key and works 800 ms.", C::StaleRelease,
       "slow=A:0:1.5s", "slow", {"slow=A:0:900ms", "slow=A:0:1.5s", "slow=A:0:2s"}},
      {"F09", "between GET and DEL the lease ends; A's DEL removes B's lock",
       "token-check-del spread=0s clients=2 iterations=1 work=800ms..800ms call=A:3:pause:500ms",
       "A works 800 ms; its release GETs its token, finds it, and pauses 500 ms before the DEL; the lease is 1 s.",
       C::StaleRelease, "call=A:3:pause:500ms", "pause", {"call=A:3:pause:100ms", "call=A:3:pause:500ms"}},
      {"F10", "the lease ends while A works; B acquires (the release is harmless)",
       "token-lua spread=0s clients=2 iterations=1 work=400ms..400ms slow=A:0:1.5s",
       "A's work takes 1.5 s on a 1 s lease; the release compares tokens.", C::LeaseOutworked, "slow=A:0:1.5s",
       "slow", {"slow=A:0:900ms", "slow=A:0:1.2s", "slow=A:0:1.5s", "slow=A:0:2s"}},
      {"F13", "a stop-the-world pause longer than the lease freezes the renewal too",
       "watchdog spread=0s clients=2 iterations=1 work=400ms..400ms faults=[pause A @100ms for 1.5s]",
       "A holds the lock, its watchdog renewing every 333 ms; at 100 ms A's process stops for 1.5 s (a GC pause).",
       C::LeasePaused, "pause A @100ms for 1.5s", "pause",
       {"faults=[pause A @100ms for 500ms]", "faults=[pause A @100ms for 1s]", "faults=[pause A @100ms for 1.5s]"}},
      {"F14", "a network cut longer than the lease starves the renewal; B acquires",
       "watchdog spread=0s clients=2 iterations=1 work=1.5s..1.5s faults=[cut A redis @100ms for 1.5s]",
       "Each holder works 1.5 s, its watchdog renewing every 333 ms; at 100 ms A's link to Redis is cut for 1.5 s.",
       C::RenewalStopped, "cut A redis @100ms for 1.5s", "cut",
       {"faults=[cut A redis @100ms for 500ms]", "faults=[cut A redis @100ms for 1.5s]"}},
      {"F15", "an explicit lease disables the watchdog: F10 returns",
       "watchdog explicit-lease=1s spread=0s clients=2 iterations=1 work=400ms..400ms slow=A:0:1.5s",
       "The watchdog lock, but acquired with an explicit 1 s lease (lock(leaseTime)); A's work takes 1.5 s.",
       C::LeaseOutworked, "slow=A:0:1.5s"},
      {"F16", "acquiring again from nested code deadlocks on itself",
       "token-lua clients=1 iterations=1 nested=1 lease=30s wait-limit=2s",
       "One client; inside its critical section it calls code that takes the same lock again.", C::SelfDeadlock,
       "nested=1"},
  };
}

// Replicas, Redlock, fencing, fairness and the database: F17 onwards.
std::vector<Lesson> beyond_one_redis() {
  return {
      {"F17", "the master dies before replicating; the promoted replica lacks the key",
       "watchdog clients=2 iterations=1 work=600ms..600ms replica=1 lag=100ms failover=100ms spread=0s "
       "faults=[crash redis @50ms]",
       "A replica 100 ms behind the master; the master crashes 50 ms after A locked; the replica is promoted.",
       C::FailoverLost, "crash redis @50ms"},
      {"F18", "a Redlock master restarts without persistence and forgets its vote for A",
       "redlock seed=1 masters=3 clients=2 iterations=1 work=600ms..600ms spread=1ms faults=[restart redis2 @7ms]",
       "Three masters; A and B race and B wins a majority that holds redis2; redis2 restarts with no persistence, "
       "and A's retry wins a majority again.",
       C::RedlockForgotVote, "restart redis2 @7ms"},
      {"F19", "fencing: the resource rejects the paused client's late write",
       "fenced spread=0s clients=2 iterations=1 work=400ms..400ms faults=[pause A @100ms for 1.5s]",
       "As F13 (A stops for 1.5 s holding token 1), but every write carries the fencing token from INCR.",
       C::LeasePaused, "pause A @100ms for 1.5s", "pause",
       {"faults=[pause A @100ms for 500ms]", "faults=[pause A @100ms for 1.5s]"}},
      {"F20", "fixed-interval retries: newcomers overtake long waiters",
       "token-lua seed=18 clients=3 iterations=2 work=20ms..100ms think=0s..50ms",
       "Three clients, short work, each retrying every 100 ms: no faults at all.", C::Overtaken, ""},
      {"F23", "the only Redis restarts without persistence: the lock is gone",
       "watchdog spread=0s clients=2 iterations=1 work=600ms..600ms faults=[restart redis @200ms]",
       "A holds the lock; at 200 ms Redis restarts without persistence.", C::RedisRestartLost,
       "restart redis @200ms"},
      {"F22", "a database lock row outlives its crashed owner",
       "db-insert-delete spread=0s clients=2 iterations=1 work=300ms..300ms faults=[crash A @100ms]",
       "A inserted the lock row and crashes at 100 ms, before its DELETE.", C::CrashNoTtl, "crash A @100ms"},
      {"F22a", "the cleanup job deletes the row of a holder still at work",
       "db-insert-expiry spread=0s clients=2 iterations=1 work=600ms..600ms slow=A:0:2.5s",
       "A's work takes 2.5 s; its row expires after 1 s and the cleanup job runs every second.", C::LeaseOutworked,
       "slow=A:0:2.5s"},
  };
}

std::vector<Lesson> build() {
  std::vector<Lesson> all = one_redis();
  for (Lesson& l : beyond_one_redis()) all.push_back(std::move(l));
  return all;
}

// The faults a scenario sets: its plan, the faults at calls, slow work, skewed clocks.
size_t faults_in(const props::Scenario& s) {
  size_t n = s.faults.faults.size() + s.workload.call_faults.size() + s.workload.slow_work.size();
  for (sim::Duration offset : s.workload.clock_offsets) n += offset != sim::Duration{} ? 1 : 0;
  for (int64_t ppm : s.workload.drifts_ppm) n += ppm != 0 ? 1 : 0;
  return n;
}

bool has_step(const lock::History& h, lock::Step step) {
  return std::any_of(h.events().begin(), h.events().end(), [&](const auto& e) { return e.step == step; });
}

std::vector<std::string> check_lesson(const Lesson& lesson, const props::CatalogueEntry& entry, LessonRun& r) {
  std::vector<std::string> problems;
  const props::Violation* v = r.violation;
  if (!v) {
    problems.push_back(fmt::format("it does not violate {}", props::to_string(entry.property)));
    return problems;
  }
  if (v->cause != lesson.cause)
    problems.push_back(fmt::format("it fails by {} ({}), not by {}", props::to_string(v->cause),
                                   props::describe(v->cause), props::to_string(lesson.cause)));
  const auto& documented = props::documented_causes(entry.id);
  if (std::find(documented.begin(), documented.end(), v->cause) == documented.end())
    problems.push_back(fmt::format("{} is not a cause docs/failures.md gives for {}", props::to_string(v->cause),
                                   entry.id));
  // "One fault where one suffices": the failure must come from the lesson's one fault.
  const size_t faults = faults_in(r.scenario);
  if (faults > (lesson.fault.empty() ? 0u : 1u))
    problems.push_back(fmt::format("it sets {} faults where one should do", faults));
  if (!lesson.fault.empty() && !v->fault.empty() && v->fault != lesson.fault)
    problems.push_back(fmt::format("the verdict blames '{}', not the lesson's '{}'", v->fault, lesson.fault));
  if (entry.property == props::Property::MutualExclusion && v->to - v->from < visible_overlap(r.scenario))
    problems.push_back(fmt::format("the two holders overlap {} ms only (a person needs {} ms)",
                                   (v->to - v->from).ms(),
                                   visible_overlap(r.scenario).ms()));
  // Fencing earns its keep only when the resource turns a stale write away.
  if (entry.expected == props::Expectation::ViolatedYetHolds) {
    for (props::Property p : entry.also_holds)
      if (r.run.verdict.find(p)) problems.push_back(fmt::format("{} does not hold", props::to_string(p)));
    if (!has_step(r.run.sim->history(), lock::Step::WriteRejected))
      problems.push_back("the resource rejects no write");
  }
  return problems;
}

}  // namespace

const std::vector<Lesson>& lessons() {
  static const std::vector<Lesson> all = build();
  return all;
}

const Lesson* find_lesson(std::string_view entry) {
  for (const Lesson& l : lessons())
    if (l.entry == entry) return &l;
  return nullptr;
}

sim::Duration visible_overlap(const props::Scenario& scenario) {
  const sim::Duration lease = scenario.lock.explicit_lease > sim::Duration{} ? scenario.lock.explicit_lease
                                                                              : scenario.lock.lease;
  return std::min<sim::Duration>(sim::milliseconds(100), lease / 3);
}

namespace {
// What a scenario word sets: "slow=A:0", "call=A:3", "clock=B", "faults", "work", ...
std::string_view slot(std::string_view word) {
  const std::string_view name = word.substr(0, word.find('='));
  size_t colons = name == "slow" || name == "call" ? 2 : name == "clock" ? 1 : 0;
  if (colons == 0) return name;
  size_t at = name.size();
  while (colons-- > 0 && at != std::string_view::npos) at = word.find(':', at + 1);
  return word.substr(0, at);
}

// The words of a scenario line (spaces inside [...] do not split).
std::vector<std::string_view> words_of(std::string_view text) {
  std::vector<std::string_view> words;
  while (!text.empty()) {
    size_t end = 0;
    for (int depth = 0; end < text.size() && (text[end] != ' ' || depth > 0); ++end)
      depth += (text[end] == '[') - (text[end] == ']');
    if (end > 0) words.push_back(text.substr(0, end));
    text = end < text.size() ? text.substr(end + 1) : std::string_view{};
  }
  return words;
}
}  // namespace

std::string vary_scenario(std::string_view scenario, std::string_view word) {
  std::string text;
  bool replaced = false;
  for (std::string_view w : words_of(scenario)) {
    const bool same = slot(w) == slot(word) && w.find('=') != std::string_view::npos;
    text += (text.empty() ? "" : " ") + std::string(same ? word : w);
    replaced = replaced || same;
  }
  if (!replaced) text += " " + std::string(word);
  return text;
}

std::optional<LessonRun> replay_variation(const Lesson& lesson, const props::CatalogueEntry& entry,
                                          std::string_view word) {
  auto s = props::parse_scenario(vary_scenario(lesson.scenario, word));
  if (!s) return std::nullopt;
  LessonRun r;
  r.scenario = *s;
  try {
    r.run = run_recorded(*s);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  r.violation = r.run.verdict.find(entry.property);
  return r;
}

LessonRun replay_lesson(const Lesson& lesson, const props::CatalogueEntry& entry) {
  LessonRun r;
  std::string error;
  auto s = props::parse_scenario(lesson.scenario, &error);
  if (!s) {
    r.problems.push_back("its scenario does not read: " + error);
    return r;
  }
  r.scenario = *s;
  try {
    r.run = run_recorded(*s);
  } catch (const std::invalid_argument& rejected) {
    r.problems.push_back(std::string("the simulator rejects its scenario: ") + rejected.what());
    return r;
  }
  r.violation = r.run.verdict.find(entry.property);
  r.problems = check_lesson(lesson, entry, r);
  return r;
}

}  // namespace locksim::cli
