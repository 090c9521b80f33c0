#pragma once
// Why a violation could happen, read from the run itself (its history, its
// fault plan and its clocks) rather than guessed from the property: the
// mechanism (the lease expired while the holder was paused, Redis's clock
// jumped, a stale release deleted another holder's key...) and the fault that
// set it off. Two violations of one property with different causes are
// different failures: the inventory lists them apart, and the shrinker keeps
// the cause while it simplifies a run.
#include <cstdint>
#include <optional>
#include <string_view>

namespace locksim::props {

enum class Cause : uint8_t {
  Unknown,
  LeasePaused,        // the lease expired while the holder was paused
  LeaseOutworked,     // ... while the holder worked past it (no renewal)
  RenewalStopped,     // ... after the holder's renewals stopped reaching Redis
  RedisClockJump,     // the key expired early: Redis's clock jumped forward
  RedisClockDrift,    // ... Redis's clock ran fast
  ClientClockSkew,    // a client's clock (offset, drift or jump) misjudged a lease
  StaleRelease,       // a stale or delayed release deleted (or changed) another holder's key
  StaleRenewal,       // a stale renewal changed another holder's key
  TakeoverRace,       // an acquire deleted or overwrote another holder's fresh key
  RedisRestartLost,   // Redis restarted without persistence and forgot the key
  FailoverLost,       // failover promoted a replica that never had the key
  RedlockForgotVote,  // a restarted Redlock master forgot its vote
  WatchLost,          // WATCH state lost on reconnect: an EXEC ran unwatched
  FenceBackwards,     // the fencing counter went backwards
  DelayedWrite,       // an unfenced write reached the resource after the next holder's
  AmbiguousReply,     // a command timed out but ran (or did not) unknown to its client
  CrashNoTtl,         // the holder crashed, leaving a key without a TTL
  CrashBlocked,       // the holder crashed and its key outlived lease + slack
  SelfDeadlock,       // a nested acquire waited on the lock its caller holds
  InnerRelease,       // an inner release freed the lock under the outer hold
  Overtaken,          // later arrivals kept winning the retry race
  RenewalOutlivedRelease,  // a renewal kept re-arming the lock after its holder stopped holding it
  QueueStalled,            // the queue kept a waiter waiting behind a waiter that was gone
  RedisDown,               // Redis crashed and had not come back: the lock's calls to it failed
  NoValidityLeft,          // the holder entered when, by its own clock, its acquire had taken the whole lease
  LeaseDelayed,            // the lease expired while slow replies held up a holder whose work fits it
  RenewalLate,             // the holder's renewals came further apart than the lease
  RequestLost,             // a request was lost on its way: never run, its client waited out its call's timeout
  WatchLostInFailover,     // an acquire WATCHed the master that died; its EXEC ran unwatched on the promoted replica
  NoQuorum,                // on several masters, a client entered holding the lock on fewer than a majority
};
inline constexpr Cause kAllCauses[] = {
    Cause::Unknown,           Cause::LeasePaused,     Cause::LeaseOutworked,   Cause::RenewalStopped,
    Cause::RedisClockJump,    Cause::RedisClockDrift, Cause::ClientClockSkew,  Cause::StaleRelease,
    Cause::StaleRenewal,      Cause::TakeoverRace,    Cause::RedisRestartLost, Cause::FailoverLost,
    Cause::RedlockForgotVote, Cause::WatchLost,       Cause::FenceBackwards,   Cause::DelayedWrite,
    Cause::AmbiguousReply,    Cause::CrashNoTtl,      Cause::CrashBlocked,     Cause::SelfDeadlock,
    Cause::InnerRelease,      Cause::Overtaken,       Cause::RenewalOutlivedRelease, Cause::QueueStalled, Cause::RedisDown, Cause::NoValidityLeft,
    Cause::LeaseDelayed,      Cause::RenewalLate,     Cause::RequestLost,      Cause::WatchLostInFailover,
    Cause::NoQuorum};
// "lease-paused", "redis-clock-jump", ...
std::string_view to_string(Cause c);
std::optional<Cause> parse_cause(std::string_view text);
// "the lease expired while the holder was paused", ...
std::string_view describe(Cause c);

}  // namespace locksim::props
