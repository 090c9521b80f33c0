#include "locksim/server/server.hpp"

#include <future>
#include <system_error>

#include "locksim/server/connection.hpp"
#include "locksim/server/core.hpp"

namespace locksim::server {

Server::Core::Core(Options opts) : options(std::move(opts)), model(options.model), clock(options.time) {
  if (options.port >= 0) {
    asio::ip::tcp::endpoint endpoint(asio::ip::make_address(options.bind), static_cast<uint16_t>(options.port));
    tcp.emplace(io);
    tcp->open(endpoint.protocol());
    tcp->set_option(asio::socket_base::reuse_address(true));
    tcp->bind(endpoint);
    tcp->listen(asio::socket_base::max_listen_connections);
    port = tcp->local_endpoint().port();
  }
  if (!options.unix_path.empty()) {
    ::unlink(options.unix_path.c_str());  // a stale socket file from an earlier run
    local.emplace(io, asio::local::stream_protocol::endpoint(options.unix_path));
  }
  if (!tcp && !local) throw std::invalid_argument("locksim serve: neither a TCP port nor a Unix socket to listen on");
  wire_outbox();
  wire_frontend_commands(*this);
}

void Server::Core::accept_tcp() {
  tcp->async_accept([this](const std::error_code& ec, asio::ip::tcp::socket socket) {
    if (stopped) return;
    if (!ec) admit(std::move(socket), true);
    accept_tcp();
  });
}

void Server::Core::accept_local() {
  local->async_accept([this](const std::error_code& ec, asio::local::stream_protocol::socket socket) {
    if (stopped) return;
    if (!ec) admit(std::move(socket), false);
    accept_local();
  });
}

template <class StreamSocket>
void Server::Core::admit(StreamSocket socket, bool is_tcp) {
  const auto protocol = socket.local_endpoint().protocol();
  Socket generic(io, asio::generic::stream_protocol(protocol.family(), protocol.protocol()), socket.release());
  if (!admit_connection(*this)) {  // LOCKSIM.FAULT REFUSE: reset at once, nothing read or written
    std::error_code ignored;
    generic.set_option(asio::socket_base::linger(true, 0), ignored);
    generic.close(ignored);
    return;
  }
  if (clients.size() >= options.maxclients) {
    // Redis answers and closes: the error is written before the connection is refused.
    static const std::string kFull = "-ERR max number of clients reached\r\n";
    auto refused = std::make_shared<Socket>(std::move(generic));
    asio::async_write(*refused, asio::buffer(kFull), [refused](const std::error_code&, size_t) {
      std::error_code ignored;
      refused->close(ignored);
    });
    return;
  }
  const redis::ConnectionId id = model.connect();
  auto connection = std::make_shared<Connection>(*this, std::move(generic), id, is_tcp);
  clients.emplace(id, connection);
  connection->start();
}

void Server::Core::pause_for(int64_t ms) {
  paused = true;
  pause_timer.expires_after(std::chrono::milliseconds(ms));
  pause_timer.async_wait([this](const std::error_code& ec) {
    if (ec) return;  // a longer pause replaced this one
    paused = false;
    auto snapshot = clients;  // pumping may close connections
    for (auto& [id, client] : snapshot) client->pump();
  });
}

size_t Server::Core::drop_all_but(redis::ConnectionId keep) {
  auto snapshot = clients;
  size_t dropped = 0;
  for (auto& [id, client] : snapshot) {
    if (id == keep) continue;
    client->close();
    ++dropped;
  }
  return dropped;
}

bool Server::Core::drop(redis::ConnectionId id) {
  auto it = clients.find(id);
  if (it == clients.end()) return false;
  auto client = it->second;
  client->close();
  return true;
}

void Server::Core::restart(redis::ConnectionId keep) {
  drop_all_but(keep);
  model.flushall();
}

void Server::Core::shutdown() {
  stopped = true;
  std::error_code ignored;
  if (tcp) tcp->close(ignored);
  if (local) {
    local->close(ignored);
    ::unlink(options.unix_path.c_str());
  }
  pause_timer.cancel();
  tick_timer.cancel();
  drop_all_but(0);
  io.stop();
}

template <class F>
auto Server::Core::call(F f) -> decltype(f()) {
  if (!thread.joinable() || thread.get_id() == std::this_thread::get_id() || io.stopped()) return f();
  std::packaged_task<decltype(f())()> task(std::move(f));
  auto result = task.get_future();
  asio::post(io, [&task] { task(); });
  return result.get();
}

Server::Server(Options options) : core_(std::make_unique<Core>(std::move(options))) {}

Server::~Server() { stop(); }

uint16_t Server::port() const { return core_->port; }
const std::string& Server::unix_path() const { return core_->options.unix_path; }

void Server::run() {
  if (core_->tcp) core_->accept_tcp();
  if (core_->local) core_->accept_local();
  asio::signal_set signals(core_->io);
  if (core_->options.stop_on_signals) {
    signals.add(SIGINT);
    signals.add(SIGTERM);
    signals.async_wait([core = core_.get()](const std::error_code& ec, int) {
      if (!ec) core->shutdown();
    });
  }
  core_->io.run();
}

void Server::start() {
  if (core_->thread.joinable()) return;
  if (core_->tcp) core_->accept_tcp();
  if (core_->local) core_->accept_local();
  core_->thread = std::thread([core = core_.get()] { core->io.run(); });
}

void Server::stop() {
  if (!core_) return;
  if (core_->thread.joinable()) {
    if (!core_->io.stopped()) asio::post(core_->io, [core = core_.get()] { core->shutdown(); });
    core_->thread.join();
  } else if (!core_->stopped) {
    asio::post(core_->io, [core = core_.get()] { core->shutdown(); });
  }
}

int64_t Server::now_ms() {
  return core_->call([this] { return core_->clock.now_ms(); });
}
void Server::advance(int64_t ms) {
  if (ms < 0) throw std::invalid_argument("Server::advance: a negative duration (use jump)");
  core_->call([this, ms] { core_->clock.shift(ms); });
}
void Server::jump(int64_t ms) {
  core_->call([this, ms] { core_->clock.shift(ms); });
}
void Server::freeze() {
  core_->call([this] { core_->clock.freeze(); });
}
void Server::resume() {
  core_->call([this] { core_->clock.resume(); });
}
void Server::pause(int64_t ms) {
  core_->call([this, ms] { core_->pause_for(ms); });
}
size_t Server::drop_all() {
  return core_->call([this] { return core_->drop_all_but(0); });
}
void Server::delay(int64_t ms) {
  core_->call([this, ms] { core_->reply_delay_ms = ms; });
}
void Server::restart() {
  core_->call([this] { core_->restart(0); });
}
size_t Server::client_count() {
  return core_->call([this] { return core_->clients.size(); });
}

}  // namespace locksim::server
