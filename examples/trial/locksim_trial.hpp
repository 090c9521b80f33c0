// The few lines a C++ client on trial needs (locksim trial -- ./your_client), on hiredis.
// Header-only; copy it. `locksim trial` gives each copy LOCKSIM_CLIENT (its name) and
// LOCKSIM_REDIS (the servers' redis:// URLs, comma-separated), and ends it with SIGTERM.
//
//   locksim_trial::Trial trial;                       // reads the environment
//   redisContext* redis = trial.connect(0);           // named $LOCKSIM_CLIENT
//   while (trial.running()) {
//     if (!your_lock.acquire(redis)) continue;
//     trial.enter("orders", token);  do_the_work();  trial.exit("orders");
//     your_lock.release(redis);
//   }
#pragma once
#include <hiredis/hiredis.h>
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace locksim_trial {

inline std::atomic<bool> stopping{false};
extern "C" inline void on_term(int) { stopping = true; }

class Trial {
 public:
  Trial() {
    const char* name = std::getenv("LOCKSIM_CLIENT");
    client_ = name ? name : "c1";
    const char* urls = std::getenv("LOCKSIM_REDIS");
    std::string list = urls ? urls : "redis://127.0.0.1:6379";
    for (size_t start = 0; start <= list.size();) {
      size_t end = list.find(',', start);
      if (end == std::string::npos) end = list.size();
      std::string url = list.substr(start, end - start);  // redis://HOST:PORT
      const size_t host = url.find("://") == std::string::npos ? 0 : url.find("://") + 3;
      const size_t colon = url.rfind(':');
      servers_.push_back({url.substr(host, colon - host), std::atoi(url.c_str() + colon + 1)});
      start = end + 1;
    }
    struct sigaction sa {};
    sa.sa_handler = on_term;  // no SA_RESTART: a blocking call returns, the loop sees running()
    sigaction(SIGTERM, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
    marks_ = connect(0);
  }
  ~Trial() {
    if (marks_) redisFree(marks_);
  }
  Trial(const Trial&) = delete;
  Trial& operator=(const Trial&) = delete;

  const std::string& client() const { return client_; }
  size_t servers() const { return servers_.size(); }
  bool running() const { return !stopping; }

  // A new connection to server i, named $LOCKSIM_CLIENT, with a reply timeout (a lost
  // reply is then an error); nullptr if it cannot connect.
  redisContext* connect(size_t i, int timeout_ms = 1000) const {
    const timeval timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    redisContext* c = redisConnectWithTimeout(servers_.at(i).first.c_str(), servers_.at(i).second, timeout);
    if (!c || c->err) {
      if (c) redisFree(c);
      return nullptr;
    }
    redisSetTimeout(c, timeout);
    if (auto* r = static_cast<redisReply*>(redisCommand(c, "CLIENT SETNAME %s", client_.c_str()))) freeReplyObject(r);
    return c;
  }

  // ENTER once the lock is yours (with its fencing token, if it has one), EXIT before you release it.
  void enter(const std::string& resource, std::optional<int64_t> token = std::nullopt) {
    token ? mark({"LOCKSIM.ENTER", resource, std::to_string(*token)}) : mark({"LOCKSIM.ENTER", resource});
  }
  void exit(const std::string& resource) { mark({"LOCKSIM.EXIT", resource}); }
  // A write to the fenced resource: false when it refused a stale token.
  bool write(const std::string& resource, int64_t token, const std::string& value) {
    return mark({"LOCKSIM.WRITE", resource, std::to_string(token), value}).rfind("STALE", 0) != 0;
  }

 private:
  // The marks travel on a connection of their own (LOCKSIM.* commands are never faulted);
  // after a server restart it reconnects and sends the mark again. Returns an error's text.
  std::string mark(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const auto& a : args) argv.push_back(a.c_str()), lens.push_back(a.size());
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (!marks_) marks_ = connect(0, 5000);
      if (!marks_) continue;
      auto* r = static_cast<redisReply*>(redisCommandArgv(marks_, static_cast<int>(argv.size()), argv.data(), lens.data()));
      if (!r) {
        redisFree(marks_);
        marks_ = nullptr;
        continue;
      }
      std::string error = r->type == REDIS_REPLY_ERROR ? std::string(r->str, r->len) : "";
      freeReplyObject(r);
      return error;
    }
    throw std::runtime_error("locksim trial: cannot reach the server for " + args[0]);
  }

  std::string client_;
  std::vector<std::pair<std::string, int>> servers_;
  redisContext* marks_ = nullptr;
};

}  // namespace locksim_trial
