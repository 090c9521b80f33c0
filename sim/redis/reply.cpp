#include "locksim/sim/redis/reply.hpp"

#include <fmt/format.h>

namespace locksim::redis {

namespace {
void append_quoted(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

void append_node(std::string& out, const Reply& r) {
  switch (r.type) {
    case Reply::Type::Status: out += r.str; break;
    case Reply::Type::Error: out += "(error) " + r.str; break;
    case Reply::Type::Integer: out += "(integer) " + std::to_string(r.integer); break;
    case Reply::Type::Bulk: append_quoted(out, r.str); break;
    case Reply::Type::Nil: out += "(nil)"; break;
    case Reply::Type::NilArray: out += "(nil array)"; break;
    case Reply::Type::Blocked: out += "(blocked)"; break;
    case Reply::Type::Array: out += '['; break;  // its elements, then "]" when it is left
  }
}
}  // namespace

std::string to_string(const Reply& reply) {
  std::string out;
  walk_reply(
      reply,
      [&](const Reply& node, size_t index) {
        if (index > 0) out += ", ";
        append_node(out, node);
      },
      [&](const Reply&) { out += ']'; });
  return out;
}

}  // namespace locksim::redis
