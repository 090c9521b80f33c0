#include "locksim/sim/redis/cli_format.hpp"

#include <fmt/format.h>

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
// redis-cli cliFormatReplyTTY: nested arrays are indented under their index.
void format_into(std::string& out, const Reply& r, const std::string& prefix) {
  switch (r.type) {
    case Reply::Type::Status: out += r.str + "\n"; break;
    case Reply::Type::Error: out += "(error) " + r.str + "\n"; break;
    case Reply::Type::Integer: out += "(integer) " + std::to_string(r.integer) + "\n"; break;
    case Reply::Type::Bulk: out += cli_quote(r.str) + "\n"; break;
    case Reply::Type::Nil:
    case Reply::Type::NilArray: out += "(nil)\n"; break;
    case Reply::Type::Blocked: break;
    case Reply::Type::Array: {
      if (r.elements.empty()) {
        out += "(empty array)\n";
        break;
      }
      const size_t width = std::to_string(r.elements.size()).size();
      const std::string nested_prefix = prefix + std::string(width + 2, ' ');
      for (size_t i = 0; i < r.elements.size(); ++i) {
        out += fmt::format("{}{:>{}}) ", i == 0 ? std::string() : prefix, i + 1, width);
        format_into(out, r.elements[i], nested_prefix);
      }
      break;
    }
  }
}
}  // namespace

std::string format_cli_reply(const Reply& reply) {
  std::string out;
  format_into(out, reply, "");
  return out;
}

}  // namespace locksim::redis
