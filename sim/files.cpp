#include "locksim/sim/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <atomic>
#include <cerrno>
#include <climits>
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

// The temporaries being written now, for a signal handler to remove: fixed slots
// of plain characters, as nothing else may be touched in a handler.
struct PendingSlot {
  std::atomic<bool> claimed{false};
  std::atomic<bool> live{false};
  char path[PATH_MAX] = {};
};
constexpr int kPendingSlots = 16;
PendingSlot pending[kPendingSlots];

// Notes `path` as a temporary that a signal ending the process must remove, for
// as long as it lives. More temporaries than slots at once (never, in one
// process of ours) are simply not noted.
class PendingTemporary {
 public:
  explicit PendingTemporary(const std::string& path) {
    if (path.size() >= PATH_MAX) return;
    for (PendingSlot& s : pending)
      if (!s.claimed.exchange(true)) {
        std::memcpy(s.path, path.c_str(), path.size() + 1);
        s.live.store(true);
        slot_ = &s;
        return;
      }
  }
  ~PendingTemporary() {
    if (!slot_) return;
    slot_->live.store(false);
    slot_->claimed.store(false);
  }
  PendingTemporary(const PendingTemporary&) = delete;
  PendingTemporary& operator=(const PendingTemporary&) = delete;

 private:
  PendingSlot* slot_ = nullptr;
};

// The file a write to `path` lands in: symbolic links followed (at most 40, as
// the kernel does), so that the rename replaces the file a link points to and
// the link stays a link. A loop is left to open() to report (ELOOP).
std::string resolve_links(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    char target[PATH_MAX];
    const ssize_t n = ::readlink(current.c_str(), target, sizeof target - 1);
    if (n <= 0) return current;
    const std::string next(target, static_cast<size_t>(n));
    current = next.front() == '/' ? next : (std::filesystem::path(directory_of(current)) / next).string();
  }
  return current;
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
  const std::string probe = temporary_beside(resolve_links(path));
  const PendingTemporary noted(probe);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return std::nullopt;
}

void remove_pending_temporaries() noexcept {
  for (PendingSlot& s : pending)
    if (s.live.load()) ::unlink(s.path);
}

bool write_file_atomically(const std::string& path, std::string_view text, bool sync, std::string* error) {
  if (auto problem = output_path_problem(path)) return fail(error, *problem);
  const std::string target = resolve_links(path);
  // A file that exists keeps its permissions (a 0600 file stays private); a new
  // one gets 0666 less the umask, as any program's output.
  struct stat st {};
  const bool existed = ::stat(target.c_str(), &st) == 0;
  const std::string temp = temporary_beside(target);
  const PendingTemporary noted(temp);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return fail(error, fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  bool ok = (!existed || ::fchmod(fd, st.st_mode & 07777) == 0) && write_all(fd, text) && (!sync || ::fsync(fd) == 0);
  const int saved = errno;
  ok = (::close(fd) == 0) && ok;
  if (ok && ::rename(temp.c_str(), target.c_str()) == 0) {
    if (sync) {  // the rename itself survives a crash once the directory is synced
      const int dir = ::open(directory_of(target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
