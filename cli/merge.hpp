#pragma once
// What `locksim merge` accepts as one shard (cli/merge.cpp), for the fuzzer.
#include <string>

namespace locksim::cli {

// Parses and validates `text` as a shard's 'check --json' output, as merge reads
// each file `name`: throws UsageError with the reason when it is not one.
void check_shard_text(const std::string& text, const std::string& name);

}  // namespace locksim::cli
