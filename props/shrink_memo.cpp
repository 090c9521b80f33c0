#include "locksim/props/shrink_memo.hpp"

#include <bit>
#include <string_view>

#include "locksim/props/scenario.hpp"

namespace locksim::props {

namespace {

// Mixes `v` into the digest (splitmix64's finaliser).
void memo_mix(uint64_t& h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
}

void memo_mix(uint64_t& h, std::string_view s) {
  memo_mix(h, s.size());
  for (char c : s) memo_mix(h, static_cast<unsigned char>(c));
}

// What shrinking changes: the seed, the clients, the faults, slow work, call faults,
// clock errors, iterations. A field left out only puts more scenarios in one bucket.
uint64_t memo_digest(const Scenario& s) {
  uint64_t h = 0;
  memo_mix(h, s.seed);
  memo_mix(h, s.algorithm);
  const lock::WorkloadParams& w = s.workload;
  memo_mix(h, (uint64_t{w.clients} << 32) | w.iterations);
  memo_mix(h, w.nested);
  for (const sim::Fault& f : s.faults.faults) {
    memo_mix(h, static_cast<uint64_t>(f.kind));
    memo_mix(h, f.node);
    memo_mix(h, f.peer);
    memo_mix(h, static_cast<uint64_t>(f.at.ns));
    memo_mix(h, static_cast<uint64_t>(f.amount.ns));
  }
  memo_mix(h, s.faults.faults.size());
  for (const lock::SlowWork& x : w.slow_work) {
    memo_mix(h, (uint64_t{x.client} << 32) | x.iteration);
    memo_mix(h, static_cast<uint64_t>(x.work.ns));
  }
  memo_mix(h, w.slow_work.size());
  for (const lock::CallFault& c : w.call_faults) {
    memo_mix(h, (uint64_t{c.client} << 32) | c.call);
    memo_mix(h, static_cast<uint64_t>(c.pause.ns));
    if (c.kind == lock::CallFault::Kind::Delay)  // only a delay's kind and target: the others' keys stay as they were
      memo_mix(h, 0xde1a0000u | static_cast<uint64_t>(c.on));
  }
  memo_mix(h, w.call_faults.size());
  for (sim::Duration d : w.clock_offsets) memo_mix(h, static_cast<uint64_t>(d.ns));
  memo_mix(h, w.clock_offsets.size());
  for (int64_t d : w.drifts_ppm) memo_mix(h, static_cast<uint64_t>(d));
  memo_mix(h, w.drifts_ppm.size());
  for (int64_t d : s.redis_drifts_ppm) memo_mix(h, static_cast<uint64_t>(d));
  memo_mix(h, s.redis_drifts_ppm.size());
  memo_mix(h, std::bit_cast<uint64_t>(s.latency.spike_probability));
  memo_mix(h, s.replica);
  memo_mix(h, static_cast<uint64_t>(s.lock.explicit_lease.ns));
  return h;
}

}  // namespace

std::optional<Violation> ShrinkMemo::operator()(const Scenario& candidate) {
  auto& same_digest = seen_[memo_digest(candidate)];
  for (const auto& [scenario, answer] : same_digest) {
    if (scenario == candidate) {
      ++hits_;
      return answer;
    }
  }
  std::optional<Violation> answer = inner_(candidate);
  same_digest.emplace_back(candidate, answer);
  return answer;
}

std::shared_ptr<const std::vector<Violation>> ReplayCache::violations(const Scenario& candidate) {
  const uint64_t digest = memo_digest(candidate);
  {
    std::lock_guard<std::mutex> guard(lock_);
    if (auto it = seen_.find(digest); it != seen_.end())
      for (const Entry& e : it->second)
        if (e.first == candidate) {
          ++hits_;
          return e.second;
        }
  }
  auto answer = std::make_shared<const std::vector<Violation>>(run_scenario(candidate, check_).verdict.violations);
  std::lock_guard<std::mutex> guard(lock_);
  if (entries_ >= most_) {
    seen_.clear();
    entries_ = 0;
  }
  std::vector<Entry>& same_digest = seen_[digest];
  for (const Entry& e : same_digest)
    if (e.first == candidate) return answer;  // another thread simulated it meanwhile: the same answer
  same_digest.emplace_back(candidate, answer);
  ++entries_;
  return answer;
}

size_t ReplayCache::hits() const {
  std::lock_guard<std::mutex> guard(lock_);
  return hits_;
}

StillFails memoized(StillFails still_fails) {
  auto memo = std::make_shared<ShrinkMemo>(std::move(still_fails));
  return [memo](const Scenario& candidate) { return (*memo)(candidate); };
}

}  // namespace locksim::props
