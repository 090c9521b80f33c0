// --shard auto: the slice a batch engine gave this process, read from the
// variables it sets for each task of an array job.
#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>

#include "locksim/cli/commands.hpp"

namespace locksim::cli {

namespace {

std::optional<uint32_t> env_number(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text, text + std::char_traits<char>::length(text), value);
  if (ec != std::errc() || *end != '\0')
    throw UsageError(fmt::format("--shard auto: {}='{}' is not a whole number", name, text));
  return value;
}

Shard checked(uint32_t index, uint32_t count, const char* engine) {
  if (count == 0 || index >= count)
    throw UsageError(
        fmt::format("--shard auto: {} gives slice {} of {}; expected 0 <= index < count", engine, index, count));
  return Shard{index, count};
}

}  // namespace

// "auto" or "auto/N". The engines, in the order looked for:
//   Slurm job arrays: SLURM_ARRAY_TASK_ID (from SLURM_ARRAY_TASK_MIN), SLURM_ARRAY_TASK_COUNT;
//   Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX, the count from /N or LOCKSIM_SHARD_COUNT;
//   GNU parallel: PARALLEL_SEQ (from 1), the count from /N or LOCKSIM_SHARD_COUNT;
//   anything else: LOCKSIM_SHARD_INDEX and LOCKSIM_SHARD_COUNT.
Shard shard_from_environment(const std::string& spec) {
  std::optional<uint32_t> given;
  if (spec != "auto") {
    uint32_t n = 0;
    auto [end, ec] = std::from_chars(spec.data() + 5, spec.data() + spec.size(), n);
    if (spec.rfind("auto/", 0) != 0 || ec != std::errc() || end != spec.data() + spec.size() || n == 0)
      throw UsageError(fmt::format("--shard '{}': expected I/N, auto, or auto/N", spec));
    given = n;
  }
  const std::optional<uint32_t> count = given ? given : env_number("LOCKSIM_SHARD_COUNT");
  if (auto task = env_number("SLURM_ARRAY_TASK_ID")) {
    auto slurm_count = env_number("SLURM_ARRAY_TASK_COUNT");
    if (!slurm_count && !count) throw UsageError("--shard auto: Slurm sets no SLURM_ARRAY_TASK_COUNT; give auto/N");
    return checked(*task - env_number("SLURM_ARRAY_TASK_MIN").value_or(0), given ? *given : *slurm_count, "Slurm");
  }
  if (auto index = env_number("JOB_COMPLETION_INDEX")) {
    if (!count) throw UsageError("--shard auto: a Kubernetes Indexed Job needs auto/N or LOCKSIM_SHARD_COUNT");
    return checked(*index, *count, "Kubernetes");
  }
  if (auto seq = env_number("PARALLEL_SEQ")) {
    if (!count) throw UsageError("--shard auto: under GNU parallel give auto/N (N jobs) or LOCKSIM_SHARD_COUNT");
    if (*seq == 0) throw UsageError("--shard auto: PARALLEL_SEQ counts from 1");
    return checked(*seq - 1, *count, "GNU parallel");
  }
  if (auto index = env_number("LOCKSIM_SHARD_INDEX")) {
    if (!count) throw UsageError("--shard auto: LOCKSIM_SHARD_INDEX needs LOCKSIM_SHARD_COUNT or auto/N");
    return checked(*index, *count, "LOCKSIM_SHARD_INDEX");
  }
  throw UsageError(
      "--shard auto: no batch engine found (looked for SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, PARALLEL_SEQ, "
      "LOCKSIM_SHARD_INDEX); give --shard I/N");
}

}  // namespace locksim::cli
