// LOCKSIM.ENTER resource [token], LOCKSIM.EXIT resource, LOCKSIM.WRITE resource token value:
// a client program's marks of its critical sections and its writes to a fenced resource,
// recorded on the trial board (trial_board.hpp) with the connection's client name. The
// name (CLIENT SETNAME, or the client library's client-name option) says which client
// process sent it: `locksim trial` gives each its name in LOCKSIM_CLIENT.
#include "locksim/server/connection.hpp"
#include "locksim/server/trial_board.hpp"
#include "locksim/sim/redis/arguments.hpp"

namespace locksim::server {

using redis::Command;
using redis::Reply;

namespace {
std::optional<int64_t> token_arg(const std::string& text) {
  int64_t v = 0;
  if (!redis::parse_int64(text, v)) return std::nullopt;
  return v;
}

const Reply& full_error() {
  static const Reply error = Reply::error("ERR the trial's history is full (1000000 marks)");
  return error;
}
}  // namespace

Reply run_trial_command(Server::Core& core, Connection& caller, const Command& argv, std::string_view name) {
  const bool enter = name == "enter", exit = name == "exit";
  if ((enter && (argv.size() < 2 || argv.size() > 3)) || (exit && argv.size() != 2) || (!enter && !exit && argv.size() != 4))
    return redis::arity_error("locksim." + std::string(name));
  if (caller.name.empty())
    return Reply::error("ERR name this connection first (CLIENT SETNAME $LOCKSIM_CLIENT, or the client "
                        "library's client name option): a mark must say which client sent it");
  if (argv[1].size() > TrialBoard::kMaxName || caller.name.size() > TrialBoard::kMaxName)
    return Reply::error("ERR resource and client names in marks are at most 256 bytes");
  // `locksim serve` alone keeps a board of its own, so that a client's marks work there too.
  if (!core.options.trial) core.options.trial = std::make_shared<TrialBoard>();
  TrialBoard& board = *core.options.trial;
  if (enter || exit) {
    TrialMark mark;
    mark.kind = enter ? TrialMark::Kind::Enter : TrialMark::Kind::Exit;
    mark.at_ns = TrialBoard::now_ns();
    mark.client = caller.name;
    mark.resource = argv[1];
    if (argv.size() == 3) {
      mark.token = token_arg(argv[2]);
      if (!mark.token) return Reply::error("ERR the token must be an integer (a fencing token)");
    }
    return board.mark(std::move(mark)) ? Reply::ok() : full_error();
  }
  const auto token = token_arg(argv[2]);
  if (!token) return Reply::error("ERR the token must be an integer (a fencing token)");
  const auto written = board.write(caller.name, argv[1], *token);
  if (!written) return full_error();
  if (written->kind == TrialMark::Kind::WriteRejected)
    return Reply::error("STALE token " + std::to_string(*token) + " is older than " +
                        std::to_string(written->highest) + ", which the resource has accepted");
  return Reply::ok();
}

}  // namespace locksim::server
