#pragma once
// A Lua variant named by its file, as check_lock's settings and regression
// lines name it: loaded and registered once per process (a second use of the
// same file finds it registered), and the hash of its content, which a saved
// regression keeps so that a replay can say the file changed since.
#include <optional>
#include <string>

#include "locksim/lock/registry.hpp"

namespace locksim::props {

// The registered algorithm of the variant in `path`; on failure, null and why
// (the file's own error, or another file already registered under its name).
const lock::Algorithm* use_variant_file(const std::string& path, std::string* error = nullptr);

// The SHA-1 of the file's bytes, as 40 hex digits; nullopt with why when unreadable.
std::optional<std::string> file_sha1(const std::string& path, std::string* error = nullptr);

}  // namespace locksim::props
