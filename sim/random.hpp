#pragma once
// The simulation's own generator and distributions. std::*_distribution give
// different numbers on different standard libraries, so every draw here is
// defined by integer math (and, for the continuous ones, by IEEE basic
// operations only: no libm call whose last bit may differ between platforms).
#include <cstdint>
#include <string_view>

#include "locksim/sim/int128.hpp"
#include "locksim/sim/time.hpp"

namespace locksim::sim {

// splitmix64: seeds generators and derives independent streams.
uint64_t splitmix64(uint64_t& state);
// A stable 64-bit hash of a name, for deriving named streams (FNV-1a).
uint64_t stable_hash(std::string_view text);

// xoshiro256** by Blackman and Vigna.
class Rng {
 public:
  explicit Rng(uint64_t seed = 0);
  // Inline, as below() and uniform(): every latency, think time and token draws here.
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // An independent generator for one purpose (a node, a link); drawing from it
  // never shifts the draws of other streams, which keeps shrinking stable.
  Rng stream(uint64_t id) const;
  Rng stream(std::string_view name) const { return stream(stable_hash(name)); }

  // Uniform in [0, n), unbiased (Lemire's multiply-and-reject). n > 0.
  uint64_t below(uint64_t n) {
    uint128 m = static_cast<uint128>(next()) * n;
    if (static_cast<uint64_t>(m) < n) [[unlikely]]
      return below_rejecting(m, n);
    return static_cast<uint64_t>(m >> 64);
  }
  // Uniform in [lo, hi], inclusive.
  int64_t uniform(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (span == UINT64_MAX) return static_cast<int64_t>(next());
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + below(span + 1));
  }
  Duration uniform(Duration lo, Duration hi) { return {uniform(lo.ns, hi.ns)}; }
  // Uniform in [0, 1) with 53 random bits.
  double unit();
  // true with probability p (clamped to [0, 1]).
  bool bernoulli(double p);
  // Exponential with the given mean, rounded to whole nanoseconds.
  Duration exponential(Duration mean);
  // Pareto (long-tailed): scale * U^(-1/alpha), capped at `cap`.
  Duration pareto(Duration scale, double alpha, Duration cap);

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  // below()'s rare case: the first product fell in the biased low range; may draw again.
  uint64_t below_rejecting(uint128 m, uint64_t n);
  uint64_t s_[4];
  uint64_t seed_;
};

// Natural log and exp from basic IEEE operations only (portable to the last bit).
double portable_log(double x);
double portable_exp(double x);

// A link's one-way latency: base + uniform jitter + a rare long-tailed spike.
struct LatencyDist {
  Duration base{};
  Duration jitter{};  // uniform in [0, jitter]
  double spike_probability = 0;
  Duration spike_scale{};  // Pareto scale of a spike
  double spike_alpha = 1.5;
  Duration spike_cap{};  // longest spike

  // `spike`, if given, gets the drawn spike's part of it (0: none): what a run's
  // evidence needs to tell a message the spikes delayed from one they did not.
  Duration draw(Rng& rng, Duration* spike = nullptr) const;
  bool operator==(const LatencyDist&) const = default;
  // The mean, exact for the uniform part and the capped Pareto part.
  double mean_ns() const;
};

}  // namespace locksim::sim
