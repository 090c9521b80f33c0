#pragma once
// The front-end's RESP3 writing of a command's reply, by its form (sim/redis/resp3_form.hpp)
// (internal).
#include <cstdint>
#include <string>

#include "locksim/sim/redis/resp.hpp"
#include "locksim/sim/redis/resp3.hpp"
#include "locksim/sim/redis/resp3_form.hpp"

namespace locksim::server {

using redis::resp3_form;
using redis::Resp3Form;

// Appends the reply to argv in the connection's protocol (RESP2 ignores the form).
void append_reply_for(std::string& out, const redis::Reply& reply, redis::Protocol protocol, Resp3Form form);

}  // namespace locksim::server
