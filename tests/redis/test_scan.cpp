// The SCAN family's cursor: below 2^53 (clients and Lua hold it as a double), and
// Redis's guarantee that every element present for the whole scan is returned, also
// while others are added and removed between the calls.
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "model_fixture.hpp"

using locksim::redis::Command;
using locksim::redis::Reply;
using locksim::redis::testing::Model;

namespace {
constexpr uint64_t kTwoTo53 = uint64_t{1} << 53;

uint64_t cursor_of(const Reply& r) {
  REQUIRE(r.type == Reply::Type::Array);
  REQUIRE(r.elements.size() == 2);
  return std::stoull(r.elements[0].str);
}

// Scans `prefix` (SCAN, or "HSCAN key" etc.) to its end; between calls `between` may change
// the data. Returns the names seen; `stride` is 2 for HSCAN/ZSCAN (name, value pairs).
template <class Between>
std::set<std::string> scan_all(Model& m, std::vector<std::string> prefix, size_t stride, Between between,
                               uint64_t* largest_cursor = nullptr) {
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int calls = 0;
  do {
    Command c(prefix.begin(), prefix.end());
    c.push_back(std::to_string(cursor));
    c.push_back("COUNT");
    c.push_back("10");
    const Reply r = m.server.execute(m.conn, c, m.now);
    cursor = cursor_of(r);
    REQUIRE(cursor < kTwoTo53);
    if (largest_cursor) *largest_cursor = std::max(*largest_cursor, cursor);
    for (size_t i = 0; i < r.elements[1].elements.size(); i += stride) seen.insert(r.elements[1].elements[i].str);
    between(calls++);
    REQUIRE(calls < 100000);
  } while (cursor != 0);
  return seen;
}
}  // namespace

TEST_CASE("SCAN's cursors stay below the table size, far below 2^53", "[scan]") {
  Model m;
  for (int i = 0; i < 100; ++i) m.run({"SET", "key:" + std::to_string(i), "v"});
  uint64_t largest = 0;
  const auto seen = scan_all(m, {"SCAN"}, 1, [](int) {}, &largest);
  CHECK(seen.size() == 100);
  CHECK(largest < 128);  // 100 keys: a table of 128 buckets, as Redis's
}

TEST_CASE("SCAN returns every key present for the whole scan while others come and go", "[scan]") {
  Model m;
  std::set<std::string> stable;
  for (int i = 0; i < 2000; ++i) {
    m.run({"SET", "stable:" + std::to_string(i), "v"});
    stable.insert("stable:" + std::to_string(i));
  }
  for (int i = 0; i < 2000; ++i) m.run({"SET", "doomed:" + std::to_string(i), "v"});
  // Between calls: first many new keys (the table grows from 4096 to 8192 buckets under
  // the cursor), then the doomed ones go (it shrinks back).
  int added = 0, deleted = 0;
  const auto seen = scan_all(m, {"SCAN"}, 1, [&](int call) {
    if (call < 40) {
      for (int j = 0; j < 60; ++j) m.run({"SET", "new:" + std::to_string(added++), "v"});
    } else {
      for (int j = 0; j < 100 && deleted < 2000; ++j) m.run({"DEL", "doomed:" + std::to_string(deleted++)});
      for (int j = 0; j < 100 && deleted >= 2000 && added > 0; ++j) m.run({"DEL", "new:" + std::to_string(--added)});
    }
  });
  for (const auto& key : stable) REQUIRE(seen.count(key) == 1);
}

TEST_CASE("HSCAN, SSCAN and ZSCAN keep the guarantee on values that grow during the scan", "[scan]") {
  Model m;
  for (int i = 0; i < 1000; ++i) {
    m.run({"HSET", "h", "f" + std::to_string(i), "v"});
    m.run({"SADD", "s", "m" + std::to_string(i)});
    m.run({"ZADD", "z", std::to_string(i), "m" + std::to_string(i)});
  }
  struct Case {
    std::vector<std::string> prefix;
    size_t stride;
    std::string name_prefix;
    std::function<void(int)> grow;
  };
  int n = 0;
  const std::vector<Case> cases = {
      {{"HSCAN", "h"}, 2, "f", [&](int) { m.run({"HSET", "h", "extra" + std::to_string(n++), "v"}); }},
      {{"SSCAN", "s"}, 1, "m", [&](int) { m.run({"SADD", "s", "extra" + std::to_string(n++)}); }},
      {{"ZSCAN", "z"}, 2, "m", [&](int) { m.run({"ZADD", "z", "1", "extra" + std::to_string(n++)}); }},
  };
  for (const Case& c : cases) {
    const auto seen = scan_all(m, c.prefix, c.stride, [&](int call) {
      for (int j = 0; j < 40; ++j) c.grow(call);
    });
    for (int i = 0; i < 1000; ++i) REQUIRE(seen.count(c.name_prefix + std::to_string(i)) == 1);
  }
}

TEST_CASE("A Lua loop that holds the cursor as a number scans every key", "[scan]") {
  Model m;
  for (int i = 0; i < 10000; ++i) m.run({"SET", "lock:" + std::to_string(i), "v"});
  const Reply r = m.run({"EVAL",
                         "local cursor, n = 0, 0\n"
                         "repeat\n"
                         "  local r = redis.call('SCAN', cursor, 'MATCH', 'lock:*', 'COUNT', 100)\n"
                         "  cursor = tonumber(r[1])\n"
                         "  n = n + #r[2]\n"
                         "until cursor == 0\n"
                         "return n",
                         "0"});
  REQUIRE(r.type == Reply::Type::Integer);
  CHECK(r.integer == 10000);
}

TEST_CASE("SCAN's order is fixed: the same data gives the same cursors", "[scan]") {
  Model a, b;
  for (int i = 0; i < 300; ++i) {
    a.run({"SET", "k" + std::to_string(i), "v"});
    b.run({"SET", "k" + std::to_string(299 - i), "v"});
  }
  CHECK(a.text({"SCAN", "0"}) == b.text({"SCAN", "0"}));
  CHECK(a.text({"SCAN", "17", "COUNT", "50"}) == b.text({"SCAN", "17", "COUNT", "50"}));
}
