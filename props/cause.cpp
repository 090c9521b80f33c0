#include "locksim/props/cause.hpp"

namespace locksim::props {

std::string_view to_string(Cause c) {
  switch (c) {
    case Cause::Unknown: return "unknown";
    case Cause::LeasePaused: return "lease-expired-paused";
    case Cause::LeaseOutworked: return "lease-expired-working";
    case Cause::RenewalStopped: return "renewal-stopped";
    case Cause::RedisClockJump: return "redis-clock-jump";
    case Cause::RedisClockDrift: return "redis-clock-drift";
    case Cause::ClientClockSkew: return "client-clock-skew";
    case Cause::StaleRelease: return "stale-release";
    case Cause::StaleRenewal: return "stale-renewal";
    case Cause::TakeoverRace: return "takeover-race";
    case Cause::RedisRestartLost: return "redis-restart-forgot-key";
    case Cause::FailoverLost: return "failover-lost-key";
    case Cause::RedlockForgotVote: return "redlock-master-forgot-vote";
    case Cause::WatchLost: return "watch-lost-on-reconnect";
    case Cause::FenceBackwards: return "fence-went-backwards";
    case Cause::DelayedWrite: return "delayed-write";
    case Cause::AmbiguousReply: return "ambiguous-reply";
    case Cause::CrashNoTtl: return "crash-left-key-without-ttl";
    case Cause::CrashBlocked: return "crashed-holder-blocked-waiters";
    case Cause::SelfDeadlock: return "nested-acquire-waits-on-itself";
    case Cause::InnerRelease: return "inner-release-freed-lock";
    case Cause::Overtaken: return "overtaken-by-later-arrivals";
    case Cause::RenewalOutlivedRelease: return "renewal-outlived-release";
    case Cause::QueueStalled: return "queue-stalled-by-dead-waiter";
    case Cause::RedisDown: return "redis-down";
    case Cause::NoValidityLeft: return "entered-with-no-validity-left";
    case Cause::LeaseDelayed: return "lease-expired-delayed";
    case Cause::RenewalLate: return "renewal-too-late";
    case Cause::RequestLost: return "request-lost";
    case Cause::WatchLostInFailover: return "watch-lost-in-failover";
    case Cause::NoQuorum: return "entered-without-quorum";
  }
  return "?";
}

std::optional<Cause> parse_cause(std::string_view text) {
  for (Cause c : kAllCauses)
    if (to_string(c) == text) return c;
  return std::nullopt;
}

std::string_view describe(Cause c) {
  switch (c) {
    case Cause::Unknown: return "a cause the classifier does not recognise";
    case Cause::LeasePaused: return "the lease expired while the holder was paused";
    case Cause::LeaseOutworked: return "the lease expired while the holder worked past it";
    case Cause::RenewalStopped: return "the lease expired after the holder's renewal stopped";
    case Cause::RedisClockJump: return "Redis's clock jumped and moved when the key expired (early forward, late back)";
    case Cause::RedisClockDrift: return "Redis's clock drifted and moved when the key expired (early fast, late slow)";
    case Cause::ClientClockSkew: return "a client's skewed clock misjudged a lease";
    case Cause::StaleRelease: return "a stale or delayed release deleted another holder's key";
    case Cause::StaleRenewal: return "a stale renewal changed another holder's key";
    case Cause::TakeoverRace: return "a racing acquire deleted or overwrote another holder's fresh key";
    case Cause::RedisRestartLost: return "Redis restarted without persistence and forgot the key";
    case Cause::FailoverLost: return "failover promoted a replica that never had the key";
    case Cause::RedlockForgotVote: return "a restarted Redlock master forgot its vote";
    case Cause::WatchLost: return "WATCH state was lost on reconnect";
    case Cause::FenceBackwards: return "the fencing counter went backwards";
    case Cause::DelayedWrite: return "an unfenced write reached the resource after the next holder's";
    case Cause::AmbiguousReply: return "a timed-out (ambiguous) reply";
    case Cause::CrashNoTtl: return "the holder crashed, leaving a key without a TTL";
    case Cause::CrashBlocked: return "the holder crashed and its key outlived the lease";
    case Cause::SelfDeadlock: return "a nested acquire waited on the lock its caller holds";
    case Cause::InnerRelease: return "an inner release freed the lock under the outer hold";
    case Cause::Overtaken: return "later arrivals got the lock first, again and again, while a client waited";
    case Cause::RenewalOutlivedRelease: return "a renewal kept the lock alive after its holder stopped holding it";
    case Cause::QueueStalled: return "the queue kept waiters waiting behind a waiter that was gone";
    case Cause::RedisDown: return "Redis crashed and had not come back: the lock's calls to it failed";
    case Cause::NoValidityLeft:
      return "the holder entered though its own clock said its acquire had taken the whole lease (no validity check)";
    case Cause::LeaseDelayed: return "the lease expired while slow replies held up a holder whose work fits it";
    case Cause::RenewalLate: return "the holder's renewals came further apart than the lease";
    case Cause::RequestLost:
      return "a request was lost on its way: the server never ran it, and its client waited out the call's timeout";
    case Cause::WatchLostInFailover:
      return "an acquire's WATCH was on the master that died: its EXEC ran unwatched on the promoted replica";
    case Cause::NoQuorum: return "a client entered holding the lock on fewer than a majority of the masters";
  }
  return "?";
}

}  // namespace locksim::props
