#pragma once
// A fault plan: timed faults the world applies. It prints as text and reads
// back exactly, so a failing scenario can be replayed from one line:
//   crash A @1.5s; restart A @3s; pause B @2s for 800ms; jump redis @4s by +2s;
//   cut A redis @3s for 2s; heal A redis @5s; reset A redis @1s
// A peer of "*" means every other node. A cut without "for" lasts until a heal.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/sim/time.hpp"

namespace locksim::sim {

enum class FaultKind : uint8_t { Crash, Restart, Pause, ClockJump, Cut, Heal, Reset };
std::string_view to_string(FaultKind);

struct Fault {
  FaultKind kind = FaultKind::Crash;
  std::string node;
  std::string peer;  // Cut, Heal, Reset
  Instant at;
  Duration amount{};  // Pause and Cut: how long (0 = until healed, for Cut); ClockJump: by how much
  bool operator==(const Fault&) const = default;
};

struct FaultPlan {
  std::vector<Fault> faults;
  bool empty() const { return faults.empty(); }
  bool operator==(const FaultPlan&) const = default;
};

std::string to_string(const Fault&);
std::string to_string(const FaultPlan&);  // "; "-separated, "none" when empty
// Reads what to_string printed (separators: ';' or newlines). On error, names the
// fault by its position and says what is wrong.
std::optional<FaultPlan> parse_fault_plan(std::string_view text, std::string* error = nullptr);

}  // namespace locksim::sim
