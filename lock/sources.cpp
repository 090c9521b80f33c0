#include "locksim/lock/sources.hpp"

namespace locksim::lock {

const std::vector<SourcePost>& source_posts() {
  static const std::vector<SourcePost> posts = {
      {"methods-intro", "redis分布式锁实现方法介绍", "Ways to implement a Redis distributed lock"},
      {"mysql-redis", "分布式锁的实现-mysql&redis", "Implementing distributed locks: MySQL and Redis"},
      {"approaches", "redis-分布式锁实现思路", "Redis: ways to build a distributed lock"},
      {"layers", "第二层:setnx key value + expire key TIME_IN_SECONDS", "The layered walk-through"},
      {"evolution", "Redis分布式锁演进全解析", "The evolution of Redis distributed locks, explained in full"},
  };
  return posts;
}

const SourcePost* find_source(std::string_view key) {
  for (const auto& p : source_posts())
    if (p.key == key) return &p;
  return nullptr;
}

std::string source_titles(std::string_view keys) {
  std::string out;
  while (!keys.empty()) {
    const size_t end = keys.find(' ');
    const std::string_view word = keys.substr(0, end);
    keys = end == std::string_view::npos ? std::string_view{} : keys.substr(end + 1);
    if (word.empty()) continue;
    if (!out.empty()) out += "; ";
    if (word == "-")
      out += "beyond the posts";
    else if (const SourcePost* p = find_source(word))
      out += "\"" + std::string(p->english) + "\"";
    else
      out += word;
  }
  return out;
}

}  // namespace locksim::lock
