// Redis's `cmsgpack` Lua library (lua-cmsgpack 0.4 as Redis bundles it): pack,
// unpack, unpack_one, unpack_limit, written for the model. C style on purpose: every
// error is a Lua error (longjmp), so no frame here owns C++ objects.
#include <lua.hpp>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "locksim/sim/redis/lua_budget.hpp"

namespace locksim::redis {

namespace {

constexpr int kMaxNesting = 16;  // deeper tables are packed as nil, as lua-cmsgpack does

// Packing and unpacking run in C, out of the instruction hook's sight: each value
// is charged to the script's budget (a table reachable along many paths, t = {t, t}
// nested 16 deep, is 2^16 values) and strings by their bytes. The memory they
// build is the Lua heap's (userdata, strings, tables), under the script's cap.
void charge_value(lua_State* L, size_t bytes) { lua_charge(L, 1 + bytes / kBytesPerInstruction); }

// The output grows in a Lua userdata kept at a fixed stack slot (collected on error).
struct Out {
  lua_State* L;
  int slot;
  char* data;
  size_t len, cap;
};

void put(Out* b, const void* bytes, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap * 2 + n;
    char* grown = static_cast<char*>(lua_newuserdata(b->L, cap));
    std::memcpy(grown, b->data, b->len);
    lua_replace(b->L, b->slot);
    b->data = grown;
    b->cap = cap;
  }
  std::memcpy(b->data + b->len, bytes, n);
  b->len += n;
}

void put_be(Out* b, unsigned char tag, uint64_t value, int bytes) {
  unsigned char buf[9];
  buf[0] = tag;
  for (int i = 0; i < bytes; ++i) buf[1 + i] = static_cast<unsigned char>(value >> (8 * (bytes - 1 - i)));
  put(b, buf, static_cast<size_t>(bytes) + 1);
}

void encode_integer(Out* b, int64_t n) {
  if (n >= 0) {
    if (n <= 127)
      put_be(b, static_cast<unsigned char>(n), 0, 0);
    else if (n <= 0xff)
      put_be(b, 0xcc, static_cast<uint64_t>(n), 1);
    else if (n <= 0xffff)
      put_be(b, 0xcd, static_cast<uint64_t>(n), 2);
    else if (n <= 0xffffffffLL)
      put_be(b, 0xce, static_cast<uint64_t>(n), 4);
    else
      put_be(b, 0xcf, static_cast<uint64_t>(n), 8);
  } else {
    if (n >= -32)
      put_be(b, static_cast<unsigned char>(static_cast<int8_t>(n)), 0, 0);
    else if (n >= -128)
      put_be(b, 0xd0, static_cast<uint64_t>(n), 1);
    else if (n >= -32768)
      put_be(b, 0xd1, static_cast<uint64_t>(n), 2);
    else if (n >= -2147483648LL)
      put_be(b, 0xd2, static_cast<uint64_t>(n), 4);
    else
      put_be(b, 0xd3, static_cast<uint64_t>(n), 8);
  }
}

void encode_number(Out* b, lua_Number n) {
  if (!std::isinf(n) && !std::isnan(n) && n >= -9223372036854775808.0 && n < 9223372036854775808.0 &&
      static_cast<lua_Number>(static_cast<int64_t>(n)) == n) {
    encode_integer(b, static_cast<int64_t>(n));
    return;
  }
  const float f = static_cast<float>(n);
  if (static_cast<lua_Number>(f) == n) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    put_be(b, 0xca, bits, 4);
  } else {
    uint64_t bits;
    std::memcpy(&bits, &n, sizeof bits);
    put_be(b, 0xcb, bits, 8);
  }
}

void encode_string(Out* b, const char* s, size_t len) {
  if (len < 32)
    put_be(b, static_cast<unsigned char>(0xa0 | len), 0, 0);
  else if (len <= 0xff)
    put_be(b, 0xd9, len, 1);
  else if (len <= 0xffff)
    put_be(b, 0xda, len, 2);
  else
    put_be(b, 0xdb, len, 4);
  put(b, s, len);
}

