// Values between Lua and replies, with Redis 7.0.15's conversions and error texts.
#include "locksim/sim/redis/script_lua.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "locksim/sim/redis/lua_resp3.hpp"

namespace locksim::redis {

std::string error_table_text(std::string_view text) {
  std::string code = "ERR";
  std::string msg(text);
  if (!text.empty() && text[0] == '-') {
    size_t space = text.find(' ');
    if (space == std::string_view::npos) {
      msg = std::string(text.substr(1));
    } else {
      code = std::string(text.substr(1, space - 1));
      msg = std::string(text.substr(space + 1));
    }
  }
  size_t begin = msg.find_first_not_of("\r\n");
  size_t end = msg.find_last_not_of("\r\n");
  msg = begin == std::string::npos ? std::string() : msg.substr(begin, end - begin + 1);
  return code + " " + msg;
}

// {err=...} and {ok=...} are made with room for their field: an empty table would grow
// (a rehash) at the field's first set, a third of a status reply's cost.
void push_error_table(lua_State* L, std::string_view text) {
  lua_createtable(L, 0, 1);
  lua_pushlstring(L, "err", 3);
  lua_pushlstring(L, text.data(), text.size());
  lua_rawset(L, -3);
}

void mark_error_counted(lua_State* L) {
  lua_pushlstring(L, kErrorCountedField, sizeof kErrorCountedField - 1);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
}

bool error_counted(lua_State* L, int index) {
  if (!lua_istable(L, index)) return false;
  lua_pushlstring(L, kErrorCountedField, sizeof kErrorCountedField - 1);
  lua_rawget(L, index < 0 ? index - 1 : index);
  const bool counted = lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);
  return counted;
}

// A scalar, status or error needs at most 3 slots: at the top (a C function after
// lua_settop(L, 0) has LUA_MINSTACK) or inside an array, which makes room for them
// first, or inside a RESP3 form, which reserves its own (lua_resp3.cpp).
void push_reply(lua_State* L, const Reply& reply) {
  switch (reply.type) {
    case Reply::Type::Integer: lua_pushnumber(L, static_cast<lua_Number>(reply.integer)); break;
    case Reply::Type::Bulk: lua_pushlstring(L, reply.str.data(), reply.str.size()); break;
    case Reply::Type::Nil:
    case Reply::Type::NilArray:
    case Reply::Type::Blocked: lua_pushboolean(L, 0); break;
    case Reply::Type::Status:
      lua_createtable(L, 0, 1);
      lua_pushlstring(L, "ok", 2);
      lua_pushlstring(L, reply.str.data(), reply.str.size());
      lua_rawset(L, -3);
      break;
    case Reply::Type::Error: push_error_table(L, error_table_text("-" + reply.str)); break;
    case Reply::Type::Array:
      luaL_checkstack(L, 4, "reply too deep");  // the table and an element's 3
      lua_createtable(L, static_cast<int>(reply.elements.size()), 0);
      for (size_t i = 0; i < reply.elements.size(); ++i) {
        push_reply(L, reply.elements[i]);
        lua_rawseti(L, -2, static_cast<int>(i + 1));
      }
      break;
  }
}


std::string without_newlines(std::string text) {
  for (char& c : text)
    if (c == '\r' || c == '\n') c = ' ';
  return text;
}


namespace {

// x86-64's double -> int64 conversion, which Redis relies on: out of range and NaN give INT64_MIN.
int64_t lua_number_to_integer(lua_Number n) {
  if (std::isnan(n) || n >= 9223372036854775808.0 || n < -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(n);
}

// The string field `name` of the table at index, pushed; false (nothing pushed) if it is not a string.
bool string_field(lua_State* L, int index, const char* name) {
  lua_pushstring(L, name);
  lua_rawget(L, index);
  if (lua_type(L, -1) == LUA_TSTRING) return true;
  lua_pop(L, 1);
  return false;
}

std::string pop_string(lua_State* L) {
  size_t len = 0;
  const char* s = lua_tolstring(L, -1, &len);
  std::string text(s, len);
  lua_pop(L, 1);
  return text;
}

// RESP3's typed tables ({double=n}, {big_number=s}, {verbatim_string={format=f,
// string=s}}) as a RESP2 client gets them, checked in Redis's order after err and ok.
std::optional<Reply> typed_scalar_reply(lua_State* L, int index) {
  lua_pushstring(L, "double");
  lua_rawget(L, index);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    const double value = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return Reply::bulk(resp2_double_text(value));
  }
  lua_pop(L, 1);
  if (string_field(L, index, "big_number")) return Reply::bulk(without_newlines(pop_string(L)));
  lua_pushstring(L, "verbatim_string");
  lua_rawget(L, index);
  const int verbatim = lua_gettop(L);
  std::optional<Reply> reply;
  if (lua_type(L, verbatim) == LUA_TTABLE && string_field(L, verbatim, "format")) {
    lua_pop(L, 1);
    if (string_field(L, verbatim, "string")) reply = Reply::bulk(pop_string(L));
  }
  lua_settop(L, verbatim - 1);
  return reply;
}

// Redis luaReplyToRedisReply, for a RESP2 client, without recursion in C: Redis
// recurses, but a table nested 8000 deep would then need 8000 C++ frames, which
// overflow the stack of a sanitizer build (and of any small-stack thread).
// Lua's own stack still sets the depth limit as in Redis: a level starts only if the
// Lua stack (LUAI_MAXCSTACK, 8000 slots) has 4 left, else that element is the error
// "reached lua stack limit" and its parent carries on.
// `budget` counts the elements still allowed: a table that contains itself ten
// times over would otherwise make a reply of 10^200 elements, which the instruction
// budget cannot stop. (Redis would run out of memory; the model answers an error.)
// After redis.setresp(3), booleans go out as RESP3 booleans do to a RESP2 client: 1 and 0.
class ReplyBuilder {
 public:
  ReplyBuilder(lua_State* L, size_t& budget) : L_(L), budget_(budget) {}

