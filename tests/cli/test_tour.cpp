// The tour people learn from: each chapter's teaching scenario, replayed, fails
// the way its title says (cause, fault, a visible overlap, a rejected write for
// fencing), its timeline shows the violation it names, its sequence diagram
// never overlaps two labels; the text tour stays short and in list's order;
// tour --html makes a page a headless browser opens and steps through.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "checkers.hpp"
#include "program_run.hpp"
#include "locksim/cli/tour_assumptions.hpp"
#include "locksim/cli/tour_html.hpp"
#include "locksim/cli/tour_lessons.hpp"
#include "locksim/cli/tour_wire.hpp"
#include "locksim/render/sequence.hpp"
#include "locksim/render/text.hpp"

using namespace locksim;

namespace {

struct Result {
  int status = -1;
  std::string out;
};

std::string temp_path(const std::string& name) { return "/tmp/locksim_test_tour_" + std::to_string(getpid()) + "_" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Result shell(const std::string& cmd) {
  const locksim::test::ProgramRun run = locksim::test::run_program(cmd);
  return Result{run.status, run.out};
}

Result run_locksim(const std::string& args) { return shell(std::string("unset NO_COLOR; '") + LOCKSIM_BIN + "' " + args); }

bool held_at(const render::Timeline& t, uint32_t client, sim::Instant at) {
  for (const render::Span& s : t.clients.at(client).spans)
    if (s.from <= at && at < s.to)
      return s.state == render::State::Holding || (s.state == render::State::Paused && s.holding);
  return false;
}

// One chapter: its lesson fails as told, and what is drawn agrees with it.
void check_chapter(std::string_view id) {
  const props::CatalogueEntry* entry = props::find_entry(id);
  REQUIRE(entry != nullptr);
  const cli::Lesson* lesson = cli::find_lesson(id);
  REQUIRE(lesson != nullptr);
  INFO(lesson->scenario);
  cli::LessonRun run = cli::replay_lesson(*lesson, *entry);
  std::string problems;
  for (const auto& p : run.problems) problems += p + "; ";
  INFO(problems);
  CHECK(run.as_told());
  REQUIRE(run.violation != nullptr);
  // The title's mechanism is the verdict's cause, set off by the lesson's one fault.
  CHECK(run.violation->cause == lesson->cause);
  // When the verdict names the fault that set it off, it is the lesson's one fault.
  if (!run.violation->fault.empty()) CHECK(run.violation->fault == lesson->fault);
  CHECK(run.violation->clients.size() >= 1);

  const render::Timeline t = cli::lesson_timeline(run, *entry, std::string(lesson->title));
  REQUIRE(t.highlights.size() == 1);
  const render::Highlight& h = t.highlights.front();
  CHECK(h.property == props::to_string(entry->property));
  if (entry->property == props::Property::MutualExclusion) {
    // Both clients the verdict names hold the lock, in the lanes drawn, through the overlap.
    REQUIRE(h.clients.size() == 2);
    const sim::Instant middle = h.from + (h.to - h.from) / 2;
    CHECK(held_at(t, h.clients[0], middle));
    CHECK(held_at(t, h.clients[1], middle));
    CHECK(h.to - h.from >= cli::visible_overlap(run.scenario));
  }
  // The text timeline marks the violation and names the property.
  render::TextOptions text;
  text.story = false;
  const std::string drawn = render::render_text(t, text);
  CHECK(drawn.find("^") != std::string::npos);
  CHECK(drawn.find(std::string(props::to_string(entry->property))) != std::string::npos);

  // The sequence diagram: well-formed, no two labels overlap, the violation drawn.
  const render::SequenceLayout layout = render::layout_sequence(t);
  CHECK(test::xml_problem(layout.svg).empty());
  CHECK(layout.svg.find("class=\"violation\"") != std::string::npos);
  for (size_t i = 0; i < layout.labels.size(); ++i)
    for (size_t j = i + 1; j < layout.labels.size(); ++j) {
      INFO(layout.labels[i].text << " | " << layout.labels[j].text);
      CHECK_FALSE(layout.labels[i].box.intersects(layout.labels[j].box));
    }
  if (entry->expected == props::Expectation::ViolatedYetHolds) {
    // Fencing pays off: the late write is turned away, in the picture too.
    CHECK(layout.svg.find("REJECTED") != std::string::npos);
    CHECK(run.run.verdict.holds(props::Property::FencedWrites));
  }
}

}  // namespace

#define LOCKSIM_CHAPTER(ID) \
  TEST_CASE("tour chapter " ID ": the scenario fails as its title says, and the pictures agree") { check_chapter(ID); }

LOCKSIM_CHAPTER("F01")
LOCKSIM_CHAPTER("F02")
LOCKSIM_CHAPTER("F03")
LOCKSIM_CHAPTER("F04")
LOCKSIM_CHAPTER("F05")
LOCKSIM_CHAPTER("F07")
LOCKSIM_CHAPTER("F08")
LOCKSIM_CHAPTER("F09")
LOCKSIM_CHAPTER("F10")
LOCKSIM_CHAPTER("F13")
LOCKSIM_CHAPTER("F14")
LOCKSIM_CHAPTER("F15")
LOCKSIM_CHAPTER("F16")
LOCKSIM_CHAPTER("F17")
LOCKSIM_CHAPTER("F18")
LOCKSIM_CHAPTER("F19")
LOCKSIM_CHAPTER("F20")
LOCKSIM_CHAPTER("F22")
LOCKSIM_CHAPTER("F22a")
LOCKSIM_CHAPTER("F23")

TEST_CASE("every failure the catalogue documents has a chapter, and every chapter a failure") {
  std::set<std::string> with_lesson;
  for (const cli::Lesson& l : cli::lessons()) {
    CHECK(with_lesson.insert(std::string(l.entry)).second);
    const props::CatalogueEntry* e = props::find_entry(l.entry);
    REQUIRE(e != nullptr);
    CHECK((e->expected == props::Expectation::Violated || e->expected == props::Expectation::ViolatedYetHolds));
  }
  for (const auto& e : props::catalogue())
    if (e.expected == props::Expectation::Violated || e.expected == props::Expectation::ViolatedYetHolds) {
      INFO(e.id);
      CHECK(with_lesson.count(e.id) == 1);
    }
}

TEST_CASE("the Redlock chapter tries its argument: each failure breaks an assumption, inside them all it holds") {
  const std::vector<cli::AssumptionTrial> trials = cli::try_redlock_assumptions();
  REQUIRE(trials.size() == 4);
  std::set<std::string> broken;
  for (const cli::AssumptionTrial& t : trials) {
    INFO(t.scenario);
    CHECK(t.problem.empty());
    CHECK(t.as_argued());
    if (t.violated) CHECK(t.overlap >= sim::milliseconds(100));  // an overlap a person can see
    for (const std::string& word : t.broken) broken.insert(word);
  }
  CHECK(broken == std::set<std::string>{"durable-redis", "pause<=500ms", "sane-redis-clock"});
  CHECK(!trials.back().violated);
  CHECK(trials.back().broken.empty());
}

TEST_CASE("what changed, on the wire: the commands one client sends, recorded, and a diff of two versions") {
  const auto wire = [](std::string_view id) { return cli::wire_commands(*lock::find_algorithm(id)); };
  CHECK(wire("set-nx-px") == std::vector<std::string>{"SET lock 1 NX PX 1000", "DEL lock"});
  CHECK(wire("setnx-expire") == std::vector<std::string>{"SETNX lock 1", "EXPIRE lock 1", "DEL lock"});
  const std::vector<std::string> lua = wire("token-lua");
  REQUIRE(lua.size() == 2);
  CHECK(lua[0] == "SET lock <token> NX PX 1000");
  CHECK(lua[1].starts_with("EVAL "));
  CHECK(lua[1].ends_with(" 1 lock <token>"));
  // Redlock asks each of the three masters it is designed for.
  const std::vector<std::string> redlock = wire("redlock");
  CHECK(std::count(redlock.begin(), redlock.end(), "SET lock <token> NX PX 1000") == 3);
  // A timestamp lock's value is its expiry, not a token.
  CHECK(wire("del-setnx").front() == "SETNX lock <expiry>");

  const std::vector<cli::DiffLine> diff = cli::diff_lines({"SETNX lock 1", "EXPIRE lock 1", "DEL lock"},
                                                          {"SET lock 1 NX PX 1000", "DEL lock"});
  std::string text;
  for (const cli::DiffLine& d : diff) text += std::string(1, d.mark) + " " + d.text + "\n";
  CHECK(text == "- SETNX lock 1\n- EXPIRE lock 1\n+ SET lock 1 NX PX 1000\n  DEL lock\n");
  CHECK(cli::diff_lines({}, {"A"}).front().mark == '+');
  CHECK(cli::diff_lines({"A"}, {}).front().mark == '-');
}

TEST_CASE("try it: a varied scenario replaces the word that sets the same thing") {
  CHECK(cli::vary_scenario("set-nx-px clients=2 work=400ms slow=A:0:1.5s", "slow=A:0:2s") ==
        "set-nx-px clients=2 work=400ms slow=A:0:2s");
  CHECK(cli::vary_scenario("watchdog faults=[pause A @100ms for 1.5s] work=1s", "faults=[pause A @100ms for 500ms]") ==
        "watchdog faults=[pause A @100ms for 500ms] work=1s");
  CHECK(cli::vary_scenario("getset clock=B:+2s:0", "clock=A:+1s:0") == "getset clock=B:+2s:0 clock=A:+1s:0");
  CHECK(cli::vary_scenario("getset", "work=1s") == "getset work=1s");
}

TEST_CASE("sequence diagram: labels of crowded events never overlap") {
  // Three clients sending at the same instant, a fault and key effects at it too.
  render::Timeline t;
  t.key = "lock";
  t.start = sim::Instant{};
  t.end = sim::Instant{} + sim::milliseconds(50);
  for (const char* name : {"A", "B", "C"}) {
    render::ClientLane lane;
    lane.name = name;
    lane.spans.push_back({t.start, t.end, render::State::Waiting, false});
    for (int i = 0; i < 5; ++i) {
      render::Command c;
      c.sent = t.start + sim::milliseconds(i);
      c.executed = c.sent;
      c.text = i % 2 ? "SET lock token NX PX 1000" : "GET lock";
      c.reply = i % 2 ? "OK" : "(nil)";
      c.changed_key = i % 2 == 1;
      lane.commands.push_back(c);
    }
    t.clients.push_back(lane);
  }
  t.faults.push_back({t.start, sim::milliseconds(10), "A", "pause"});
  t.key_moments.push_back({t.start, render::KeyMoment::Kind::Set, 0, render::kNoClient, lock::Purpose::Other, "", ""});
  t.key_moments.push_back({t.start, render::KeyMoment::Kind::Expired, render::kNoClient, 0, lock::Purpose::Other, "", ""});
  t.highlights.push_back({{0, 1}, t.start, t.start + sim::milliseconds(1), "mutual-exclusion", "A and B both held lock"});
  const render::SequenceLayout layout = render::layout_sequence(t);
  CHECK(layout.steps >= 15);
  CHECK(test::xml_problem(layout.svg).empty());
  for (size_t i = 0; i < layout.labels.size(); ++i)
    for (size_t j = i + 1; j < layout.labels.size(); ++j) {
      INFO(layout.labels[i].text << " | " << layout.labels[j].text);
      CHECK_FALSE(layout.labels[i].box.intersects(layout.labels[j].box));
    }
}

TEST_CASE("the text tour: list's order, the database locks last, short, statistics only with --verbose") {
  Result r = run_locksim("tour");
  REQUIRE(r.status == 0);
  size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  CHECK(lines <= 329);  // half of the 658 lines it had before the teaching scenarios
  // Chapters in list's order.
  Result list = run_locksim("list");
  REQUIRE(list.status == 0);
  size_t pos = 0;
  for (const lock::Algorithm& a : lock::algorithms()) {
    INFO(a.id);
    const size_t in_list = list.out.find(std::string(". ") + std::string(a.id) + "\n");
    CHECK(in_list != std::string::npos);
    const size_t at = r.out.find("  " + std::string(a.id) + " ==", pos);
    REQUIRE(at != std::string::npos);
    pos = at;
  }
  CHECK(r.out.find("Appendix") > r.out.find("2/"));
  CHECK(r.out.find("THIS SCENARIO DOES NOT FAIL AS TOLD") == std::string::npos);
  CHECK(r.out.find("shrink runs") == std::string::npos);
  CHECK(r.out.find(" runs, same faults") == std::string::npos);
  Result verbose = run_locksim("tour --verbose --only set-nx-px");
  REQUIRE(verbose.status == 0);
  CHECK(verbose.out.find("shrink runs") != std::string::npos);
}

TEST_CASE("tour --html: one self-contained page, a chapter per failure, steps and try-it choices") {
  const std::string path = temp_path("tour.html");
  Result r = run_locksim("tour --html '" + path + "'");
  REQUIRE(r.status == 0);
  const std::string page = slurp(path);
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  // Self-contained: nothing fetched from anywhere.
  CHECK(page.find("http://") == page.find("http://www.w3.org/2000/svg"));
  CHECK(page.find("https://") == std::string::npos);
  CHECK(page.find("<script src") == std::string::npos);
  for (const cli::Lesson& l : cli::lessons()) {
    INFO(l.entry);
    CHECK(page.find("<section class=\"chapter\" id=\"" + std::string(l.entry) + "\"") != std::string::npos);
  }
  CHECK(page.find("This scenario does not fail as told") == std::string::npos);
  CHECK(page.find("REJECTED") != std::string::npos);
  CHECK(page.find("<select>") != std::string::npos);
  // What changed is shown as the commands one client sends, diffed against the version before.
  CHECK(page.find("<span class=\"add\">+ EXPIRE lock 1</span>") != std::string::npos);
  CHECK(page.find("<span class=\"del\">- DEL lock</span>") != std::string::npos);
  std::remove(path.c_str());
}

#ifdef LOCKSIM_CHROMIUM
namespace {
std::string chromium(const std::string& args) {
  const std::string profile = temp_path("chromium-profile");
  return std::string("'") + LOCKSIM_CHROMIUM +
         "' --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update "
         "--disable-sync --no-first-run --user-data-dir='" + profile + "' " + args + " 2>/dev/null";
}
}  // namespace

TEST_CASE("tour --html in headless Chromium: a chapter opens at a step, and two steps look different") {
  const std::string path = temp_path("browser.html");
  REQUIRE(run_locksim("tour --only set-nx-px --html '" + path + "'").status == 0);
  const std::string url = "file://" + path;
  // The DOM after the script ran: F07 focused at step 3, its step text shown.
  Result dom = shell(chromium("--virtual-time-budget=2000 --dump-dom '" + url + "#F07/step=3'"));
  REQUIRE(dom.status == 0);
  CHECK(dom.out.find("class=\"chapter focused\" id=\"F07\"") != std::string::npos);
  CHECK(dom.out.find("data-step-now=\"3\"") != std::string::npos);
  CHECK(dom.out.find("step 3 of ") != std::string::npos);
  // A try-it choice: the second run is shown.
  Result tried = shell(chromium("--virtual-time-budget=2000 --dump-dom '" + url + "#F07/try=1/step=1'"));
  REQUIRE(tried.status == 0);
  CHECK(tried.out.find("class=\"variation shown\" data-choice=\"slow=A:0:900ms\"") != std::string::npos);
  // Screenshots at two steps: both drawn, and not the same picture.
  const std::string early = temp_path("early.png"), late = temp_path("late.png");
  REQUIRE(shell(chromium("--window-size=1100,900 --screenshot='" + early + "' '" + url + "#F07/step=2'")).status == 0);
  REQUIRE(shell(chromium("--window-size=1100,900 --screenshot='" + late + "' '" + url + "#F07/step=12'")).status == 0);
  const std::string a = slurp(early), b = slurp(late);
  CHECK(a.rfind("\x89PNG", 0) == 0);
  CHECK(b.rfind("\x89PNG", 0) == 0);
  CHECK(a.size() > 10000);
  CHECK(a != b);
  for (const std::string& f : {path, early, late}) std::remove(f.c_str());
  shell("rm -rf '" + temp_path("chromium-profile") + "'");
}
#endif
