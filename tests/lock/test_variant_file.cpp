// Variant files: a lock written as data runs like its C++ twin, and a bad
// file names its line and the problem.
#include <catch2/catch.hpp>

#include "lock/simulation.hpp"
#include "lock/variant_file.hpp"

using namespace locksim;
using namespace locksim::lock;

namespace {

std::string error_of(std::string_view text) {
  std::string error;
  auto spec = parse_variant(text, "v.lock", &error);
  return spec ? "(parsed)" : error;
}

bool overlaps(const History& h) {
  std::vector<int> inside(h.clients().size(), 0);
  int holders = 0;
  for (const auto& e : h.events()) {
    if (e.step == Step::Enter) { ++inside[e.client]; if (++holders > 1) return true; }
    if ((e.step == Step::Leave || e.step == Step::Crashed) && inside[e.client] > 0) { --inside[e.client]; --holders; }
  }
  return false;
}

const Algorithm& registered(const std::string& text) {
  std::string error;
  auto spec = parse_variant(text, "test", &error);
  INFO(error);
  REQUIRE(spec);
  if (const Algorithm* a = find_algorithm(spec->name)) return *a;
  const Algorithm* a = register_variant(*spec, &error);
  INFO(error);
  REQUIRE(a);
  return *a;
}

const std::string kSetNxPx = "name: v-set-nx-px\nacquire: SET {key} 1 NX PX {lease_ms}\nacquired-if: OK\nrelease: DEL {key}\n";

}  // namespace

TEST_CASE("variant file: the example parses, with every directive") {
  std::string error;
  auto spec = load_variant_file(LOCKSIM_EXAMPLES_DIR "/watchdog.variant", &error);
  INFO(error);
  REQUIRE(spec);
  CHECK(spec->name == "my-watchdog");
  CHECK(spec->acquire.words == std::vector<std::string>{"SET", "{key}", "{token}", "NX", "PX", "{lease_ms}"});
  CHECK(spec->acquired_if == "OK");
  REQUIRE(spec->release.size() == 1);
  CHECK(spec->release[0].words.size() == 5);
  CHECK(spec->release[0].words[1].rfind("if redis.call('get', KEYS[1])", 0) == 0);
  REQUIRE(spec->renew);
  CHECK(spec->renew->line == 10);
}

TEST_CASE("variant file: bad files name the line and the problem") {
  CHECK(error_of("name: x\nacquire: SET {key} 1\nrelease: DEL {key}\n") == "(parsed)");
  CHECK(error_of("name: x\naquire: SET k 1\n") ==
        "v.lock:2: unknown directive 'aquire' (name, summary, acquire, acquired-if, after-acquire, release, "
        "released-if, renew, renewed-if)");
  CHECK(error_of("name: x\nacquire: SET \"k 1\n") ==
        "v.lock:2: unbalanced quotes, or a closing quote not followed by a space");
  CHECK(error_of("name: x\nacquire: SET k 1\nacquired-if: yes\n") ==
        "v.lock:3: expected a reply: OK, an integer, nil, not-nil, {token}, any or \"text\"");
  CHECK(error_of("# only a comment\nname: x\n  \nacquire:\n") == "v.lock:4: 'acquire' needs a value");
  CHECK(error_of("name x\n") == "v.lock:1: expected 'directive: value'");
  CHECK(error_of("acquire: SET k 1\nrelease: DEL k\n") == "v.lock: no 'name:' line");
  CHECK(error_of("name: x\nrelease: DEL k\n") == "v.lock: no 'acquire:' line");
  CHECK(error_of("name: x\nacquire: SET k 1\n") == "v.lock: no 'release:' line");
  CHECK(error_of("name: x\nacquire: SET k 1\nacquire: SET k 2\n") ==
        "v.lock:3: a second 'acquire' (use after-acquire for more commands)");
  std::string error;
  CHECK_FALSE(load_variant_file("/nonexistent.variant", &error));
  CHECK(error == "cannot read variant file '/nonexistent.variant'");
}

TEST_CASE("variant file: a name already taken is refused") {
  std::string error;
  auto spec = parse_variant("name: token-lua\nacquire: SET {key} 1\nrelease: DEL {key}\n", "dup.lock", &error);
  REQUIRE(spec);
  CHECK(register_variant(*spec, &error) == nullptr);
  CHECK(error == "dup.lock: an algorithm named 'token-lua' exists already");
}

TEST_CASE("variant file: set-nx-px written as data breaks under slow work exactly like its C++ twin") {
  const Algorithm& variant = registered(kSetNxPx);
  SimulationConfig c;
  c.algorithm = std::string(variant.id);
  c.workload.clients = 2;
  c.workload.iterations = 1;
  c.workload.slow_work.push_back({0, 0, 1500_ms});
  c.seed = 2;
  Simulation as_data(c);
  as_data.run();
  c.algorithm = "set-nx-px";
  Simulation as_code(c);
  as_code.run();
  CHECK(overlaps(as_data.history()));
  CHECK(overlaps(as_code.history()));
  // The same steps in the same order (times differ a little: the variant
  // draws a token, which moves its client's later random draws).
  REQUIRE(as_data.history().events().size() == as_code.history().events().size());
  for (size_t i = 0; i < as_data.history().events().size(); ++i)
    CHECK(as_data.history().events()[i].step == as_code.history().events()[i].step);
}

TEST_CASE("variant file: the example watchdog renews and keeps long work exclusive") {
  std::string error;
  auto spec = load_variant_file(LOCKSIM_EXAMPLES_DIR "/watchdog.variant", &error);
  REQUIRE(spec);
  const Algorithm* a = find_algorithm(spec->name);
  if (!a) a = register_variant(*spec, &error);
  REQUIRE(a);
  SimulationConfig c;
  c.algorithm = "my-watchdog";
  c.workload.clients = 3;
  c.workload.slow_work.push_back({0, 0, 3_s});  // under the 5 s wait limit of the others
  Simulation sim(c);
  sim.run();
  CHECK_FALSE(overlaps(sim.history()));
  int renewals = 0, acquired = 0;
  for (const auto& e : sim.history().events()) {
    renewals += e.step == Step::Renewed;
    acquired += e.step == Step::Acquired;
  }
  CHECK(renewals >= 8);  // a 3 s hold renews every 333 ms
  CHECK(acquired == 9);
}

TEST_CASE("variant file: a name is a word a scenario can carry") {
  CHECK(error_of("name: my lock\n") == "v.lock:1: a name is letters, digits, '.', '_' and '-'");
  CHECK(error_of("name: a[b]\n") == "v.lock:1: a name is letters, digits, '.', '_' and '-'");
}

TEST_CASE("variant file: a renewal's placeholders are filled afresh at each send") {
  const Algorithm& variant = registered(
      "name: v-stamped\nacquire: SET {key} {token} NX PX {lease_ms}\nrelease: DEL {key}\n"
      "renew: SET {key}:renewed {now_ms}\nrenewed-if: OK\n");
  SimulationConfig c;
  c.algorithm = std::string(variant.id);
  c.workload.clients = 1;
  c.workload.iterations = 1;
  c.workload.slow_work.push_back({0, 0, 2_s});
  Simulation sim(c);
  sim.run();
  std::vector<std::string> stamps;
  for (const auto& e : sim.history().events())
    if (e.step == Step::KeySet && e.key == "lock:renewed" && e.new_value) stamps.push_back(*e.new_value);
  REQUIRE(stamps.size() >= 3);
  CHECK(stamps[0] != stamps[1]);
  CHECK(stamps[1] != stamps[2]);
}
