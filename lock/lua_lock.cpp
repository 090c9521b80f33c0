// A Lua variant as a Lock: each entry point (acquire, release) and each
// spawned task runs as a Lua coroutine driven by a simulator task. When the
// coroutine yields a request (a Redis call, a sleep), the task carries it out
// in virtual time and resumes the coroutine with the outcome; so Lua code
// reads as straight-line client code and stays deterministic.
//
// A Lua error (or a budget) fails the variant for this incarnation: the first
// one is recorded as a VariantError step naming FILE:LINE, which the checks
// report as the "variant-error" verdict; every later entry answers false.
#include <fmt/format.h>

#include "locksim/lock/lua_runtime.hpp"
#include "locksim/lock/lua_variant.hpp"

namespace locksim::lock {
namespace {

struct Outcome {
  bool ok = false;
  bool value = false;  // the boolean the function returned
  std::string error;
};

// A spawned task's command is a renewal when it re-armed the caller's own
// live instance (the ledger's fact, not where the command came from): a
// parallel Redlock's spawned SET NX is an acquire. While the caller holds the
// lock, one refused (failed, or answered 0, nil or an error) without
// re-arming is a failed renewal.
bool rearmed_own(const Env& env, size_t facts_before) {
  const Ledger* ledger = env.ledger();
  if (!ledger) return false;
  const auto& facts = ledger->facts();
  for (size_t i = facts_before; i < facts.size(); ++i)
    if (facts[i].kind == FactKind::Rearmed && facts[i].client == env.client() &&
        ledger->instance(facts[i].instance).owner == env.client())
      return true;
  return false;
}

void record_renewal(Env& env, const RedisResult& r, size_t facts_before, Instant sent) {
  if (rearmed_own(env, facts_before)) return env.record_renewal(Step::Renewed, 0, sent);
  const bool refused = !r.ok() || r.value.is_nil() || r.value.type == Reply::Type::Error ||
                       (r.value.type == Reply::Type::Integer && r.value.integer == 0);
  if (refused) env.record_renewal(Step::RenewFailed, r.ok() ? 0 : static_cast<int64_t>(r.status), sent);
}

// A request to Redis, on the connection and with the wait its kind says. A plain
// function handing over Env's task: a coroutine of its own would cost every call a frame.
Task<RedisResult> carry_out(Env& env, LuaRequest& request, Purpose purpose) {
  switch (request.kind) {
    case LuaRequest::Kind::Blocking:
      return env.redis_blocking(request.server, std::move(request.command), purpose, request.span);
    case LuaRequest::Kind::Subscriber: return env.subscriber(request.server, std::move(request.command), purpose);
    case LuaRequest::Kind::NextPushed: return env.next_pushed(request.server, request.span);
    default: return env.redis_on(request.server, std::move(request.command), purpose);
  }
}

Task<int> run_parallel(LuaRuntime& rt, lua_State* co, LuaRequest& request, Env& env, Purpose purpose);

// Runs the thread to its end, carrying out each request it yields. Its
// commands go with `purpose`; a spawned task's (phase set) with the phase
// its client is in when it sends each: acquiring, releasing, or holding
// (then renewing). A parallel branch's first result goes to slot `slot` of
// the table referenced by `results`.
Task<Outcome> drive(LuaThread thread, Env& env, Purpose purpose, const char* what, bool wants_boolean,
                    const Purpose* phase = nullptr, int results = LUA_NOREF, int slot = 0) {
  LuaRuntime& rt = thread.runtime();
  lua_State* co = thread.get();
  uint64_t counter = 0;
  int nargs = lua_gettop(co) - 1;
  for (;;) {
    const int status = rt.resume(co, nargs, env, counter, what);
    if (status == LUA_YIELD) {
      LuaRequest request = rt.take_request();
      if (request.kind == LuaRequest::Kind::None) {
        Outcome bad;
        bad.error = fmt::format("{}: {} yielded outside a coroutine of its own (coroutine.yield at its top level)",
                                rt.path(), what);
        co_return bad;
      }
      if (request.kind == LuaRequest::Kind::Sleep) {
        co_await env.sleep(request.span);
        lua_settop(co, 0);
        nargs = 0;
      } else if (request.kind == LuaRequest::Kind::Parallel) {
        const int pushed = co_await run_parallel(rt, co, request, env, phase ? *phase : purpose);
        if (!rt.failure().empty()) {
          Outcome failed;
          failed.error = rt.failure();
          co_return failed;
        }
        nargs = pushed;
      } else {
        const Purpose now_for = phase ? *phase : purpose;
        const size_t facts_before = env.ledger() ? env.ledger()->facts().size() : 0;
        const Instant sent = now_for == Purpose::Renew ? env.monotonic_now(ClockUse::Renewal) : Instant{};
        RedisResult result = co_await carry_out(env, request, now_for);
        if (now_for == Purpose::Renew && request.kind == LuaRequest::Kind::Call)
          record_renewal(env, result, facts_before, sent);
        nargs = rt.push_result(co, result, request.where);
      }
      continue;
    }
    Outcome out;
    if (status != 0) {
      out.error = rt.error_message(co, status);
      co_return out;
    }
    if (wants_boolean && (lua_gettop(co) < 1 || lua_type(co, 1) != LUA_TBOOLEAN)) {
      out.error = fmt::format("{}: {}() must return true or false, not {}", rt.path(), what,
                              lua_gettop(co) < 1 ? "nothing" : lua_typename(co, lua_type(co, 1)));
      co_return out;
    }
    out.ok = true;
    out.value = wants_boolean && lua_toboolean(co, 1);
    if (results != LUA_NOREF && lua_gettop(co) >= 1) {
      lua_rawgeti(co, LUA_REGISTRYINDEX, results);
      lua_pushvalue(co, 1);
      lua_rawseti(co, -2, slot);
      lua_pop(co, 1);
    }
    thread.finished();
    co_return out;
  }
}

void report(LuaRuntime& rt, Env* env, std::string message) {
  rt.fail(std::move(message));
  if (rt.recorded || !env) return;
  rt.recorded = true;
  env->record_text(Step::VariantError, rt.failure());
}

// One branch of parallel(...): driven with the caller's purpose; its first result
// goes to slot `index` of the results table (registry ref `results`).
Task<void> run_branch(LuaThread thread, Env& env, Purpose purpose, int results, int index) {
  LuaRuntime& rt = thread.runtime();
  Outcome out = co_await drive(std::move(thread), env, purpose, "a parallel branch", false, nullptr, results, index);
  if (!out.ok) report(rt, &env, std::move(out.error));
}

// Runs the branches of a parallel(...) request; pushes their first results onto `co`.
Task<int> run_parallel(LuaRuntime& rt, lua_State* co, LuaRequest& request, Env& env, Purpose purpose) {
  lua_State* L = rt.state();
  lua_newtable(L);
  const int results = luaL_ref(L, LUA_REGISTRYINDEX);
  std::vector<Task<void>> branches;
  int index = 0;
  for (const auto& [thread, ref] : request.branches)
    branches.push_back(run_branch(LuaThread(rt.shared_from_this(), thread, ref, true), env, purpose, results, ++index));
  co_await env.run_parallel(std::move(branches));
  lua_settop(co, 0);
  lua_rawgeti(L, LUA_REGISTRYINDEX, results);
  lua_xmove(L, co, 1);
  for (int i = 1; i <= index; ++i) lua_rawgeti(co, 1, i);
  lua_remove(co, 1);
  luaL_unref(L, LUA_REGISTRYINDEX, results);
  co_return index;
}

// `phase` lives in the LuaLock, which cancels its tasks before it goes.
Task<void> run_task(LuaThread thread, Env& env, const Purpose* phase) {
  LuaRuntime& rt = thread.runtime();
  Outcome out = co_await drive(std::move(thread), env, Purpose::Renew, "a spawned task", false, phase);
  if (!out.ok) report(rt, &env, std::move(out.error));
}

class LuaLock final : public Lock {
 public:
  LuaLock(std::shared_ptr<const LuaVariant> variant, const LockParams& params)
      : Lock(params), variant_(std::move(variant)), rt_(acquire_variant_runtime(*variant_, params)) {
    rt_->spawner = [this](lua_State* thread, int ref, int) -> TaskId {
      return env_->spawn(run_task(LuaThread(rt_, thread, ref, true), *env_, &phase_));
    };
  }

