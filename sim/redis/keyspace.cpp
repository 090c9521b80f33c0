#include "locksim/sim/redis/keyspace.hpp"

#include <algorithm>
#include <cstdio>

#include "locksim/sim/redis/arguments.hpp"

namespace locksim::redis {

bool is_integer_text(std::string_view text, int64_t* value) {
  int64_t v = 0;
  if (!parse_int64(text, v)) return false;
  if (value) *value = v;
  return true;
}

// ---- Hash -------------------------------------------------------------------------

long Hash::find(std::string_view field) const {
  if (hashtable_) {
    auto it = index_.find(field);
    return it == index_.end() ? -1 : static_cast<long>(it->second);
  }
  for (size_t i = 0; i < fields_.size(); ++i)
    if (fields_[i].first == field) return static_cast<long>(i);
  return -1;
}

const std::string* Hash::get(std::string_view field) const {
  long i = find(field);
  return i < 0 ? nullptr : &fields_[static_cast<size_t>(i)].second;
}

std::string* Hash::get(std::string_view field) {
  long i = find(field);
  return i < 0 ? nullptr : &fields_[static_cast<size_t>(i)].second;
}

bool Hash::set(std::string_view field, std::string_view value) {
  if (std::string* existing = get(field)) {
    existing->assign(value);
    return false;
  }
  fields_.emplace_back(std::string(field), std::string(value));
  if (hashtable_) index_.emplace(std::string(field), fields_.size() - 1);
  return true;
}

bool Hash::set(std::string_view field, std::string_view value, const EncodingLimits& limits) {
  if (!hashtable_ && (static_cast<int64_t>(field.size()) > limits.hash_max_listpack_value ||
                      static_cast<int64_t>(value.size()) > limits.hash_max_listpack_value ||
                      static_cast<int64_t>(fields_.size()) >= limits.hash_max_listpack_entries)) {
    const bool added = set(field, value);
    update_encoding(limits);
    return added;
  }
  return set(field, value);
}

bool Hash::erase(std::string_view field) {
  long found = find(field);
  if (found < 0) return false;
  const size_t i = static_cast<size_t>(found);
  if (!hashtable_) {
    fields_.erase(fields_.begin() + static_cast<long>(i));  // keeps the others' order, like a listpack
    return true;
  }
  index_.erase(index_.find(field));
  if (i + 1 != fields_.size()) {
    fields_[i] = std::move(fields_.back());
    index_.find(fields_[i].first)->second = i;
  }
  fields_.pop_back();
  return true;
}

void Hash::update_encoding(const EncodingLimits& limits) {
  if (hashtable_) return;
  bool convert = static_cast<int64_t>(fields_.size()) > limits.hash_max_listpack_entries;
  for (size_t i = 0; !convert && i < fields_.size(); ++i) {
    convert = static_cast<int64_t>(fields_[i].first.size()) > limits.hash_max_listpack_value ||
              static_cast<int64_t>(fields_[i].second.size()) > limits.hash_max_listpack_value;
  }
  if (!convert) return;
  hashtable_ = true;
  index_.reserve(fields_.size());
  for (size_t i = 0; i < fields_.size(); ++i) index_.emplace(fields_[i].first, i);
}

std::string Hash::render() const {
  std::string out = "{";
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i) out += ',';
    out += fields_[i].first;
    out += '=';
    out += fields_[i].second;
  }
  out += '}';
  return out;
}

// ---- Set --------------------------------------------------------------------------

void Set::update_encoding(const EncodingLimits& limits, std::string_view added) {
  if (hashtable) return;
  if (!is_integer_text(added) || static_cast<int64_t>(members.size()) > limits.set_max_intset_entries) hashtable = true;
}

void Set::update_encoding(const EncodingLimits& limits) {
  if (hashtable) return;
  if (static_cast<int64_t>(members.size()) > limits.set_max_intset_entries) hashtable = true;
  for (auto it = members.begin(); !hashtable && it != members.end(); ++it)
    if (!is_integer_text(*it)) hashtable = true;
}

std::vector<const std::string*> Set::ordered() const {
  std::vector<const std::string*> out;
  out.reserve(members.size());
  for (const std::string& m : members) out.push_back(&m);
  if (!hashtable) {
    std::sort(out.begin(), out.end(), [](const std::string* a, const std::string* b) {
      int64_t x = 0, y = 0;
      is_integer_text(*a, &x);
      is_integer_text(*b, &y);
      return x < y;
    });
  }
  return out;
}

// ---- ZSet -------------------------------------------------------------------------

