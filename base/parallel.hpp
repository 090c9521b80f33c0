#pragma once
// Runs body(0..jobs-1) on `jobs` threads and waits for them all. An exception in a
// thread (a runaway run, bad_alloc) would otherwise end the program through
// std::terminate; here the first one, by thread index, is rethrown after the join.
// For work outside any simulation only: each thread runs whole simulations.
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace locksim::base {

inline void run_on_threads(unsigned jobs, const std::function<void(unsigned)>& body) {
  std::vector<std::exception_ptr> failed(jobs);
  std::vector<std::thread> threads;
  threads.reserve(jobs);
  for (unsigned t = 0; t < jobs; ++t)
    threads.emplace_back([&, t] {
      try {
        body(t);
      } catch (...) {
        failed[t] = std::current_exception();
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace locksim::base