  Reply build(int index) {
    std::optional<Reply> finished = begin(absolute(index));
    for (;;) {
      if (finished) {
        if (open_.empty()) return std::move(*finished);
        finished = deliver(std::move(*finished));
      } else {
        finished = advance();
      }
    }
  }

 private:
  enum class Kind { Array, Map, Set };
  // A table being converted: its elements so far and where its iteration stands.
  struct Open {
    Kind kind;
    int table;                  // absolute Lua stack index of the table iterated
    int restore_top;            // the Lua stack top to restore when it closes
    std::vector<Reply> elements;
    int next_index = 1;         // Array: the next rawgeti index
    bool key_done = false;      // Map: the key of the current pair is converted
  };

  static Reply too_large() { return Reply::error("ERR reply too large: more than 1000000 elements"); }
  int absolute(int index) const { return index < 0 ? lua_gettop(L_) + index + 1 : index; }

  // The value at `index`: its reply if it is a scalar, else nullopt with a new open table.
  std::optional<Reply> begin(int index) {
    if (!lua_checkstack(L_, 4)) return Reply::error("ERR reached lua stack limit");
    if (budget_ == 0) return too_large();
    --budget_;
    switch (lua_type(L_, index)) {
      case LUA_TSTRING: {
        size_t len = 0;
        const char* s = lua_tolstring(L_, index, &len);
        return Reply::bulk(std::string(s, len));
      }
      case LUA_TBOOLEAN:
        if (lua_toboolean(L_, index)) return Reply::integer_(1);
        return runtime_of(L_).resp == 2 ? Reply::nil() : Reply::integer_(0);
      case LUA_TNUMBER: return Reply::integer_(lua_number_to_integer(lua_tonumber(L_, index)));
      case LUA_TTABLE: return begin_table(index);
      default: return Reply::nil();
    }
  }

  std::optional<Reply> begin_table(int index) {
    if (string_field(L_, index, "err")) return Reply::error(without_newlines(pop_string(L_)));
    if (string_field(L_, index, "ok")) return Reply::status(without_newlines(pop_string(L_)));
    if (auto typed = typed_scalar_reply(L_, index)) return typed;
    const int top = lua_gettop(L_);
    // {map={k=v}} is a flat [k, v, ...] array and {set={m=true}} is [m, ...], in
    // lua_next's order as Redis sends them.
    for (const Kind kind : {Kind::Map, Kind::Set}) {
      lua_pushstring(L_, kind == Kind::Map ? "map" : "set");
      lua_rawget(L_, index);
      if (lua_type(L_, -1) == LUA_TTABLE) {
        lua_pushnil(L_);
        open_.push_back({kind, top + 1, top, {}});
        return std::nullopt;
      }
      lua_pop(L_, 1);
    }
    open_.push_back({Kind::Array, index, top, {}});
    return std::nullopt;
  }

  // The next element of the innermost open table, or the table's reply when it has no more.
  std::optional<Reply> advance() {
    Open& open = open_.back();
    if (open.kind == Kind::Array) {
      lua_rawgeti(L_, open.table, open.next_index++);
      if (!lua_isnil(L_, -1)) return begin(lua_gettop(L_));
    } else if (lua_next(L_, open.table)) {
      open.key_done = false;
      return begin(lua_gettop(L_) - 1);
    }
    return close(Reply::array(std::move(open.elements)));
  }

  // Hands a finished element to the innermost open table; its reply if that closes it.
  std::optional<Reply> deliver(Reply element) {
    Open& open = open_.back();
    open.elements.push_back(std::move(element));
    if (open.kind == Kind::Map && !open.key_done) {
      open.key_done = true;
      return begin(lua_gettop(L_));
    }
    lua_pop(L_, 1);  // the array element, or the pair's value (the key stays for lua_next)
    if (budget_ == 0) return close(too_large());
    return std::nullopt;
  }

  Reply close(Reply reply) {
    lua_settop(L_, open_.back().restore_top);
    open_.pop_back();
    return reply;
  }

  lua_State* L_;
  size_t& budget_;
  std::vector<Open> open_;
};


}  // namespace

Reply lua_to_reply(lua_State* L, int index, size_t& budget) {
  // A number or a string (most scripts' answer) directly: as ReplyBuilder::begin makes them.
  const int type = lua_type(L, index);
  if ((type == LUA_TNUMBER || type == LUA_TSTRING) && budget > 0 && lua_checkstack(L, 4)) {
    --budget;
    if (type == LUA_TNUMBER) return Reply::integer_(lua_number_to_integer(lua_tonumber(L, index)));
    size_t len = 0;
    const char* s = lua_tolstring(L, index, &len);
    return Reply::bulk_of(std::string_view(s, len));
  }
  return ReplyBuilder(L, budget).build(index);
}

}  // namespace locksim::redis
