#include "locksim/sim/random.hpp"
#include "locksim/sim/int128.hpp"

#include <cmath>

namespace locksim::sim {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t stable_hash(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

Rng::Rng(uint64_t seed) : seed_(seed) {
  uint64_t st = seed;
  for (auto& s : s_) s = splitmix64(st);
}

Rng Rng::stream(uint64_t id) const {
  uint64_t st = seed_ ^ (id * 0xd1342543de82ef95ULL);
  return Rng(splitmix64(st));
}

uint64_t Rng::below_rejecting(uint128 m, uint64_t n) {
  uint64_t low = static_cast<uint64_t>(m);
  uint64_t threshold = (0 - n) % n;
  while (low < threshold) {
    m = static_cast<uint128>(next()) * n;
    low = static_cast<uint64_t>(m);
  }
  return static_cast<uint64_t>(m >> 64);
}

double Rng::unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

bool Rng::bernoulli(double p) {
  if (p <= 0) return false;
  if (p >= 1) return true;
  return unit() < p;
}

Duration Rng::exponential(Duration mean) {
  // 1 - unit() lies in (0, 1], so the log is finite.
  double u = 1.0 - unit();
  double x = -portable_log(u) * static_cast<double>(mean.ns);
  return Duration{static_cast<int64_t>(x + 0.5)};
}

Duration Rng::pareto(Duration scale, double alpha, Duration cap) {
  double u = 1.0 - unit();
  double factor = portable_exp(-portable_log(u) / alpha);
  double x = factor * static_cast<double>(scale.ns);
  if (!(x < static_cast<double>(cap.ns))) return cap;  // also for NaN
  return Duration{static_cast<int64_t>(x + 0.5)};
}

double portable_log(double x) {
  if (!(x > 0)) return -INFINITY;
  int e = 0;
  double m = std::frexp(x, &e);  // exact: x = m * 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2;
    --e;
  }  // m in [0.707, 1.414)
  // ln(m) = 2 atanh(s), s = (m-1)/(m+1), |s| < 0.172: the series converges fast.
  double s = (m - 1) / (m + 1);
  double s2 = s * s, term = s, sum = 0;
  for (int k = 1; k <= 41; k += 2) {
    sum += term / k;
    term *= s2;
  }
  return 2 * sum + e * 0.69314718055994530942;
}

double portable_exp(double x) {
  if (x > 709) return INFINITY;
  if (x < -745) return 0;
  // x = k ln2 + r, |r| <= ln2/2; exp(r) by its Taylor series, then scale by 2^k exactly.
  double kf = x / 0.69314718055994530942;
  int k = static_cast<int>(kf < 0 ? kf - 0.5 : kf + 0.5);
  // ln2 split in two (Cody-Waite): k * kLn2Hi is exact (kLn2Hi has 21 trailing zero
  // bits), so r keeps full precision even for large k.
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double term = 1, sum = 1;
  for (int n = 1; n <= 24; ++n) {
    term *= r / n;
    sum += term;
  }
  return std::ldexp(sum, k);
}

Duration LatencyDist::draw(Rng& rng, Duration* spike) const {
  Duration d = base;
  if (jitter.ns > 0) d += rng.uniform(Duration::zero(), jitter);
  Duration spiked{};
  if (spike_probability > 0 && rng.bernoulli(spike_probability))
    spiked = rng.pareto(spike_scale, spike_alpha, spike_cap);
  if (spike) *spike = spiked;
  return d + spiked;
}

double LatencyDist::mean_ns() const {
  double m = static_cast<double>(base.ns) + static_cast<double>(jitter.ns) / 2;
  if (spike_probability > 0) {
    // E[min(X, cap)] for Pareto(scale, alpha): scale*alpha/(alpha-1) * (1 - (scale/cap)^(alpha-1)) + ... ;
    // computed exactly: integral of the survival function from 0 to cap.
    double xm = static_cast<double>(spike_scale.ns), c = static_cast<double>(spike_cap.ns), a = spike_alpha;
    double mean = c <= xm ? c : xm + xm / (a - 1) * (1 - std::pow(xm / c, a - 1));
    m += spike_probability * mean;
  }
  return m;
}

}  // namespace locksim::sim
