// LCS (Redis 7.0 t_string.c lcsCommand): the longest common subsequence of two
// strings, its length (LEN), or the matching ranges (IDX, MINMATCHLEN, WITHMATCHLEN),
// found by the same dynamic programme and walked back the same way, so that ties
// pick the same subsequence and ranges as a real server.
#include <vector>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

namespace {

constexpr uint64_t kProtoMaxBulkLen = 512ull * 1024 * 1024;  // Redis's transient-memory cap for the table

struct LcsOptions {
  bool len = false, idx = false, withmatchlen = false;
  int64_t minmatchlen = 0;
};

bool parse_lcs_options(const Command& argv, LcsOptions& o, Reply& error) {
  for (size_t j = 3; j < argv.size(); ++j) {
    if (equals_lower(argv[j], "idx")) {
      o.idx = true;
    } else if (equals_lower(argv[j], "len")) {
      o.len = true;
    } else if (equals_lower(argv[j], "withmatchlen")) {
      o.withmatchlen = true;
    } else if (equals_lower(argv[j], "minmatchlen") && j + 1 < argv.size()) {
      if (!int_arg(argv[++j], o.minmatchlen, error)) return false;
      if (o.minmatchlen < 0) o.minmatchlen = 0;
    } else {
      error = error_reply(kSyntaxError);
      return false;
    }
  }
  if (o.len && o.idx) {
    error = error_reply("ERR If you want both the length and indexes, please just use IDX.");
    return false;
  }
  return true;
}

Reply range_pair(uint32_t from, uint32_t to) { return Reply::array({Reply::integer_(from), Reply::integer_(to)}); }

}  // namespace

Reply cmd_lcs(ExecContext& ctx, const Command& argv) {
  const Entry* ea = ctx.db().lookup(argv[1], ctx.now_ms);
  const Entry* eb = ctx.db().lookup(argv[2], ctx.now_ms);
  if ((ea && ea->type != ValueType::String) || (eb && eb->type != ValueType::String))
    return error_reply("ERR The specified keys must contain string values");
  const std::string a = ea ? ea->str : std::string(), b = eb ? eb->str : std::string();
  LcsOptions o;
  Reply error;
  if (!parse_lcs_options(argv, o, error)) return error;
  const uint64_t alen = a.size(), blen = b.size();
  if ((alen + 1) * (blen + 1) * sizeof(uint32_t) > kProtoMaxBulkLen)
    return error_reply("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
  std::vector<uint32_t> table((alen + 1) * (blen + 1), 0);
  auto at = [&](uint64_t i, uint64_t j) -> uint32_t& { return table[j + i * (blen + 1)]; };
  for (uint64_t i = 1; i <= alen; ++i)
    for (uint64_t j = 1; j <= blen; ++j)
      at(i, j) = a[i - 1] == b[j - 1] ? at(i - 1, j - 1) + 1 : std::max(at(i - 1, j), at(i, j - 1));
  const uint32_t total = at(alen, blen);
  if (o.len) return Reply::integer_(total);
  // Walk back from the end, collecting the subsequence and the maximal matching ranges.
  std::string result(total, '\0');
  std::vector<Reply> matches;
  const auto unset = static_cast<uint32_t>(alen);
  uint32_t astart = unset, aend = 0, bstart = 0, bend = 0, idx = total;
  for (uint64_t i = alen, j = blen; i > 0 && j > 0;) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      result[--idx] = a[i - 1];
      if (astart == unset) {
        astart = aend = static_cast<uint32_t>(i - 1);
        bstart = bend = static_cast<uint32_t>(j - 1);
      } else if (astart == i && bstart == j) {
        --astart;
        --bstart;
      } else {
        emit = true;
      }
      if (astart == 0 || bstart == 0) emit = true;
      --i;
      --j;
    } else {
      if (at(i - 1, j) > at(i, j - 1))
        --i;
      else
        --j;
      if (astart != unset) emit = true;
    }
    if (!emit) continue;
    const uint32_t match_len = aend - astart + 1;
    if (o.idx && (o.minmatchlen == 0 || match_len >= o.minmatchlen)) {
      std::vector<Reply> m{range_pair(astart, aend), range_pair(bstart, bend)};
      if (o.withmatchlen) m.push_back(Reply::integer_(match_len));
      matches.push_back(Reply::array(std::move(m)));
    }
    astart = unset;
  }
  if (!o.idx) return Reply::bulk(std::move(result));
  return Reply::array(
      {Reply::bulk("matches"), Reply::array(std::move(matches)), Reply::bulk("len"), Reply::integer_(total)});
}

}  // namespace locksim::redis
