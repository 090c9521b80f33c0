#include "locksim/server/resp3_forms.hpp"

#include <charconv>

#include "locksim/sim/redis/arguments.hpp"

namespace locksim::server {

using redis::Command;
using redis::Reply;

namespace {
// Whether one of argv[from...] is `word` (lowercase), ignoring case.
bool has_word(const Command& argv, size_t from, std::string_view word) {
  for (size_t i = from; i < argv.size(); ++i)
    if (redis::equals_lower(argv[i], word)) return true;
  return false;
}

bool is_zadd_option(const std::string& arg) {
  for (std::string_view option : {"nx", "xx", "gt", "lt", "ch", "incr"})
    if (redis::equals_lower(arg, option)) return true;
  return false;
}

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member ...: INCR is among the leading options.
bool zadd_incr(const Command& argv) {
  for (size_t i = 2; i < argv.size() && is_zadd_option(argv[i]); ++i)
    if (redis::equals_lower(argv[i], "incr")) return true;
  return false;
}

// ZUNION/ZINTER/ZDIFF numkeys key ... [WITHSCORES]: the options follow the keys.
bool multikey_withscores(const Command& argv) {
  int64_t numkeys = 0;
  if (argv.size() < 2 || !redis::parse_int64(argv[1], numkeys) || numkeys < 0) return false;
  if (static_cast<uint64_t>(numkeys) > argv.size()) return false;
  return has_word(argv, 2 + static_cast<size_t>(numkeys), "withscores");
}

bool subcommand_is(const Command& argv, std::string_view sub) {
  return argv.size() >= 2 && redis::equals_lower(argv[1], sub);
}

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

void append_header(std::string& out, char type, size_t n) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out += type;
  out.append(digits, end);
  out += "\r\n";
}

// A score the model gives as a bulk ("%.17g", "inf", "-inf") is a RESP3 double.
void append_double(std::string& out, const Reply& score) {
  if (score.type != Reply::Type::Bulk) {
    redis::append_reply(out, score, redis::Protocol::Resp3);
    return;
  }
  out += ',';
  out += score.str;
  out += "\r\n";
}

// [a, b, a, b] as [[a, b], [a, b]], the second of each pair a double if `scores`.
void append_pairs(std::string& out, const Reply& flat, bool scores) {
  append_header(out, '*', flat.elements.size() / 2);
  for (size_t i = 0; i + 1 < flat.elements.size(); i += 2) {
    out += "*2\r\n";
    redis::append_reply(out, flat.elements[i], redis::Protocol::Resp3);
    if (scores)
      append_double(out, flat.elements[i + 1]);
    else
      redis::append_reply(out, flat.elements[i + 1], redis::Protocol::Resp3);
  }
}

void append_array_form(std::string& out, const Reply& reply, Resp3Form form) {
  const auto& elements = reply.elements;
  switch (form) {
    case Resp3Form::Map: redis::append_reply(out, reply, redis::Protocol::Resp3, redis::Aggregate::Map); return;
    case Resp3Form::Set: redis::append_reply(out, reply, redis::Protocol::Resp3, redis::Aggregate::Set); return;
    case Resp3Form::Push: redis::append_reply(out, reply, redis::Protocol::Resp3, redis::Aggregate::Push); return;
    case Resp3Form::Doubles:
      append_header(out, '*', elements.size());
      for (const Reply& e : elements) append_double(out, e);
      return;
    case Resp3Form::ScorePairs:
    case Resp3Form::Pairs:
      if (elements.size() % 2 == 0) return append_pairs(out, reply, form == Resp3Form::ScorePairs);
      break;
    case Resp3Form::LastDouble:
      if (elements.empty()) break;
      append_header(out, '*', elements.size());
      for (size_t i = 0; i + 1 < elements.size(); ++i) redis::append_reply(out, elements[i], redis::Protocol::Resp3);
      return append_double(out, elements.back());
    case Resp3Form::KeyScorePairs:
      if (elements.size() != 2 || elements[1].type != Reply::Type::Array) break;
      out += "*2\r\n";
      redis::append_reply(out, elements[0], redis::Protocol::Resp3);
      append_header(out, '*', elements[1].elements.size());
      for (const Reply& pair : elements[1].elements) append_array_form(out, pair, Resp3Form::LastDouble);
      return;
    default: break;
  }
  redis::append_reply(out, reply, redis::Protocol::Resp3);
}
}  // namespace

Resp3Form resp3_form(const Command& argv) {
  char buffer[24];
  std::string_view name;
  if (argv.empty() || !redis::to_lower(argv[0], buffer, sizeof buffer, name)) return Resp3Form::Plain;
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

void append_reply_for(std::string& out, const Reply& reply, redis::Protocol protocol, Resp3Form form) {
  if (protocol == redis::Protocol::Resp2 || form == Resp3Form::Plain) {
    redis::append_reply(out, reply, protocol);
    return;
  }
  if (reply.type == Reply::Type::Bulk && form == Resp3Form::Double) return append_double(out, reply);
  if (reply.type == Reply::Type::Bulk && form == Resp3Form::Verbatim) {
    append_header(out, '=', reply.str.size() + 4);
    out += "txt:";
    out += reply.str;
    out += "\r\n";
    return;
  }
  if (reply.type == Reply::Type::Array) return append_array_form(out, reply, form);
  redis::append_reply(out, reply, protocol);
}

}  // namespace locksim::server
