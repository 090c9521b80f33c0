#pragma once
// A user's own lock: token + Lua compare-and-delete with random back-off.
namespace my {
// Adds "my-lock" to locksim's registry of algorithms (once).
void register_my_lock();
}  // namespace my
