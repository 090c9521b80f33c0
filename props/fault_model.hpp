#pragma once
// A fault model: which kinds of trouble a run may meet, and the base
// algorithm and workload they meet it with. It turns into a rapidcheck
// generator of scenarios, so that a failing scenario shrinks to a minimal one:
// fewest clients and iterations, fewest fault kinds and faults, shortest
// durations, simplest clocks. With swarm testing, each run enables a random
// subset of the kinds (which finds more than enabling all at once).
#include <rapidcheck.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/props/assumptions.hpp"
#include "locksim/props/property.hpp"
#include "locksim/props/scenario.hpp"

namespace locksim::props {

enum class FaultFamily : uint8_t {
  ClientCrash,    // crash a client at a drawn instant
  ClientRestart,  // ... and restart it later
  Pause,          // stop-the-world pause of a client (GC)
  SlowWork,       // a critical section longer than usual
  DelaySpikes,    // long-tailed network delays
  Cut,            // cut a client off Redis for a while
  Reset,          // reset a client's connection to Redis
  ClockSkew,      // client clock offsets
  ClockDrift,     // client clock rates
  ClockJump,      // a client's or Redis's wall clock steps
  RedisRestart,   // Redis crashes and restarts without persistence
  CrashAtCall,    // a client crashes just before its Nth command (between two commands of one algorithm)
  PauseAtCall,    // a client pauses just before its Nth command
  MasterCrash,    // a Redis master crashes for good (with a replica, the replica takes over)
  RedisDrift,     // a Redis node's clock runs fast or slow (a fast one expires keys early)
  LostAtCall,     // a client's Nth command loses its request (never runs) or its reply (ran): it times out
  DelayAtCall,    // a client's Nth command's request, or its Nth write to the resource, is held in flight longer
};
inline constexpr FaultFamily kAllFaultFamilies[] = {
    FaultFamily::ClientCrash, FaultFamily::ClientRestart, FaultFamily::Pause,        FaultFamily::SlowWork,
    FaultFamily::DelaySpikes, FaultFamily::Cut,           FaultFamily::Reset,        FaultFamily::ClockSkew,
    FaultFamily::ClockDrift,  FaultFamily::ClockJump,     FaultFamily::RedisRestart, FaultFamily::CrashAtCall,
    FaultFamily::PauseAtCall, FaultFamily::MasterCrash,   FaultFamily::RedisDrift,   FaultFamily::LostAtCall,
    FaultFamily::DelayAtCall};
std::string_view to_string(FaultFamily k);
std::optional<FaultFamily> parse_fault_kind(std::string_view text);
// "crash,pause,slow-work" -> kinds; error names the unknown one.
std::optional<std::vector<FaultFamily>> parse_fault_kinds(std::string_view text, std::string* error = nullptr);

struct FaultModel {
  Scenario base;  // algorithm, lock params, workload defaults
  uint32_t min_clients = 2, max_clients = 3;
  uint32_t max_iterations = 3;
  std::vector<FaultFamily> kinds;
  bool swarm = true;
  Duration window = sim::seconds(3);  // faults strike within [0, window]
  uint32_t max_faults = 2;            // per kind
  Duration max_downtime{};            // a restarted Redis is down at most this long (0: twice the lease)
  uint32_t max_call = 12;             // crash-, pause-, lost- and delay-at-call strike call 1..max_call
  // What check draws beyond fault kinds (all off by default, so that a
  // model written without them draws exactly as before):
  uint32_t nested = 0;                    // half the runs nest 1..nested acquires in each critical section
  bool redis_clock_jumps = true;          // a clock jump may strike a Redis node (false: clients only)
  Duration max_pause{};                   // longest drawn pause (0: three leases)
  bool failover_on_master_crash = false;  // a drawn master crash comes with a replica that takes over
  bool explicit_lease_mode = false;       // a quarter of the runs use the algorithm's explicit (unrenewed) lease
  bool contention = false;                // a quarter of the runs: 4-5 clients, short work, 3-4 iterations
  // A failover's timing, drawn whenever a replica is in play and a master crash is drawn
  // (the base's replica or one a drawn master crash brings): the replication lag and how
  // long after the master dies the replica is promoted, each in [min, max] (equal: pinned).
  // Zero max: the defaults, a lag of 1..100ms and a failover of 50ms..one lease.
  Duration lag_min{}, lag_max{};
  Duration failover_min{}, failover_max{};
  // The assumptions in force shape the faults. Half the runs (drawn_inside) are drawn
  // wholly inside them: every flag honoured (a restart keeps the data, sane clocks, no
  // failover, a crashed Redis comes back) and every bounded kind (work, pause, delay,
  // clock error) inside its bound, so that the search for the lock's own failures gets
  // a fixed share of the budget on every seed. The other half draw as without flags,
  // three draws of a bounded kind in four inside the bound and one beyond it: those
  // runs show what the deployment must rule out. (Nothing stated: drawn as always.)
  Assumptions assumed;
};

// Whether run `run` of an exploration of `model` is drawn wholly inside its assumptions:
// every other run (the even ones), when the model states any.
bool drawn_inside(const FaultModel& model, uint32_t run);

// `inside`: draw wholly inside model.assumed (see FaultModel::assumed).
rc::Gen<Scenario> scenario_generator(const FaultModel& model, bool inside = false);
// scenario_generator(model, inside)(random, size).value(), the same scenario, drawn without
// rapidcheck's generation machinery: no shrink tree, and no global state, so threads may
// draw at once (the explorer's draws; props/scenario_draws.hpp).
Scenario draw_scenario(const FaultModel& model, bool inside, const rc::Random& random, int size);

// The kinds of fault a scenario contains (what a failure in it needs, once shrunk), in kAllFaultFamilies order.
std::vector<FaultFamily> kinds_in(const Scenario& s);

}  // namespace locksim::props
