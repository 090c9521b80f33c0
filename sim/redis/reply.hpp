#pragma once
// A RESP2 reply value, as a Redis server sends it to a client.
#include <cstdint>
#include <string>
#include <vector>

namespace locksim::redis {

struct Reply {
  // Blocked: no reply yet, the command waits (see Server::execute); never on the wire.
  enum class Type : uint8_t { Status, Error, Integer, Bulk, Nil, Array, NilArray, Blocked };
  Type type = Type::Nil;
  std::string str;  // Status text, Error text without the leading '-', Bulk bytes
  int64_t integer = 0;
  std::vector<Reply> elements;

  static Reply status(std::string s);
  static Reply error(std::string s);
  static Reply integer_(int64_t v);
  static Reply bulk(std::string s);
  static Reply nil();
  static Reply array(std::vector<Reply> elements);
  static Reply nil_array();
  static Reply ok();
  static Reply blocked();

  bool is_blocked() const { return type == Type::Blocked; }
  bool is_error() const { return type == Type::Error; }
  bool is_nil() const { return type == Type::Nil || type == Type::NilArray; }
  bool operator==(const Reply&) const = default;
};

// Compact single-line debug form: OK, (nil), (integer) 1, "abc", (error) ERR x, [a, b].
std::string to_string(const Reply& reply);

}  // namespace locksim::redis
