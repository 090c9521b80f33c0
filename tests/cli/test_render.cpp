// The renderers on their own: escaping, durations, a history built by hand.
#include <catch2/catch.hpp>

#include "checkers.hpp"
#include "locksim/cli/verdicts.hpp"
#include "locksim/lock/redis_node.hpp"
#include "locksim/props/check.hpp"
#include "locksim/props/scenario.hpp"
#include "locksim/render/chrome_trace.hpp"
#include "locksim/render/duration.hpp"
#include "locksim/render/svg.hpp"
#include "locksim/render/text.hpp"

using namespace locksim;
using namespace locksim::sim::literals;

namespace {

lock::HistoryEvent ev(int64_t ms, uint32_t client, lock::Step step) {
  lock::HistoryEvent e;
  e.at = sim::Instant{} + sim::milliseconds(ms);
  e.local = e.at;
  e.client = client;
  e.step = step;
  return e;
}

lock::HistoryEvent key(int64_t ms, uint32_t client, lock::Step step, int64_t lease_ms) {
  lock::HistoryEvent e = ev(ms, client, step);
  e.key = "lock";
  e.purpose = lock::Purpose::Acquire;
  e.new_value = "1";
  e.expire_at_ms = lease_ms < 0 ? -1 : lock::kEpochMs + ms + lease_ms;
  return e;
}

// A step into a hand-built history, as a simulation records it: a key set also
// goes to the ledger, as the store reports it (on a clock that keeps true time).
void add(lock::History& h, lock::HistoryEvent e) {
  if (e.step == lock::Step::KeySet) {
    lock::KeyChange c;
    c.at = e.at;
    c.key = e.key;
    c.client = e.client;
    c.purpose = e.purpose;
    c.value = e.new_value.value_or("");
    c.store_deadline_ms = e.expire_at_ms;
    if (e.expire_at_ms >= 0) c.deadline = lock::from_unix_ms(e.expire_at_ms);
    h.ledger().change(c);
  }
  h.add(std::move(e));
  h.client_stepped(h.events().back());
}

// The store's lazy expiry, found by a later command, dated at the deadline.
void expire(lock::History& h, int64_t ms) {
  lock::KeyChange c;
  c.kind = lock::KeyChange::Kind::Expired;
  c.at = sim::Instant{} + sim::milliseconds(ms);
  c.key = "lock";
  h.ledger().change(c);
}

// F07 by hand: A holds from 0 to 1.5s with a 1s lease, B gets in at 1.1s.
lock::History f07() {
  lock::History h;
  h.set_clients({"A", "B"});
  add(h, ev(0, 0, lock::Step::AcquireStart));
  add(h, ev(0, 1, lock::Step::AcquireStart));
  add(h, key(1, 0, lock::Step::KeySet, 1000));
  add(h, ev(2, 0, lock::Step::Acquired));
  add(h, ev(2, 0, lock::Step::Enter));
  expire(h, 1001);
  add(h, key(1100, 1, lock::Step::KeySet, 1000));
  add(h, ev(1101, 1, lock::Step::Acquired));
  add(h, ev(1101, 1, lock::Step::Enter));
  add(h, ev(1500, 0, lock::Step::Leave));
  add(h, ev(1700, 1, lock::Step::Leave));
  h.ledger().settle();
  return h;
}

}  // namespace

