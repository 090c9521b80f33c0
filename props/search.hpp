#pragma once
// The search `locksim check` makes, as settings rather than flags: the fault
// model drawn for an algorithm (its own deployment, the fault kinds asked for,
// the assumptions stated) — shared by `check` and the test kit's check_lock,
// so that a test looks exactly where the program does.
#include <cstdint>
#include <map>
#include <string>

#include "locksim/props/assumptions.hpp"
#include "locksim/props/defaults.hpp"
#include "locksim/props/fault_model.hpp"

namespace locksim::props {

struct SearchSettings {
  std::string algorithm;                           // a built-in, a registered C++ lock or a loaded variant
  std::string faults = "all";                      // fault kinds, as `check --faults`
  uint32_t clients = 0;                            // exactly this many (0: the model's 2 to 3)
  uint32_t clients_max = 0;                        // at most this many (0: the model's)
  uint32_t iterations = 0;                         // at most this many critical sections per client (0: the model's 3)
  uint32_t masters = 0;                            // independent masters (0: the algorithm's own deployment)
  bool replica = false;                            // one master with an asynchronous replica
  uint32_t nested = 0;                             // draw nested acquires up to this depth (0: the algorithm's default)
  std::map<std::string, std::string> lock_params;  // as the --lease=... flags
  std::string assume;                              // as `check --assume` (added to the algorithm's defaults; "none": none)
  std::string lag{};                               // as `check --lag`: "20ms" or "1ms..100ms" (empty: drawn 1ms..100ms)
  std::string failover{};                          // as `check --failover` (empty: drawn 50ms..the lease)
};

// Throws std::invalid_argument, with the message `check` prints, for an
// unknown algorithm, fault kind, lock parameter or assumption, or settings
// that contradict each other.
FaultModel search_model(const SearchSettings& s);

// The assumptions in force for these settings: the defaults of the algorithm on its
// deployment (`masters`: 0 for the one it declares) plus `assume` (or exactly none for
// "none"). Throws as search_model.
Assumptions assumptions_in_force(const std::string& algorithm, const std::string& assume, uint32_t masters = 0);

}  // namespace locksim::props
