#pragma once
// A RESP2 reply value, as a Redis server sends it to a client.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace locksim::redis {

struct Reply {
  // Blocked: no reply yet, the command waits (see Server::execute); never on the wire.
  enum class Type : uint8_t { Status, Error, Integer, Bulk, Nil, Array, NilArray, Blocked };
  Type type = Type::Nil;
  std::string str;  // Status text, Error text without the leading '-', Bulk bytes
  int64_t integer = 0;
  std::vector<Reply> elements;

  // Built in place (inline: every command's reply goes through one of these).
  static Reply status(std::string s) { return Reply{Type::Status, std::move(s), 0, {}}; }
  static Reply error(std::string s) { return Reply{Type::Error, std::move(s), 0, {}}; }
  static Reply integer_(int64_t v) { return Reply{Type::Integer, {}, v, {}}; }
  static Reply bulk(std::string s) { return Reply{Type::Bulk, std::move(s), 0, {}}; }
  // A copy of bytes kept elsewhere, built in place (bulk(std::string) copies, then moves).
  static Reply bulk_of(std::string_view s) { return Reply{Type::Bulk, std::string(s), 0, {}}; }
  static Reply nil() { return Reply{}; }
  static Reply array(std::vector<Reply> elements) { return Reply{Type::Array, {}, 0, std::move(elements)}; }
  static Reply nil_array() { return Reply{Type::NilArray, {}, 0, {}}; }
  static Reply ok() { return Reply{Type::Status, "OK", 0, {}}; }  // the text built in place, not moved
  static Reply blocked() { return Reply{Type::Blocked, {}, 0, {}}; }

  bool is_blocked() const { return type == Type::Blocked; }
  bool is_error() const { return type == Type::Error; }
  bool is_nil() const { return type == Type::Nil || type == Type::NilArray; }
  bool operator==(const Reply&) const = default;
};

// Walks a reply depth-first, each node before its elements, without recursion:
// a script's reply nests up to 7,995 deep, as in Redis, and a frame per level
// overflows the stack of a sanitizer build. `enter(node, index)` sees every node
// (index: its place in its array, 0 for the root); `leave(array)` sees every array
// after its last element.
template <class Enter, class Leave>
void walk_reply(const Reply& root, Enter&& enter, Leave&& leave) {
  struct Open {
    const Reply* array;
    size_t next;
  };
  std::vector<Open> open;
  enter(root, size_t{0});
  if (root.type == Reply::Type::Array) open.push_back({&root, 0});
  while (!open.empty()) {
    Open& top = open.back();
    if (top.next == top.array->elements.size()) {
      const Reply& done = *top.array;
      open.pop_back();
      leave(done);
      continue;
    }
    const size_t index = top.next++;
    const Reply& element = top.array->elements[index];
    enter(element, index);
    if (element.type == Reply::Type::Array) open.push_back({&element, 0});
  }
}

// Compact single-line debug form: OK, (nil), (integer) 1, "abc", (error) ERR x, [a, b].
std::string to_string(const Reply& reply);

}  // namespace locksim::redis
