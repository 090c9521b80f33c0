#include "locksim/sim/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace locksim::sim {

namespace {

bool fail(std::string* error, std::string why) {
  if (error) *error = std::move(why);
  return false;
}

std::string directory_of(const std::string& path) {
  const std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

// A name beside `path` that no other process of ours uses.
std::string temporary_beside(const std::string& path) {
  static unsigned counter = 0;
  const std::filesystem::path p(path);
  return (std::filesystem::path(directory_of(path)) /
          fmt::format(".{}.tmp.{}.{}", p.filename().string(), getpid(), counter++))
      .string();
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

std::optional<std::string> read_input_file(const std::string& path, size_t cap, std::string* error) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    fail(error, fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
    return std::nullopt;
  }
  struct stat st {};
  std::string text;
  std::string why;
  if (::fstat(fd, &st) != 0)
    why = std::strerror(errno);
  else if (!S_ISREG(st.st_mode))
    why = "not a regular file";
  else if (static_cast<uint64_t>(st.st_size) > cap)
    why = fmt::format("larger than {} bytes", cap);
  char buffer[65536];
  while (why.empty()) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) why = std::strerror(errno);
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > cap) why = fmt::format("larger than {} bytes", cap);  // it grew while read
  }
  ::close(fd);
  if (!why.empty()) {
    fail(error, fmt::format("cannot read '{}': {}", path, why));
    return std::nullopt;
  }
  // An editor's UTF-8 byte-order mark is not part of the text (it would read as an unknown word).
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  return text;
}

std::optional<std::string> output_path_problem(const std::string& path) {
  if (path.empty()) return std::string("the path is empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) return fmt::format("'{}' is not a regular file", path);
    if (::access(path.c_str(), W_OK) != 0) return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  } else if (errno != ENOENT) {
    return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  }
  // The file is written beside itself and renamed: the directory must take a new file.
  const std::string probe = temporary_beside(path);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return std::nullopt;
}

bool write_file_atomically(const std::string& path, std::string_view text, bool sync, std::string* error) {
  if (auto problem = output_path_problem(path)) return fail(error, *problem);
  const std::string temp = temporary_beside(path);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return fail(error, fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  bool ok = write_all(fd, text) && (!sync || ::fsync(fd) == 0);
  const int saved = errno;
  ok = (::close(fd) == 0) && ok;
  if (ok && ::rename(temp.c_str(), path.c_str()) == 0) {
    if (sync) {  // the rename itself survives a crash once the directory is synced
      const int dir = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
      }
    }
    return true;
  }
  const int cause = ok ? errno : saved;
  ::unlink(temp.c_str());
  return fail(error, fmt::format("cannot write '{}': {}", path, std::strerror(cause ? cause : EIO)));
}

}  // namespace locksim::sim