TEST_CASE("json_string escapes quotes, backslashes, controls and bad UTF-8") {
  CHECK(render::json_string("a\"b\\c\n\x01") == "\"a\\\"b\\\\c\\n\\u0001\"");
  CHECK(render::json_string("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
  CHECK(render::json_string("\xff") == "\"\\ufffd\"");
  test::JsonChecker ok(render::json_string(std::string("x\0y\t\x7f", 5)));
  CHECK(ok.valid());
}

TEST_CASE("xml_escape leaves no markup behind") {
  CHECK(render::xml_escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&apos;");
}

TEST_CASE("human_duration reads like a person wrote it") {
  CHECK(render::human_duration(0_ms) == "0s");
  CHECK(render::human_duration(250_ms) == "250ms");
  CHECK(render::human_duration(1500_ms) == "1.5s");
  CHECK(render::human_duration(2_s) == "2s");
  CHECK(render::human_duration(sim::Duration{999'400'000}, true) == "1s");
}

TEST_CASE("a hand-built F07 history: key lane, expiry, overlap and its explanation") {
  lock::History h = f07();
  render::TimelineOptions o;
  o.title = "F07 by hand";
  render::Timeline t = render::build_timeline(h, nullptr, o);
  REQUIRE(t.clients.size() == 2);
  REQUIRE(t.key_spans.size() == 2);
  CHECK(t.key_spans[0].owner == 0);
  CHECK(t.key_spans[0].to == sim::Instant{} + 1001_ms);  // expired at its deadline, nobody looked
  CHECK(t.key_spans[1].owner == 1);
  // props::check is the one checker; the CLI turns its violations into highlights.
  lock::SimulationConfig config;
  props::RunEnd end;
  end.at = sim::Instant{} + 1700_ms;
  auto found = cli::highlights_of(props::check(h, config, end));
  REQUIRE(found.size() == 1);
  CHECK(found[0].property == "mutual-exclusion");
  CHECK(found[0].clients == std::vector<uint32_t>{0, 1});
  CHECK(found[0].from == sim::Instant{} + 1101_ms);
  CHECK(found[0].to == sim::Instant{} + 1500_ms);
  CHECK(found[0].sentence.rfind("A and B both held lock from 1.101s to 1.500s", 0) == 0);

  t.highlights = found;
  render::TextOptions text;
  std::string out = render::render_text(t, text);
  CHECK(out.find("^expired") != std::string::npos);
  CHECK(out.find("^^^") != std::string::npos);
  CHECK(out.find("mutual-exclusion: A and B both held lock") != std::string::npos);
  CHECK(out.find("\x1b[") == std::string::npos);
  text.colour = true;
  CHECK(render::render_text(t, text).find("\x1b[") != std::string::npos);

  test::JsonChecker json(render::render_chrome_trace(t));
  INFO(json.error());
  CHECK(json.valid());
  CHECK(test::xml_problem(render::render_svg(t)).empty());
}

TEST_CASE("highlights keep props' clients, interval and sentence, the asked property first") {
  props::Verdict v;
  props::Violation me;
  me.property = props::Property::MutualExclusion;
  me.clients = {0, 1};
  me.from = sim::Instant{} + 1_s;
  me.to = sim::Instant{} + 2_s;
  me.sentence = "A and B both held lock from 1.000s to 2.000s: A's lease expired.";
  props::Violation ow = me;
  ow.property = props::Property::OwnerOnlyRelease;
  ow.sentence = "A's release deleted the lock B had acquired";
  v.violations = {me, ow};
  auto hs = cli::highlights_of(v, props::Property::OwnerOnlyRelease);
  REQUIRE(hs.size() == 2);
  CHECK(hs[0].property == "owner-only-release");
  CHECK(hs[1].property == "mutual-exclusion");
  CHECK(hs[1].clients == me.clients);
  CHECK(hs[1].from == me.from);
  CHECK(hs[1].to == me.to);
  CHECK(hs[1].sentence ==
        "A and B both held lock from 1.000s to 2.000s: A's lease expired");  // the renderer adds the stop
  CHECK(cli::shell_quote("a 'b'") == R"('a '\''b'\''')");
}

TEST_CASE("the checkers themselves reject what is broken") {
  CHECK_FALSE(test::JsonChecker("{\"a\":1,}").valid());
  CHECK_FALSE(test::JsonChecker("[1 2]").valid());
  CHECK_FALSE(test::JsonChecker("\"a\nb\"").valid());
  CHECK(test::JsonChecker("{\"a\":[1,-2.5e3,true,null,\"\\u00e9\"]}").valid());
  CHECK_FALSE(test::xml_problem("<a><b></a></b>").empty());
  CHECK_FALSE(test::xml_problem("<a x=1/>").empty());
  CHECK_FALSE(test::xml_problem("<a>&nope;</a>").empty());
  CHECK(test::xml_problem("<?xml version=\"1.0\"?>\n<a x=\"1\"><b/>t &amp; u</a>\n").empty());
}

TEST_CASE("a database lock's timeline tells what the database did, never a Redis key event") {
  // The scenario of issue 27: a Redis node the lock never uses crashes meanwhile.
  std::string error;
  auto s = props::parse_scenario(
      "db-insert-expiry seed=2650 clients=2 replica=1 lag=98ms failover=805ms slow=A:1:2.874s slow=B:1:1.511s ids=1,2 "
      "faults=[crash redis @879ms]",
      &error);
  INFO(error);
  REQUIRE(s);
  s->record_trace = true;
  lock::Simulation sim(*s);
  sim.run();
  render::TimelineOptions o;
  render::Timeline t = render::build_timeline(sim.history(), &sim.world().trace(), o);
  CHECK(t.store == "db");
  REQUIRE_FALSE(t.key_spans.empty());
  for (const render::KeyMoment& m : t.key_moments) CHECK(m.kind != render::KeyMoment::Kind::Lost);
  const std::string out = render::render_text(t, render::TextOptions{});
  CHECK(out.find("Redis server crashed") == std::string::npos);
  CHECK(out.find("overwrote") == std::string::npos);
  CHECK(out.find("lock expired") != std::string::npos);  // the cleanup job deleted A's row
}

namespace {
// The story lines of a replayed scenario, as the text timeline prints them.
std::string story_of(const std::string& scenario) {
  std::string error;
  auto s = props::parse_scenario(scenario, &error);
  INFO(error);
  REQUIRE(s);
  s->record_trace = true;
  lock::Simulation sim(*s);
  sim.run();
  render::Timeline t = render::build_timeline(sim.history(), &sim.world().trace(), render::TimelineOptions{});
  return render::render_story(t, 0, false);
}
}  // namespace

TEST_CASE("the event list: a fault that strikes a client comes after that client's own lines at the same instant") {
  // A acquires at 240 ms and is paused at once (its 6th call is the nested acquire, sent then).
  const std::string story =
      story_of("reentrant seed=35556 clients=1 iterations=2 nested=1 persistent=1 call=A:6:pause:1.614s ids=2");
  INFO(story);
  const size_t acquired = story.find("0.240s  A acquired lock");
  const size_t paused = story.find("0.240s  A paused (stop-the-world) for 1.614s");
  REQUIRE(acquired != std::string::npos);
  REQUIRE(paused != std::string::npos);
  CHECK(acquired < paused);
}

TEST_CASE("the event list: a holder crashed and restarted at one instant does not leave and release") {
  // restart A @1.727s crashes A in its critical section and starts it again at once.
  const std::string story = story_of(
      "watchdog seed=0 clients=2 iterations=1 replica=1 lag=89ms failover=127ms slow=A:0:2.092s "
      "call=B:11:request-lost faults=[crash A @633ms; restart A @1.621s; restart A @1.727s; crash redis @2.734s]");
  INFO(story);
  CHECK(story.find("1.727s  A crashed") != std::string::npos);
  CHECK(story.find("1.727s  A leaves") == std::string::npos);
}

TEST_CASE("the event list: a cut and its heal name the link, not a client that did something") {
  const std::string story = story_of("watchdog seed=1 clients=2 iterations=2 faults=[cut B redis @50ms for 300ms]");
  INFO(story);
  CHECK(story.find("the network cuts B <-/-> redis for 300ms") != std::string::npos);
  CHECK(story.find("the network heals B <---> redis") != std::string::npos);
  CHECK(story.find("B cut ") == std::string::npos);
  CHECK(story.find("B heal") == std::string::npos);
}

TEST_CASE("the event list: a nested acquire and its inner release are told, with what they did to the key") {
  // reentrant: the count goes up and down, the key stays.
  const std::string counted = story_of("reentrant seed=1 clients=2 iterations=1 nested=1");
  INFO(counted);
  CHECK(counted.find("0.008s  A acquired lock again, nested (depth 1)") != std::string::npos);
  CHECK(counted.find("A's inner release (depth 1): its outer hold keeps lock") != std::string::npos);
  CHECK(counted.find("B acquired lock again, nested (depth 1)") != std::string::npos);
  CHECK(counted.find("deleted lock") == std::string::npos);
  // The database's reentrant lock too.
  const std::string db = story_of("db-reentrant seed=1 clients=2 iterations=1 nested=1");
  INFO(db);
  CHECK(db.find("A acquired lock again, nested (depth 1)") != std::string::npos);
  CHECK(db.find("A's inner release (depth 1): its outer hold keeps lock") != std::string::npos);
  // token-lua (F16): the nested acquire waits out its own lease and sets a fresh key, which
  // the inner release then deletes under the outer hold.
  const std::string fresh = story_of("token-lua seed=1 clients=1 iterations=1 nested=1");
  INFO(fresh);
  const size_t expired = fresh.find("1.005s  lock expired: A's lease ran out");
  const size_t taken = fresh.find("A's nested acquire (depth 1) took lock afresh");
  const size_t deleted = fresh.find("A's inner release (depth 1) deleted lock while its outer hold goes on");
  REQUIRE(expired != std::string::npos);
  REQUIRE(taken != std::string::npos);
  REQUIRE(deleted != std::string::npos);
  CHECK(expired < taken);
  CHECK(taken < deleted);
}
