#pragma once
// `locksim serve` when the program runs under the name redis-server (a symlink): serve
// with redis-server's arguments, port 0 meaning no TCP as in redis-server.
namespace locksim::cli {

int run_as_redis_server(int argc, char** argv);

}  // namespace locksim::cli
