#include "locksim/sim/redis/command_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "locksim/base/assert.hpp"
#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"

namespace locksim::redis {

std::string CommandStats::name_of(const CommandSpec& spec, const Command& command) {
  std::string name(spec.name);
  if ((spec.flags & kSubcommands) && command.size() > 1) {
    name += '|';
    for (char c : command[1].substr(0, 64)) name += ascii_lower(c);
  }
  return name;
}

// Every command runs through here: a command without subcommands is counted in a slot of
// its own in the command table's order (no name built, no lookup), the rest by name.
CommandCounts& CommandStats::counts_of(const CommandSpec& spec, const Command& command, bool whole_container) {
  if (whole_container || !(spec.flags & kSubcommands) || command.size() < 2) return counts_of_slot(spec.slot);
  return by_name_[name_of(spec, command)];
}

CommandCounts& CommandStats::counts_of_slot(size_t slot) {
  if (place_.empty()) place_.resize(all_commands().size());
  LOCKSIM_ASSERT(slot < place_.size(), "a command spec outside the command table");
  if (place_[slot] == 0) {
    by_spec_.push_back({static_cast<uint16_t>(slot), {}});
    place_[slot] = static_cast<uint16_t>(by_spec_.size());
  }
  return by_spec_[place_[slot] - 1u].second;
}

void CommandStats::rejected(const CommandSpec& spec, const Command& command, std::string_view error_text) {
  if (paused) return;
  ++counts_of(spec, command, false).rejected;
  error(error_text);
}

void CommandStats::ran(const CommandSpec& spec, const Command& command, const Reply& reply, bool error_counted) {
  if (paused) return;
  const bool failed = reply.is_error();
  // Redis finds no command for a container's unknown subcommand (processCommand): only
  // its error counts. (A command's own "unknown subcommand or wrong number of arguments"
  // is a failed call of it.)
  if (failed && (spec.flags & kSubcommands) && reply.str.starts_with(kUnknownSubcommand)) {
    if (!error_counted) error(reply.str);
    return;
  }
  CommandCounts& counts = counts_of(spec, command, false);
  ++counts.calls;
  if (!failed) return;
  ++counts.failed;
  if (!error_counted) error(reply.str);
}

void CommandStats::error(std::string_view text) {
  if (paused) return;
  ++total_errors_;
  std::string_view code = text.substr(0, std::min(text.find_first_of(" \r\n"), size_t{32}));
  if (code.empty()) code = "ERR";
  if (auto it = errors_.find(code); it != errors_.end())
    ++it->second;
  else if (errors_.size() < 128)  // Redis stops adding codes past 128
    errors_.emplace(std::string(code), 1);
}

void CommandStats::host_ran(std::string_view name, std::string_view reply, bool refused) {
  if (paused) return;
  const bool failed = !reply.empty() && (reply[0] == '-' || reply[0] == '!');
  // Refused before it ran, as Redis's processCommand refuses: an unknown subcommand finds
  // no command to count (its error only), a wrong arity is a rejected call.
  const std::string_view text_of_error = failed ? reply.substr(1) : std::string_view{};
  const bool unknown_sub = text_of_error.starts_with(kUnknownSubcommand);
  const bool wrong_arity = failed && (refused || text_of_error.starts_with(kWrongArity));
  if (!name.empty() && !unknown_sub) {  // an unknown command counts its error only
    const CommandSpec* spec = name.find('|') == std::string_view::npos ? find_command(name) : nullptr;
    CommandCounts* counts = nullptr;
    if (spec) {
      counts = &counts_of(*spec, Command{}, true);  // one line with the model's own count of it
    } else {
      auto it = by_name_.find(name);
      if (it == by_name_.end()) it = by_name_.emplace(std::string(name), CommandCounts{}).first;
      counts = &it->second;
    }
    if (wrong_arity) {
      ++counts->rejected;
    } else {
      ++counts->calls;
      counts->failed += failed;
    }
  }
  if (!failed) return;
  std::string_view text = reply.substr(1);
  if (reply[0] == '!') text = text.substr(std::min(text.size(), text.find('\n') + 1));  // !<len>\r\n<text>
  error(text);
}

void CommandStats::reset() {
  by_spec_.clear();
  place_.clear();
  by_name_.clear();
  errors_.clear();
  total_errors_ = 0;
}

std::string CommandStats::commandstats_section() const {
  std::vector<std::pair<std::string_view, const CommandCounts*>> lines;
  const std::span<const CommandSpec> table = all_commands();
  for (const auto& [slot, counts] : by_spec_) lines.emplace_back(table[slot].name, &counts);
  for (const auto& [name, counts] : by_name_) lines.emplace_back(name, &counts);
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& [name, c] : lines)
    out += fmt::format("cmdstat_{}:calls={},usec=0,usec_per_call=0.00,rejected_calls={},failed_calls={}\r\n", name,
                       c->calls, c->rejected, c->failed);
  return out;
}

std::string CommandStats::errorstats_section() const {
  std::string out;
  for (const auto& [code, count] : errors_) out += fmt::format("errorstat_{}:count={}\r\n", code, count);
  return out;
}

}  // namespace locksim::redis
