#include "lock/variant_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "lock/redis_node.hpp"
#include "lock/renewal.hpp"
#include "sim/redis/cli_split.hpp"

namespace locksim::lock {

namespace {

bool valid_reply_pattern(std::string_view p) {
  if (p == "OK" || p == "nil" || p == "not-nil" || p == "any" || p == "{token}") return true;
  if (p.size() >= 2 && p.front() == '"' && p.back() == '"') return true;
  if (p.empty()) return false;
  size_t i = p[0] == '-' ? 1 : 0;
  if (i == p.size()) return false;
  for (; i < p.size(); ++i)
    if (p[i] < '0' || p[i] > '9') return false;
  return true;
}

bool matches(const Reply& r, std::string_view pattern, const std::string& token) {
  if (pattern == "any") return true;
  if (pattern == "OK") return r.type == Reply::Type::Status && r.str == "OK";
  if (pattern == "nil") return r.is_nil();
  if (pattern == "not-nil") return !r.is_nil() && !r.is_error();
  if (pattern == "{token}") return r.type == Reply::Type::Bulk && r.str == token;
  if (pattern.front() == '"') return r.type == Reply::Type::Bulk && r.str == pattern.substr(1, pattern.size() - 2);
  return r.type == Reply::Type::Integer && std::to_string(r.integer) == pattern;
}

// A lock that sends what its variant file says.
class ScriptedLock final : public SpinLock {
 public:
  ScriptedLock(std::shared_ptr<const VariantSpec> spec, const LockParams& params)
      : SpinLock(params), spec_(std::move(spec)) {}

  Task<bool> acquire(Env& env) override {
    const bool held = co_await SpinLock::acquire(env);
    if (held && spec_->renew) {
      const Duration every = params().renew_interval.ns > 0 ? params().renew_interval : params().lease / 3;
      std::shared_ptr<const VariantSpec> spec = spec_;
      const std::string token = token_;
      start_renewal(env, every, [this, &env] { return expand(*spec_->renew, env); },
                    [spec, token](const RedisResult& r) { return r.ok() && matches(r.value, spec->renewed_if, token); },
                    renewal_);
    }
    co_return held;
  }

  Task<bool> release(Env& env) override {
    stop_renewal(env, renewal_);
    RedisResult last;
    for (const auto& step : spec_->release) {
      last = co_await env.redis(expand(step, env), Purpose::Release);
    }
    co_return last.ok() && matches(last.value, spec_->released_if, token_);
  }

  bool still_held() const override { return !renewal_.lost; }

 protected:
  Task<bool> try_acquire(Env& env) override {
    std::string token = new_token(env);
    auto r = co_await env.redis(expand(spec_->acquire, env, &token), Purpose::Acquire);
    if (!r.ok() || !matches(r.value, spec_->acquired_if, token)) co_return false;
    token_ = token;
    for (const auto& step : spec_->after_acquire) {
      co_await env.redis(expand(step, env), Purpose::Acquire);
    }
    co_return true;
  }

 private:
  Command expand(const VariantSpec::Step& step, Env& env, const std::string* token = nullptr) const {
    const int64_t lease_ms = params().lease.ns / 1'000'000;
    const int64_t now_ms = unix_ms(env.local_now());
    Command out;
    for (const std::string& word : step.words) {
      std::string w;
      for (size_t i = 0; i < word.size(); ++i) {
        size_t close = word[i] == '{' ? word.find('}', i) : std::string::npos;
        if (close == std::string::npos) {
          w += word[i];
          continue;
        }
        std::string_view name(word.data() + i + 1, close - i - 1);
        if (name == "key") w += key();
        else if (name == "token") w += token ? *token : token_;
        else if (name == "lease_ms") w += std::to_string(lease_ms);
        else if (name == "lease_s") w += std::to_string((lease_ms + 999) / 1000);
        else if (name == "now_ms") w += std::to_string(now_ms);
        else if (name == "expiry_ms") w += std::to_string(now_ms + lease_ms + 1);
        else { w += word[i]; continue; }  // not a placeholder: keep the brace (Lua tables)
        i = close;
      }
      out.push_back(std::move(w));
    }
    return out;
  }

