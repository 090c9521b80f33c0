#pragma once
// 128-bit integers for exact time arithmetic (a GCC/Clang extension; the
// __extension__ marks it deliberate under -Wpedantic).
namespace locksim::sim {
__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;
}  // namespace locksim::sim
