// The command table's lookup (command_table.cpp packs a name into two words and
// lowercases them a word at a time): every name is found in any case, at every length
// from 1 to 16 bytes, and nothing else is; the deny-oom flag marks Redis's CMD_DENYOOM
// commands only.
#include <catch2/catch.hpp>

#include <string>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/memory.hpp"

using namespace locksim::redis;

namespace {
std::string upper(std::string text) {
  for (char& c : text)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return text;
}
std::string alternating(std::string text) {
  for (size_t i = 0; i < text.size(); i += 2)
    if (text[i] >= 'a' && text[i] <= 'z') text[i] = static_cast<char>(text[i] - 'a' + 'A');
  return text;
}
}  // namespace

TEST_CASE("every command of the table is found by its name in any case", "[redis][command_table]") {
  for (const CommandSpec& spec : all_commands()) {
    const std::string name(spec.name);
    INFO(name);
    CHECK(find_command(name) == &spec);
    CHECK(find_command(upper(name)) == &spec);
    CHECK(find_command(alternating(name)) == &spec);
    CHECK(&all_commands()[spec.slot] == &spec);
  }
}

TEST_CASE("a name that differs from a command's by a byte, a NUL or its length is not that command",
          "[redis][command_table]") {
  for (const CommandSpec& spec : all_commands()) {
    const std::string name(spec.name);
    INFO(name);
    CHECK(find_command(name + std::string(1, '\0')) == nullptr);
    CHECK(find_command(std::string(1, '\0') + name) == nullptr);
    const CommandSpec* longer = find_command(name + "x");
    CHECK((longer == nullptr || longer->name == name + "x"));
    const CommandSpec* shorter = find_command(name.substr(0, name.size() - 1));
    CHECK((shorter == nullptr || shorter->name == name.substr(0, name.size() - 1)));
    for (size_t i = 0; i < name.size(); ++i) {
      std::string changed = name;
      changed[i] = static_cast<char>(changed[i] ^ 0x20);  // a letter's case is no change; '_' and '|' are
      const CommandSpec* found = find_command(changed);
      if (name[i] >= 'a' && name[i] <= 'z')
        CHECK(found == &spec);
      else
        CHECK(found != &spec);
      changed[i] = '\0';
      CHECK(find_command(changed) == nullptr);
    }
  }
  // Letters' neighbours in ASCII are not letters: '@' is not '`', '[' is not '{'.
  CHECK(find_command("g@t") == nullptr);
  CHECK(find_command("get[") == nullptr);
  CHECK(find_command("") == nullptr);
  CHECK(find_command("zrevrangebyscorex") == nullptr);  // 17 bytes
  CHECK(find_command("\xc7\xc5\xd4") == nullptr);         // "GET" with the high bit set
}

TEST_CASE("deny-oom commands are Redis's: writes that may add data, not reads or removals",
          "[redis][command_table]") {
  for (const char* grows : {"set", "setnx", "append", "lpush", "sadd", "zadd", "hset", "incr", "restore"})
    CHECK(may_grow(*find_command(grows)));
  for (const char* keeps : {"get", "del", "expire", "eval", "exec", "lpop", "srem", "ttl", "info"})
    CHECK_FALSE(may_grow(*find_command(keeps)));
}
