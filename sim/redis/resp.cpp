#include "locksim/sim/redis/resp.hpp"

#include <algorithm>

#include "locksim/sim/redis/arguments.hpp"

namespace locksim::redis {

namespace {
void encode_node(std::string& out, const Reply& r) {
  switch (r.type) {
    case Reply::Type::Status:
      out += '+';
      out += r.str;
      out += "\r\n";
      break;
    case Reply::Type::Error:
      out += '-';
      out += r.str;
      out += "\r\n";
      break;
    case Reply::Type::Integer:
      out += ':';
      out += std::to_string(r.integer);
      out += "\r\n";
      break;
    case Reply::Type::Bulk:
      out += '$';
      out += std::to_string(r.str.size());
      out += "\r\n";
      out += r.str;
      out += "\r\n";
      break;
    case Reply::Type::Nil: out += "$-1\r\n"; break;
    case Reply::Type::NilArray: out += "*-1\r\n"; break;
    case Reply::Type::Blocked: break;  // nothing is sent until the command is served
    case Reply::Type::Array:
      out += '*';
      out += std::to_string(r.elements.size());
      out += "\r\n";  // the elements follow: encode_resp walks them
      break;
  }
}

// Finds the CRLF-terminated line starting at pos; nullopt if not all there yet.
std::optional<std::string_view> line_at(std::string_view in, size_t pos) {
  size_t cr = in.find('\r', pos);
  if (cr == std::string_view::npos || cr + 1 >= in.size()) return std::nullopt;
  if (in[cr + 1] != '\n') throw RespError("RESP: CR not followed by LF");
  return in.substr(pos, cr - pos);
}

// Numbers as Redis reads them (string2ll): "$03", "$+3" or ":-0" are refused, so what
// decodes re-encodes to the same bytes.
int64_t parse_length(std::string_view text) {
  int64_t v = 0;
  if (!parse_int64(text, v)) throw RespError("RESP: bad number '" + std::string(text.substr(0, 32)) + "'");
  return v;
}

// Decodes the value at pos; returns the position after it, or nullopt if incomplete.
std::optional<size_t> decode_at(std::string_view in, size_t pos, Reply& out, int depth) {
  if (depth > 64) throw RespError("RESP: nesting too deep");
  if (pos >= in.size()) return std::nullopt;
  char type = in[pos];
  auto line = line_at(in, pos + 1);
  if (!line) return std::nullopt;
  size_t after_line = pos + 1 + line->size() + 2;
  switch (type) {
    case '+': out = Reply::status(std::string(*line)); return after_line;
    case '-': out = Reply::error(std::string(*line)); return after_line;
    case ':': out = Reply::integer_(parse_length(*line)); return after_line;
    case '$': {
      int64_t len = parse_length(*line);
      if (len == -1) {
        out = Reply::nil();
        return after_line;
      }
      if (len < 0 || len > 512LL * 1024 * 1024) throw RespError("RESP: bad bulk length");
      if (in.size() < after_line + static_cast<size_t>(len) + 2) return std::nullopt;
      if (in[after_line + len] != '\r' || in[after_line + len + 1] != '\n')
        throw RespError("RESP: bulk not terminated by CRLF");
      out = Reply::bulk(std::string(in.substr(after_line, len)));
      return after_line + len + 2;
    }
    case '*': {
      int64_t count = parse_length(*line);
      if (count == -1) {
        out = Reply::nil_array();
        return after_line;
      }
      if (count < 0 || count > 1024 * 1024) throw RespError("RESP: bad array length");
      Reply arr = Reply::array({});
      // Each element takes at least 3 bytes: never reserve more than the input can hold.
      arr.elements.reserve(std::min<size_t>(static_cast<size_t>(count), (in.size() - after_line) / 3));
      size_t at = after_line;
      for (int64_t i = 0; i < count; ++i) {
        Reply element;
        auto next = decode_at(in, at, element, depth + 1);
        if (!next) return std::nullopt;
        at = *next;
        arr.elements.push_back(std::move(element));
      }
      out = std::move(arr);
      return at;
    }
    default: throw RespError(std::string("RESP: unknown type byte '") + type + "'");
  }
}
}  // namespace

std::string encode_resp(const Reply& reply) {
  std::string out;
  walk_reply(reply, [&](const Reply& node, size_t) { encode_node(out, node); }, [](const Reply&) {});
  return out;
}

std::string encode_resp(const Command& command) {
  std::string out = "*" + std::to_string(command.size()) + "\r\n";
  for (const std::string& arg : command) {
    out += '$';
    out += std::to_string(arg.size());
    out += "\r\n";
    out += arg;
    out += "\r\n";
  }
  return out;
}

std::optional<Decoded> decode_resp(std::string_view input) {
  Reply reply;
  auto end = decode_at(input, 0, reply, 0);
  if (!end) return std::nullopt;
  return Decoded{std::move(reply), *end};
}

std::optional<DecodedCommand> decode_command(std::string_view input) {
  auto decoded = decode_resp(input);
  if (!decoded) return std::nullopt;
  if (decoded->reply.type != Reply::Type::Array || decoded->reply.elements.empty())
    throw RespError("RESP: a command must be a non-empty array of bulk strings");
  DecodedCommand out;
  out.consumed = decoded->consumed;
  for (Reply& e : decoded->reply.elements) {
    if (e.type != Reply::Type::Bulk) throw RespError("RESP: command arguments must be bulk strings");
    out.command.push_back(std::move(e.str));
  }
  return out;
}

}  // namespace locksim::redis
