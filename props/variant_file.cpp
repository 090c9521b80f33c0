#include "locksim/props/variant_file.hpp"

#include <filesystem>

#include "locksim/lock/lua_variant.hpp"
#include "locksim/sim/files.hpp"
#include "locksim/sim/redis/sha1.hpp"

namespace locksim::props {

namespace {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return a == b || std::filesystem::equivalent(a, b, ec);
}

}  // namespace

const lock::Algorithm* use_variant_file(const std::string& path, std::string* error) {
  auto variant = lock::load_lua_variant(path, error);
  if (!variant) return nullptr;
  if (const lock::Algorithm* a = lock::find_algorithm(variant->name);
      a && a->failures == "user variant" && same_file(std::string(a->documents), path))
    return a;
  return lock::register_lua_variant(std::move(variant), error);
}

std::optional<std::string> file_sha1(const std::string& path, std::string* error) {
  auto text = sim::read_input_file(path, lock::kMaxVariantBytes, error);
  if (!text) return std::nullopt;
  return redis::sha1_hex(*text);
}

}  // namespace locksim::props