  std::shared_ptr<const VariantSpec> spec_;
  std::string token_;
  RenewalState renewal_;
};

}  // namespace

std::optional<VariantSpec> parse_variant(std::string_view text, const std::string& path, std::string* error) {
  VariantSpec spec;
  spec.path = path;
  bool has_acquire = false;
  std::istringstream in{std::string(text)};
  std::string line;
  int number = 0;
  auto fail = [&](const std::string& why) -> std::optional<VariantSpec> {
    if (error) *error = number > 0 ? fmt::format("{}:{}: {}", path, number, why) : fmt::format("{}: {}", path, why);
    return std::nullopt;
  };
  auto command = [&](std::string_view value) -> std::optional<VariantSpec::Step> {
    auto words = redis::split_cli_line(value);
    if (!words) return std::nullopt;
    if (words->empty()) return std::nullopt;
    return VariantSpec::Step{std::move(*words), number};
  };
  while (std::getline(in, line)) {
    ++number;
    std::string_view l = line;
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    size_t start = l.find_first_not_of(" \t");
    if (start == std::string_view::npos || l[start] == '#') continue;
    l.remove_prefix(start);
    size_t colon = l.find(':');
    if (colon == std::string_view::npos) return fail("expected 'directive: value'");
    std::string_view directive = l.substr(0, colon), value = l.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    if (value.empty()) return fail(fmt::format("'{}' needs a value", directive));
    auto want_command = [&](auto&& store) -> bool {
      auto step = command(value);
      if (!step) return false;
      store(std::move(*step));
      return true;
    };
    auto want_reply = [&](std::string& into) -> bool {
      if (!valid_reply_pattern(value)) return false;
      into = std::string(value);
      return true;
    };
    const char* bad_command = "unbalanced quotes, or a closing quote not followed by a space";
    const char* bad_reply = "expected a reply: OK, an integer, nil, not-nil, {token}, any or \"text\"";
    if (directive == "name") {
      if (value.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
          std::string_view::npos)
        return fail("a name is letters, digits, '.', '_' and '-'");
      spec.name = std::string(value);
    } else if (directive == "summary") {
      spec.summary = std::string(value);
    } else if (directive == "acquire") {
      if (has_acquire) return fail("a second 'acquire' (use after-acquire for more commands)");
      if (!want_command([&](auto s) { spec.acquire = std::move(s); })) return fail(bad_command);
      has_acquire = true;
    } else if (directive == "after-acquire") {
      if (!want_command([&](auto s) { spec.after_acquire.push_back(std::move(s)); })) return fail(bad_command);
    } else if (directive == "release") {
      if (!want_command([&](auto s) { spec.release.push_back(std::move(s)); })) return fail(bad_command);
    } else if (directive == "renew") {
      if (spec.renew) return fail("a second 'renew'");
      if (!want_command([&](auto s) { spec.renew = std::move(s); })) return fail(bad_command);
    } else if (directive == "acquired-if") {
      if (!want_reply(spec.acquired_if)) return fail(bad_reply);
    } else if (directive == "released-if") {
      if (!want_reply(spec.released_if)) return fail(bad_reply);
    } else if (directive == "renewed-if") {
      if (!want_reply(spec.renewed_if)) return fail(bad_reply);
    } else {
      return fail(fmt::format("unknown directive '{}' (name, summary, acquire, acquired-if, after-acquire, release, "
                              "released-if, renew, renewed-if)",
                              directive));
    }
  }
  number = 0;
  if (spec.name.empty()) return fail("no 'name:' line");
  if (!has_acquire) return fail("no 'acquire:' line");
  if (spec.release.empty()) return fail("no 'release:' line");
  if (spec.summary.empty()) spec.summary = "a variant from " + path;
  return spec;
}

std::optional<VariantSpec> load_variant_file(const std::string& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    if (error) *error = fmt::format("cannot read variant file '{}'", path);
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse_variant(text.str(), path, error);
}

const Algorithm* register_variant(VariantSpec spec, std::string* error) {
  if (find_algorithm(spec.name)) {
    if (error) *error = fmt::format("{}: an algorithm named '{}' exists already", spec.path, spec.name);
    return nullptr;
  }
  // Owned for the life of the program, as the registry's views point into it.
  auto shared = std::make_shared<const VariantSpec>(std::move(spec));
  static std::vector<std::shared_ptr<const VariantSpec>> owned;
  owned.push_back(shared);
  std::vector<std::string_view> params{"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout"};
  if (shared->renew) params.push_back("renew-interval");
  register_algorithm(Algorithm{shared->name, shared->summary, shared->path, "user variant", params, false,
                               [shared](const LockParams& p) { return std::make_unique<ScriptedLock>(shared, p); }});
  return find_algorithm(shared->name);
}

}  // namespace locksim::lock
