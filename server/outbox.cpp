// Replies the model sends without a request - pub/sub messages, SUBSCRIBE's later
// notices, the late reply of a blocked BLPOP - taken from its per-connection outbox and
// written to the right socket; and the model's clock-driven work (blocked commands
// timing out, active expiry) run on a timer. A model without an outbox (no pub/sub or
// blocking commands) compiles to nothing here.
#include <functional>

#include "locksim/server/connection.hpp"

namespace locksim::server {

namespace {
constexpr auto kTick = std::chrono::milliseconds(10);

template <class Model>
concept ModelWithOutbox = requires(Model& model, const Model& constant, redis::ConnectionId id, int64_t now_ms) {
  model.take_pushed(id);
  model.set_push_listener(std::function<void(redis::ConnectionId)>{});
  model.advance(now_ms);
  constant.is_blocked(id);
};

template <class Model>
void model_listen(Model& model, std::vector<redis::ConnectionId>& pushed) {
  if constexpr (ModelWithOutbox<Model>)
    model.set_push_listener([&pushed](redis::ConnectionId id) { pushed.push_back(id); });
}

template <class Model>
std::vector<redis::Reply> model_take(Model& model, redis::ConnectionId id) {
  if constexpr (ModelWithOutbox<Model>)
    return model.take_pushed(id);
  else
    return {};
}

template <class Model>
void model_advance(Model& model, int64_t now_ms) {
  if constexpr (ModelWithOutbox<Model>) model.advance(now_ms);
}
}  // namespace

void Server::Core::wire_outbox() {
  if constexpr (!ModelWithOutbox<redis::Server>) return;
  model_listen(model, pushed);
  tick();
}

void Server::Core::tick() {
  if (command_depth == 0) {  // (not from inside a busy script: the model is still running it)
    model_advance(model, clock.now_ms());
    deliver_pushes();
  }
  evict_clients();
  tick_timer.expires_after(kTick);
  tick_timer.async_wait([this](const std::error_code& ec) {
    if (!ec && !stopped) tick();
  });
}

void Server::Core::deliver_pushes() {
  while (!pushed.empty()) {
    std::vector<redis::ConnectionId> ids;
    ids.swap(pushed);
    for (redis::ConnectionId id : ids) {
      // A closed connection's outbox goes with the rest of its state (release_retired).
      auto it = clients.find(id);
      if (it == clients.end() || it->second->closed()) continue;
      std::vector<redis::Reply> replies = model_take(model, id);
      if (replies.empty()) continue;
      it->second->receive(replies);
      asio::post(io, [client = it->second] { client->pump(); });  // never re-entered from here
    }
  }
}

}  // namespace locksim::server
