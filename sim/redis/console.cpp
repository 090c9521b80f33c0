#include "locksim/sim/redis/console.hpp"

#include <algorithm>
#include <optional>
#include <istream>
#include <ostream>
#include <string>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/cli_format.hpp"
#include "locksim/sim/redis/cli_split.hpp"
#include "locksim/sim/redis/server.hpp"

namespace locksim::redis {

const char* const kConsoleHelp =
    "locksim redis: a console to the Redis model (one in-process server, no network).\n"
    "Type Redis commands as in redis-cli: SET lock me NX PX 1000, GET lock, PTTL lock, EVAL ...\n"
    "The model's clock stands still until you move it; what the console adds:\n"
    "  .advance <ms>            move the clock forward (keys expire, blocked commands time out)\n"
    "  LOCKSIM.ADVANCE <ms>     the same, as a command; replies the new time\n"
    "  LOCKSIM.TIME             the clock, in ms since the epoch\n"
    "  LOCKSIM.JUMP <ms>        step the clock by <ms>, forward or back (an NTP step)\n"
    "  LOCKSIM.RESTART          a restart without persistence: every key forgotten\n"
    "  HELP                     this text\n"
    "  quit, exit               leave (so does end of input)\n"
    "See docs/redis-model.md for what the model does and does not do.\n";

namespace {

// Moves the clock by delta; false (after a message on err) if it would leave [0, kConsoleMaxMs].
bool move_clock(int64_t delta, int64_t& now_ms, std::ostream& err, size_t line_no, std::string_view what) {
  // The clock stops short of overflowing: Redis's own deadlines (now + PX) must stay representable.
  if (delta > kConsoleMaxMs - now_ms || -delta > now_ms) {
    err << "line " << line_no << ": " << what << " " << delta << " would take the clock outside 0.." << kConsoleMaxMs
        << " ms (year 2286)\n";
    return false;
  }
  now_ms += delta;
  return true;
}

// Handles a line starting with '.'; false (after a message on err) if it is not valid.
bool run_directive(const std::vector<std::string>& args, int64_t& now_ms, std::ostream& err, size_t line_no) {
  if (args[0] != ".advance") {
    err << "line " << line_no << ": unknown directive '" << args[0] << "' (known: .advance <milliseconds>; HELP)\n";
    return false;
  }
  int64_t delta = 0;
  if (args.size() != 2 || !parse_int64(args[1], delta) || delta < 0) {
    err << "line " << line_no << ": usage: .advance <milliseconds>, a non-negative integer\n";
    return false;
  }
  return move_clock(delta, now_ms, err, line_no, ".advance");
}

// LOCKSIM.* commands (as `locksim serve` has them, those that make sense with one
// client): a reply, or nothing when args is not one.
std::optional<Reply> run_admin(const std::vector<std::string>& args, Server& server, int64_t& now_ms, std::ostream& err, size_t line_no) {
  const std::string& name = args[0];
  auto usage = [&](std::string_view text) { return Reply::error("ERR usage: " + std::string(text)); };
  if (equals_lower(name, "locksim.time")) {
    if (args.size() != 1) return usage("LOCKSIM.TIME");
    return Reply::integer_(now_ms);
  }
  const bool advance = equals_lower(name, "locksim.advance"), jump = equals_lower(name, "locksim.jump");
  if (advance || jump) {
    int64_t delta = 0;
    if (args.size() != 2 || !parse_int64(args[1], delta) || (advance && delta < 0))
      return usage(advance ? "LOCKSIM.ADVANCE <milliseconds>, a non-negative integer"
                           : "LOCKSIM.JUMP <milliseconds>, an integer (negative: back)");
    if (!move_clock(delta, now_ms, err, line_no, advance ? "LOCKSIM.ADVANCE" : "LOCKSIM.JUMP"))
      return Reply::error("ERR the clock would leave its range");
    server.advance(now_ms);
    return Reply::integer_(now_ms);
  }
  if (equals_lower(name, "locksim.restart")) {
    if (args.size() != 1) return usage("LOCKSIM.RESTART");
    server.flushall();  // the console's one connection stays, as redis-cli reconnects
    return Reply::ok();
  }
  if (name.size() > 8 && equals_lower(std::string_view(name).substr(0, 8), "locksim."))
    return Reply::error("ERR unknown LOCKSIM command '" + name + "' (known: TIME ADVANCE JUMP RESTART; see HELP)");
  return std::nullopt;
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
  ConsoleOptions options;
  options.fail_on_error = fail_on_error;
  return run_console(in, out, err, options);
}

int run_console(std::istream& in, std::ostream& out, std::ostream& err, const ConsoleOptions& options) {
  const bool fail_on_error = options.fail_on_error;
  if (options.prompt) out << "locksim redis: the Redis model. HELP lists what the console adds; quit leaves.\n";
  auto prompt = [&] {
    if (options.prompt) out << "locksim> " << std::flush;
  };
  Server server;
  ConnectionId conn = server.connect();
  int64_t now_ms = kConsoleStartMs;
  std::string line;
  size_t line_no = 0;
  bool failed = false;
  prompt();
  for (; std::getline(in, line); prompt()) {
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
    if (equals_lower((*args)[0], "help") && args->size() == 1) {
      out << kConsoleHelp << std::flush;
      continue;
    }
    if (std::optional<Reply> admin = run_admin(*args, server, now_ms, err, line_no)) {
      if (admin->is_error()) failed = true;
      out << format_cli_reply(*admin);
      print_pushed(server, conn, out);
      out.flush();
      continue;
    }
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
