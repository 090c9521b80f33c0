#include "locksim/server/trial_board.hpp"

#include <chrono>

namespace locksim::server {

int64_t TrialBoard::now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool TrialBoard::mark(TrialMark mark) {
  std::lock_guard lock(mutex_);
  if (marks_.size() >= kMaxMarks) return false;
  marks_.push_back(std::move(mark));
  return true;
}

std::optional<TrialMark> TrialBoard::write(std::string client, std::string resource, int64_t token) {
  std::lock_guard lock(mutex_);
  if (marks_.size() >= kMaxMarks) return std::nullopt;
  TrialMark m;
  m.at_ns = now_ns();
  m.client = std::move(client);
  m.token = token;
  auto seen = highest_.find(resource);
  m.highest = seen == highest_.end() ? -1 : seen->second;
  // An equal token is the same hold writing again; only a lower one is stale.
  const bool accepted = token >= m.highest;
  m.kind = accepted ? TrialMark::Kind::WriteAccepted : TrialMark::Kind::WriteRejected;
  if (accepted) highest_[resource] = token;
  m.resource = std::move(resource);
  marks_.push_back(m);
  return m;
}

std::vector<TrialMark> TrialBoard::marks() const {
  std::lock_guard lock(mutex_);
  return marks_;
}

size_t TrialBoard::size() const {
  std::lock_guard lock(mutex_);
  return marks_.size();
}

void TrialBoard::clear() {
  std::lock_guard lock(mutex_);
  marks_.clear();
  highest_.clear();
}

}  // namespace locksim::server
