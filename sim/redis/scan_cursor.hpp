#pragma once
// The SCAN family's cursor (internal). Redis walks its hash table in reverse-binary
// bucket order; the model walks elements in the order of a fixed 63-bit hash of their
// name, and the cursor is the next hash to visit. That keeps Redis's guarantee (an
// element present for the whole scan is returned at least once) and is deterministic.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/glob.hpp"
#include "locksim/sim/redis/resp.hpp"

namespace locksim::redis {

struct ScanOptions {
  uint64_t cursor = 0;
  std::optional<std::string> match;
  int64_t count = 10;
  std::optional<std::string> type;
};

inline uint64_t scan_hash(std::string_view name) {  // FNV-1a, folded into [1, 2^63)
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ULL;
  h &= (uint64_t{1} << 63) - 1;
  return h == 0 ? 1 : h;
}

// Redis parseScanCursorOrReply and scanGenericCommand's options.
inline bool parse_scan(const Command& argv, size_t cursor_at, bool allow_type, ScanOptions& o, Reply& error) {
  const std::string& text = argv[cursor_at];
  char* end = nullptr;
  errno = 0;
  o.cursor = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) || *end != '\0' || errno == ERANGE) {
    error = error_reply("ERR invalid cursor");
    return false;
  }
  for (size_t j = cursor_at + 1; j < argv.size(); j += 2) {
    if (j + 1 >= argv.size()) {
      error = error_reply(kSyntaxError);
      return false;
    }
    if (equals_lower(argv[j], "count")) {
      if (!parse_int64(argv[j + 1], o.count)) {
        error = error_reply(kNotInteger);
        return false;
      }
      if (o.count < 1) {
        error = error_reply(kSyntaxError);
        return false;
      }
    } else if (equals_lower(argv[j], "match")) {
      o.match = argv[j + 1];
    } else if (allow_type && equals_lower(argv[j], "type")) {
      std::string t = argv[j + 1];
      for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      o.type = t;
    } else {
      error = error_reply(kSyntaxError);
      return false;
    }
  }
  return true;
}

// One SCAN step over `items` (any order): [next cursor, elements]; `render` gives the
// reply elements of an item (a key, or a field and its value), `name` the hashed name.
template <typename Item, typename Render, typename Name>
Reply scan_reply(const std::vector<Item>& items, const ScanOptions& o, Render render, Name name) {
  std::vector<std::pair<uint64_t, const Item*>> order;
  for (const Item& item : items) {
    const uint64_t h = scan_hash(name(item));
    if (h >= o.cursor || o.cursor == 0) order.emplace_back(h, &item);
  }
  const size_t take = std::min(order.size(), static_cast<size_t>(o.count));
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(take), order.end(),
                    [&](const auto& a, const auto& b) {
                      return a.first < b.first || (a.first == b.first && name(*a.second) < name(*b.second));
                    });
  // Never split a hash value between two calls.
  size_t n = take;
  while (n < order.size() && n > 0) {
    auto next = std::min_element(order.begin() + static_cast<long>(n), order.end());
    if (next->first != order[n - 1].first) break;
    std::iter_swap(order.begin() + static_cast<long>(n), next);
    ++n;
  }
  uint64_t next_cursor = 0;
  if (n < order.size()) {
    next_cursor = std::min_element(order.begin() + static_cast<long>(n), order.end())->first;
  }
  std::vector<Reply> elements;
  for (size_t i = 0; i < n; ++i) {
    if (o.match && !glob_match(*o.match, name(*order[i].second))) continue;
    for (std::string& s : render(*order[i].second)) elements.push_back(Reply::bulk(std::move(s)));
  }
  return Reply::array({Reply::bulk(std::to_string(next_cursor)), Reply::array(std::move(elements))});
}

}  // namespace locksim::redis
