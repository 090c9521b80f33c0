#include "locksim/lock/text_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace locksim::lock {

std::optional<std::string> read_text_file(const std::string& path, size_t max_bytes, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<std::string> {
    if (error) *error = fmt::format("{}: {}", path, why);
    return std::nullopt;
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return fail(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail("not a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return fail(fmt::format("larger than {} bytes", max_bytes));
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return fail(std::strerror(errno));
  std::string text;
  char buffer[8192];
  // The size may change between stat and read: the cap holds on what is read.
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0;) {
    if (text.size() + n > max_bytes) return fail(fmt::format("larger than {} bytes", max_bytes));
    text.append(buffer, n);
  }
  if (std::ferror(file.get())) return fail("read error");
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  return text;
}

}  // namespace locksim::lock
