// Loading a Lua variant: compile it, run its top level once in the sandbox
// and read its declarations (name, summary, reentrant, params, the functions).
#include "locksim/lock/lua_variant.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <deque>
#include <optional>

#include "locksim/lock/lua_runtime.hpp"
#include "locksim/sim/files.hpp"

namespace locksim::lock {

namespace {

std::string base_name(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  const size_t dot = name.find('.');
  if (dot != std::string::npos && dot > 0) name.erase(dot);
  return name;
}

bool valid_name(std::string_view name) {
  return !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
                              std::string_view::npos;
}

// The global `field` (raw: no strictness) as the type wanted; "" or an error.
std::string read_global(lua_State* L, const char* field, int type, const char* wanted) {
  lua_pushstring(L, field);
  lua_rawget(L, LUA_GLOBALSINDEX);
  const int got = lua_type(L, -1);
  if (got == LUA_TNIL || got == type) return {};
  std::string error = fmt::format("'{}' must be {}, not a {}", field, wanted, lua_typename(L, got));
  lua_pop(L, 1);
  return error;
}

// A bound of a declared parameter's range: a number (ms for a duration) or a duration text.
std::optional<double> range_end(lua_State* L, const char* field, std::string& error) {
  lua_getfield(L, -1, field);
  std::optional<double> out;
  if (lua_type(L, -1) == LUA_TNUMBER) {
    out = lua_tonumber(L, -1);
  } else if (lua_type(L, -1) == LUA_TSTRING) {
    Duration d;
    if (sim::parse_duration(lua_tostring(L, -1), d)) out = static_cast<double>(d.ns) / 1e6;
    else error = fmt::format("'{}' must be a number or a duration", field);
  } else if (!lua_isnil(L, -1)) {
    error = fmt::format("'{}' must be a number or a duration", field);
  }
  lua_pop(L, 1);
  return out;
}

// `["lock-at-least-for"] = { default = "2s", min = "0s", max = "5s", help = "..." }`
// (the table on the stack's top): a parameter of the variant's own.
std::string declare_own_param(lua_State* L, const std::string& name, LuaVariant& v) {
  if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos)
    return fmt::format("params: '{}': a parameter's name is lower-case letters, digits and '-'", name);
  VariantParam p;
  p.name = name;
  lua_getfield(L, -1, "default");
  const int type = lua_type(L, -1);
  std::string text;
  if (type == LUA_TBOOLEAN) {
    p.kind = VariantParam::Kind::Boolean;
    text = lua_toboolean(L, -1) ? "true" : "false";
  } else if (type == LUA_TNUMBER) {
    p.kind = VariantParam::Kind::Number;
    text = fmt::format("{}", lua_tonumber(L, -1));
  } else if (type == LUA_TSTRING) {
    text = lua_tostring(L, -1);
    Duration d;
    p.kind = sim::parse_duration(text, d) ? VariantParam::Kind::Duration : VariantParam::Kind::Text;
  }
  lua_pop(L, 1);
  if (text.empty() && type != LUA_TSTRING)
    return fmt::format("params: '{}' = {{ default = ... }}: the default (a number, a duration text, a string or a "
                       "boolean) is missing",
                       name);
  std::string error;
  auto canonical = canonical_value(p, text, &error);
  if (!canonical) return fmt::format("params: '{}': default: {}", name, error);
  p.default_value = *canonical;
  p.min = range_end(L, "min", error);
  if (error.empty()) p.max = range_end(L, "max", error);
  if (!error.empty()) return fmt::format("params: '{}': {}", name, error);
  if (p.min.has_value() != p.max.has_value())
    return fmt::format("params: '{}': a range needs both min and max", name);
  if (p.min && (p.kind == VariantParam::Kind::Text || p.kind == VariantParam::Kind::Boolean))
    return fmt::format("params: '{}': only numbers and durations have a range", name);
  if (p.min && (*p.min > *p.max || !std::isfinite(*p.min) || !std::isfinite(*p.max) ||
                (p.kind == VariantParam::Kind::Duration && *p.min < 0)))
    return fmt::format("params: '{}': the range must go from min up to max", name);
  lua_getfield(L, -1, "help");
  if (lua_isstring(L, -1)) p.help = lua_tostring(L, -1);
  lua_pop(L, 1);
  if (auto clash = declare_variant_param(p)) return fmt::format("params: {}", *clash);
  v.own_params.push_back(std::move(p));
  return {};
}

// The deployment: masters = N (independent masters), replica = true (one master and a replica).
std::string apply_deployment(lua_State* L, const std::string& name, LuaVariant& v) {
  if (name == "masters") {
    const double n = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || n != std::floor(n) || n < 1 || n > 9)
      return "params: masters must be a whole number from 1 to 9";
    v.masters = static_cast<uint32_t>(n);
  } else {
    if (lua_type(L, -1) != LUA_TBOOLEAN) return "params: replica must be true or false";
    v.replica = lua_toboolean(L, -1);
  }
  if (v.replica && v.masters > 1) return "params: a replica goes with a single master";
  return {};
}

