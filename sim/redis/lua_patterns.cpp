// Lua 5.1's pattern matching (string.find, match, gmatch, gsub) with the same
// results and error texts, plus two bounds that the stock C library lacks and
// that a script could otherwise abuse:
//   - a recursion limit of 200 (Lua 5.2's MAXCCALLS), raising "pattern too complex",
//     so that `string.rep('a*', 100000)` cannot overflow the C stack;
//   - every matching step is charged to the script's instruction budget, so that
//     `('.-'):rep(5) .. 'b'` over a long subject stops like a busy loop does.
// The matcher's frames hold only pointers and integers: Lua errors (longjmp)
// raised from inside them skip no destructor, as in Lua's own lstrlib.c.
#include <cctype>
#include <cstddef>
#include <cstring>
#include <string_view>

#include "locksim/sim/redis/lua_budget.hpp"

namespace locksim::redis {

namespace {

constexpr int kMaxCaptures = 32;  // LUA_MAXCAPTURES
constexpr int kMaxDepth = 200;    // Lua 5.2's MAXCCALLS for patterns
constexpr ptrdiff_t kCapUnfinished = -1;
constexpr ptrdiff_t kCapPosition = -2;
constexpr char kEsc = '%';
constexpr const char* kSpecials = "^$*+?.([%-";
constexpr uint64_t kStepsPerCharge = 4096;
// A matching step costs about four VM instructions (measured with '.-.-.-.-b').
constexpr uint64_t kInstructionsPerStep = 4;

struct MatchState {
  const char* src_init;
  const char* src_end;
  lua_State* L;
  int level;
  int depth;
  uint64_t steps;
  struct {
    const char* init;
    ptrdiff_t len;
  } capture[kMaxCaptures];
};

void step(MatchState* ms, uint64_t n = 1) {
  ms->steps += n;
  if (ms->steps >= kStepsPerCharge) {
    const uint64_t steps = ms->steps;
    ms->steps = 0;
    lua_charge(ms->L, steps * kInstructionsPerStep);
  }
}

// Charges the steps not charged yet.
void settle(MatchState& ms, uint64_t extra = 0) { lua_charge(ms.L, ms.steps * kInstructionsPerStep + extra); }

int check_capture(MatchState* ms, int l) {
  l -= '1';
  if (l < 0 || l >= ms->level || ms->capture[l].len == kCapUnfinished)
    return luaL_error(ms->L, "invalid capture index");
  return l;
}

int capture_to_close(MatchState* ms) {
  for (int level = ms->level - 1; level >= 0; level--)
    if (ms->capture[level].len == kCapUnfinished) return level;
  return luaL_error(ms->L, "invalid pattern capture");
}

const char* class_end(MatchState* ms, const char* p) {
  switch (*p++) {
    case kEsc:
      if (*p == '\0') luaL_error(ms->L, "malformed pattern (ends with '%%')");
      return p + 1;
    case '[':
      if (*p == '^') p++;
      do {  // look for a ']'
        if (*p == '\0') luaL_error(ms->L, "malformed pattern (missing ']')");
        if (*(p++) == kEsc && *p != '\0') p++;  // skip escapes (e.g. '%]')
      } while (*p != ']');
      return p + 1;
    default: return p;
  }
}

bool match_class(int c, int cl) {
  bool res;
  switch (std::tolower(cl)) {
    case 'a': res = std::isalpha(c); break;
    case 'c': res = std::iscntrl(c); break;
    case 'd': res = std::isdigit(c); break;
    case 'l': res = std::islower(c); break;
    case 'p': res = std::ispunct(c); break;
    case 's': res = std::isspace(c); break;
    case 'u': res = std::isupper(c); break;
    case 'w': res = std::isalnum(c); break;
    case 'x': res = std::isxdigit(c); break;
    case 'z': res = (c == 0); break;
    default: return cl == c;
  }
  return std::isupper(cl) ? !res : res;
}

bool match_bracket_class(int c, const char* p, const char* ec) {
  bool sig = true;
  if (*(p + 1) == '^') {
    sig = false;
    p++;  // skip the '^'
  }
  while (++p < ec) {
    if (*p == kEsc) {
      p++;
      if (match_class(c, static_cast<unsigned char>(*p))) return sig;
    } else if (*(p + 1) == '-' && p + 2 < ec) {
      p += 2;
      if (static_cast<unsigned char>(*(p - 2)) <= c && c <= static_cast<unsigned char>(*p)) return sig;
    } else if (static_cast<unsigned char>(*p) == c) {
      return sig;
    }
  }
  return !sig;
}

bool single_match(int c, const char* p, const char* ep) {
  switch (*p) {
    case '.': return true;
    case kEsc: return match_class(c, static_cast<unsigned char>(*(p + 1)));
    case '[': return match_bracket_class(c, p, ep - 1);
    default: return static_cast<unsigned char>(*p) == c;
  }
}

const char* match(MatchState* ms, const char* s, const char* p);

const char* match_balance(MatchState* ms, const char* s, const char* p) {
  if (*p == 0 || *(p + 1) == 0) luaL_error(ms->L, "unbalanced pattern");
  if (s >= ms->src_end || *s != *p) return nullptr;
  const char b = *p, e = *(p + 1);
  int cont = 1;
  const char* start = s;
  while (++s < ms->src_end) {
    if (*s == e) {
      if (--cont == 0) {
        step(ms, static_cast<uint64_t>(s - start));
        return s + 1;
      }
    } else if (*s == b) {
      cont++;
    }
  }
  step(ms, static_cast<uint64_t>(s - start));
  return nullptr;
}

const char* max_expand(MatchState* ms, const char* s, const char* p, const char* ep) {
  ptrdiff_t i = 0;  // counts maximum expand for item
  while (s + i < ms->src_end && single_match(static_cast<unsigned char>(*(s + i)), p, ep)) i++;
  step(ms, static_cast<uint64_t>(i));
  while (i >= 0) {  // tries with maximum repetitions, then fewer
    const char* res = match(ms, s + i, ep + 1);
    if (res) return res;
    i--;
  }
  return nullptr;
}

const char* min_expand(MatchState* ms, const char* s, const char* p, const char* ep) {
  for (;;) {
    const char* res = match(ms, s, ep + 1);
    if (res != nullptr) return res;
    if (s < ms->src_end && single_match(static_cast<unsigned char>(*s), p, ep))
      s++;
    else
      return nullptr;
  }
}

const char* start_capture(MatchState* ms, const char* s, const char* p, ptrdiff_t what) {
  const int level = ms->level;
  if (level >= kMaxCaptures) luaL_error(ms->L, "too many captures");
  ms->capture[level].init = s;
  ms->capture[level].len = what;
  ms->level = level + 1;
  const char* res = match(ms, s, p);
  if (res == nullptr) ms->level--;  // undo capture
  return res;
}

const char* end_capture(MatchState* ms, const char* s, const char* p) {
  const int l = capture_to_close(ms);
  ms->capture[l].len = s - ms->capture[l].init;  // close capture
  const char* res = match(ms, s, p);
  if (res == nullptr) ms->capture[l].len = kCapUnfinished;  // undo capture
  return res;
}

const char* match_capture(MatchState* ms, const char* s, int l) {
  l = check_capture(ms, l);
  const size_t len = static_cast<size_t>(ms->capture[l].len);
  step(ms, len);
  if (static_cast<size_t>(ms->src_end - s) >= len && std::memcmp(ms->capture[l].init, s, len) == 0) return s + len;
  return nullptr;
}

// One pattern item (a class and its quantifier) at p; tail items loop, not recurse.
const char* match_default(MatchState* ms, const char*& s, const char*& p, bool& again) {
  const char* ep = class_end(ms, p);
  const bool m = s < ms->src_end && single_match(static_cast<unsigned char>(*s), p, ep);
  switch (*ep) {
    case '?': {
      const char* res = nullptr;
      if (m && (res = match(ms, s + 1, ep + 1)) != nullptr) return res;
      p = ep + 1;
      again = true;
      return nullptr;
    }
    case '*': return max_expand(ms, s, p, ep);
    case '+': return m ? max_expand(ms, s + 1, p, ep) : nullptr;
    case '-': return min_expand(ms, s, p, ep);
    default:
      if (!m) return nullptr;
      s++;
      p = ep;
      again = true;
      return nullptr;
  }
}

// Handles %b, %f and back-references; false when p is an ordinary escape.
bool match_escape(MatchState* ms, const char*& s, const char*& p, bool& failed) {
  switch (*(p + 1)) {
    case 'b':
      s = match_balance(ms, s, p + 2);
      failed = s == nullptr;
      p += 4;
      return true;
    case 'f': {
      p += 2;
      if (*p != '[') luaL_error(ms->L, "missing '[' after '%%f' in pattern");
      const char* ep = class_end(ms, p);
      const char previous = (s == ms->src_init) ? '\0' : *(s - 1);
      const char current = s < ms->src_end ? *s : '\0';
      failed = match_bracket_class(static_cast<unsigned char>(previous), p, ep - 1) ||
               !match_bracket_class(static_cast<unsigned char>(current), p, ep - 1);
      p = ep;
      return true;
    }
    default:
      if (!std::isdigit(static_cast<unsigned char>(*(p + 1)))) return false;
      s = match_capture(ms, s, static_cast<unsigned char>(*(p + 1)));
      failed = s == nullptr;
      p += 2;
      return true;
  }
}

const char* match_body(MatchState* ms, const char* s, const char* p) {
  for (;;) {
    step(ms);
    switch (*p) {
      case '(':
        if (*(p + 1) == ')') return start_capture(ms, s, p + 2, kCapPosition);
        return start_capture(ms, s, p + 1, kCapUnfinished);
      case ')': return end_capture(ms, s, p + 1);
      case '\0': return s;  // end of pattern
      case '$':
        if (*(p + 1) == '\0') return (s == ms->src_end) ? s : nullptr;
        break;
      case kEsc: {
        bool failed = false;
        if (match_escape(ms, s, p, failed)) {
          if (failed) return nullptr;
          continue;
        }
        break;
      }
      default: break;
    }
    bool again = false;
    const char* res = match_default(ms, s, p, again);
    if (!again) return res;
  }
}

const char* match(MatchState* ms, const char* s, const char* p) {
  if (++ms->depth > kMaxDepth) luaL_error(ms->L, "pattern too complex");
  const char* res = match_body(ms, s, p);
  ms->depth--;
  return res;
}

void push_onecapture(MatchState* ms, int i, const char* s, const char* e) {
  if (i >= ms->level) {
    if (i == 0)
      lua_pushlstring(ms->L, s, static_cast<size_t>(e - s));  // the whole match
    else
      luaL_error(ms->L, "invalid capture index");
    return;
  }
  const ptrdiff_t l = ms->capture[i].len;
  if (l == kCapUnfinished) luaL_error(ms->L, "unfinished capture");
  if (l == kCapPosition)
    lua_pushinteger(ms->L, ms->capture[i].init - ms->src_init + 1);
  else
    lua_pushlstring(ms->L, ms->capture[i].init, static_cast<size_t>(l));
}

int push_captures(MatchState* ms, const char* s, const char* e) {
  const int nlevels = (ms->level == 0 && s) ? 1 : ms->level;
  luaL_checkstack(ms->L, nlevels, "too many captures");
  for (int i = 0; i < nlevels; i++) push_onecapture(ms, i, s, e);
  return nlevels;
}

ptrdiff_t relative_position(ptrdiff_t pos, size_t len) {
  if (pos < 0) pos += static_cast<ptrdiff_t>(len) + 1;  // negative: from the end
  return pos >= 0 ? pos : 0;
}

void init_state(MatchState& ms, lua_State* L, const char* s, size_t len) {
  ms.src_init = s;
  ms.src_end = s + len;
  ms.L = L;
  ms.level = 0;
  ms.depth = 0;
  ms.steps = 0;
}

int str_find_aux(lua_State* L, bool find) {
  size_t l1 = 0, l2 = 0;
  const char* s = luaL_checklstring(L, 1, &l1);
  const char* p = luaL_checklstring(L, 2, &l2);
  ptrdiff_t init = relative_position(luaL_optinteger(L, 3, 1), l1) - 1;
  if (init < 0)
    init = 0;
  else if (static_cast<size_t>(init) > l1)
    init = static_cast<ptrdiff_t>(l1);
  if (find && (lua_toboolean(L, 4) || std::strpbrk(p, kSpecials) == nullptr)) {  // plain search
    lua_charge(L, 1 + (l1 - static_cast<size_t>(init)) / 8);
    const size_t at = std::string_view(s, l1).find(std::string_view(p, l2), static_cast<size_t>(init));
    if (at != std::string_view::npos) {
      lua_pushinteger(L, static_cast<lua_Integer>(at + 1));
      lua_pushinteger(L, static_cast<lua_Integer>(at + l2));
      return 2;
    }
  } else {
    MatchState ms;
    init_state(ms, L, s, l1);
    const bool anchor = (*p == '^') && (p++, true);
    const char* s1 = s + init;
    do {
      ms.level = 0;
      ms.depth = 0;
      const char* res = match(&ms, s1, p);
      if (res != nullptr) {
        settle(ms);
        if (!find) return push_captures(&ms, s1, res);
        lua_pushinteger(L, s1 - s + 1);  // start
        lua_pushinteger(L, res - s);     // end
        return push_captures(&ms, nullptr, nullptr) + 2;
      }
    } while (s1++ < ms.src_end && !anchor);
    settle(ms);
  }
  lua_pushnil(L);
  return 1;
}

int str_find(lua_State* L) { return str_find_aux(L, true); }
int str_match(lua_State* L) { return str_find_aux(L, false); }

int gmatch_aux(lua_State* L) {
  size_t ls = 0;
  const char* s = lua_tolstring(L, lua_upvalueindex(1), &ls);
  const char* p = lua_tostring(L, lua_upvalueindex(2));
  MatchState ms;
  init_state(ms, L, s, ls);
  for (const char* src = s + lua_tointeger(L, lua_upvalueindex(3)); src <= ms.src_end; src++) {
    ms.level = 0;
    ms.depth = 0;
    const char* e = match(&ms, src, p);
    if (e != nullptr) {
      lua_Integer newstart = e - s;
      if (e == src) newstart++;  // empty match: go at least one position
      lua_pushinteger(L, newstart);
      lua_replace(L, lua_upvalueindex(3));
      settle(ms);
      return push_captures(&ms, src, e);
    }
  }
  settle(ms);
  return 0;  // not found
}

int gmatch(lua_State* L) {
  luaL_checkstring(L, 1);
  luaL_checkstring(L, 2);
  lua_settop(L, 2);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, gmatch_aux, 3);
  return 1;
}

void add_s(MatchState* ms, luaL_Buffer* b, const char* s, const char* e) {
  size_t l = 0;
  const char* news = lua_tolstring(ms->L, 3, &l);
  for (size_t i = 0; i < l; i++) {
    if (news[i] != kEsc) {
      luaL_addchar(b, news[i]);
      continue;
    }
    i++;  // skip the escape
    if (!std::isdigit(static_cast<unsigned char>(news[i]))) {
      luaL_addchar(b, news[i]);
    } else if (news[i] == '0') {
      luaL_addlstring(b, s, static_cast<size_t>(e - s));
    } else {
      push_onecapture(ms, news[i] - '1', s, e);
      luaL_addvalue(b);  // add the capture to the accumulated result
    }
  }
  step(ms, l + static_cast<uint64_t>(e - s));
}

void add_value(MatchState* ms, luaL_Buffer* b, const char* s, const char* e) {
  lua_State* L = ms->L;
  switch (lua_type(L, 3)) {
    case LUA_TNUMBER:
    case LUA_TSTRING: add_s(ms, b, s, e); return;
    case LUA_TFUNCTION: {
      lua_pushvalue(L, 3);
      const int n = push_captures(ms, s, e);
      lua_call(L, n, 1);
      break;
    }
    case LUA_TTABLE:
      push_onecapture(ms, 0, s, e);
      lua_gettable(L, 3);
      break;
    default: break;
  }
  if (!lua_toboolean(L, -1)) {  // nil or false: keep the original text
    lua_pop(L, 1);
    lua_pushlstring(L, s, static_cast<size_t>(e - s));
  } else if (!lua_isstring(L, -1)) {
    luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
  }
  luaL_addvalue(b);
}

int gsub(lua_State* L) {
  size_t srcl = 0;
  const char* src = luaL_checklstring(L, 1, &srcl);
  const char* p = luaL_checkstring(L, 2);
  const int tr = lua_type(L, 3);
  const int max_s = luaL_optint(L, 4, static_cast<int>(srcl) + 1);
  const bool anchor = (*p == '^') && (p++, true);
  luaL_argcheck(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
                "string/function/table expected");
  int n = 0;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  MatchState ms;
  init_state(ms, L, src, srcl);
  while (n < max_s) {
    ms.level = 0;
    ms.depth = 0;
    const char* e = match(&ms, src, p);
    if (e) {
      n++;
      add_value(&ms, &b, src, e);
    }
    if (e && e > src)
      src = e;  // non-empty match
    else if (src < ms.src_end)
      luaL_addchar(&b, *src++);
    else
      break;
    if (anchor) break;
  }
  luaL_addlstring(&b, src, static_cast<size_t>(ms.src_end - src));
  settle(ms, static_cast<size_t>(ms.src_end - src) / 8);
  luaL_pushresult(&b);
  lua_pushinteger(L, n);  // number of substitutions
  return 2;
}

}  // namespace

void install_pattern_functions(lua_State* L, int string_table) {
  const struct {
    const char* name;
    lua_CFunction fn;
  } functions[] = {{"find", str_find}, {"match", str_match}, {"gmatch", gmatch}, {"gfind", gmatch}, {"gsub", gsub}};
  for (const auto& f : functions) {
    lua_getfield(L, string_table, f.name);
    const bool present = !lua_isnil(L, -1);  // gfind only where Lua was built with it
    lua_pop(L, 1);
    if (!present) continue;
    lua_pushcfunction(L, f.fn);
    lua_setfield(L, string_table, f.name);
  }
}

}  // namespace locksim::redis