const double* ZSet::score(std::string_view member) const {
  auto it = scores_.find(member);
  return it == scores_.end() ? nullptr : &it->second;
}

bool ZSet::set(std::string_view member, double new_score) {
  auto it = scores_.find(member);
  if (it != scores_.end()) {
    if (it->second == new_score) return false;
    order_.erase(Item{it->second, std::string(member)});
    it->second = new_score;
    order_.insert(Item{new_score, std::string(member)});
    return false;
  }
  scores_.emplace(std::string(member), new_score);
  order_.insert(Item{new_score, std::string(member)});
  return true;
}

bool ZSet::erase(std::string_view member) {
  auto it = scores_.find(member);
  if (it == scores_.end()) return false;
  order_.erase(Item{it->second, it->first});
  scores_.erase(it);
  return true;
}

size_t ZSet::rank(std::string_view member) const {
  return order_.order_of_key(Item{*score(member), std::string(member)});
}

void ZSet::update_encoding(const EncodingLimits& limits, std::string_view added) {
  if (skiplist) return;
  if (static_cast<int64_t>(size()) > limits.zset_max_listpack_entries ||
      static_cast<int64_t>(added.size()) > limits.zset_max_listpack_value)
    skiplist = true;
}

void ZSet::update_encoding(const EncodingLimits& limits) {
  if (skiplist) return;
  if (static_cast<int64_t>(size()) > limits.zset_max_listpack_entries) skiplist = true;
  for (auto it = order_.begin(); !skiplist && it != order_.end(); ++it)
    if (static_cast<int64_t>(it->second.size()) > limits.zset_max_listpack_value) skiplist = true;
}

// ---- Entry ------------------------------------------------------------------------

std::string_view type_name(ValueType type) {
  switch (type) {
    case ValueType::String: return "string";
    case ValueType::List: return "list";
    case ValueType::Set: return "set";
    case ValueType::ZSet: return "zset";
    case ValueType::Hash: return "hash";
  }
  return "none";
}

void Entry::reset(ValueType new_type) {
  type = new_type;
  raw = no_int = false;
  str.clear();
  hash_.reset();
  list_.reset();
  set_.reset();
  zset_.reset();
}

Entry Entry::clone() const {
  Entry copy;
  copy.type = type;
  copy.raw = raw;
  copy.no_int = no_int;
  copy.str = str;
  copy.expire_at_ms = expire_at_ms;
  copy.lru_ms = lru_ms;
  if (hash_) copy.hash_ = std::make_unique<Hash>(*hash_);
  if (list_) copy.list_ = std::make_unique<ListValue>(*list_);
  if (set_) copy.set_ = std::make_unique<Set>(*set_);
  if (zset_) copy.zset_ = std::make_unique<ZSet>(*zset_);
  return copy;
}

bool Entry::empty_aggregate() const {
  switch (type) {
    case ValueType::String: return false;
    case ValueType::List: return list().empty();
    case ValueType::Set: return set().members.empty();
    case ValueType::ZSet: return zset().empty();
    case ValueType::Hash: return hash().empty();
  }
  return false;
}

// Redis object.c: int for a string2l-able value of at most 20 bytes, embstr up to
// 44 bytes, raw beyond or once edited in place. Lists are quicklists in 7.0.
std::string_view Entry::encoding() const {
  switch (type) {
    case ValueType::String:
      if (!raw && !no_int && str.size() <= 20 && is_integer_text(str)) return "int";
      return !raw && str.size() <= 44 ? "embstr" : "raw";
    case ValueType::List: return "quicklist";
    case ValueType::Set: return set().hashtable ? "hashtable" : "intset";
    case ValueType::ZSet: return zset().skiplist ? "skiplist" : "listpack";
    case ValueType::Hash: return hash().is_hashtable() ? "hashtable" : "listpack";
  }
  return "raw";
}

std::string Entry::render() const {
  switch (type) {
    case ValueType::String: return str;
    case ValueType::Hash: return hash().render();
    case ValueType::List: {
      std::string out = "{list:";
      for (size_t i = 0; i < list().size(); ++i) out += (i ? "," : "") + list()[i];
      return out + "}";
    }
    case ValueType::Set: {
      std::string out = "{set:";
      bool first = true;
      for (const std::string& m : set().members) {
        out += (first ? "" : ",") + m;
        first = false;
      }
      return out + "}";
    }
    case ValueType::ZSet: {
      std::string out = "{zset:";
      bool first = true;
      for (const auto& [score, member] : zset().items()) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", score);
        out += (first ? "" : ",") + member + "=" + buf;
        first = false;
      }
      return out + "}";
    }
  }
  return str;
}

}  // namespace locksim::redis
