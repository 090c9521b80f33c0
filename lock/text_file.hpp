#pragma once
// Reads a text file a user named (a variant, say), with the limits every input
// gets: a regular file only (not a directory, FIFO or device, which could block
// or never end), at most max_bytes, and a UTF-8 byte-order mark dropped.
#include <cstddef>
#include <optional>
#include <string>

namespace locksim::lock {

// The file's text, or nothing with `error` naming the file and the problem.
std::optional<std::string> read_text_file(const std::string& path, size_t max_bytes, std::string* error = nullptr);

}  // namespace locksim::lock
