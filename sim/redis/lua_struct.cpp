// Redis's `struct` Lua library (Roberto Ierusalimschy's struct 0.2 as Redis bundles
// it): struct.pack, struct.unpack, struct.size. Written for the model; C style on
// purpose: every error is a Lua error (longjmp), so no frame here owns C++ objects.
#include <lua.hpp>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstring>

#include "locksim/sim/redis/lua_budget.hpp"

namespace locksim::redis {

namespace {

constexpr int kMaxIntSize = 32;
constexpr int kMaxAlign = 8;

struct Header {
  bool little = true;  // x86-64's native order
  int align = 1;
};

// The work of pack, unpack and size grows with the format (each option a step) and
// the bytes copied; it runs in C, out of the instruction hook's sight, so it is
// charged to the script's budget here (8 bytes a step, as lua_metered.cpp does).
const char* charged_format(lua_State* L) {
  size_t len = 0;
  const char* fmt = luaL_checklstring(L, 1, &len);
  lua_charge(L, 1 + len);
  return fmt;
}
void charge_bytes(lua_State* L, size_t bytes) { lua_charge(L, bytes / 8); }

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int read_number(lua_State* L, const char** fmt, int fallback) {
  if (!is_digit(**fmt)) return fallback;
  int a = 0;
  do {
    if (a > (INT_MAX / 10) || a * 10 > (INT_MAX - (**fmt - '0'))) luaL_error(L, "integral size overflow");
    a = a * 10 + (*((*fmt)++) - '0');
  } while (is_digit(**fmt));
  return a;
}

size_t option_size(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'B':
    case 'b': return 1;
    case 'H':
    case 'h': return 2;
    case 'L':
    case 'l': return sizeof(long);
    case 'T': return sizeof(size_t);
    case 'f': return sizeof(float);
    case 'd': return sizeof(double);
    case 'x': return 1;
    case 'c': return static_cast<size_t>(read_number(L, fmt, 1));
    case 'i':
    case 'I': {
      const int size = read_number(L, fmt, sizeof(int));
      if (size > kMaxIntSize) luaL_error(L, "integral size %d is larger than limit of %d", size, kMaxIntSize);
      return static_cast<size_t>(size);
    }
    default: return 0;
  }
}

size_t padding(size_t len, const Header& h, char opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > static_cast<size_t>(h.align)) size = static_cast<size_t>(h.align);
  return (size - (len & (size - 1))) & (size - 1);
}

void control_option(lua_State* L, char opt, const char** fmt, Header& h) {
  switch (opt) {
    case ' ': return;
    case '>': h.little = false; return;
    case '<': h.little = true; return;
    case '=': h.little = true; return;
    case '!': {
      const int a = read_number(L, fmt, kMaxAlign);
      if (a <= 0 || (a & (a - 1)) != 0) luaL_error(L, "alignment %d is not a power of 2", a);
      h.align = a;
      return;
    }
    default: luaL_error(L, "invalid format option '%c'", opt);
  }
}

// The bits of a number packed as an integer. Redis casts the double straight to an
// integer, undefined in C beyond the integer's range (UBSan, found by fuzz_lua_libs);
// out of range, this gives what Redis's cast gives on x86-64: the "integer
// indefinite" 0x8000000000000000 (NaN too).
uint64_t integer_bits(lua_Number n) {
  constexpr lua_Number kTwo63 = 9223372036854775808.0, kTwo64 = 18446744073709551616.0;
  constexpr uint64_t kIndefinite = uint64_t{1} << 63;
  if (n < 0) return n >= -kTwo63 ? static_cast<uint64_t>(static_cast<int64_t>(n)) : kIndefinite;
  if (n < kTwo64) return static_cast<uint64_t>(n);
  return kIndefinite;  // too large, or NaN (every comparison with NaN is false)
}

void put_integer(luaL_Buffer* b, lua_Number n, bool little, size_t size) {
  char buff[kMaxIntSize];
  uint64_t value = integer_bits(n);
  const char fill = n < 0 ? '\xff' : '\0';
  for (size_t i = 0; i < size; ++i) {
    const char byte = i < 8 ? static_cast<char>(value & 0xff) : fill;
    if (i < 8) value >>= 8;
    buff[little ? i : size - 1 - i] = byte;
  }
  luaL_addlstring(b, buff, size);
}

void put_bytes(luaL_Buffer* b, const void* data, size_t size, bool little) {
  char buff[sizeof(double)];
  std::memcpy(buff, data, size);
  if (!little)
    for (size_t i = 0; i < size / 2; ++i) {
      char t = buff[i];
      buff[i] = buff[size - 1 - i];
      buff[size - 1 - i] = t;
    }
  luaL_addlstring(b, buff, size);
}