// Applies `params = { lease = 3000, ["renew-interval"] = 1000, key = "x" }`:
// durations as numbers of ms or as text ("3s"), names as the CLI's flags; the
// deployment (masters, replica) and the variant's own parameters (a table).
std::string apply_params(lua_State* L, LuaVariant& v) {
  LockParams& out = v.defaults;
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      lua_pop(L, 2);
      return "params: keys are parameter names (e.g. lease, retry, wait_limit)";
    }
    std::string name = lua_tostring(L, -2);
    for (char& c : name)
      if (c == '_') c = '-';
    const ParamInfo* info = name == "param" ? nullptr : find_lock_param(name);
    if (name == "masters" || name == "replica" || (!info && lua_type(L, -1) == LUA_TTABLE)) {
      std::string problem = info || lua_type(L, -1) != LUA_TTABLE ? apply_deployment(L, name, v)
                                                                  : declare_own_param(L, name, v);
      lua_pop(L, 1);
      if (!problem.empty()) {
        lua_pop(L, 1);
        return problem;
      }
      continue;
    }
    std::string value;
    const int type = lua_type(L, -1);
    if (type == LUA_TNUMBER) {
      const double n = lua_tonumber(L, -1);
      value = name == "key" ? fmt::format("{}", n) : fmt::format("{}ns", std::llround(n * 1e6));
    } else if (type == LUA_TBOOLEAN) {
      value = lua_toboolean(L, -1) ? "true" : "false";
    } else if (type == LUA_TSTRING) {
      value = lua_tostring(L, -1);
    }
    lua_pop(L, 1);
    if (!info) {
      std::string known;
      for (const auto& p : lock_param_table()) known += (known.empty() ? "" : ", ") + std::string(p.name);
      lua_pop(L, 1);
      return fmt::format(
          "params: unknown lock parameter '{}' (known: {}; masters, replica; or declare your own as "
          "[\"{}\"] = {{ default = ..., min = ..., max = ... }})",
          name, known, name);
    }
    if (value.empty()) {
      lua_pop(L, 1);
      return fmt::format("params: '{}' must be a number of ms, a duration text or a boolean", name);
    }
    if (auto problem = info->set(out, value)) {
      lua_pop(L, 1);
      return fmt::format("params: {}: {}", name, *problem);
    }
  }
  return {};
}

// `claims = { "mutual-exclusion", "no-deadlock" }`: the properties the variant promises,
// a list of their ids (props/ knows the ids and refuses an unknown one when check reads them).
std::string read_claims(lua_State* L, LuaVariant& v) {
  v.claims_declared = true;
  const size_t n = lua_objlen(L, -1);
  for (size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, -1, static_cast<int>(i));
    const bool text = lua_type(L, -1) == LUA_TSTRING;
    if (text) v.claims.emplace_back(lua_tostring(L, -1));
    lua_pop(L, 1);
    if (!text) return fmt::format("claims: entry {} must be a property id such as \"mutual-exclusion\"", i);
  }
  // Only a list: a key beside its entries is a mistake (`claims = { fenced = true }`).
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    const bool listed = lua_type(L, -2) == LUA_TNUMBER && lua_tonumber(L, -2) >= 1 && lua_tonumber(L, -2) <= n;
    lua_pop(L, 1);
    if (!listed) {
      lua_pop(L, 1);
      return "claims: a list of property ids, e.g. { \"mutual-exclusion\", \"no-deadlock\" }";
    }
  }
  return {};
}

