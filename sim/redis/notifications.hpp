#pragma once
// Keyspace notifications (Redis 7.0 notify.c), internal: with notify-keyspace-events
// set, every change a command makes to a key is published on __keyspace@<db>__:<key>
// (the event) and __keyevent@<db>__:<event> (the key) through the pub/sub outboxes.
// The databases report changes; the event's name and class come from the command that
// is running (Redis's commands call notifyKeyspaceEvent themselves).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace locksim::redis {

class Notifications {
 public:
  // The flags of a notify-keyspace-events string; nullopt for an unknown class character.
  static std::optional<uint32_t> parse_flags(std::string_view classes);
  static std::string flags_to_string(uint32_t flags);

  uint32_t flags = 0;  // 0: off (the databases then skip every call)
  // Publishes (channel, message); set by the server to its PUBLISH.
  void (*publish)(void* server, const std::string& channel, const std::string& message) = nullptr;
  void* server = nullptr;

  void modified(int db, std::string_view key);
  void removed(int db, std::string_view key);
  void expired(int db, std::string_view key);
  void added(int db, std::string_view key);

  // The running command, for the length of a dispatch (nested for a script's calls).
  // Costs nothing while notifications are off (the GET/SET fast path).
  class Scope {
   public:
    Scope(Notifications& n, std::string_view command) : n_(n.flags ? &n : nullptr) {
      if (!n_) return;
      command_ = n.command_;
      done_ = std::move(n.done_);
      n.command_ = command;
      n.done_.clear();
      n.skip_.reset();
    }
    ~Scope() {
      if (!n_) return;
      n_->command_ = command_;
      n_->done_ = std::move(done_);
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Notifications* n_;
    std::string_view command_;
    std::vector<std::pair<int, std::string>> done_;
  };

 private:
  void send(uint32_t type, std::string_view event, int db, std::string_view key);
  void command_event(int db, std::string_view key);
  std::string_view command_;
  std::vector<std::pair<int, std::string>> done_;    // keys that got the running command's event
  std::optional<std::pair<int, std::string>> skip_;  // a key whose removal was reported already
};

}  // namespace locksim::redis
