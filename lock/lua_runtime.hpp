#pragma once
// The Lua state of one Lua-variant client (internal to lock/lua_*.cpp): a
// sandbox (no io, os, require, loadfile, dofile, debug; math.random draws
// from the simulation's generator; reading an undefined global is an error),
// the client API in C, instruction and memory budgets, and the hand-over of
// requests between Lua coroutines and the simulator's tasks.
//
// A call() or sleep() stores its request here and yields a sentinel; the
// Lua-side wrappers of pcall and coroutine.resume pass that yield on up to the
// task driving the coroutine (lua_lock.cpp), which carries the request out in
// virtual time and resumes the coroutine with the outcome.
#include <lua.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "locksim/lock/env.hpp"
#include "locksim/lock/lua_variant.hpp"
#include "locksim/sim/redis/lua_arena.hpp"

namespace locksim::lock {

struct LuaRequest {
  // Call: a command; Blocking: a blocking command (span: how much longer to
  // wait); Subscriber: a command on the subscriber connection; NextPushed: a
  // read of the next pushed reply (span: the wait); Sleep (span).
  // Parallel: run `branches` (threads referenced in the registry) concurrently and
  // resume with the first result of each, in order.
  enum class Kind : uint8_t { None, Call, Sleep, Blocking, Subscriber, NextPushed, Parallel };
  Kind kind = Kind::None;
  uint32_t server = 0;
  Command command;
  Duration span{};
  std::string where;  // "FILE:LINE: " of the call(), for an unhandled error reply
  std::vector<std::pair<lua_State*, int>> branches;
};

class LuaRuntime : public std::enable_shared_from_this<LuaRuntime> {
 public:
  // A fresh state with the sandbox and the prelude; nothing loaded yet. It is
  // built in its arena's region, so that seal() can keep it as an image.
  LuaRuntime(std::string path, const LuaBudget& budget);
  ~LuaRuntime();
  LuaRuntime(const LuaRuntime&) = delete;
  LuaRuntime& operator=(const LuaRuntime&) = delete;

  lua_State* state() const { return L_; }
  bool ok() const { return L_ != nullptr; }
  const std::string& path() const { return path_; }

  // Compiles source (syntax errors as "FILE:LINE: message"); on success the
  // function is on the stack.
  bool compile(const std::string& source, std::string* error);
  // Loads a chunk compiled by compile() (see dump()).
  bool load_compiled(const std::string& bytecode, std::string* error);
  std::string dump();  // the function on the stack, as bytecode (left there)
  // Runs the function on the stack as the file's top level, catching a
  // second definition of a contract global.
  bool run_top_level(std::string* error);

  // The lock parameters param() reads (a table in the registry).
  void set_params(const LockParams& params);
  // Keeps the state as it is now (the sandbox and the variant's top level run,
  // no parameters yet) as its image; false when the build outgrew the region.
  bool seal();
  // Puts the state, and everything this object keeps for it, back to exactly
  // as sealed: no script can tell it from one built afresh. Only when sealed.
  void reset_to_sealed();
  bool sealed() const;

  // Runs a Lua thread until it yields a request, ends or fails. `counter`
  // counts the instructions of the whole call; `what` names it in messages.
  int resume(lua_State* thread, int nargs, Env& env, uint64_t& counter, const char* what);
  // Calls a global function that must answer at once (fence, still_held).
  // Leaves one result on the stack on success.
  bool call_now(const char* function, Env* env, std::string* error);
  LuaRequest take_request();
  // Pushes the outcome of a Redis call as call() returns it; returns how many values.
  int push_result(lua_State* thread, const RedisResult& result, const std::string& where);
  // The message of a failed thread (the error on its stack, or a budget).
  std::string error_message(lua_State* thread, int status);

  // A variant that failed stays failed: its first error, "" if none.
  const std::string& failure() const { return failure_; }
  void fail(std::string message) {
    if (failure_.empty()) failure_ = std::move(message);
  }
  bool recorded = false;  // the failure is on the history already

  // spawn(fn, ...) hands the new thread (referenced in the registry) here.
  std::function<TaskId(lua_State* thread, int ref, int nargs)> spawner;
  std::set<TaskId> spawned;
  uint32_t live_tasks = 0;
  uint32_t spawns = 0;  // in this incarnation: a task that spawns itself twice would never end
  std::vector<std::pair<lua_State*, int>> idle_threads;  // finished entry threads, for reuse

  // For the C functions (lua_runtime.cpp).
  struct Context;
  Context& context() { return *context_; }

 private:
  void open_sandbox();
  std::string path_;
  std::unique_ptr<redis::LuaArena> arena_;  // the state's memory: outlives the state
  std::unique_ptr<Context> context_;
  std::unique_ptr<Context> sealed_context_;  // the context as it was at seal()
  lua_State* L_ = nullptr;
  std::string failure_;
};

// A Lua thread referenced from the registry for as long as this lives (a
// task's frame owns it, so a cancelled or crashed task lets its thread go).
class LuaThread {
 public:
  LuaThread(std::shared_ptr<LuaRuntime> runtime, lua_State* thread, int ref, bool task);
  ~LuaThread();
  LuaThread(LuaThread&& o) noexcept;
  LuaThread(const LuaThread&) = delete;
  LuaThread& operator=(const LuaThread&) = delete;
  LuaThread& operator=(LuaThread&&) = delete;
  lua_State* get() const { return thread_; }
  LuaRuntime& runtime() const { return *runtime_; }
  // It returned normally: the thread may serve the next entry (no new allocation).
  void finished() { reusable_ = true; }

 private:
  std::shared_ptr<LuaRuntime> runtime_;
  lua_State* thread_ = nullptr;
  int ref_ = LUA_NOREF;
  bool task_ = false;
  bool reusable_ = false;
};

// A client's state for `variant` with `params`, loaded and its top level run
// (or failed: see failure()): this thread's pooled state put back to as sealed
// when one is idle, else one built. When the last reference goes, the state
// returns to the pool (lua_runtime_pool.cpp).
std::shared_ptr<LuaRuntime> acquire_variant_runtime(const LuaVariant& variant, const LockParams& params);
// A new thread that will run global `function` (nothing pushed if absent: check first).
LuaThread new_entry_thread(const std::shared_ptr<LuaRuntime>& runtime, const char* function);

}  // namespace locksim::lock