// Reads the declarations off a loaded state.
std::string read_declarations(lua_State* L, LuaVariant& v) {
  if (auto e = read_global(L, "name", LUA_TSTRING, "a string"); !e.empty()) return e;
  if (lua_isstring(L, -1)) {
    v.name = lua_tostring(L, -1);
    if (!valid_name(v.name)) return fmt::format("name '{}': use letters, digits, '.', '_' and '-'", v.name);
  }
  lua_pop(L, 1);
  if (auto e = read_global(L, "summary", LUA_TSTRING, "a string"); !e.empty()) return e;
  if (lua_isstring(L, -1)) v.summary = lua_tostring(L, -1);
  lua_pop(L, 1);
  if (auto e = read_global(L, "reentrant", LUA_TBOOLEAN, "true or false"); !e.empty()) return e;
  v.reentrant = lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (auto e = read_global(L, "params", LUA_TTABLE, "a table"); !e.empty()) return e;
  if (lua_istable(L, -1))
    if (auto e = apply_params(L, v); !e.empty()) return e;
  lua_pop(L, 1);
  if (auto e = read_global(L, "claims", LUA_TTABLE, "a table of property ids"); !e.empty()) return e;
  if (lua_istable(L, -1))
    if (auto e = read_claims(L, v); !e.empty()) return e;
  lua_pop(L, 1);
  for (const char* f : {"acquire", "release", "fence", "still_held"}) {
    if (auto e = read_global(L, f, LUA_TFUNCTION, "a function"); !e.empty()) return e;
    const bool defined = lua_isfunction(L, -1);
    lua_pop(L, 1);
    if (!defined && (std::string_view(f) == "acquire" || std::string_view(f) == "release"))
      return fmt::format("no {}() function: a variant defines acquire() and release()", f);
    if (std::string_view(f) == "fence") v.has_fence = defined;
    if (std::string_view(f) == "still_held") v.has_still_held = defined;
  }
  return {};
}

}  // namespace

std::shared_ptr<const LuaVariant> load_lua_variant_text(const std::string& text, const std::string& path,
                                                        std::string* error) {
  auto v = std::make_shared<LuaVariant>();
  static std::atomic<uint64_t> serials{0};
  v->path = path;
  v->serial = ++serials;
  LuaRuntime rt(path, v->budget);
  auto fail = [&](const std::string& why) -> std::shared_ptr<const LuaVariant> {
    if (error) *error = why;
    return nullptr;
  };
  if (!rt.ok()) return fail(path + ": cannot create a Lua state");
  std::string problem;
  if (!rt.compile(text, &problem)) return fail(problem);
  v->chunk = rt.dump();
  if (!rt.run_top_level(&problem)) return fail(problem);
  problem = read_declarations(rt.state(), *v);
  if (!problem.empty()) return fail(fmt::format("{}: {}", path, problem));
  if (v->name.empty()) v->name = base_name(path);
  if (!valid_name(v->name))
    return fail(fmt::format("{}: the file's name does not make an algorithm name: set name = \"...\"", path));
  if (v->summary.empty()) v->summary = "a Lua variant from " + path;
  return v;
}

std::shared_ptr<const LuaVariant> load_lua_variant(const std::string& path, std::string* error) {
  auto text = sim::read_input_file(path, kMaxVariantBytes, error);
  if (!text) return nullptr;
  return load_lua_variant_text(*text, path, error);
}

const Algorithm* register_lua_variant(std::shared_ptr<const LuaVariant> variant, std::string* error) {
  if (const Algorithm* existing = find_algorithm(variant->name)) {
    if (error) {
      *error = existing->failures == "user variant"
                   ? fmt::format("{}: a second variant named '{}' (the first is {})", variant->path, variant->name,
                                 existing->documents)
                   : fmt::format("{}: '{}' is a built-in algorithm: choose another name", variant->path, variant->name);
    }
    return nullptr;
  }
  // The registry's views point into these: they live as long as the program.
  static std::deque<std::shared_ptr<const LuaVariant>> owned;
  owned.push_back(variant);
  std::vector<std::string_view> params;
  for (const auto& p : lock_param_table()) params.push_back(p.name);
  Algorithm a{
      variant->name, variant->summary, variant->path, "user variant", params, false, [variant](const LockParams& p) {
        return make_lua_lock(variant, p);
      }};
  a.reentrant = variant->reentrant;
  a.defaults = variant->defaults;
  a.masters = variant->masters;
  a.replica = variant->replica;
  a.own_params = variant->own_params;
  if (variant->claims_declared) {
    a.claims.emplace(variant->claims.begin(), variant->claims.end());  // {} claims nothing
  } else {
    // Undeclared: what the file's shape promises: a lock, reentrant if it says so, fenced if it fences.
    a.claims = lock_claims();
    if (variant->reentrant) a.claims->push_back("reentrancy");
    if (variant->has_fence) a.claims->push_back("fenced-writes");
  }
  register_algorithm(std::move(a));
  return find_algorithm(variant->name);
}

const Algorithm* register_lua_variant_file(const std::string& path, std::string* error) {
  auto variant = load_lua_variant(path, error);
  return variant ? register_lua_variant(std::move(variant), error) : nullptr;
}

}  // namespace locksim::lock
