#pragma once
// Runs a program through the shell, as the CLI tests do: its exit status, its standard
// output and its standard error (read back from a temporary file of this process's own).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace locksim::test {

struct ProgramRun {
  int status = -1;  // the exit status; -1 if a signal ended the program
  std::string out, err;
};

// `command` is a shell command line without redirections of its own.
inline ProgramRun run_program(const std::string& command) {
  static int calls = 0;
  const std::string err_path =
      "/tmp/locksim_test_" + std::to_string(getpid()) + "_" + std::to_string(++calls) + "_stderr";
  ProgramRun r;
  FILE* p = popen((command + " 2>'" + err_path + "' </dev/null").c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + command);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_path);
  std::ostringstream s;
  s << in.rdbuf();
  r.err = s.str();
  std::remove(err_path.c_str());
  return r;
}

}  // namespace locksim::test
