// WAIT (Redis 7.0 replication.c waitCommand): the model is a primary without replicas,
// so no write is ever acknowledged and the answer is 0. Redis would first wait out the
// timeout when more than 0 replicas are asked for; the model answers at once (its time
// is the caller's, and nothing could arrive meanwhile).
#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

Reply cmd_wait(ExecContext&, const Command& argv) {
  int64_t replicas = 0, timeout = 0;
  Reply error;
  if (!int_arg(argv[1], replicas, error)) return error;
  if (!parse_int64(argv[2], timeout)) return error_reply("ERR timeout is not an integer or out of range");
  if (timeout < 0) return error_reply("ERR timeout is negative");
  return Reply::integer_(0);
}

}  // namespace locksim::redis
