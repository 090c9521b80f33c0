#include "locksim/sim/redis/lua_resp3.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace locksim::redis {

namespace {

// One level pushes at most a table, a key and a value (Redis checks 3 to 5 slots).
void reserve(lua_State* L) { luaL_checkstack(L, 5, "reply too deep"); }

// A reply whose form says nothing more: RESP3's null is nil, not false.
void push_plain(lua_State* L, const Reply& reply, PushScalar push_scalar) {
  reserve(L);
  switch (reply.type) {
    case Reply::Type::Nil:
    case Reply::Type::NilArray:
    case Reply::Type::Blocked: lua_pushnil(L); return;
    case Reply::Type::Array:
      lua_createtable(L, static_cast<int>(reply.elements.size()), 0);
      for (size_t i = 0; i < reply.elements.size(); ++i) {
        push_plain(L, reply.elements[i], push_scalar);
        lua_rawseti(L, -2, static_cast<int>(i + 1));
      }
      return;
    default: push_scalar(L, reply);
  }
}

// Opens {name = {}} and leaves the inner table on top, the outer below it.
void open_typed_table(lua_State* L, const char* name) {
  reserve(L);
  lua_createtable(L, 0, 1);
  lua_pushstring(L, name);
  lua_newtable(L);
}

// Closes what open_typed_table opened: outer[name] = inner.
void close_typed_table(lua_State* L) { lua_rawset(L, -3); }

// A score the model gives as a bulk ("%.17g", "inf", "-inf"), which RESP3 sends as a double.
void push_double(lua_State* L, const Reply& score, PushScalar push_scalar) {
  if (score.type != Reply::Type::Bulk) return push_plain(L, score, push_scalar);
  reserve(L);
  lua_createtable(L, 0, 1);
  lua_pushstring(L, "double");
  lua_pushnumber(L, std::strtod(score.str.c_str(), nullptr));
  lua_rawset(L, -3);
}

void push_map(lua_State* L, const Reply& flat, PushScalar push_scalar) {
  open_typed_table(L, "map");
  for (size_t i = 0; i + 1 < flat.elements.size(); i += 2) {
    push_plain(L, flat.elements[i], push_scalar);
    push_plain(L, flat.elements[i + 1], push_scalar);
    lua_settable(L, -3);
  }
  close_typed_table(L);
}

void push_set(lua_State* L, const Reply& members, PushScalar push_scalar) {
  open_typed_table(L, "set");
  for (const Reply& member : members.elements) {
    push_plain(L, member, push_scalar);
    lua_pushboolean(L, 1);
    lua_settable(L, -3);
  }
  close_typed_table(L);
}

void push_verbatim(lua_State* L, const Reply& text) {
  open_typed_table(L, "verbatim_string");
  lua_pushstring(L, "string");
  lua_pushlstring(L, text.str.data(), text.str.size());
  lua_rawset(L, -3);
  lua_pushstring(L, "format");
  lua_pushstring(L, "txt");
  lua_rawset(L, -3);
  close_typed_table(L);
}

// [a, b, a, b] as [[a, b], [a, b]], the second of each pair a double if `scores`.
void push_pairs(lua_State* L, const Reply& flat, bool scores, PushScalar push_scalar) {
  reserve(L);
  lua_createtable(L, static_cast<int>(flat.elements.size() / 2), 0);
  for (size_t i = 0; i + 1 < flat.elements.size(); i += 2) {
    reserve(L);
    lua_createtable(L, 2, 0);
    push_plain(L, flat.elements[i], push_scalar);
    lua_rawseti(L, -2, 1);
    if (scores)
      push_double(L, flat.elements[i + 1], push_scalar);
    else
      push_plain(L, flat.elements[i + 1], push_scalar);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, static_cast<int>(i / 2 + 1));
  }
}

// An array whose elements (from `first_double` on) are doubles.
void push_with_doubles(lua_State* L, const Reply& array, size_t first_double, PushScalar push_scalar) {
  reserve(L);
  lua_createtable(L, static_cast<int>(array.elements.size()), 0);
  for (size_t i = 0; i < array.elements.size(); ++i) {
    if (i >= first_double)
      push_double(L, array.elements[i], push_scalar);
    else
      push_plain(L, array.elements[i], push_scalar);
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
}

// ZMPOP/BZMPOP: [key, [[m, s], ...]].
bool push_key_score_pairs(lua_State* L, const Reply& reply, PushScalar push_scalar) {
  if (reply.elements.size() != 2 || reply.elements[1].type != Reply::Type::Array) return false;
  reserve(L);
  lua_createtable(L, 2, 0);
  push_plain(L, reply.elements[0], push_scalar);
  lua_rawseti(L, -2, 1);
  const Reply& pairs = reply.elements[1];
  lua_createtable(L, static_cast<int>(pairs.elements.size()), 0);
  for (size_t i = 0; i < pairs.elements.size(); ++i) {
    const Reply& pair = pairs.elements[i];
    if (pair.type == Reply::Type::Array && !pair.elements.empty())
      push_with_doubles(L, pair, pair.elements.size() - 1, push_scalar);
    else
      push_plain(L, pair, push_scalar);
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  lua_rawseti(L, -2, 2);
  return true;
}

// The array forms, as server/resp3_forms.cpp writes them; false when the reply does not fit the form.
bool push_array_form(lua_State* L, const Reply& reply, Resp3Form form, PushScalar push_scalar) {
  const size_t n = reply.elements.size();
  switch (form) {
    case Resp3Form::Map: push_map(L, reply, push_scalar); return true;
    case Resp3Form::Set: push_set(L, reply, push_scalar); return true;
    case Resp3Form::Doubles: push_with_doubles(L, reply, 0, push_scalar); return true;
    case Resp3Form::ScorePairs:
    case Resp3Form::Pairs:
      if (n % 2 != 0) return false;
      push_pairs(L, reply, form == Resp3Form::ScorePairs, push_scalar);
      return true;
    case Resp3Form::LastDouble:
      if (n == 0) return false;
      push_with_doubles(L, reply, n - 1, push_scalar);
      return true;
    case Resp3Form::KeyScorePairs: return push_key_score_pairs(L, reply, push_scalar);
    default: return false;
  }
}

}  // namespace

void push_reply_resp3(lua_State* L, const Reply& reply, Resp3Form form, PushScalar push_scalar) {
  if (reply.type == Reply::Type::Bulk && form == Resp3Form::Double) return push_double(L, reply, push_scalar);
  if (reply.type == Reply::Type::Bulk && form == Resp3Form::Verbatim) return push_verbatim(L, reply);
  if (reply.type == Reply::Type::Array && push_array_form(L, reply, form, push_scalar)) return;
  push_plain(L, reply, push_scalar);
}

std::string resp2_double_text(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const int n = std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return std::string(buffer, static_cast<size_t>(n));
}

}  // namespace locksim::redis
