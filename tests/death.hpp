#pragma once
// Death tests: runs a piece of code in a child process (fork) and reports how
// the child ended and what it wrote to standard error, so that a test can
// assert that an internal error (LOCKSIM_ASSERT) aborts and says why.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>

struct ChildEnd {
  bool aborted = false;  // killed by SIGABRT
  int exit_code = -1;    // when it exited instead
  std::string stderr_text;
};

template <class Body>
ChildEnd run_in_child(Body body) {
  std::fflush(nullptr);
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid < 0) return {};
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDERR_FILENO);
    std::signal(SIGABRT, SIG_DFL);  // not Catch2's handler: the child just dies
    try {
      body();
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  close(fds[1]);
  ChildEnd end;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) end.stderr_text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  end.aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
  if (WIFEXITED(status)) end.exit_code = WEXITSTATUS(status);
  return end;
}
