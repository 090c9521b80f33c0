#include "sim/redis/console.hpp"

#include <istream>
#include <ostream>
#include <string>

#include "sim/redis/arguments.hpp"
#include "sim/redis/cli_format.hpp"
#include "sim/redis/cli_split.hpp"
#include "sim/redis/server.hpp"

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
  now_ms += delta;
  return true;
}
}  // namespace

int run_console(std::istream& in, std::ostream& out, std::ostream& err) {
  Server server;
  const ConnectionId conn = server.connect();
  int64_t now_ms = kConsoleStartMs;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto args = split_cli_line(line);
    if (!args) {
      err << "line " << line_no << ": invalid argument(s): unbalanced quotes or a closing quote not followed by a space\n";
      continue;
    }
    if (args->empty()) continue;
    if ((*args)[0].starts_with('.')) {
      run_directive(*args, now_ms, err, line_no);
      continue;
    }
    if (equals_lower((*args)[0], "quit") || equals_lower((*args)[0], "exit")) break;
    out << format_cli_reply(server.execute(conn, *args, now_ms));
    out.flush();
  }
  return 0;
}

}  // namespace locksim::redis
