#pragma once
// An example variant from examples/, loaded and registered once per process.
#include <catch2/catch.hpp>

#include <string>

#include "locksim/lock/lua_variant.hpp"
#include "locksim/lock/registry.hpp"

namespace locksim::props::testing {

inline const lock::Algorithm* example_variant(const std::string& file) {
  std::string error;
  auto variant = lock::load_lua_variant(LOCKSIM_EXAMPLES_DIR "/" + file, &error);
  INFO(error);
  REQUIRE(variant);
  if (const lock::Algorithm* a = lock::find_algorithm(variant->name)) return a;  // once per process
  const lock::Algorithm* a = lock::register_lua_variant(variant, &error);
  INFO(error);
  REQUIRE(a);
  return a;
}

}  // namespace locksim::props::testing
