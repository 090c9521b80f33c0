#pragma once
// Files as every part of locksim reads and writes them, safe against hostile
// paths: inputs are regular files of bounded size (never a FIFO that blocks or
// /dev/zero that never ends); outputs are written to a temporary file beside the
// target and renamed over it, so a failed write never leaves a half file, and a
// write error (a full disk, /dev/full) is always reported.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace locksim::sim {

// The default cap of an input file (scenarios, regression files, variants).
inline constexpr size_t kMaxInputBytes = 16u * 1024 * 1024;

// The whole content of a regular file of at most `cap` bytes, a leading UTF-8
// byte-order mark dropped; nothing, with a reason naming the path, otherwise.
// Every file a user names (scenarios, regression files, variants) is read here.
std::optional<std::string> read_input_file(const std::string& path, size_t cap = kMaxInputBytes,
                                           std::string* error = nullptr);

// Whether `path` can be written as an output: an existing regular file or a new
// name in a writable directory (tested by creating and removing a file there).
// Nothing when it can; the reason otherwise.
std::optional<std::string> output_path_problem(const std::string& path);

// Writes `text` to a temporary file beside `path` (beside the file it links to,
// when it is a symbolic link), with the mode of the file it replaces, optionally
// fsyncs it, and renames it over that file. False, with a reason, on any error
// (nothing is left behind).
bool write_file_atomically(const std::string& path, std::string_view text, bool sync, std::string* error = nullptr);

// Removes the temporaries being written at this moment. Async-signal-safe: for a
// handler of a signal that ends the process (SIGINT, SIGTERM, SIGHUP).
void remove_pending_temporaries() noexcept;

}  // namespace locksim::sim
