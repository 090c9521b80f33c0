#include "locksim/sim/redis/command_stats.hpp"

#include <fmt/format.h>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/reply.hpp"

namespace locksim::redis {

std::string CommandStats::name_of(const CommandSpec& spec, const Command& command) {
  std::string name(spec.name);
  if ((spec.flags & kSubcommands) && command.size() > 1) {
    name += '|';
    for (char c : command[1].substr(0, 64)) name += ascii_lower(c);
  }
  return name;
}

void CommandStats::rejected(const CommandSpec& spec, const Command& command, std::string_view error_text) {
  if (paused) return;
  ++commands_[name_of(spec, command)].rejected;
  error(error_text);
}

void CommandStats::ran(const CommandSpec& spec, const Command& command, const Reply& reply, bool error_counted) {
  if (paused) return;
  // An unknown subcommand is counted under its container, as Redis does.
  const bool unknown_sub = reply.is_error() && reply.str.find("unknown subcommand") != std::string::npos;
  CommandCounts& counts = commands_[unknown_sub ? std::string(spec.name) : name_of(spec, command)];
  ++counts.calls;
  if (!reply.is_error()) return;
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

void CommandStats::host_ran(std::string_view name, std::string_view reply) {
  if (paused) return;
  const bool failed = !reply.empty() && (reply[0] == '-' || reply[0] == '!');
  if (!name.empty()) {  // an unknown command counts its error only
    CommandCounts& counts = commands_[std::string(name)];
    ++counts.calls;
    counts.failed += failed;
  }
  if (!failed) return;
  std::string_view text = reply.substr(1);
  if (reply[0] == '!') text = text.substr(std::min(text.size(), text.find('\n') + 1));  // !<len>\r\n<text>
  error(text);
}

void CommandStats::reset() {
  commands_.clear();
  errors_.clear();
  total_errors_ = 0;
}

std::string CommandStats::commandstats_section() const {
  std::string out;
  for (const auto& [name, c] : commands_)
    out += fmt::format("cmdstat_{}:calls={},usec=0,usec_per_call=0.00,rejected_calls={},failed_calls={}\r\n", name,
                       c.calls, c.rejected, c.failed);
  return out;
}

std::string CommandStats::errorstats_section() const {
  std::string out;
  for (const auto& [code, count] : errors_) out += fmt::format("errorstat_{}:count={}\r\n", code, count);
  return out;
}

}  // namespace locksim::redis
