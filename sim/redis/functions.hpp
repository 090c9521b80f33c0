#pragma once
// Redis 7 functions (functions.c, function_lua.c): FUNCTION LOAD / LIST / DELETE /
// FLUSH / KILL, FCALL, FCALL_RO (internal). Libraries run in the scripts' Lua state:
// each gets its own read-only global table (no KEYS/ARGV, as in Redis), and its
// functions join the script cache under "fn:<name>", so FCALL shares EVAL's budget,
// memory cap, conversions and error texts. SCRIPT FLUSH replaces that state; the
// libraries are then loaded again from their code before the next FCALL.
#include <map>
#include <string>
#include <vector>

#include "locksim/sim/redis/server_state.hpp"

struct lua_State;

namespace locksim::redis {

class ScriptEngine;

// Redis's functions dict compares names case-blind (dictSdsKeyCaseCompare); its
// libraries dict does not.
struct CaseBlindLess {
  bool operator()(const std::string& a, const std::string& b) const;
};

class FunctionEngine {
 public:
  Reply load(ExecContext& ctx, const Command& argv);
  Reply list(const Command& argv) const;
  // FUNCTION STATS: the running function (name, its FCALL, for how long) and the engine's counts.
  Reply stats(const ExecContext& ctx) const;
  size_t library_count() const { return libraries_.size(); }
  size_t function_count() const { return library_of_.size(); }
  Reply remove(const std::string& library, ScriptEngine& engine);
  void flush(ScriptEngine& engine);
  Reply call(ExecContext& ctx, const Command& argv, bool read_only);

 private:
  struct Function {
    std::string name, description;
    std::vector<std::string> flags;
    bool no_writes = false;
    bool allow_oom = false;
  };
  struct Library {
    std::string name, code;
    std::vector<Function> functions;  // by name
  };
  // Runs the library's code and registers its functions; an error reply otherwise.
  std::optional<Reply> install(ScriptEngine& engine, Library& library, const std::string& body, bool replace);
  // Compiles and runs a library's body, collecting its redis.register_function calls into a table at stack index 1
  // (its environment at 3); an error reply otherwise.
  static std::optional<Reply> run_body(ScriptEngine& engine, const std::string& body);
  // The registrations run_body collected, by name.
  static std::map<std::string, Function> registrations(lua_State* L);
  void sync(ScriptEngine& engine);

  std::map<std::string, Library> libraries_;
  std::map<std::string, std::string, CaseBlindLess> library_of_;  // function -> library
  uint64_t generation_ = 0;
};

}  // namespace locksim::redis
