#pragma once
// Redis 7.0's declared ACL categories and key-spec flags of each command (internal;
// command_facts.cpp).
#include <string_view>
#include <vector>

namespace locksim::server {

struct CommandFacts {
  std::string_view name;        // lower case
  std::string_view categories;  // "write string fast", without the @
  std::string_view key_specs;   // "RW access delete|RW insert": each spec's flags, in order
};

// nullptr for a command Redis does not declare (LOCKSIM.* get admin, slow, dangerous).
const CommandFacts* command_facts(std::string_view lower_name);
// The words of `text` between separators (empty ones skipped).
std::vector<std::string_view> split_words(std::string_view text, char separator);
bool has_category(const CommandFacts& facts, std::string_view lower_category);

}  // namespace locksim::server
