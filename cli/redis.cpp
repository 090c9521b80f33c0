// The commands that need props/ (the explorer, the catalogue, the scenario
// text format). Their options are parsed and validated already; the calls
// into props slot in here.
#include <fmt/format.h>

#include <charconv>
#include <iostream>

#include "cli/commands.hpp"

#if __has_include("sim/redis/console.hpp")
#include "sim/redis/console.hpp"
#define LOCKSIM_HAVE_CONSOLE 1
#endif

namespace locksim::cli {

namespace {

int not_yet(const char* what) {
  std::cerr << "locksim: " << what << " is not yet available in this build (it needs the explorer of props/)\n";
  return kNotYetAvailable;
}

// "I/N" with 1 <= I <= N.
std::pair<unsigned, unsigned> parse_shard(const std::string& s) {
  unsigned i = 0, n = 0;
  size_t slash = s.find('/');
  bool ok = slash != std::string::npos;
  if (ok) {
    auto r1 = std::from_chars(s.data(), s.data() + slash, i);
    auto r2 = std::from_chars(s.data() + slash + 1, s.data() + s.size(), n);
    ok = r1.ec == std::errc() && r1.ptr == s.data() + slash && r2.ec == std::errc() && r2.ptr == s.data() + s.size();
  }
  if (!ok || n == 0 || i == 0 || i > n) throw UsageError(fmt::format("--shard '{}': expected I/N with 1 <= I <= N, e.g. 2/8", s));
  return {i, n};
}

}  // namespace

int cmd_check(const CheckOptions& options) {
  (void)make_config(options.scenario);  // validates the algorithm and every override
  (void)parse_shard(options.shard);
  static const char* kinds[] = {"crash", "pause", "jump", "cut", "reset", "slow"};
  for (const auto& k : options.fault_kinds) {
    bool known = false;
    for (const char* x : kinds) known = known || k == x;
    if (!known) throw UsageError(fmt::format("--fault-kinds: unknown kind '{}' (crash, pause, jump, cut, reset, slow)", k));
  }
  return not_yet("'check'");
}

int cmd_catalogue(const CatalogueOptions&) { return not_yet("'catalogue'"); }

int cmd_replay(const ReplayOptions&) { return not_yet("'replay'"); }

int cmd_redis() {
#ifdef LOCKSIM_HAVE_CONSOLE
  return redis::run_console(std::cin, std::cout, std::cerr);
#else
  return not_yet("'redis'");
#endif
}

}  // namespace locksim::cli
