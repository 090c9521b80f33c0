#include "locksim/lock/command_pool.hpp"

#include <vector>

namespace locksim::lock {

namespace {
// A client has a call or two in flight at a time: a few dozen spent commands cover a
// deployment's clients; a thread's pool never holds more.
constexpr size_t kSpentCommandsMost = 64;
// A string that grew past this (a long script body) is not kept: the pool stays small.
constexpr size_t kSpentWordMost = 4096;

std::vector<redis::Command>& spent_commands() {
  thread_local std::vector<redis::Command> spent;
  return spent;
}
}  // namespace

redis::Command pooled_command(size_t words) {
  std::vector<redis::Command>& spent = spent_commands();
  if (spent.empty()) return redis::Command(words);
  redis::Command c = std::move(spent.back());
  spent.pop_back();
  c.resize(words);  // every word is assigned next: their old text is not read
  return c;
}

void recycle_command(redis::Command&& command) {
  std::vector<redis::Command>& spent = spent_commands();
  if (spent.size() >= kSpentCommandsMost || command.capacity() == 0) return;
  for (const std::string& word : command)
    if (word.capacity() > kSpentWordMost) return;
  spent.push_back(std::move(command));
  command.clear();
}

}  // namespace locksim::lock
