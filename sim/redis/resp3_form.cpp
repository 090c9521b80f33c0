#include "locksim/sim/redis/resp3_form.hpp"

#include "locksim/sim/redis/arguments.hpp"

namespace locksim::redis {

namespace {
// Whether one of argv[from...] is `word` (lowercase), ignoring case.
bool has_word(const Command& argv, size_t from, std::string_view word) {
  for (size_t i = from; i < argv.size(); ++i)
    if (equals_lower(argv[i], word)) return true;
  return false;
}

bool is_zadd_option(const std::string& arg) {
  for (std::string_view option : {"nx", "xx", "gt", "lt", "ch", "incr"})
    if (equals_lower(arg, option)) return true;
  return false;
}

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member ...: INCR is among the leading options.
bool zadd_incr(const Command& argv) {
  for (size_t i = 2; i < argv.size() && is_zadd_option(argv[i]); ++i)
    if (equals_lower(argv[i], "incr")) return true;
  return false;
}

// ZUNION/ZINTER/ZDIFF numkeys key ... [WITHSCORES]: the options follow the keys.
bool multikey_withscores(const Command& argv) {
  int64_t numkeys = 0;
  if (argv.size() < 2 || !parse_int64(argv[1], numkeys) || numkeys < 0) return false;
  if (static_cast<uint64_t>(numkeys) > argv.size()) return false;
  return has_word(argv, 2 + static_cast<size_t>(numkeys), "withscores");
}

bool subcommand_is(const Command& argv, std::string_view sub) { return argv.size() >= 2 && equals_lower(argv[1], sub); }

Resp3Form zset_form(std::string_view name, const Command& argv) {
  if (name == "zscore" || name == "zincrby") return Resp3Form::Double;
  if (name == "zadd") return zadd_incr(argv) ? Resp3Form::Double : Resp3Form::Plain;
  if (name == "zmscore") return Resp3Form::Doubles;
  if (name == "zrange" || name == "zrangebyscore" || name == "zrevrange" || name == "zrevrangebyscore")
    return has_word(argv, 4, "withscores") ? Resp3Form::ScorePairs : Resp3Form::Plain;
  if (name == "zunion" || name == "zinter" || name == "zdiff")
    return multikey_withscores(argv) ? Resp3Form::ScorePairs : Resp3Form::Plain;
  if (name == "zrandmember") return has_word(argv, 3, "withscores") ? Resp3Form::ScorePairs : Resp3Form::Plain;
  if (name == "zpopmin" || name == "zpopmax") return argv.size() == 2 ? Resp3Form::LastDouble : Resp3Form::ScorePairs;
  if (name == "bzpopmin" || name == "bzpopmax") return Resp3Form::LastDouble;
  if (name == "zmpop" || name == "bzmpop") return Resp3Form::KeyScorePairs;
  return Resp3Form::Plain;
}

}  // namespace

Resp3Form resp3_form(const Command& argv) {
  char buffer[24];
  std::string_view name;
  if (argv.empty() || !to_lower(argv[0], buffer, sizeof buffer, name)) return Resp3Form::Plain;
  if (name.starts_with('z') || name.starts_with("bz")) return zset_form(name, argv);
  if (name == "hgetall" || name == "hello") return Resp3Form::Map;
  if ((name == "config" && subcommand_is(argv, "get")) || (name == "command" && subcommand_is(argv, "docs")) ||
      (name == "function" && subcommand_is(argv, "stats")) || (name == "lcs" && has_word(argv, 3, "idx")))
    return Resp3Form::Map;
  if (name == "smembers" || name == "sinter" || name == "sunion" || name == "sdiff") return Resp3Form::Set;
  if (name == "spop" && argv.size() == 3) return Resp3Form::Set;
  if (name.ends_with("subscribe")) return Resp3Form::Push;
  if (name == "info" || (name == "client" && (subcommand_is(argv, "list") || subcommand_is(argv, "info"))))
    return Resp3Form::Verbatim;
  if (name == "hrandfield" && has_word(argv, 3, "withvalues")) return Resp3Form::Pairs;
  return Resp3Form::Plain;
}

}  // namespace locksim::redis
