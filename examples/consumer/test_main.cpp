#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "my_lock.hpp"

int main(int argc, char** argv) {
  my::register_my_lock();
  return Catch::Session().run(argc, argv);
}
