#pragma once
// A scenario is a complete value — algorithm and parameters, clients,
// workload, network, clocks, faults, seed — and prints as one line that reads
// back exactly, so every failure comes with the command that replays it:
//
//   set-nx-px seed=7 clients=2 iterations=1 slow=A:0:1.5s faults=[pause B @2s for 800ms]
//
// Only what differs from the defaults is printed. Words:
//   <algorithm>  seed=N  clients=N  iterations=N  work=MIN..MAX  think=MIN..MAX
//   spread=D  nested=N  write=0|1  stop-when-lost=0|1  horizon=D  persistent=0|1
//   latency=BASE+JITTER  spikes=P:SCALE:ALPHA:CAP
//   clock=A:+OFFSET:PPM (per client, repeatable)  slow=A:ITERATION:WORK (repeatable)
//   call=A:N:crash | call=A:N:pause:D (before A's Nth Redis command; repeatable)
//   ids=0,2,3 (whose random streams each client draws; after a client was shrunk away)
//   masters=N (independent Redis masters, named redis1..redisN)  replica=0|1 (a replica named
//   "replica", promoted failover=D after the master dies; writes reach it lag=D later)
//   <lock parameter>=VALUE (lease=1s, retry=100ms, ...)  faults=[<fault plan>]
#include <optional>
#include <string>
#include <string_view>

#include "locksim/lock/simulation.hpp"

namespace locksim::props {

using Scenario = lock::SimulationConfig;

std::string to_string(const Scenario& s);
// The canonical form: per-client clock vectors trimmed to the last client with
// a non-zero offset or drift, and two delays of one call merged into one of their
// sum (they act as one). Printing and parsing give canonical scenarios.
void normalize(Scenario& s);
// On failure, says which word is wrong and why.
std::optional<Scenario> parse_scenario(std::string_view text, std::string* error = nullptr);

// A fault aimed at a client's Nth command, as the scenario writes it: "call=A:3:crash",
// "call=A:3:pause:800ms", "call=A:3:request-lost", "call=A:3:reply-lost",
// "call=A:3:delay:400ms"; or at its Nth write to the resource: "call=A:write2:delay:400ms".
std::string to_string(const lock::CallFault& f);

// The number of clients a client name stands for ("A" = 0), or nothing.
std::optional<uint32_t> client_index(std::string_view name);

}  // namespace locksim::props
