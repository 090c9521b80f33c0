#include "locksim/lock/command_pool.hpp"

#include <vector>

namespace locksim::lock {

namespace {
// A client has a call or two in flight at a time: a few dozen spent commands cover a
// deployment's clients; a thread's pool never holds more.
constexpr size_t kPoolMost = 64;
// A string that grew past this (a long script body) is not kept: the pool stays small.
constexpr size_t kWordMost = 4096;

std::vector<redis::Command>& pool() {
  thread_local std::vector<redis::Command> spent;
  return spent;
}
}  // namespace

redis::Command pooled_command(size_t words) {
  std::vector<redis::Command>& spent = pool();
  if (spent.empty()) return redis::Command(words);
  redis::Command c = std::move(spent.back());
  spent.pop_back();
  c.resize(words);  // every word is assigned next: their old text is not read
  return c;
}

void recycle_command(redis::Command&& command) {
  std::vector<redis::Command>& spent = pool();
  if (spent.size() >= kPoolMost || command.capacity() == 0) return;
  for (const std::string& word : command)
    if (word.capacity() > kWordMost) return;
  spent.push_back(std::move(command));
  command.clear();
}

}  // namespace locksim::lock
