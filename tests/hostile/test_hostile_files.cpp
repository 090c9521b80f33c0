// File inputs and outputs: regular files of bounded size only; regression files
// rewritten atomically, a missing last newline repaired, errors reported.
#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "locksim/props/regression.hpp"
#include "locksim/sim/files.hpp"

using namespace locksim;

namespace {

std::string temp_path(const std::string& name) {
  return "/tmp/locksim_hostile_" + std::to_string(getpid()) + "_" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("Input files: regular files of bounded size only") {
  std::string error;
  CHECK(!sim::read_input_file("/dev/zero", sim::kMaxInputBytes, &error));
  CHECK(error.find("not a regular file") != std::string::npos);
  const std::string fifo = temp_path("fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(!sim::read_input_file(fifo, sim::kMaxInputBytes, &error));  // returns at once
  CHECK(error.find("not a regular file") != std::string::npos);
  std::remove(fifo.c_str());
  const std::string big = temp_path("big");
  std::ofstream(big) << std::string(2000, 'x');
  CHECK(!sim::read_input_file(big, 1000, &error));
  CHECK(error.find("larger than 1000 bytes") != std::string::npos);
  CHECK(sim::read_input_file(big, 2000, &error) == std::string(2000, 'x'));
  std::remove(big.c_str());
  CHECK(!sim::read_input_file("/nonexistent/x", sim::kMaxInputBytes, &error));
}

TEST_CASE("Input files: a leading UTF-8 byte-order mark is dropped, one elsewhere is kept") {
  const std::string path = temp_path("bom");
  std::ofstream(path, std::ios::binary) << "\xEF\xBB\xBFwatchdog seed=1\n\xEF\xBB\xBF";
  CHECK(sim::read_input_file(path) == std::string("watchdog seed=1\n\xEF\xBB\xBF"));
  std::remove(path.c_str());
}

TEST_CASE("Output paths that cannot be written are named before any work") {
  CHECK(sim::output_path_problem("/dev/full").value_or("").find("not a regular file") != std::string::npos);
  CHECK(sim::output_path_problem("/proc/x").has_value());
  CHECK(sim::output_path_problem("/nonexistent/dir/x").has_value());
  CHECK(sim::output_path_problem("/tmp").has_value());
  CHECK(!sim::output_path_problem(temp_path("fine")).has_value());
  std::string error;
  CHECK(!sim::write_file_atomically("/dev/full", "x", true, &error));
  CHECK(!error.empty());
}

TEST_CASE("Appending to a regression file whose last line lacks its newline adds one first") {
  const std::string path = temp_path("regressions.txt");
  const std::string first = "violates mutual-exclusion: set-nx-px seed=2 clients=2 iterations=1 slow=A:0:1.02s";
  std::ofstream(path) << first;  // no newline
  std::string error;
  auto r = props::parse_regression(first, &error);
  REQUIRE(r);
  REQUIRE(props::append_regression(path, *r, &error));
  CHECK(slurp(path) == first + "\n" + props::format_regression(*r) + "\n");
  auto loaded = props::load_regressions(path, &error);
  REQUIRE(loaded);
  CHECK(loaded->size() == 2);
  std::remove(path.c_str());
}
