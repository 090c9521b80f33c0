// Fault plans: printing, parsing back, errors, and World::apply.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <string>

#include "helpers.hpp"

using namespace simtest;

namespace {
std::string parse_error(std::string_view text) {
  std::string why;
  auto plan = parse_fault_plan(text, &why);
  CHECK_FALSE(plan.has_value());
  return why;
}
FaultPlan parsed(std::string_view text) {
  std::string why;
  auto plan = parse_fault_plan(text, &why);
  INFO(why);
  REQUIRE(plan.has_value());
  return *plan;
}
}  // namespace

TEST_CASE("the documented example parses to the expected faults and prints back", "[fault]") {
  const std::string text =
      "crash A @1.5s; restart A @3s; pause B @2s for 800ms; jump redis @4s by +2s; "
      "cut A redis @3s for 2s; heal A redis @5s; reset A redis @1s";
  FaultPlan p = parsed(text);
  REQUIRE(p.faults.size() == 7);
  CHECK(p.faults[0] == Fault{FaultKind::Crash, "A", "", at(1500_ms), {}});
  CHECK(p.faults[1] == Fault{FaultKind::Restart, "A", "", at(3_s), {}});
  CHECK(p.faults[2] == Fault{FaultKind::Pause, "B", "", at(2_s), 800_ms});
  CHECK(p.faults[3] == Fault{FaultKind::ClockJump, "redis", "", at(4_s), 2_s});
  CHECK(p.faults[4] == Fault{FaultKind::Cut, "A", "redis", at(3_s), 2_s});
  CHECK(p.faults[5] == Fault{FaultKind::Heal, "A", "redis", at(5_s), {}});
  CHECK(p.faults[6] == Fault{FaultKind::Reset, "A", "redis", at(1_s), {}});
  CHECK(to_string(p) == text);
}

TEST_CASE("printing: 'none', negative jumps, open-ended cuts", "[fault]") {
  CHECK(to_string(FaultPlan{}) == "none");
  CHECK(parsed("none").empty());
  CHECK(parsed("").empty());
  CHECK(parsed(" ; \n ;").empty());
  CHECK(to_string(Fault{FaultKind::ClockJump, "n", "", at(250_ms), -(1500_ms)}) == "jump n @250ms by -1.5s");
  CHECK(to_string(Fault{FaultKind::Cut, "a", "*", at(0_s), {}}) == "cut a * @0s");
  FaultPlan multi = parsed("crash a @1s\npause b @2s for 1ms\n\ncut a * @3s");
  REQUIRE(multi.faults.size() == 3);
  CHECK(multi.faults[2].peer == "*");
  CHECK(multi.faults[2].amount == Duration{});
  CHECK(to_string(multi) == "crash a @1s; pause b @2s for 1ms; cut a * @3s");
}

TEST_CASE("malformed fault plans are refused with a clear reason", "[fault]") {
  CHECK(parse_error("explode A @1s") ==
        "fault 1 ('explode A @1s'): unknown fault kind 'explode' (crash, restart, pause, jump, cut, heal, reset)");
  CHECK(parse_error("crash A @1s; crash B 2s") == "fault 2 ('crash B 2s'): missing time, as @1.5s");
  CHECK(parse_error("crash A") == "fault 1 ('crash A'): missing time, as @1.5s");
  CHECK(parse_error("crash") == "fault 1 ('crash'): missing node name");
  CHECK(parse_error("crash A @1.5") ==
        "fault 1 ('crash A @1.5'): bad duration '1.5': missing unit (ns, us, ms, s or m)");
  CHECK(parse_error("crash A @soon") == "fault 1 ('crash A @soon'): bad duration 'soon': expected a number");
  CHECK(parse_error("crash A @-1s") == "fault 1 ('crash A @-1s'): time must not be negative");
  CHECK(parse_error("pause B @2s") == "fault 1 ('pause B @2s'): pause needs 'for <duration>'");
  CHECK(parse_error("pause B @2s 800ms") == "fault 1 ('pause B @2s 800ms'): expected 'for <duration>'");
  CHECK(parse_error("pause B @2s for") == "fault 1 ('pause B @2s for'): expected 'for <duration>'");
  CHECK(parse_error("pause B @2s for 0s") == "fault 1 ('pause B @2s for 0s'): duration must be positive");
  CHECK(parse_error("pause B @2s for 8parsecs") ==
        "fault 1 ('pause B @2s for 8parsecs'): bad duration '8parsecs': unknown unit 'parsecs'");
  CHECK(parse_error("cut A @2s for 1s") == "fault 1 ('cut A @2s for 1s'): missing peer node name (or *)");
  CHECK(parse_error("jump A @2s") == "fault 1 ('jump A @2s'): jump needs 'by <duration>', as by +2s");
  CHECK(parse_error("jump A @2s by") == "fault 1 ('jump A @2s by'): jump needs 'by <duration>', as by +2s");
  CHECK(parse_error("crash A @1s now") == "fault 1 ('crash A @1s now'): unexpected 'now'");
  CHECK(parse_error("none; none") ==
        "fault 2 ('none'): unknown fault kind 'none' (crash, restart, pause, jump, cut, heal, reset)");
  std::string why;
  CHECK_FALSE(parse_fault_plan("crash", nullptr).has_value());  // no error string wanted
}

