#include "locksim/sim/redis/cli_format.hpp"

#include <fmt/format.h>

#include <vector>

namespace locksim::redis {

std::string cli_quote(const std::string& bytes) {
  std::string out = "\"";
  for (unsigned char c : bytes) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      default:
        if (c >= 0x20 && c <= 0x7e)
          out += static_cast<char>(c);
        else
          out += fmt::format("\\x{:02x}", c);
    }
  }
  out += '"';
  return out;
}

namespace {
void format_scalar(std::string& out, const Reply& r) {
  switch (r.type) {
    case Reply::Type::Status: out += r.str + "\n"; break;
    case Reply::Type::Error: out += "(error) " + r.str + "\n"; break;
    case Reply::Type::Integer: out += "(integer) " + std::to_string(r.integer) + "\n"; break;
    case Reply::Type::Bulk: out += cli_quote(r.str) + "\n"; break;
    case Reply::Type::Nil:
    case Reply::Type::NilArray: out += "(nil)\n"; break;
    case Reply::Type::Blocked: break;
    case Reply::Type::Array: out += "(empty array)\n"; break;
  }
}

// redis-cli cliFormatReplyTTY: nested arrays are indented under their index.
// Without recursion: a script's reply may nest 7,995 deep, as in Redis, and a
// frame per level overflows the stack of a sanitizer build. The indentation is
// all spaces, so each open array keeps only its width.
void format_into(std::string& out, const Reply& root) {
  struct Open {
    const Reply* array;
    size_t next;    // the element to print next
    size_t indent;  // columns before this array's indices
    size_t width;   // digits of its largest index
  };
  std::vector<Open> open;
  const Reply* pending = &root;
  size_t indent = 0;
  for (;;) {
    if (pending) {
      if (pending->type == Reply::Type::Array && !pending->elements.empty())
        open.push_back({pending, 0, indent, std::to_string(pending->elements.size()).size()});
      else
        format_scalar(out, *pending);
      pending = nullptr;
    }
    if (open.empty()) return;
    Open& top = open.back();
    if (top.next == top.array->elements.size()) {
      open.pop_back();
      continue;
    }
    if (top.next > 0) out.append(top.indent, ' ');
    out += fmt::format("{:>{}}) ", top.next + 1, top.width);
    pending = &top.array->elements[top.next++];
    indent = top.indent + top.width + 2;
  }
}
}  // namespace

std::string format_cli_reply(const Reply& reply) {
  std::string out;
  format_into(out, reply);
  return out;
}

}  // namespace locksim::redis