// An array is a table whose keys are exactly 1..n.
bool table_is_array(lua_State* L, int index, size_t& count) {
  count = 0;
  lua_Number max = 0;
  lua_pushnil(L);
  while (lua_next(L, index)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TNUMBER) {
      lua_pop(L, 1);
      return false;
    }
    const lua_Number n = lua_tonumber(L, -1);
    if (n <= 0 || std::floor(n) != n) {
      lua_pop(L, 1);
      return false;
    }
    if (n > max) max = n;
    ++count;
  }
  return max == static_cast<lua_Number>(count);
}

void encode(lua_State* L, Out* b, int level);  // encodes and pops the top value

void encode_table(lua_State* L, Out* b, int level) {
  const int index = lua_gettop(L);
  size_t count = 0;
  luaL_checkstack(L, 4, "cmsgpack: too deep");
  if (table_is_array(L, index, count)) {
    if (count <= 15)
      put_be(b, static_cast<unsigned char>(0x90 | count), 0, 0);
    else if (count <= 0xffff)
      put_be(b, 0xdc, count, 2);
    else
      put_be(b, 0xdd, count, 4);
    for (size_t i = 1; i <= count; ++i) {
      lua_rawgeti(L, index, static_cast<int>(i));
      encode(L, b, level + 1);
    }
    return;
  }
  count = 0;
  lua_pushnil(L);
  while (lua_next(L, index)) {
    lua_pop(L, 1);
    ++count;
  }
  if (count <= 15)
    put_be(b, static_cast<unsigned char>(0x80 | count), 0, 0);
  else if (count <= 0xffff)
    put_be(b, 0xde, count, 2);
  else
    put_be(b, 0xdf, count, 4);
  lua_pushnil(L);
  while (lua_next(L, index)) {
    lua_pushvalue(L, -2);     // key, value, key
    encode(L, b, level + 1);  // the key's copy
    encode(L, b, level + 1);  // the value; the key stays for lua_next
  }
}

void encode(lua_State* L, Out* b, int level) {
  charge_value(L, 0);
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      charge_value(L, len);
      encode_string(b, s, len);
      break;
    }
    case LUA_TBOOLEAN: put_be(b, lua_toboolean(L, -1) ? 0xc3 : 0xc2, 0, 0); break;
    case LUA_TNUMBER: encode_number(b, lua_tonumber(L, -1)); break;
    case LUA_TTABLE:
      if (level >= kMaxNesting)
        put_be(b, 0xc0, 0, 0);
      else
        encode_table(L, b, level);
      break;
    default: put_be(b, 0xc0, 0, 0); break;
  }
  lua_pop(L, 1);
}

int mp_pack(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  luaL_checkstack(L, 8, "cmsgpack: too many arguments");
  Out out{L, argc + 1, nullptr, 0, 64};
  out.data = static_cast<char*>(lua_newuserdata(L, out.cap));
  for (int i = 1; i <= argc; ++i) {
    lua_pushvalue(L, i);
    encode(L, &out, 0);
  }
  lua_pushlstring(L, out.data, out.len);
  return 1;
}

// ---- decoding -------------------------------------------------------------------

struct In {
  const unsigned char* p;
  size_t left;
  int error;  // 0, 1 missing bytes, 2 bad format
};

uint64_t take_be(In* c, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | c->p[i];
  c->p += bytes;
  c->left -= static_cast<size_t>(bytes);
  return v;
}

bool need(In* c, size_t n) {
  if (c->left >= n) return true;
  c->error = 1;
  return false;
}

void decode(lua_State* L, In* c);

void decode_array(lua_State* L, In* c, size_t n) {
  luaL_checkstack(L, 4, "cmsgpack: too deep");
  lua_newtable(L);
  for (size_t i = 1; i <= n && !c->error; ++i) {
    decode(L, c);
    if (c->error) return;
    lua_rawseti(L, -2, static_cast<int>(i));
  }
}