TEST_CASE("fault plans round trip through text", "[fault][property]") {
  rc::prop("parse(to_string(plan)) == plan", [] {
    const auto name = rc::gen::element<std::string>("A", "B", "redis", "r-2", "client_7", "n.1");
    const auto kinds = rc::gen::element(FaultKind::Crash, FaultKind::Restart, FaultKind::Pause, FaultKind::ClockJump,
                                        FaultKind::Cut, FaultKind::Heal, FaultKind::Reset);
    const int64_t limit = Duration::max().ns;
    const auto time_ns =
        rc::gen::oneOf(rc::gen::inRange<int64_t>(0, limit + 1),
                       rc::gen::map(rc::gen::inRange<int64_t>(0, 100'000), [](int64_t k) { return k * 1'000'000; }));
    FaultPlan plan;
    const int n = *rc::gen::inRange(0, 12);
    for (int i = 0; i < n; ++i) {
      Fault f;
      f.kind = *kinds;
      f.node = *name;
      f.at = Instant{*time_ns};
      switch (f.kind) {
        case FaultKind::Cut:
          f.amount = Duration{*rc::gen::oneOf(rc::gen::just<int64_t>(0), rc::gen::inRange<int64_t>(1, limit + 1))};
          [[fallthrough]];
        case FaultKind::Heal:
        case FaultKind::Reset: f.peer = *rc::gen::oneOf(name, rc::gen::just<std::string>("*")); break;
        case FaultKind::Pause: f.amount = Duration{*rc::gen::inRange<int64_t>(1, limit + 1)}; break;
        case FaultKind::ClockJump: f.amount = Duration{*rc::gen::inRange<int64_t>(-limit, limit + 1)}; break;
        default: break;
      }
      plan.faults.push_back(f);
    }
    const std::string text = to_string(plan);
    std::string why;
    auto back = parse_fault_plan(text, &why);
    RC_LOG() << text << "\n" << why;
    RC_ASSERT(back.has_value());
    RC_ASSERT(*back == plan);
    RC_ASSERT(to_string(*back) == text);
  });
}

TEST_CASE("World::apply refuses a plan naming an unknown node, and schedules nothing", "[fault]") {
  World w(1);
  w.add_node("A");
  w.add_node("redis");
  std::string why;
  CHECK_FALSE(w.apply(parsed("crash A @1s; crash ghost @2s"), &why));
  CHECK(why == "fault 'crash ghost @2s' names a node this world does not have");
  CHECK_FALSE(w.apply(parsed("cut A nowhere @1s"), &why));
  CHECK(why == "fault 'cut A nowhere @1s' names a node this world does not have");
  CHECK(w.pending_events() == 0);
  CHECK(w.apply(parsed("cut A * @1s for 1s")));
  CHECK(w.pending_events() == 1);
}

TEST_CASE("World::apply runs each fault at its time", "[fault]") {
  World w(1);
  NodeId a = w.add_node("A"), b = w.add_node("B"), r = w.add_node("redis");
  std::string why;
  REQUIRE(w.apply(parsed("crash A @1s; restart A @3s; pause B @2s for 800ms; jump redis @4s by +2s; "
                         "cut B * @3s for 2s; heal A redis @5s; reset A redis @1s"),
                  &why));
  w.run_until(at(10_s));
  std::vector<std::string> lines;
  for (const auto& e : w.trace().events()) lines.push_back(Trace::render(e, w.trace().node_name(e.node)));
  CHECK(lines == std::vector<std::string>{
                     "   1.000s  A        crash",
                     "   1.000s  A        reset            A x redis",
                     "   2.000s  B        pause",
                     "   2.800s  B        resume",
                     "   3.000s  A        restart",
                     "   3.000s  B        cut              B <-/-> A",
                     "   3.000s  B        cut              B <-/-> redis",
                     "   4.000s  redis    clock-jump",
                     "   5.000s  B        heal             B <---> A",
                     "   5.000s  B        heal             B <---> redis",
                 });
  CHECK(w.local_now(r) == w.now() + 2_s);
  CHECK(w.node(a).incarnation == 1);
  CHECK(w.node(b).state == NodeState::Up);
  CHECK_FALSE(w.network().is_cut(a, b));
}
