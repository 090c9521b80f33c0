#include "locksim/sim/redis/resp3.hpp"

#include <charconv>

namespace locksim::redis {

namespace {
void append_header(std::string& out, char type, int64_t n) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out += type;
  out.append(digits, end);
  out += "\r\n";
}

void append_line(std::string& out, char type, const std::string& text) {
  out += type;
  out += text;
  out += "\r\n";
}

// One node: a scalar whole, an array's header only (its elements follow).
void append_resp3_node(std::string& out, const Reply& r, Protocol protocol, Aggregate top) {
  const bool resp3 = protocol == Protocol::Resp3;
  switch (r.type) {
    case Reply::Type::Status: append_line(out, '+', r.str); return;
    case Reply::Type::Error: append_line(out, '-', r.str); return;
    case Reply::Type::Integer: append_header(out, ':', r.integer); return;
    case Reply::Type::Bulk:
      append_header(out, '$', static_cast<int64_t>(r.str.size()));
      out += r.str;
      out += "\r\n";
      return;
    case Reply::Type::Nil: out += resp3 ? "_\r\n" : "$-1\r\n"; return;
    case Reply::Type::NilArray: out += resp3 ? "_\r\n" : "*-1\r\n"; return;
    case Reply::Type::Array: break;
    default: return;  // a kind with no wire form (a command still waiting) writes nothing
  }
  const auto n = static_cast<int64_t>(r.elements.size());
  if (resp3 && top == Aggregate::Map && n % 2 == 0)
    append_header(out, '%', n / 2);
  else if (resp3 && top == Aggregate::Set)
    append_header(out, '~', n);
  else if (resp3 && top == Aggregate::Push)
    append_header(out, '>', n);
  else
    append_header(out, '*', n);
}
}  // namespace

// `top` applies to the reply itself; nested arrays go out as arrays.
void append_reply(std::string& out, const Reply& reply, Protocol protocol, Aggregate top) {
  walk_reply(
      reply,
      [&](const Reply& node, size_t) { append_resp3_node(out, node, protocol, &node == &reply ? top : Aggregate::Array); },
      [](const Reply&) {});
}

}  // namespace locksim::redis