  ~LuaLock() override {
    // Its tasks use the Env, which goes with this incarnation.
    if (env_)
      for (TaskId id : rt_->spawned) env_->cancel(id);
    rt_->spawner = nullptr;
  }

  // A nested acquire or an inner release leaves the spawned tasks renewing: the client
  // still holds the outer lock, and a renewal of it that fails is a failed renewal.
  Task<bool> acquire(Env& env) override {
    phase_ = holds_ > 0 ? Purpose::Renew : Purpose::Acquire;
    const bool held = co_await enter(env, "acquire", Purpose::Acquire);
    phase_ = Purpose::Renew;
    if (held) ++holds_;
    co_return held;
  }

  Task<bool> release(Env& env) override {
    phase_ = holds_ > 1 ? Purpose::Renew : Purpose::Release;
    const bool released = co_await enter(env, "release", Purpose::Release);
    phase_ = Purpose::Renew;
    if (holds_ > 0) --holds_;  // the hold is over, whatever the release answered
    co_return released;
  }

  bool still_held() const override {
    if (!variant_->has_still_held || !rt_->failure().empty()) return rt_->failure().empty();
    std::string error;
    if (!rt_->call_now("still_held", env_, &error)) return fail_now(error);
    lua_State* L = rt_->state();
    const bool boolean = lua_type(L, -1) == LUA_TBOOLEAN, held = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (!boolean) return fail_now(variant_->path + ": still_held() must return true or false");
    return held;
  }

