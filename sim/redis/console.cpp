#include "locksim/sim/redis/console.hpp"

#include <algorithm>
#include <istream>
#include <ostream>
#include <string>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/cli_format.hpp"
#include "locksim/sim/redis/cli_split.hpp"
#include "locksim/sim/redis/server.hpp"

namespace locksim::redis {

namespace {
// Handles a line starting with '.'; false (after a message on err) if it is not valid.
bool run_directive(const std::vector<std::string>& args, int64_t& now_ms, std::ostream& err, size_t line_no) {
  if (args[0] != ".advance") {
    err << "line " << line_no << ": unknown directive '" << args[0] << "' (known: .advance <milliseconds>)\n";
    return false;
  }
  int64_t delta = 0;
  if (args.size() != 2 || !parse_int64(args[1], delta) || delta < 0) {
    err << "line " << line_no << ": usage: .advance <milliseconds>, a non-negative integer\n";
    return false;
  }
  // The clock stops short of overflowing: Redis's own deadlines (now + PX) must stay representable.
  if (delta > kConsoleMaxMs - now_ms) {
    err << "line " << line_no << ": .advance " << delta << " would take the clock past " << kConsoleMaxMs
        << " ms (year 2286)\n";
    return false;
  }
  now_ms += delta;
  return true;
}
// What the connection was sent besides replies (pub/sub messages, SUBSCRIBE's later
// notices, expired blocking commands), printed as redis-cli prints them.
void print_pushed(Server& server, ConnectionId conn, std::ostream& out) {
  for (const Reply& pushed : server.take_pushed(conn)) out << format_cli_reply(pushed);
}

// The console is the only client: nothing can serve a blocked command, so time runs
// on to its deadline (as redis-cli would wait) and the timeout is the reply. False if
// it would wait forever.
bool wait_out_block(Server& server, ConnectionId conn, int64_t& now_ms, Reply& reply, std::vector<Reply>& reply_tail) {
  const auto deadline = server.next_timeout();
  if (!deadline || *deadline >= kConsoleMaxMs) return false;
  now_ms = std::max(now_ms, *deadline + 1);
  server.advance(now_ms);
  auto pushed = server.take_pushed(conn);
  if (pushed.empty()) return false;
  reply = std::move(pushed.front());
  pushed.erase(pushed.begin());
  for (const Reply& more : pushed) reply_tail.push_back(more);
  return true;
}
}  // namespace

int run_console(std::istream& in, std::ostream& out, std::ostream& err, bool fail_on_error) {
  Server server;
  ConnectionId conn = server.connect();
  int64_t now_ms = kConsoleStartMs;
  std::string line;
  size_t line_no = 0;
  bool failed = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto args = split_cli_line(line);
    if (!args) {
      err << "line " << line_no
          << ": invalid argument(s): unbalanced quotes or a closing quote not followed by a space\n";
      failed = true;
      continue;
    }
    if (args->empty()) continue;
    if ((*args)[0].starts_with('.')) {
      if (!run_directive(*args, now_ms, err, line_no)) failed = true;
      server.advance(now_ms);
      print_pushed(server, conn, out);
      continue;
    }
    if (equals_lower((*args)[0], "quit") || equals_lower((*args)[0], "exit")) break;
    Reply reply = server.execute(conn, *args, now_ms);
    std::vector<Reply> reply_tail;
    if (reply.is_blocked() && !wait_out_block(server, conn, now_ms, reply, reply_tail)) {
      err << "line " << line_no << ": the command would block forever (no other client can serve it): skipped\n";
      server.disconnect(conn);
      conn = server.connect();
      failed = true;
      continue;
    }
    if (reply.is_error()) failed = true;
    out << format_cli_reply(reply);
    for (const Reply& more : reply_tail) out << format_cli_reply(more);
    print_pushed(server, conn, out);
    out.flush();
  }
  return fail_on_error && failed ? 1 : 0;
}

}  // namespace locksim::redis
