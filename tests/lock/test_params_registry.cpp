// The registry (ids in evolution order, parameters that exist) and the
// parameter table (set/get round trips, errors for bad values).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "locksim/lock/params.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/lock/sources.hpp"

using namespace locksim::lock;
using namespace locksim::sim::literals;

TEST_CASE("registry: the built-in algorithms in evolution order", "[lock]") {
  // The Redis main line, then the variants (list and the tour show them so).
  const std::vector<std::string_view> ids = {"setnx-del", "setnx-expire",    "del-setnx", "getset",
                                             "set-nx-px", "token-check-del", "token-lua", "watchdog",
                                             "fenced",    "redlock",         "reentrant", "watch-multi",
                                             "fair"};
  const auto& all = algorithms();
  REQUIRE(all.size() >= ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    CAPTURE(i);
    CHECK(all[i].id == ids[i]);
    CHECK(find_algorithm(ids[i]) == &all[i]);
    CHECK_FALSE(all[i].summary.empty());
    CHECK(all[i].make != nullptr);
  }
  CHECK(find_algorithm("no-such-lock") == nullptr);
  // Safe without faults: no expiry at all, or a renewal.
  std::set<std::string_view> safe;
  for (size_t i = 0; i < ids.size(); ++i)
    if (all[i].safe_without_faults) safe.insert(all[i].id);
  CHECK(safe == std::set<std::string_view>{"setnx-del", "watchdog", "reentrant", "fenced"});
}

TEST_CASE("registry: every parameter an algorithm reads exists in the table", "[lock]") {
  for (const Algorithm& a : algorithms()) {
    CAPTURE(a.id);
    for (std::string_view name : a.params) {
      CAPTURE(name);
      CHECK(find_lock_param(name) != nullptr);
    }
  }
}

TEST_CASE("registry: every built-in algorithm names posts that exist, and prints their titles", "[lock]") {
  for (const Algorithm& a : algorithms()) {
    if (a.failures == "user variant") continue;  // a variant keeps its file's path there
    CAPTURE(a.id);
    CHECK_FALSE(a.documents.empty());
    std::string_view keys = a.documents;
    while (!keys.empty() && keys != "-") {
      const std::string_view key = keys.substr(0, keys.find(' '));
      CAPTURE(key);
      CHECK(find_source(key) != nullptr);
      keys.remove_prefix(std::min(keys.size(), key.size() + 1));
    }
  }
  CHECK(source_titles("approaches evolution") ==
        "\"Redis: ways to build a distributed lock\"; \"The evolution of Redis distributed locks, explained in full\"");
  CHECK(source_titles("-") == "beyond the posts");
  CHECK(source_titles("no-such-post") == "no-such-post");
  CHECK(find_source("layers")->title.find("第二层") == 0);
}

TEST_CASE("registry: a duplicate id is refused", "[lock]") {
  Algorithm dup = algorithms().front();
  CHECK_THROWS_AS(register_algorithm(dup), std::invalid_argument);
}

TEST_CASE("params: every parameter reads back what it printed", "[lock]") {
  const LockParams defaults;
  CHECK(to_string(defaults).empty());
  for (const ParamInfo& info : lock_param_table()) {
    CAPTURE(info.name);
    LockParams p;
    const std::string printed = info.get(defaults);
    CHECK_FALSE(info.set(p, printed).has_value());
    CHECK(p == defaults);
  }
}

TEST_CASE("params: set then get", "[lock]") {
  struct Case {
    const char* name;
    const char* value;
  };
  for (Case k : {Case{"key", "orders"}, Case{"lease", "250ms"}, Case{"retry", "1.5s"}, Case{"retry-jitter", "20ms"},
                 Case{"wait-limit", "30s"}, Case{"call-timeout", "50ms"}, Case{"renew-interval", "100ms"},
                 Case{"explicit-lease", "5s"}, Case{"release-if-unexpired", "true"}}) {
    CAPTURE(k.name, k.value);
    const ParamInfo* info = find_lock_param(k.name);
    REQUIRE(info);
    LockParams p;
    CHECK_FALSE(info->set(p, k.value).has_value());
    CHECK(info->get(p) == k.value);
    CHECK(to_string(p) == std::string(k.name) + "=" + k.value);
  }
  LockParams p;
  REQUIRE(find_lock_param("lease")->set(p, "1500ms") == std::nullopt);
  CHECK(p.lease == 1500_ms);
  REQUIRE(find_lock_param("release-if-unexpired")->set(p, "1") == std::nullopt);
  CHECK(p.release_if_unexpired);
  CHECK(to_string(p) == "lease=1.5s release-if-unexpired=true");
}

TEST_CASE("params: bad values are refused with a message and change nothing", "[lock]") {
  struct Case {
    const char* name;
    const char* value;
  };
  for (Case k : {Case{"lease", "abc"}, Case{"lease", "-1s"}, Case{"lease", ""}, Case{"retry", "10 parsecs"},
                 Case{"wait-limit", "5"}, Case{"key", ""}, Case{"key", "a b"}, Case{"key", "a=b"},
                 Case{"release-if-unexpired", "maybe"}}) {
    CAPTURE(k.name, k.value);
    const ParamInfo* info = find_lock_param(k.name);
    REQUIRE(info);
    LockParams p;
    auto error = info->set(p, k.value);
    REQUIRE(error.has_value());
    CHECK_FALSE(error->empty());
    CHECK(p == LockParams{});
  }
  CHECK(find_lock_param("no-such-param") == nullptr);
}
