#include "locksim/real/sync_client.hpp"

#include <stdexcept>
#include <utility>
#include <vector>

namespace locksim::real {

using redis::Reply;

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

namespace {
redisContext* checked(redisContext* ctx, const std::string& where) {
  if (!ctx || ctx->err) {
    const std::string why = ctx ? ctx->errstr : "out of memory";
    if (ctx) redisFree(ctx);
    throw std::runtime_error("cannot connect to " + where + ": " + why);
  }
  return ctx;
}
}  // namespace

SyncClient SyncClient::unix_socket(const std::string& path) {
  return SyncClient(checked(redisConnectUnix(path.c_str()), path));
}

SyncClient SyncClient::loopback(int port) {
  return SyncClient(checked(redisConnect("127.0.0.1", port), "127.0.0.1:" + std::to_string(port)));
}

SyncClient::~SyncClient() {
  if (ctx_) redisFree(ctx_);
}

SyncClient::SyncClient(SyncClient&& other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}

void SyncClient::append(const redis::Command& command) { real::append(ctx_, command); }

void append(redisContext* ctx, const redis::Command& command) {
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const auto& arg : command) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  redisAppendCommandArgv(ctx, static_cast<int>(argv.size()), argv.data(), lengths.data());
}

void SyncClient::drain(int count) {
  for (int i = 0; i < count; ++i) {
    void* reply = nullptr;
    if (redisGetReply(ctx_, &reply) != REDIS_OK) throw std::runtime_error(std::string("hiredis: ") + ctx_->errstr);
    freeReplyObject(reply);
  }
}

Reply SyncClient::execute(const redis::Command& command) { return real::execute(ctx_, command); }

Reply execute(redisContext* ctx, const redis::Command& command) {
  append(ctx, command);
  void* raw = nullptr;
  if (redisGetReply(ctx, &raw) != REDIS_OK || !raw) throw std::runtime_error(std::string("hiredis: ") + ctx->errstr);
  auto* reply = static_cast<redisReply*>(raw);
  Reply out = from_hiredis(reply);
  freeReplyObject(reply);
  return out;
}

}  // namespace locksim::real
