#pragma once
// Reads client requests the way Redis 7.0 does (networking.c processMultibulkBuffer and
// processInlineBuffer): RESP multibulk or inline commands, incrementally, with Redis's
// own limits and "Protocol error: ..." texts. The state of a half-read command is kept,
// so consumed bytes can be dropped and a large bulk is never scanned twice.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "locksim/sim/redis/resp.hpp"

namespace locksim::server {

struct ProtocolLimits {
  int64_t max_bulk_len = 512LL * 1024 * 1024;        // proto-max-bulk-len
  size_t max_inline = 64 * 1024;                     // PROTO_INLINE_MAX_SIZE
  size_t max_pending_bytes = 1024ULL * 1024 * 1024;  // client-query-buffer-limit
};

class RequestParser {
 public:
  enum class Result { Command, NeedMore, ProtocolError, TooBig };

  explicit RequestParser(ProtocolLimits limits = {}) : limits_(limits) {}

  // Parses from input[pos...]: on Command, argv holds the command (its strings reuse
  // their capacity) and pos is past it. NeedMore: pos is past what was consumed.
  // ProtocolError: error() holds the reply text. TooBig: the pending command
  // outgrew client-query-buffer-limit (Redis closes the client without a reply).
  Result parse(std::string_view input, size_t& pos, redis::Command& argv);

  const std::string& error() const { return error_; }
  // CONFIG SET proto-max-bulk-len / client-query-buffer-limit apply from the next header.
  void set_limits(const ProtocolLimits& limits) { limits_ = limits; }
  // Memory the half-read command holds in its arguments (client-query-buffer-limit).
  size_t pending_bytes() const { return pending_bytes_; }
  // Before AUTH, Redis refuses more than 10 arguments or bulks over 16 KB.
  void set_unauthenticated(bool value) { unauthenticated_ = value; }
  // Bytes the command being read still needs (a hint to size the read buffer).
  size_t bytes_wanted() const { return bulk_len_ > 0 ? static_cast<size_t>(bulk_len_) + 2 : 0; }

 private:
  Result parse_inline(std::string_view input, size_t& pos, redis::Command& argv);
  Result parse_multibulk(std::string_view input, size_t& pos, redis::Command& argv);
  Result fail(std::string text);
  void reset();

  ProtocolLimits limits_;
  bool unauthenticated_ = false;
  enum class Kind { Unknown, Inline, Multibulk } kind_ = Kind::Unknown;
  int64_t multibulk_left_ = 0;  // arguments still to read; 0 before the count is read
  int64_t bulk_len_ = -1;       // length of the argument being read, -1 before its header
  size_t argc_ = 0;             // arguments of the current command read so far
  size_t pending_bytes_ = 0;    // memory the arguments read so far hold
  std::string error_;
};

}  // namespace locksim::server
