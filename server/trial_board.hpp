#pragma once
// The marks a client program sends about its own critical sections, for `locksim trial`:
// LOCKSIM.ENTER resource [token], LOCKSIM.EXIT resource and LOCKSIM.WRITE resource token
// value (a fenced resource that refuses a token lower than one it has accepted). Each is
// recorded with the host's steady time and the connection's client name. One board may
// be shared by several servers (a Redlock trial): the resource lives outside any one
// Redis, so a Redis restart does not reset it. Thread-safe: each server runs on a thread
// of its own, and the trial runner reads the board from another.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace locksim::server {

struct TrialMark {
  enum class Kind : uint8_t { Enter, Exit, WriteAccepted, WriteRejected };
  Kind kind = Kind::Enter;
  int64_t at_ns = 0;  // the host's steady clock (TrialBoard::now_ns)
  std::string client;
  std::string resource;
  std::optional<int64_t> token;  // Enter: the hold's token, if the client gave one; writes: the write's
  int64_t highest = -1;          // writes: the highest token the resource had accepted before (-1: none)
};

class TrialBoard {
 public:
  // The most marks kept (about 100 bytes each); beyond it a mark is refused (the client
  // gets an error reply): a runaway client cannot take the host's memory.
  static constexpr size_t kMaxMarks = 1'000'000;
  // The longest resource or client name a mark may carry.
  static constexpr size_t kMaxName = 256;
  static int64_t now_ns();

  // False when the board is full.
  bool mark(TrialMark mark);
  // A fenced write: accepted (and recorded) unless the resource has accepted a higher token.
  // Returns the mark recorded, or nullopt when the board is full.
  std::optional<TrialMark> write(std::string client, std::string resource, int64_t token);

  std::vector<TrialMark> marks() const;
  size_t size() const;
  // Forgets marks and resources (a new run).
  void clear();

 private:
  mutable std::mutex mutex_;
  std::vector<TrialMark> marks_;
  std::map<std::string, int64_t, std::less<>> highest_;  // resource -> highest accepted token
};

}  // namespace locksim::server
