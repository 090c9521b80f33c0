#include "real_redis.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <vector>

namespace locksim::redis::testing {

std::string find_redis_server() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/redis-server";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return {};
}

RealRedis::RealRedis() {
  const std::string binary = find_redis_server();
  if (binary.empty())
    throw std::runtime_error("redis-server not found on PATH: install the redis-server package (7.0) to run the "
                             "differential tests");
  char pattern[] = "/tmp/locksim-redis-XXXXXX";
  if (!::mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  socket_ = dir_ + "/redis.sock";
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test
    if (::getppid() != parent) ::_exit(1);
    std::vector<std::string> args = {binary,          "--port",       "0",         "--unixsocket", socket_,
                                     "--save",        "",             "--appendonly", "no",        "--dir",
                                     dir_,            "--daemonize",  "no",        "--loglevel",   "warning",
                                     "--logfile",     dir_ + "/redis.log"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  for (int attempt = 0; attempt < 500; ++attempt) {
    redisContext* probe = redisConnectUnix(socket_.c_str());
    if (probe && !probe->err) {
      redisFree(probe);
      return;
    }
    if (probe) redisFree(probe);
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("redis-server exited at start; see " + dir_ + "/redis.log");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  throw std::runtime_error("redis-server did not open " + socket_ + " within 5 s");
}

RealRedis::~RealRedis() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

redisContext* RealRedis::connect() {
  redisContext* ctx = redisConnectUnix(socket_.c_str());
  if (!ctx || ctx->err) {
    std::string why = ctx ? ctx->errstr : "out of memory";
    if (ctx) redisFree(ctx);
    throw std::runtime_error("cannot connect to " + socket_ + ": " + why);
  }
  return ctx;
}

Reply from_hiredis(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_STATUS: return Reply::status(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR: return Reply::error(std::string(r->str, r->len));
    case REDIS_REPLY_INTEGER: return Reply::integer_(r->integer);
    case REDIS_REPLY_STRING: return Reply::bulk(std::string(r->str, r->len));
    case REDIS_REPLY_ARRAY: {
      std::vector<Reply> elements;
      for (size_t i = 0; i < r->elements; ++i) elements.push_back(from_hiredis(r->element[i]));
      return Reply::array(std::move(elements));
    }
    default: return Reply::nil();
  }
}

Reply hiredis_execute(redisContext* ctx, const Command& command) {
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const auto& arg : command) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  auto* reply = static_cast<redisReply*>(
      redisCommandArgv(ctx, static_cast<int>(argv.size()), argv.data(), lengths.data()));
  if (!reply) throw std::runtime_error(std::string("hiredis: ") + ctx->errstr);
  Reply out = from_hiredis(reply);
  freeReplyObject(reply);
  return out;
}

}  // namespace locksim::redis::testing
