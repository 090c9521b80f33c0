// The hash index beside a database's ordered keys (sim/redis/key_map.hpp): it must
// find exactly what the map holds, through growth, removals (backward shifts),
// the switch on and off around its thresholds, moves and SWAPDB, and leave every
// observable order to the map.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "locksim/sim/redis/key_map.hpp"
#include "model_fixture.hpp"

using locksim::redis::Entry;
using locksim::redis::KeyMap;
using locksim::redis::key_hash;
using locksim::redis::testing::Model;

namespace {

// The map's keys in iteration order.
std::vector<std::string> keys_of(const KeyMap& keys) {
  std::vector<std::string> out;
  for (const auto& [key, entry] : keys) out.push_back(key);
  return out;
}

std::vector<std::string> keys_of(const std::map<std::string, int>& reference) {
  std::vector<std::string> out;
  for (const auto& [key, value] : reference) out.push_back(key);
  return out;
}

Entry string_entry(int value) {
  Entry entry;
  entry.str = std::to_string(value);
  return entry;
}

}  // namespace

TEST_CASE("key index: the hash reads only the key's bytes", "[redis][keyspace]") {
  CHECK(key_hash("lock") == key_hash(std::string("lock")));
  CHECK(key_hash("lock") != key_hash("lock "));
  CHECK(key_hash("") != 0);
  // Pinned: the hash changes no outcome, but a change of it should be deliberate.
  CHECK(key_hash("lock") == 0x6363f6c516c5c121u);
  CHECK(key_hash("a-key-longer-than-eight-bytes") != key_hash("a-key-longer-than-eight-bytez"));
}

TEST_CASE("key index: finds exactly what the ordered map holds, in random churn", "[redis][keyspace]") {
  KeyMap keys;
  std::map<std::string, int> reference;
  uint64_t state = 12345;  // a fixed LCG: the same churn on every run
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  bool was_indexed = false, was_unindexed_after = false;
  for (int step = 0; step < 20'000; ++step) {
    // Phases that grow to a few hundred keys, then shrink to a handful: the index is
    // built and dropped several times.
    const bool growing = (step / 2'500) % 2 == 0;
    const std::string key = "k:" + std::to_string(next() % (growing ? 400 : 40)) + (next() % 3 ? "" : ":long-tail");
    const uint64_t action = next() % 10;
    if (action < (growing ? 6u : 2u)) {
      const bool added = keys.emplace(key, string_entry(step)).second;
      CHECK(added == reference.emplace(key, step).second);
    } else if (!growing && action < 6 && !reference.empty()) {  // shrink to a handful
      const std::string first = reference.begin()->first;
      keys.erase(keys.find(first));
      reference.erase(first);
    } else if (action < 9) {
      auto it = keys.find(key);
      REQUIRE((it != keys.end()) == (reference.count(key) == 1));
      if (it != keys.end()) {
        CHECK(it->first == key);
        CHECK(it->second.str == std::to_string(reference[key]));
        keys.erase(it);
        reference.erase(key);
      }
    } else {
      REQUIRE((keys.find(key) != keys.end()) == (reference.count(key) == 1));
    }
    if (keys.indexed()) was_indexed = true;
    if (was_indexed && !keys.indexed()) was_unindexed_after = true;
    if (step % 97 == 0) {
      REQUIRE(keys.index_agrees());
      REQUIRE(keys.size() == reference.size());
      REQUIRE(keys_of(keys) == keys_of(reference));
    }
  }
  CHECK(keys.index_agrees());
  CHECK(keys_of(keys) == keys_of(reference));
  CHECK(was_indexed);
  CHECK(was_unindexed_after);
}

TEST_CASE("key index: on from the threshold up, off at the lower one", "[redis][keyspace]") {
  KeyMap keys;
  for (size_t i = 0; i + 1 < KeyMap::kIndexFrom; ++i) keys.emplace("key" + std::to_string(i), Entry{});
  CHECK_FALSE(keys.indexed());
  keys.emplace("one more", Entry{});
  CHECK(keys.indexed());
  CHECK(keys.index_agrees());
  while (keys.size() > KeyMap::kIndexUntil + 1) keys.erase(keys.begin());
  CHECK(keys.indexed());
  keys.erase(keys.begin());
  CHECK_FALSE(keys.indexed());
  CHECK(keys.index_agrees());
  for (const auto& [key, entry] : keys) CHECK(keys.find(key) != keys.end());
}

TEST_CASE("key index: moved and swapped maps keep finding their own keys", "[redis][keyspace]") {
  KeyMap big, small;
  for (int i = 0; i < 100; ++i) big.emplace("big" + std::to_string(i), string_entry(i));
  small.emplace("small", string_entry(-1));
  swap(big, small);
  CHECK(small.indexed());
  CHECK_FALSE(big.indexed());
  CHECK(small.index_agrees());
  CHECK(big.index_agrees());
  CHECK(small.find("big42")->second.str == "42");
  CHECK(small.find("small") == small.end());
  CHECK(big.find("big42") == big.end());
  KeyMap moved(std::move(small));
  CHECK(moved.find("big7")->second.str == "7");
  CHECK(moved.index_agrees());
  CHECK(small.empty());  // NOLINT(bugprone-use-after-move): a moved-from map is empty and usable
  CHECK(small.index_agrees());
  small.emplace("again", Entry{});
  CHECK(small.find("again") != small.end());
  big = std::move(moved);
  CHECK(big.find("big99")->second.str == "99");
  CHECK(big.index_agrees());
}

TEST_CASE("key index: KEYS, SCAN and SWAPDB keep the ordered map's order among many keys", "[redis][keyspace]") {
  Model m;
  std::map<std::string, int> reference;
  for (int i = 0; i < 300; ++i) {
    const std::string key = "key:" + std::to_string((i * 7919) % 1000);
    m.run({"set", key, "v"});
    reference.emplace(key, i);
  }
  for (int i = 0; i < 300; i += 3) {
    const std::string key = "key:" + std::to_string((i * 7919) % 1000);
    CHECK(m.text({"del", key}) == "(integer) 1");
    CHECK(m.text({"get", key}) == "(nil)");
    reference.erase(key);
  }
  std::string expected;
  for (const auto& [key, value] : reference) expected += (expected.empty() ? "" : ", ") + ("\"" + key + "\"");
  CHECK(m.text({"keys", "*"}) == "[" + expected + "]");
  CHECK(m.text({"dbsize"}) == "(integer) " + std::to_string(reference.size()));
  m.run({"swapdb", "0", "1"});
  CHECK(m.text({"dbsize"}) == "(integer) 0");
  CHECK(m.text({"get", "key:919"}) == "(nil)");
  m.run({"select", "1"});
  CHECK(m.text({"keys", "*"}) == "[" + expected + "]");
  for (const auto& [key, value] : reference) REQUIRE(m.text({"get", key}) == "\"v\"");
}