int struct_pack(lua_State* L) {
  Header h;
  const char* fmt = charged_format(L);
  int arg = 2;
  size_t total = 0;
  luaL_Buffer b;
  lua_pushnil(L);  // a slot luaL_Buffer may use
  luaL_buffinit(L, &b);
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = option_size(L, opt, &fmt);
    size_t pad = padding(total, h, opt, size);
    total += pad;
    while (pad-- > 0) luaL_addchar(&b, '\0');
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I': put_integer(&b, luaL_checknumber(L, arg++), h.little, size); break;
      case 'x': luaL_addchar(&b, '\0'); break;
      case 'f': {
        const float f = static_cast<float>(luaL_checknumber(L, arg++));
        put_bytes(&b, &f, sizeof f, h.little);
        break;
      }
      case 'd': {
        const double d = luaL_checknumber(L, arg++);
        put_bytes(&b, &d, sizeof d, h.little);
        break;
      }
      case 'c':
      case 's': {
        size_t len = 0;
        const char* s = luaL_checklstring(L, arg, &len);
        if (size == 0) size = len;
        luaL_argcheck(L, len >= size, arg, "string too short");
        ++arg;
        charge_bytes(L, size);
        luaL_addlstring(&b, s, size);
        if (opt == 's') {
          luaL_addchar(&b, '\0');
          ++size;
        }
        break;
      }
      default: control_option(L, opt, &fmt, h);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

lua_Number get_integer(const char* buff, bool little, bool is_signed, size_t size) {
  uint64_t value = 0;
  const size_t used = size < 8 ? size : 8;
  for (size_t i = 0; i < used; ++i) {
    const size_t at = little ? used - 1 - i : size - used + i;
    value = (value << 8) | static_cast<unsigned char>(buff[at]);
  }
  if (is_signed) {
    // 'i0' is a size Redis accepts: no bytes, the value 0 (and no sign bit to extend).
    if (size == 0) return 0;
    if (size < 8) {
      const uint64_t mask = uint64_t{1} << (size * 8 - 1);
      return static_cast<lua_Number>(static_cast<int64_t>((value ^ mask) - mask));
    }
    return static_cast<lua_Number>(static_cast<int64_t>(value));
  }
  return static_cast<lua_Number>(value);
}

// 'f' or 'd' as stored: its bytes in the header's order, read as the machine's float.
lua_Number get_float(const char* data, bool little, char opt, size_t size) {
  char buff[sizeof(double)];
  std::memcpy(buff, data, size);
  if (!little) std::reverse(buff, buff + size);
  if (opt == 'f') {
    float f;
    std::memcpy(&f, buff, sizeof f);
    return f;
  }
  double d;
  std::memcpy(&d, buff, sizeof d);
  return d;
}

int struct_unpack(lua_State* L) {
  Header h;
  const char* fmt = charged_format(L);
  size_t ld = 0;
  const char* data = luaL_checklstring(L, 2, &ld);
  const lua_Number init = luaL_optnumber(L, 3, 1);
  luaL_argcheck(L, init >= 1 && init - 1 <= static_cast<lua_Number>(ld), 3, "offset must be 1 or greater");
  size_t pos = static_cast<size_t>(init) - 1;
  int n = 0;
  lua_settop(L, 2);
  while (*fmt) {
    const char opt = *fmt++;
    size_t size = option_size(L, opt, &fmt);
    pos += padding(pos, h, opt, size);
    luaL_argcheck(L, pos <= ld && size <= ld - pos, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        lua_pushnumber(L, get_integer(data + pos, h.little, std::islower(static_cast<unsigned char>(opt)), size));
        ++n;
        break;
      case 'x': break;
      case 'f':
      case 'd':
        lua_pushnumber(L, get_float(data + pos, h.little, opt, size));
        ++n;
        break;
      case 'c': {
        if (size == 0) {
          if (n == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
          // The previous value may be any number ('d', a signed 'b'): checked against
          // the data before it becomes a size (a negative or huge double is no size_t).
          const lua_Number previous = lua_tonumber(L, -1);
          luaL_argcheck(L, previous >= 0 && previous <= static_cast<lua_Number>(ld - pos), 2, "data string too short");
          size = static_cast<size_t>(previous);
          lua_pop(L, 1);
          --n;
        }
        charge_bytes(L, size);
        lua_pushlstring(L, data + pos, size);
        ++n;
        break;
      }
      case 's': {
        const char* end = static_cast<const char*>(std::memchr(data + pos, '\0', ld - pos));
        if (end == nullptr) luaL_error(L, "unfinished string in data");
        size = static_cast<size_t>(end - (data + pos)) + 1;
        charge_bytes(L, size);
        lua_pushlstring(L, data + pos, size - 1);
        ++n;
        break;
      }
      default: control_option(L, opt, &fmt, h);
    }
    pos += size;
  }
  lua_pushnumber(L, static_cast<lua_Number>(pos + 1));
  return n + 1;
}

int struct_size(lua_State* L) {
  Header h;
  const char* fmt = charged_format(L);
  size_t pos = 0;
  while (*fmt) {
    const char opt = *fmt++;
    const size_t size = option_size(L, opt, &fmt);
    pos += padding(pos, h, opt, size);
    if (opt == 's')
      luaL_argerror(L, 1, "option 's' has no fixed size");
    else if (opt == 'c' && size == 0)
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    if (!std::isalnum(static_cast<unsigned char>(opt))) control_option(L, opt, &fmt, h);
    pos += size;
  }
  lua_pushnumber(L, static_cast<lua_Number>(pos));
  return 1;
}

}  // namespace

int open_struct_library(lua_State* L) {
  lua_newtable(L);
  lua_pushcfunction(L, struct_pack);
  lua_setfield(L, -2, "pack");
  lua_pushcfunction(L, struct_unpack);
  lua_setfield(L, -2, "unpack");
  lua_pushcfunction(L, struct_size);
  lua_setfield(L, -2, "size");
  return 1;
}

}  // namespace locksim::redis
