#pragma once
// Why a lock without an expiry outlived the client that died holding it, said from
// the ledger. On Redis, only its owner's release frees it. A database frees a dead
// client's row lock when the transaction ends: the client's own COMMIT or ROLLBACK,
// if one was on its way when it died (a held request runs when it arrives), or the
// end of its session, which comes after what the client had sent and after the
// database notices the client gone (a keepalive).
#include <string>

#include "locksim/lock/history.hpp"
#include "locksim/lock/simulation.hpp"

namespace locksim::props {

// The end of "<holder> crashed at T and its lock outlived ...": "it: <why>", naming the
// holder's call a fault held in flight across the crash when that call is what freed it.
std::string why_lock_outlived_holder(const lock::History& h, const lock::SimulationConfig& cfg, uint32_t holder,
                                     sim::Instant crash, sim::Instant until);

}  // namespace locksim::props
