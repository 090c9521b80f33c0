#pragma once
// A locksim::server::Server on a free port, on a background thread, for one test; and
// hiredis helpers that read replies as strings.
#include <hiredis/hiredis.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "locksim/server/server.hpp"

namespace locksim::server::testing {

inline Options test_options(TimeMode time = TimeMode::Manual) {
  Options options;
  options.port = 0;
  options.time = time;
  return options;
}

struct RunningServer {
  explicit RunningServer(Options options = test_options()) : server(std::move(options)) { server.start(); }
  Server server;
  int port() { return server.port(); }
};

struct Hiredis {
  explicit Hiredis(int port) : ctx(redisConnect("127.0.0.1", port)) {
    if (!ctx || ctx->err) throw std::runtime_error("hiredis: cannot connect");
  }
  ~Hiredis() { redisFree(ctx); }
  Hiredis(const Hiredis&) = delete;
  Hiredis& operator=(const Hiredis&) = delete;

  // The reply in a compact form: OK, (nil), (integer) 1, "abc", (error) ERR x, [a, b].
  std::string command(const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    auto* reply = static_cast<redisReply*>(redisvCommand(ctx, format, ap));
    va_end(ap);
    return take(reply);
  }
  std::string next_reply() {
    void* reply = nullptr;
    if (redisGetReply(ctx, &reply) != REDIS_OK) return "(connection error)";
    return take(static_cast<redisReply*>(reply));
  }
  static std::string format(const redisReply* r) {
    switch (r->type) {
      case REDIS_REPLY_STATUS: return std::string(r->str, r->len);
      case REDIS_REPLY_ERROR: return "(error) " + std::string(r->str, r->len);
      case REDIS_REPLY_INTEGER: return "(integer) " + std::to_string(r->integer);
      case REDIS_REPLY_STRING: return "\"" + std::string(r->str, r->len) + "\"";
      case REDIS_REPLY_ARRAY: {
        std::string out = "[";
        for (size_t i = 0; i < r->elements; ++i) out += (i ? ", " : "") + format(r->element[i]);
        return out + "]";
      }
      default: return "(nil)";
    }
  }
  std::string take(redisReply* reply) {
    if (!reply) return "(connection error)";
    std::string out = format(reply);
    freeReplyObject(reply);
    return out;
  }
  redisContext* ctx;
};

}  // namespace locksim::server::testing