  int64_t fence() const override {
    if (!variant_->has_fence || !rt_->failure().empty()) return -1;
    std::string error;
    if (!rt_->call_now("fence", env_, &error)) {
      fail_now(error);
      return -1;
    }
    lua_State* L = rt_->state();
    const int type = lua_type(L, -1);
    const lua_Number n = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (type == LUA_TNIL || (type == LUA_TBOOLEAN && n == 0)) return -1;
    if (type != LUA_TNUMBER || !(n >= 0 && n < 9e15) || n != static_cast<lua_Number>(static_cast<int64_t>(n))) {
      fail_now(variant_->path + ": fence() must return a whole number >= 0 (or nil: none)");
      return -1;
    }
    return static_cast<int64_t>(n);
  }

 private:
  Task<bool> enter(Env& env, const char* what, Purpose purpose) {
    env_ = &env;
    if (!rt_->failure().empty()) {
      report(*rt_, &env, rt_->failure());  // a failure while loading is recorded at first use
      co_return false;
    }
    LuaThread thread = new_entry_thread(rt_, what);  // GCC 12: no temporaries inside a co_await expression
    Outcome out = co_await drive(std::move(thread), env, purpose, what, true);
    if (!out.ok) {
      report(*rt_, &env, std::move(out.error));
      co_return false;
    }
    co_return out.value;
  }

  bool fail_now(std::string message) const {
    report(*rt_, env_, std::move(message));
    return false;
  }

  std::shared_ptr<const LuaVariant> variant_;
  std::shared_ptr<LuaRuntime> rt_;
  Env* env_ = nullptr;  // the incarnation's Env, from the first entry on
  // What this client is doing, for its spawned tasks' commands: acquiring, releasing, or holding or idle (Renew).
  Purpose phase_ = Purpose::Renew;
  uint32_t holds_ = 0;  // acquires won and not yet released (nested ones included)
};

}  // namespace

std::unique_ptr<Lock> make_lua_lock(std::shared_ptr<const LuaVariant> variant, const LockParams& params) {
  return std::make_unique<LuaLock>(std::move(variant), params);
}

}  // namespace locksim::lock
