#include "locksim/real/shadow.hpp"

#include "locksim/lock/redis_node.hpp"

namespace locksim::real {

Shadow::Shadow(lock::History& history, uint32_t server) : history_(history), server_(server) {
  model_.set_observer(this);
}

void Shadow::replay(const redis::Command& command, uint32_t client, lock::Purpose purpose, sim::Instant at) {
  auto it = connections_.find(client);
  if (it == connections_.end()) it = connections_.emplace(client, model_.connect()).first;
  client_ = client;
  purpose_ = purpose;
  at_ = at;
  model_.execute(it->second, command, lock::unix_ms(at));
  client_ = lock::kNoClient;
}

void Shadow::disconnect(uint32_t client) {
  auto it = connections_.find(client);
  if (it == connections_.end()) return;
  model_.disconnect(it->second);
  connections_.erase(it);
}

void Shadow::forget(sim::Instant at) {
  at_ = at;
  client_ = lock::kNoClient;
  history_.ledger().server_crashed(server_, at, false);
  forgetting_ = true;
  model_.flushall();
  forgetting_ = false;
}

void Shadow::on_effect(const redis::KeyEffect& effect) {
  lock::HistoryEvent e;
  e.at = at_;
  e.local = at_;
  switch (effect.kind) {
    case redis::KeyEffect::Kind::Set: e.step = lock::Step::KeySet; break;
    case redis::KeyEffect::Kind::Deleted: e.step = lock::Step::KeyDeleted; break;
    case redis::KeyEffect::Kind::ExpireChanged: e.step = lock::Step::KeyExpireChanged; break;
    case redis::KeyEffect::Kind::Expired: e.step = lock::Step::KeyExpired; break;
  }
  // A lazy expiry is the server's doing, whoever's command happened to find it.
  if (effect.kind != redis::KeyEffect::Kind::Expired) {
    e.client = client_;
    e.purpose = purpose_;
  }
  e.key = effect.key;
  e.old_value = effect.old_value;
  e.new_value = effect.new_value;
  e.expire_at_ms = effect.expire_at_ms;
  e.server = server_;
  history_.add(std::move(e));
  // The shadow runs on real time: its clock is true time.
  lock::Ledger& ledger = history_.ledger();
  if (!forgetting_) {  // every key: the ledger keeps the locks' bookkeeping too
    const bool by_client = effect.kind != redis::KeyEffect::Kind::Expired;
    static const sim::LocalClock kTrueTime;
    ledger.change(lock::key_change(effect, at_, server_, by_client ? client_ : lock::kNoClient,
                                   by_client ? purpose_ : lock::Purpose::Other, ledger, kTrueTime));
  }
}

}  // namespace locksim::real