void decode_map(lua_State* L, In* c, size_t n) {
  luaL_checkstack(L, 4, "cmsgpack: too deep");
  lua_newtable(L);
  for (size_t i = 0; i < n && !c->error; ++i) {
    decode(L, c);
    if (c->error) return;
    decode(L, c);
    if (c->error) return;
    lua_settable(L, -3);
  }
}

void decode_string(lua_State* L, In* c, size_t n) {
  if (!need(c, n)) return;
  charge_value(L, n);
  lua_pushlstring(L, reinterpret_cast<const char*>(c->p), n);
  c->p += n;
  c->left -= n;
}

uint64_t take_sized(In* c, int bytes) { return need(c, static_cast<size_t>(bytes)) ? take_be(c, bytes) : 0; }

// The fixed-width numbers (uint8..64, int8..64, float, double); false for any other tag.
bool decode_number(lua_State* L, In* c, unsigned char tag) {
  uint64_t v = 0;
  switch (tag) {
    case 0xcc:
      v = take_sized(c, 1);
      if (!c->error) lua_pushnumber(L, static_cast<lua_Number>(v));
      return true;
    case 0xcd:
      v = take_sized(c, 2);
      if (!c->error) lua_pushnumber(L, static_cast<lua_Number>(v));
      return true;
    case 0xce:
      v = take_sized(c, 4);
      if (!c->error) lua_pushnumber(L, static_cast<lua_Number>(v));
      return true;
    case 0xcf:
      v = take_sized(c, 8);
      if (!c->error) lua_pushnumber(L, static_cast<lua_Number>(v));
      return true;
    case 0xd0:
      v = take_sized(c, 1);
      if (!c->error) lua_pushnumber(L, static_cast<int8_t>(v));
      return true;
    case 0xd1:
      v = take_sized(c, 2);
      if (!c->error) lua_pushnumber(L, static_cast<int16_t>(v));
      return true;
    case 0xd2:
      v = take_sized(c, 4);
      if (!c->error) lua_pushnumber(L, static_cast<int32_t>(v));
      return true;
    case 0xd3:
      v = take_sized(c, 8);
      if (!c->error) lua_pushnumber(L, static_cast<lua_Number>(static_cast<int64_t>(v)));
      return true;
    case 0xca: {
      v = take_sized(c, 4);
      if (c->error) return true;
      const uint32_t bits = static_cast<uint32_t>(v);
      float f;
      std::memcpy(&f, &bits, sizeof f);
      lua_pushnumber(L, f);
      return true;
    }
    case 0xcb: {
      v = take_sized(c, 8);
      if (c->error) return true;
      double d;
      std::memcpy(&d, &v, sizeof d);
      lua_pushnumber(L, d);
      return true;
    }
    default: return false;
  }
}

// Strings (str and bin), arrays and maps with a 1-, 2- or 4-byte length; false for any other tag.
bool decode_with_length(lua_State* L, In* c, unsigned char tag) {
  uint64_t v = 0;
  switch (tag) {
    case 0xc4:
    case 0xd9:
      v = take_sized(c, 1);
      if (!c->error) decode_string(L, c, v);
      return true;
    case 0xc5:
    case 0xda:
      v = take_sized(c, 2);
      if (!c->error) decode_string(L, c, v);
      return true;
    case 0xc6:
    case 0xdb:
      v = take_sized(c, 4);
      if (!c->error) decode_string(L, c, v);
      return true;
    case 0xdc:
      v = take_sized(c, 2);
      if (!c->error) decode_array(L, c, v);
      return true;
    case 0xdd:
      v = take_sized(c, 4);
      if (!c->error) decode_array(L, c, v);
      return true;
    case 0xde:
      v = take_sized(c, 2);
      if (!c->error) decode_map(L, c, v);
      return true;
    case 0xdf:
      v = take_sized(c, 4);
      if (!c->error) decode_map(L, c, v);
      return true;
    default: return false;
  }
}

