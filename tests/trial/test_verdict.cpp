// The verdict on trial runs whose outcome is known: overlapping critical sections
// caught by the simulator's mutual-exclusion checker with the clients and the faults
// in force named; a stale write accepted; nobody entering for too long; a clean run.
#include <catch2/catch.hpp>

#include "locksim/trial/verdict.hpp"

using namespace locksim;
using namespace locksim::trial;
using Kind = server::TrialMark::Kind;

namespace {
Instant at_ms(int64_t ms) { return Instant{} + sim::milliseconds(ms); }

struct Builder {
  RunRecord run;
  Builder() {
    run.clients = {"c1", "c2", "c3"};
    run.ends.resize(3);
    for (int c = 0; c < 3; ++c) run.ends[c].name = run.clients[c];
    run.end = at_ms(5000);
  }
  Builder& mark(int64_t ms, Kind kind, const char* client, std::optional<int64_t> token = std::nullopt,
                const char* resource = "orders") {
    server::TrialMark m;
    m.kind = kind;
    m.client = client;
    m.resource = resource;
    m.token = token;
    run.marks.push_back({m, at_ms(ms)});
    return *this;
  }
  Builder& fault(Fault f, int64_t from_ms, int64_t to_ms) {
    run.faults.push_back({f, at_ms(from_ms), at_ms(to_ms)});
    return *this;
  }
};
}  // namespace

TEST_CASE("overlapping critical sections: mutual exclusion, with the clients and the faults in force", "[trial]") {
  Builder b;
  const Fault pause{.kind = FaultKind::Pause, .client = 0, .at = sim::milliseconds(150), .length = sim::milliseconds(900)};
  const Fault unrelated{.kind = FaultKind::Cut, .client = 2, .at = sim::milliseconds(3000), .length = sim::milliseconds(100)};
  b.mark(100, Kind::Enter, "c1").mark(200, Kind::Exit, "c1");
  b.mark(300, Kind::Enter, "c1").fault(pause, 350, 1250).mark(1300, Kind::Exit, "c1");
  b.mark(1000, Kind::Enter, "c2").mark(1100, Kind::Exit, "c2");
  b.fault(unrelated, 3000, 3100);
  b.mark(3000, Kind::Enter, "c3").mark(3200, Kind::Exit, "c3");
  const Judgement j = judge(b.run);
  REQUIRE(j.findings.size() == 1);
  const Finding& f = j.findings.front();
  CHECK(f.violation.property == props::Property::MutualExclusion);
  CHECK(f.violation.clients == std::vector<uint32_t>{0, 1});
  CHECK(f.resource == "orders");
  CHECK(f.violation.from == at_ms(1000));
  CHECK(f.violation.to == at_ms(1100));
  CHECK_THAT(f.violation.sentence, Catch::Contains("c1 and c2 both held orders"));
  REQUIRE(f.in_force.size() == 1);
  CHECK(f.in_force.front().fault == pause);
  CHECK(j.holds == 4);
}

TEST_CASE("holds of different resources do not exclude each other", "[trial]") {
  Builder b;
  b.mark(100, Kind::Enter, "c1", std::nullopt, "a").mark(100, Kind::Enter, "c2", std::nullopt, "b");
  b.mark(400, Kind::Exit, "c1", std::nullopt, "a").mark(400, Kind::Exit, "c2", std::nullopt, "b");
  const Judgement j = judge(b.run);
  CHECK_FALSE(j.violated());
  CHECK(j.resources == std::vector<std::string>{"a", "b"});
}

TEST_CASE("a client that ended inside its critical section ends its hold there", "[trial]") {
  Builder b;
  b.mark(100, Kind::Enter, "c1");
  b.run.ends[0].at = at_ms(200);
  b.run.ends[0].how = "was killed by signal 9";
  b.mark(300, Kind::Enter, "c2").mark(400, Kind::Exit, "c2");
  CHECK_FALSE(judge(b.run).violated());
  b.run.ends[0].at = Instant::never();  // still running: it still believed it held
  CHECK(judge(b.run).findings.front().violation.property == props::Property::MutualExclusion);
}

TEST_CASE("a stale write the resource accepted: fenced writes, older by token", "[trial]") {
  Builder b;
  // c1 holds with token 5, c2 after it with token 6 and writes; c1's late write with a
  // token the resource did not fence (a constant) is accepted: stale.
  b.mark(100, Kind::Enter, "c1", 5).mark(150, Kind::Exit, "c1");
  b.mark(200, Kind::Enter, "c2", 6).mark(250, Kind::WriteAccepted, "c2", 1).mark(300, Kind::Exit, "c2");
  b.mark(400, Kind::Enter, "c3", 4).mark(450, Kind::WriteAccepted, "c3", 1).mark(500, Kind::Exit, "c3");
  const Judgement j = judge(b.run);
  REQUIRE(j.violated());
  const Finding& f = j.findings.front();
  CHECK(f.violation.property == props::Property::FencedWrites);
  CHECK(f.violation.clients == std::vector<uint32_t>{2, 1});
  CHECK_THAT(f.violation.sentence, Catch::Contains("accepted c3's stale write"));
  CHECK(j.writes == 2);

  Builder ok;  // the same holds with increasing tokens and rejected stale writes: fine
  ok.mark(100, Kind::Enter, "c1", 5).mark(150, Kind::WriteAccepted, "c1", 5).mark(160, Kind::Exit, "c1");
  ok.mark(200, Kind::Enter, "c2", 6).mark(250, Kind::WriteAccepted, "c2", 6).mark(300, Kind::Exit, "c2");
  ok.mark(400, Kind::Enter, "c1", 7).mark(450, Kind::WriteAccepted, "c1", 7).mark(500, Kind::Exit, "c1");
  ok.mark(600, Kind::Enter, "c3", 8).mark(650, Kind::WriteRejected, "c3", 2).mark(700, Kind::Exit, "c3");
  const Judgement clean = judge(ok.run);
  CHECK_FALSE(clean.violated());
  CHECK(clean.rejected_writes == 1);
}

TEST_CASE("nobody entering for longer than the stall bound while clients run: no-deadlock", "[trial]") {
  Builder b;
  b.mark(100, Kind::Enter, "c1").mark(200, Kind::Exit, "c1");
  b.mark(4500, Kind::Enter, "c2").mark(4600, Kind::Exit, "c2");
  const Judgement j = judge(b.run, JudgeOptions{.stall = sim::seconds(3)});
  REQUIRE(j.violated());
  CHECK(j.findings.front().violation.property == props::Property::NoDeadlock);
  CHECK(j.findings.front().violation.from == at_ms(200));
  CHECK(j.findings.front().violation.to == at_ms(4500));
  CHECK_FALSE(judge(b.run, JudgeOptions{.stall = sim::seconds(5)}).violated());
}
