#pragma once
// The stored data: keys mapped to string, list, set, sorted-set or hash values with
// optional deadlines. Pure storage; expiry decisions, effects and WATCH bookkeeping
// live in database.hpp. Every container is ordered or indexed so that anything
// iterating it is deterministic (no unordered iteration reaches a reply).
#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace locksim::redis {

// The size limits under which Redis keeps a value compact (listpack / intset); past
// them it converts, once and for good, to a hash table or skiplist (CONFIG SET-able).
struct EncodingLimits {
  int64_t hash_max_listpack_entries = 512;
  int64_t hash_max_listpack_value = 64;
  int64_t set_max_intset_entries = 512;
  int64_t zset_max_listpack_entries = 128;
  int64_t zset_max_listpack_value = 64;
  int64_t list_max_listpack_size = -2;
};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// A hash kept in insertion order, as Redis keeps small hashes in a listpack:
// HGETALL/HKEYS/HVALS then list fields in the same order as a real server. Once it
// is a hash table (too many or too long fields), an index makes every field O(1)
// and a delete moves the last field into the hole (Redis's order there is random).
class Hash {
 public:
  using Field = std::pair<std::string, std::string>;
  const std::string* get(std::string_view field) const;
  std::string* get(std::string_view field);
  // Returns true if the field is new.
  bool set(std::string_view field, std::string_view value);
  // As set(), converting to a hash table as soon as the limits are passed.
  bool set(std::string_view field, std::string_view value, const EncodingLimits& limits);
  bool erase(std::string_view field);
  size_t size() const { return fields_.size(); }
  bool empty() const { return fields_.empty(); }
  const std::vector<Field>& fields() const { return fields_; }
  bool is_hashtable() const { return hashtable_; }
  void update_encoding(const EncodingLimits& limits);
  // Stable text form for observers: {f1=v1,f2=v2} in field order.
  std::string render() const;

 private:
  long find(std::string_view field) const;
  std::vector<Field> fields_;
  std::unordered_map<std::string, size_t, StringHash, std::equal_to<>> index_;  // only as a hash table
  bool hashtable_ = false;
};

using ListValue = std::deque<std::string>;

// A set; an intset while every member is an integer and it is small (replies then
// list members in numeric order, as Redis), a hash table after (bytewise order here).
class Set {
 public:
  std::set<std::string, std::less<>> members;
  bool hashtable = false;
  void update_encoding(const EncodingLimits& limits, std::string_view added);
  void update_encoding(const EncodingLimits& limits);
  // Members in the order Redis lists them (numeric for an intset).
  std::vector<const std::string*> ordered() const;
};

// A sorted set: members ordered by (score, member bytes), with O(log n) rank.
class ZSet {
 public:
  using Item = std::pair<double, std::string>;
  struct ItemLess {
    bool operator()(const Item& a, const Item& b) const {
      return a.first < b.first || (a.first == b.first && a.second < b.second);
    }
  };
  using Tree = __gnu_pbds::tree<Item, __gnu_pbds::null_type, ItemLess, __gnu_pbds::rb_tree_tag,
                                __gnu_pbds::tree_order_statistics_node_update>;

  const double* score(std::string_view member) const;
  // Inserts or moves a member; returns true if it is new.
  bool set(std::string_view member, double score);
  bool erase(std::string_view member);
  size_t size() const { return scores_.size(); }
  bool empty() const { return scores_.empty(); }
  const Tree& items() const { return order_; }
  size_t rank(std::string_view member) const;  // 0-based, ascending; member must exist
  bool skiplist = false;
  void update_encoding(const EncodingLimits& limits, std::string_view added);
  void update_encoding(const EncodingLimits& limits);

 private:
  Tree order_;
  std::unordered_map<std::string, double, StringHash, std::equal_to<>> scores_;  // lookups only
};

enum class ValueType : uint8_t { String, List, Set, ZSet, Hash };
std::string_view type_name(ValueType type);

struct Entry {
  ValueType type = ValueType::String;
  bool raw = false;           // a string edited in place (APPEND, SETRANGE, SETBIT): encoded raw
  bool no_int = false;        // made from a float (INCRBYFLOAT): embstr or raw, never int
  std::string str;            // when type == String
  int64_t expire_at_ms = -1;  // absolute deadline on the server clock, -1 none
  int64_t lru_ms = 0;         // last access, for OBJECT IDLETIME

  // The aggregate values, created on first use.
  Hash& hash() { return holder(hash_); }
  const Hash& hash() const { return hash_ ? *hash_ : empty_of<Hash>(); }
  ListValue& list() { return holder(list_); }
  const ListValue& list() const { return list_ ? *list_ : empty_of<ListValue>(); }
  Set& set() { return holder(set_); }
  const Set& set() const { return set_ ? *set_ : empty_of<Set>(); }
  ZSet& zset() { return holder(zset_); }
  const ZSet& zset() const { return zset_ ? *zset_ : empty_of<ZSet>(); }

  // Makes this entry a value of another type, dropping what it held.
  void reset(ValueType new_type);
  Entry clone() const;  // a deep copy (COPY)
  bool empty_aggregate() const;
  std::string_view encoding() const;  // OBJECT ENCODING

  // Redis (db.c keyIsExpired): a key is expired once now is past its deadline.
  bool expired_at(int64_t now_ms) const { return expire_at_ms >= 0 && now_ms > expire_at_ms; }
  // Stable text form for observers; aggregates are braced ({f=v}, {list:a,b}, ...).
  std::string render() const;

 private:
  template <typename T>
  static T& holder(std::unique_ptr<T>& p) {
    if (!p) p = std::make_unique<T>();
    return *p;
  }
  template <typename T>
  static const T& empty_of() {
    static const T empty{};
    return empty;
  }
  std::unique_ptr<Hash> hash_;
  std::unique_ptr<ListValue> list_;
  std::unique_ptr<Set> set_;
  std::unique_ptr<ZSet> zset_;
};

// Redis string2ll-style integer check, used for encodings.
bool is_integer_text(std::string_view text, int64_t* value = nullptr);

}  // namespace locksim::redis