void decode(lua_State* L, In* c) {
  charge_value(L, 0);
  if (!need(c, 1)) return;
  const unsigned char tag = *c->p;
  c->p++;
  c->left--;
  if (tag <= 0x7f) return lua_pushnumber(L, tag);
  if (tag >= 0xe0) return lua_pushnumber(L, static_cast<int8_t>(tag));
  if ((tag & 0xe0) == 0xa0) return decode_string(L, c, tag & 0x1f);
  if ((tag & 0xf0) == 0x90) return decode_array(L, c, tag & 0x0f);
  if ((tag & 0xf0) == 0x80) return decode_map(L, c, tag & 0x0f);
  switch (tag) {
    case 0xc0: lua_pushnil(L); return;
    case 0xc2: lua_pushboolean(L, 0); return;
    case 0xc3: lua_pushboolean(L, 1); return;
    default: break;
  }
  if (!decode_number(L, c, tag) && !decode_with_length(L, c, tag)) c->error = 2;
}

// lua-cmsgpack mp_unpack_full: `limit` objects from `offset`; with a limit the next
// offset (or -1 at the end) comes first.
int unpack_full(lua_State* L, int limit, int offset, bool with_offset) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  if (offset < 0 || limit < 0)
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.", offset, limit);
  if (static_cast<size_t>(offset) > len)
    return luaL_error(L, "Start offset %d greater than input length %d.", offset, static_cast<int>(len));
  if (!with_offset) limit = INT_MAX;
  In c{reinterpret_cast<const unsigned char*>(s) + offset, len - static_cast<size_t>(offset), 0};
  int count = 0;
  for (; c.left > 0 && count < limit; ++count) {
    luaL_checkstack(L, 4, "cmsgpack: too many results");
    decode(L, &c);
    if (c.error == 1) return luaL_error(L, "Missing bytes in input.");
    if (c.error == 2) return luaL_error(L, "Bad data format in input.");
  }
  if (!with_offset) return count;
  const lua_Number next = c.left > 0 ? static_cast<lua_Number>(len - c.left) : -1;
  lua_pushnumber(L, next);
  lua_insert(L, -(count + 1));
  return count + 1;
}

// An offset or limit as lua-cmsgpack's int: a number outside int's range (or NaN)
// is -1, refused by unpack_full, never a conversion C++ leaves undefined.
int int_argument(lua_Number n) { return n >= INT_MIN && n <= INT_MAX ? static_cast<int>(n) : -1; }

int mp_unpack(lua_State* L) { return unpack_full(L, 0, 0, false); }
int mp_unpack_one(lua_State* L) {
  const int offset = int_argument(luaL_optnumber(L, 2, 0));
  lua_settop(L, 1);
  return unpack_full(L, 1, offset, true);
}
int mp_unpack_limit(lua_State* L) {
  const int limit = int_argument(luaL_checknumber(L, 2));
  const int offset = int_argument(luaL_optnumber(L, 3, 0));
  lua_settop(L, 1);
  return unpack_full(L, limit, offset, true);
}

}  // namespace

int open_cmsgpack_library(lua_State* L) {
  lua_newtable(L);
  lua_pushcfunction(L, mp_pack);
  lua_setfield(L, -2, "pack");
  lua_pushcfunction(L, mp_unpack);
  lua_setfield(L, -2, "unpack");
  lua_pushcfunction(L, mp_unpack_one);
  lua_setfield(L, -2, "unpack_one");
  lua_pushcfunction(L, mp_unpack_limit);
  lua_setfield(L, -2, "unpack_limit");
  lua_pushstring(L, "lua-cmsgpack");
  lua_setfield(L, -2, "_NAME");
  lua_pushstring(L, "lua-cmsgpack 0.4.0");
  lua_setfield(L, -2, "_VERSION");
  return 1;
}

}  // namespace locksim::redis
