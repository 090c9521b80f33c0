#pragma once
// The stored data: keys mapped to string or hash values with optional deadlines.
// Pure storage; expiry decisions, effects and WATCH bookkeeping live in database.hpp.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace locksim::redis {

// A hash kept in insertion order, as Redis keeps small hashes in a listpack:
// HGETALL/HKEYS/HVALS then list fields in the same order as a real server.
class Hash {
 public:
  using Field = std::pair<std::string, std::string>;
  const std::string* get(std::string_view field) const;
  std::string* get(std::string_view field);
  // Returns true if the field is new.
  bool set(std::string_view field, std::string_view value);
  bool erase(std::string_view field);
  size_t size() const { return fields_.size(); }
  bool empty() const { return fields_.empty(); }
  const std::vector<Field>& fields() const { return fields_; }
  // Stable text form for observers: {f1=v1,f2=v2} in field order.
  std::string render() const;
  bool operator==(const Hash&) const = default;

 private:
  std::vector<Field> fields_;
};

enum class ValueType : uint8_t { String, Hash };

struct Entry {
  ValueType type = ValueType::String;
  std::string str;    // when type == String
  Hash hash;          // when type == Hash
  int64_t expire_at_ms = -1;  // absolute deadline on the server clock, -1 none

  // Redis (db.c keyIsExpired): a key is expired once now is past its deadline.
  bool expired_at(int64_t now_ms) const { return expire_at_ms >= 0 && now_ms > expire_at_ms; }
  std::string render() const { return type == ValueType::String ? str : hash.render(); }
};

// Ordered so that anything iterating it (KEYS, FLUSHALL) is deterministic.
using KeyMap = std::map<std::string, Entry, std::less<>>;

}  // namespace locksim::redis
