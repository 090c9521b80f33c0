#pragma once
// Spent Redis commands, kept for the next cmd(...). A simulated client builds a
// command for every call (its words, a token, a script's body) and the Redis node
// drops it once it has run: three or so allocations a call, for strings of the same
// few sizes. A thread keeps the commands its nodes ran, strings and all, and cmd()
// assigns the new words into strings that already have room. Only memory is reused:
// what a command says is exactly what it was built with.
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

#include "locksim/sim/redis/resp.hpp"

namespace locksim::lock {

// A command of `words` words from this thread's pool (empty strings that keep their
// room), or a new one.
redis::Command pooled_command(size_t words);
// Gives a command that has run back to this thread's pool (bounded; the rest are freed).
void recycle_command(redis::Command&& command);

namespace detail {
// A word into a pooled string: a string the caller gave away is taken as it is, any
// other word is copied into the room the string has.
template <class Word>
void put_word(std::string& to, Word&& word) {
  if constexpr (std::is_same_v<std::remove_cvref_t<Word>, std::string> && !std::is_lvalue_reference_v<Word>)
    to = std::move(word);
  else
    to.assign(std::string_view(word));
}
}  // namespace detail

}  // namespace locksim::lock
