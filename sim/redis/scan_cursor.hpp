#pragma once
// The SCAN family's cursor (internal), as Redis's dictScan: a reverse-binary counter
// over a table of 2^B buckets, B = log2 of the power of two at or above the element
// count (at least 4 buckets). An element's bucket is the top B bits of a fixed 64-bit
// hash of its name, and buckets are visited in hash order, so the cursor, bit-reversed,
// is a position in that order that keeps its meaning when B changes between calls: a
// bigger table resumes at the same place, a smaller one a little earlier (repeats, never
// misses). Hence Redis's guarantee (an element present for the whole scan is returned)
// with cursors below the table size, far below 2^53 (clients and Lua hold them as
// doubles), and deterministic.
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

inline uint64_t scan_hash(std::string_view name) {  // FNV-1a, then a 64-bit finaliser
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ULL;
  h ^= h >> 33;  // FNV's low bits are weak and the bucket is the top bits: mix them up
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

inline uint64_t reverse_bits(uint64_t v) {
  uint64_t r = 0;
  for (int i = 0; i < 64; ++i, v >>= 1) r = (r << 1) | (v & 1);
  return r;
}

// The table's size in bits for n elements (Redis: a power of two, at least 4 buckets).
inline int scan_table_bits(size_t n) {
  int bits = 2;
  while (bits < 62 && (size_t{1} << bits) < n) ++bits;
  return bits;
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
// Whole buckets are returned, at least COUNT elements unless the scan ends.
template <typename Item, typename Render, typename Name>
Reply scan_reply(const std::vector<Item>& items, const ScanOptions& o, Render render, Name name) {
  const int bits = scan_table_bits(items.size());
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  const auto bucket_of = [bits](uint64_t hash) { return hash >> (64 - bits); };
  // The cursor's low bits, reversed, are the first bucket to visit.
  const uint64_t first_bucket = reverse_bits(o.cursor & mask) >> (64 - bits);
  std::vector<std::pair<uint64_t, const Item*>> order;
  for (const Item& item : items) {
    const uint64_t h = scan_hash(name(item));
    if (bucket_of(h) >= first_bucket) order.emplace_back(h, &item);
  }
  const auto before = [&](const auto& a, const auto& b) {
    return a.first < b.first || (a.first == b.first && name(*a.second) < name(*b.second));
  };
  const size_t take = std::min(order.size(), static_cast<size_t>(o.count));
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(take), order.end(), before);
  // Never split a bucket between two calls: the rest of the last one comes now.
  size_t n = take;
  while (n < order.size() && n > 0) {
    auto next = std::min_element(order.begin() + static_cast<long>(n), order.end(), before);
    if (bucket_of(next->first) != bucket_of(order[n - 1].first)) break;
    std::iter_swap(order.begin() + static_cast<long>(n), next);
    ++n;
  }
  uint64_t next_cursor = 0;
  if (n < order.size()) {
    const uint64_t next_bucket = bucket_of(std::min_element(order.begin() + static_cast<long>(n), order.end(), before)->first);
    next_cursor = reverse_bits(next_bucket << (64 - bits));
  }
  std::vector<Reply> elements;
  for (size_t i = 0; i < n; ++i) {
    if (o.match && !glob_match(*o.match, name(*order[i].second))) continue;
    for (std::string& s : render(*order[i].second)) elements.push_back(Reply::bulk(std::move(s)));
  }
  return Reply::array({Reply::bulk(std::to_string(next_cursor)), Reply::array(std::move(elements))});
}

}  // namespace locksim::redis
