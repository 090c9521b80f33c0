// The single Catch2 main for all test executables.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
