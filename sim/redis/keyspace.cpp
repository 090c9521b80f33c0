#include "sim/redis/keyspace.hpp"

namespace locksim::redis {

const std::string* Hash::get(std::string_view field) const {
  for (const Field& f : fields_)
    if (f.first == field) return &f.second;
  return nullptr;
}

std::string* Hash::get(std::string_view field) {
  for (Field& f : fields_)
    if (f.first == field) return &f.second;
  return nullptr;
}

bool Hash::set(std::string_view field, std::string_view value) {
  if (std::string* existing = get(field)) {
    existing->assign(value);
    return false;
  }
  fields_.emplace_back(std::string(field), std::string(value));
  return true;
}

bool Hash::erase(std::string_view field) {
  for (auto it = fields_.begin(); it != fields_.end(); ++it) {
    if (it->first == field) {
      fields_.erase(it);  // keeps the order of the others, like a listpack delete
      return true;
    }
  }
  return false;
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

}  // namespace locksim::redis
