// A fault that holds one message in flight longer than its latency (call=A:N:delay:D, the
// request of a client's Nth command; call=A:writeN:delay:D, its Nth write to the fenced
// resource; the explorer's kind delay-at-call): how it reads and prints, what it does to a
// run, how it sits with the assumptions, and the delayed-write failure (an unfenced write
// landing after the next holder's) it lets the search find inside them.
#include <catch2/catch.hpp>

#include <algorithm>

#include "locksim/lock/simulation.hpp"
#include "locksim/props/assumptions.hpp"
#include "locksim/props/defaults.hpp"
#include "locksim/props/explorer.hpp"
#include "locksim/props/mechanism_aims.hpp"
#include "locksim/props/search.hpp"

using namespace locksim;
using namespace locksim::props;
using lock::CallFault;
using lock::Step;

namespace {

Scenario dc_scenario(const std::string& text) {
  std::string error;
  auto s = parse_scenario(text, &error);
  INFO(text << "\n" << error);
  REQUIRE(s);
  return *s;
}

std::string dc_parse_error(const std::string& text) {
  std::string error;
  return parse_scenario(text, &error) ? "(parsed)" : error;
}

std::vector<lock::HistoryEvent> dc_steps(const lock::History& h, Step step, uint32_t client) {
  std::vector<lock::HistoryEvent> out;
  for (const auto& e : h.events())
    if (e.step == step && e.client == client) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("delayed calls: a command's and a write's delay read back and print the same", "[scenario][delayed-call]") {
  const std::string line = "redlock seed=3 clients=2 masters=3 call=A:4:delay:250ms call=B:write2:delay:1.2s";
  const Scenario s = dc_scenario(line);
  REQUIRE(s.workload.call_faults.size() == 2);
  CHECK(s.workload.call_faults[0] ==
        CallFault{0, 4, CallFault::Kind::Delay, sim::milliseconds(250), CallFault::On::Call});
  CHECK(s.workload.call_faults[1] ==
        CallFault{1, 2, CallFault::Kind::Delay, sim::milliseconds(1200), CallFault::On::Write});
  CHECK(to_string(s) == line);
  CHECK(to_string(s.workload.call_faults[1]) == "call=B:write2:delay:1.2s");
  CHECK(kinds_in(s) == std::vector<FaultFamily>{FaultFamily::DelayAtCall});
  CHECK(parse_fault_kind("delay-at-call") == FaultFamily::DelayAtCall);
  CHECK(kAllFaultFamilies[std::size(kAllFaultFamilies) - 1] == FaultFamily::DelayAtCall);  // drawn last
}

TEST_CASE("delayed calls: hostile values get a clear error", "[scenario][delayed-call][hostile]") {
  CHECK(dc_parse_error("token-lua call=A:write2:pause:1s") ==
        "in 'call=A:write2:pause:1s': a write to the resource takes only a delay: A:writeN:delay:DURATION");
  CHECK(dc_parse_error("token-lua call=A:write0:delay:1s") == "in 'call=A:write0:delay:1s': writes are counted from 1");
  CHECK(dc_parse_error("token-lua call=A:2:delay:0ms") == "in 'call=A:2:delay:0ms': a delay must be longer than 0");
  CHECK(dc_parse_error("token-lua call=A:2:delay") ==
        "in 'call=A:2:delay': expected A:N:crash, A:N:pause:DURATION, A:N:request-lost, A:N:reply-lost, "
        "A:N:delay:DURATION or A:writeN:delay:DURATION");
  CHECK(dc_parse_error("token-lua call=A:2:delay:-5ms") != "(parsed)");
  CHECK(dc_parse_error("token-lua call=A:writeX:delay:1s") != "(parsed)");
  CHECK(dc_parse_error("token-lua call=A:write:delay:1s") != "(parsed)");
  CHECK(dc_parse_error("token-lua call=A:2:delay:1s:1s") != "(parsed)");
  CHECK(dc_parse_error("token-lua clients=1 call=B:write1:delay:1s") ==
        "call= names client B but the scenario has 1 clients");
}

TEST_CASE("delayed calls: the request lands D later, and nothing else the run drew moves", "[lock][delayed-call]") {
  // One client, one section: its write, held 100 ms (inside its call's timeout), lands 100 ms
  // later than without the fault, because the link's latency draw is the same.
  const std::string clean_line = "token-lua seed=1 clients=1 iterations=1";
  lock::Simulation clean(dc_scenario(clean_line));
  clean.run();
  lock::Simulation held(dc_scenario(clean_line + " call=A:write1:delay:100ms"));
  held.run();
  const auto clean_writes = dc_steps(clean.history(), Step::WriteAccepted, 0);
  const auto held_writes = dc_steps(held.history(), Step::WriteAccepted, 0);
  REQUIRE(clean_writes.size() == 1);
  REQUIRE(held_writes.size() == 1);
  CHECK(held_writes[0].at - clean_writes[0].at == sim::milliseconds(100));
  const auto delayed = dc_steps(held.history(), Step::CallDelayed, 0);
  REQUIRE(delayed.size() == 1);
  CHECK(delayed[0].purpose == lock::Purpose::Resource);
  CHECK(delayed[0].token == 1);
  CHECK(delayed[0].status == sim::milliseconds(100).ns);
  // A command's request: the acquire (token-lua's first command) reaches Redis 300 ms later.
  lock::Simulation late(dc_scenario(clean_line + " call=A:1:delay:300ms"));
  late.run();
  auto first_set = [](const lock::History& h) {
    for (const auto& e : h.events())
      if (e.step == Step::KeySet) return e.at;
    return sim::Instant::never();
  };
  CHECK(first_set(late.history()) - first_set(clean.history()) == sim::milliseconds(300));
  REQUIRE(dc_steps(late.history(), Step::CallDelayed, 0).size() == 1);
  CHECK(dc_steps(late.history(), Step::CallDelayed, 0)[0].purpose == lock::Purpose::Acquire);
  // Replayed from its printed line, byte for byte; and not the clean run.
  const Scenario s = dc_scenario(clean_line + " call=A:1:delay:300ms");
  CHECK(run_scenario(dc_scenario(to_string(s))).trace_hash == run_scenario(s).trace_hash);
  CHECK(run_scenario(s).trace_hash != run_scenario(dc_scenario(clean_line)).trace_hash);
}

TEST_CASE("delayed calls: drawn as delay-at-call, shrunk away, a network fault for the assumptions",
          "[explorer][delayed-call]") {
  FaultModel model = default_model("token-lua");
  model.kinds = {FaultFamily::DelayAtCall};
  bool command = false, write = false;
  for (uint32_t run = 0; run < 60; ++run) {
    const Scenario s = draw(model, 1, run);
    CHECK(kinds_in(s) == std::vector<FaultFamily>{FaultFamily::DelayAtCall});
    for (const CallFault& f : s.workload.call_faults) {
      CHECK(f.kind == CallFault::Kind::Delay);
      CHECK(f.pause >= sim::milliseconds(1));
      CHECK(f.pause <= s.lock.lease * 3);
      command = command || f.on == CallFault::On::Call;
      write = write || f.on == CallFault::On::Write;
      CHECK(f.call <= (f.on == CallFault::On::Write ? s.workload.iterations : model.max_call));
    }
  }
  CHECK(command);
  CHECK(write);
  // Each delay is an element a shrink can take away.
  const Scenario s = dc_scenario("token-lua seed=1 clients=2 call=A:2:delay:300ms call=B:write1:delay:700ms");
  std::vector<std::string> named;
  for (const Element& e : elements_of(s)) named.push_back(e.what);
  CHECK(std::count(named.begin(), named.end(), "A's 300ms delay of its call 2") == 1);
  CHECK(std::count(named.begin(), named.end(), "B's 700ms delay of its write 1") == 1);
  // Inside the default assumptions (no delay bound); beyond delay<=D only when latency and delay exceed D.
  CHECK(broken_assumptions(s, default_assumptions("token-lua")).empty());
  Assumptions bounded = default_assumptions("token-lua");
  bounded.max_delay = sim::milliseconds(500);
  const auto broken = broken_assumptions(s, bounded);
  REQUIRE(broken.size() == 1);
  CHECK(broken[0] == "delay<=500ms: B's write 1 is held 700ms longer in flight");
  // held_inside shortens it into the bound, and then nothing is broken.
  const Scenario inside = held_inside(s, bounded);
  CHECK(broken_assumptions(inside, bounded).empty());
  REQUIRE(inside.workload.call_faults.size() == 2);
  CHECK(inside.workload.call_faults[1].pause < sim::milliseconds(500));
  // The runs drawn inside that bound keep every delay inside it.
  model.assumed = bounded;
  for (uint32_t run = 0; run < 60; run += 2) {
    CHECK(drawn_inside(model, run));
    CHECK(broken_assumptions(draw(model, 1, run), bounded).empty());
  }
}

TEST_CASE("delayed calls: a write held past the next holder's is the lock's own delayed-write, and fenced stays clean",
          "[explorer][delayed-call]") {
  // The examples `check redlock|reentrant --runs 5000 --seed 1|3` print (seeds 1-3 all find
  // it inside the assumptions now, by the aimed held write): the holder's write call times
  // out, it releases, the next holder acquires and writes, then the held write lands.
  struct Example {
    std::string line, fault;
  };
  const Example examples[] = {
      {"redlock seed=14 clients=2 iterations=1 masters=3 call=A:write1:delay:2.524s ids=0,2",
       "call=A:write1:delay:2.524s"},
      {"reentrant seed=3 clients=2 iterations=1 call=A:write1:delay:1.984s", "call=A:write1:delay:1.984s"},
  };
  for (const Example& ex : examples) {
    INFO(ex.line);
    const Scenario s = dc_scenario(ex.line);
    CHECK(broken_assumptions(s, default_assumptions(s.algorithm)).empty());
    const RunResult r = run_scenario(s);
    const Violation* v = r.verdict.find(Property::FencedWrites);
    REQUIRE(v);
    CHECK(v->cause == Cause::DelayedWrite);
    CHECK(v->fault == ex.fault);
    CHECK(v->clients == std::vector<uint32_t>{0, 1});
    CHECK(v->sentence.find("A's write (no token)") != std::string::npos);
    CHECK(v->sentence.find("in flight and reached the store") != std::string::npos);
    CHECK(kinds_in(s) == std::vector<FaultFamily>{FaultFamily::DelayAtCall});
    // Each element is necessary: without any one of them (the held write above all) the failure goes.
    const StillFails same = fails_with(Property::FencedWrites, {Cause::DelayedWrite}, {});
    CHECK(same(s));
    for (const Element& e : elements_of(s)) {
      INFO("without " << e.what);
      CHECK_FALSE(same(e.without));
    }
    // The fenced lock, in the same world: the store rejects the late write by its token.
    Scenario fenced = s;
    fenced.algorithm = "fenced";
    fenced.masters = 1;
    normalize(fenced);
    INFO(to_string(fenced));
    const RunResult f = run_scenario(fenced);
    CHECK(f.verdict.find(Property::FencedWrites) == nullptr);
  }
}

TEST_CASE("delayed calls: two delays of one call read back as one of their sum, and are never drawn",
          "[scenario][delayed-call]") {
  // Lines printed before carried two delays of one call, which act as one (SimEnv adds them up).
  const Scenario s = dc_scenario(
      "token-lua clients=2 call=A:9:delay:2.489s call=B:write1:delay:432ms "
      "call=A:9:delay:2.429s call=B:write1:delay:299ms call=A:9:pause:10ms");
  REQUIRE(s.workload.call_faults.size() == 3);
  CHECK(s.workload.call_faults[0] == CallFault{0, 9, CallFault::Kind::Delay, sim::milliseconds(4918)});
  CHECK(s.workload.call_faults[1] ==
        CallFault{1, 1, CallFault::Kind::Delay, sim::milliseconds(731), CallFault::On::Write});
  CHECK(s.workload.call_faults[2].kind == CallFault::Kind::Pause);
  CHECK(to_string(s) ==
        "token-lua seed=1 clients=2 call=A:9:delay:4.918s call=B:write1:delay:731ms call=A:9:pause:10ms");
  // Drawn: at most one fault per call (or write) of a client, though the draws often meet.
  FaultModel m = default_model("token-lua");
  m.kinds = {FaultFamily::CrashAtCall, FaultFamily::PauseAtCall, FaultFamily::LostAtCall, FaultFamily::DelayAtCall};
  m.swarm = false;
  m.max_call = 3;
  uint32_t several = 0;
  for (uint32_t run = 0; run < 300; ++run) {
    const Scenario d = draw(m, 7, run);
    const auto& f = d.workload.call_faults;
    several += f.size() > 2 ? 1 : 0;
    for (size_t i = 0; i < f.size(); ++i)
      for (size_t j = i + 1; j < f.size(); ++j) {
        INFO(to_string(d));
        CHECK_FALSE((f[i].client == f[j].client && f[i].call == f[j].call && f[i].on == f[j].on));
      }
  }
  CHECK(several > 30);
}

TEST_CASE("delayed calls: a database lock outlives its crashed holder until the held COMMIT arrives, and says so",
          "[causes][delayed-call]") {
  // A's COMMIT (call 9) is held 4.918s in flight and A crashes at 1.791s; the database
  // frees the row lock when that COMMIT runs, at 5.70s, after B gave up at 5.65s. Not
  // "only its owner's release frees it": a transaction ends with its session too.
  const std::string line =
      "db-for-update seed=607900 clients=2 clock=B:+0s:-62458 call=A:9:delay:2.489s "
      "call=A:9:delay:2.429s ids=0,2 faults=[crash A @1.791s]";
  const Scenario s = dc_scenario(line);
  CHECK(to_string(s).find("call=A:9:delay:4.918s") != std::string::npos);
  const RunResult r = run_scenario(s);
  const Violation* v = r.verdict.find(Property::NoDeadlock);
  REQUIRE(v);
  INFO(v->sentence);
  CHECK(v->cause == Cause::CrashBlocked);
  CHECK(v->clients == std::vector<uint32_t>{0, 1});
  CHECK(v->sentence.find("only its owner's release frees it") == std::string::npos);
  CHECK(v->sentence.find("a database frees a dead client's row lock only when its transaction ends") !=
        std::string::npos);
  CHECK(v->sentence.find("A's ended with its release (its call 9), sent before it died and held in flight 4.918s "
                         "by call=A:9:delay:4.918s, which reached the database only at 5.701s") != std::string::npos);
  // The necessary elements: the crash and the one held call, as the line and the sentence name them.
  const Scenario minimal = one_minimal(s, fails_with(Property::NoDeadlock, {Cause::CrashBlocked}, {}));
  std::vector<std::string> needs;
  for (const Element& e : elements_of(minimal))
    if (!e.what.starts_with("client ")) needs.push_back(e.what);
  CHECK(std::find(needs.begin(), needs.end(), "A's 4.918s delay of its call 9") != needs.end());
}
