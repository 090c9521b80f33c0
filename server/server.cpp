#include "locksim/server/server.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <iostream>
#include <system_error>

#include "locksim/base/assert.hpp"
#include "locksim/server/connection.hpp"
#include "locksim/server/core.hpp"
#include "locksim/server/protected_mode.hpp"
#include "locksim/sim/redis/memory.hpp"

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
  fit_maxclients_to_descriptors();
  if (tcp && !options.protected_mode && options.requirepass.empty() && binds_beyond_loopback(options.bind))
    log("WARNING: protected mode is off and no password is set, on " + options.bind +
        ": any host that reaches this address may run every command, FLUSHALL and LOCKSIM.* included");
  wire_outbox();
  wire_frontend_commands(*this);
  // maxmemory and INFO's used_memory count what Redis's used_memory counts: an empty
  // server's own bytes and the clients' buffers, beside the data set. (`maxmemory 1`
  // then refuses the first write, as Redis does, not the second.)
  model.set_host_memory([this] { return redis::kEmptyServerBytes + clients_memory(); });
  model.set_script_host(&script_watch);
  wire_tracking(*this);
  if (options.idle_timeout_s > 0) set_idle_timeout(*this, options.idle_timeout_s);
}

void Server::Core::log(std::string_view line) const {
  if (options.log) {
    options.log(line);
    return;
  }
  std::cerr << "locksim serve: " << line << "\n";
}

// Redis adjustOpenFilesLimit: each client takes a descriptor, and the server keeps 32
// for itself. The soft limit is raised toward what maxclients needs; if it cannot be,
// maxclients is lowered to fit, with a warning.
void Server::Core::fit_maxclients_to_descriptors() {
  constexpr rlim_t kReserved = 32;
  const rlim_t wanted = static_cast<rlim_t>(options.maxclients) + kReserved;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= wanted) return;
  const rlim_t old = limit.rlim_cur;
  rlimit raised = limit;
  raised.rlim_cur = std::min(wanted, limit.rlim_max);
  if (raised.rlim_cur > old && ::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit.rlim_cur = raised.rlim_cur;
  if (limit.rlim_cur >= wanted) {
    log("Increased maximum number of open files to " + std::to_string(limit.rlim_cur) + " (it was originally set to " +
        std::to_string(old) + ").");
    return;
  }
  if (limit.rlim_cur <= kReserved)
    throw std::runtime_error("Your current 'ulimit -n' of " + std::to_string(limit.rlim_cur) +
                             " is not enough for the server to start. Please increase your open file limit to at "
                             "least " + std::to_string(kReserved + 1) + ".");
  const size_t fitted = static_cast<size_t>(limit.rlim_cur - kReserved);
  log("You requested maxclients of " + std::to_string(options.maxclients) + " requiring at least " +
      std::to_string(wanted) + " max file descriptors.");
  log("Current maximum open files is " + std::to_string(limit.rlim_cur) + ". maxclients has been reduced to " +
      std::to_string(fitted) + " to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.");
  options.maxclients = fitted;
}

void Server::Core::accept_failed(const std::error_code& ec, asio::steady_timer& backoff, void (Core::*again)()) {
  if (!accept_failing) log("Accepting client connection: " + ec.message());
  accept_failing = true;
  // A full descriptor table stays full until a client leaves: retrying at once spins a core.
  backoff.expires_after(std::chrono::milliseconds(100));
  backoff.async_wait([this, again](const std::error_code& waited) {
    if (!waited && !stopped) (this->*again)();
  });
}

void Server::Core::accept_tcp() {
  tcp->async_accept([this](const std::error_code& ec, asio::ip::tcp::socket socket) {
    if (stopped || ec == asio::error::operation_aborted) return;
    if (ec) return accept_failed(ec, tcp_backoff, &Core::accept_tcp);
    accept_failing = false;
    admit(std::move(socket), true);
    accept_tcp();
  });
}

void Server::Core::accept_local() {
  local->async_accept([this](const std::error_code& ec, asio::local::stream_protocol::socket socket) {
    if (stopped || ec == asio::error::operation_aborted) return;
    if (ec) return accept_failed(ec, local_backoff, &Core::accept_local);
    accept_failing = false;
    admit(std::move(socket), false);
    accept_local();
  });
}

size_t Server::Core::clients_memory() const {
#if defined(__SANITIZE_ADDRESS__)  // the sanitizer build (CI's) checks the running total against the sum
  size_t total = 0;
  for (const auto& [id, client] : clients)
    if (!client->closed()) total += client->memory_bytes();
  LOCKSIM_ASSERT(total == clients_bytes, "a connection changed its buffers without reporting it");
#endif
  return clients_bytes;
}

void Server::Core::evict_clients() {
  const size_t cap = options.limits.maxmemory_clients;
  if (cap == 0) return;
  size_t total = 0;
  std::vector<std::pair<size_t, redis::ConnectionId>> by_memory;
  for (const auto& [id, client] : clients) {
    if (client->closed()) continue;
    const size_t bytes = client->memory_bytes();
    total += bytes;
    by_memory.emplace_back(bytes, id);
  }
  if (total <= cap) return;
  std::sort(by_memory.begin(), by_memory.end(), std::greater<>());
  for (const auto& [bytes, id] : by_memory) {
    if (total <= cap) break;
    auto client = clients.at(id);
    log("Evicting client: " + client->info_line());
    client->close();
    total -= bytes;
  }
}

namespace {
// Redis answers and closes: the error is written before the connection is refused.
void refuse(Socket socket, std::string_view text) {
  auto refused = std::make_shared<Socket>(std::move(socket));
  asio::async_write(*refused, asio::buffer(text.data(), text.size()), [refused](const std::error_code&, size_t) {
    std::error_code ignored;
    refused->close(ignored);
  });
}
}  // namespace

template <class StreamSocket>
void Server::Core::admit(StreamSocket socket, bool is_tcp) {
  std::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  if (ec) return;  // gone before it was served
  const auto protocol = socket.local_endpoint(ec).protocol();
  if (ec) return;
  const bool denied = protected_mode_denies(options.protected_mode, !options.requirepass.empty(), endpoint.data());
  Socket generic(io, asio::generic::stream_protocol(protocol.family(), protocol.protocol()), socket.release());
  if (!admit_connection(*this)) {  // LOCKSIM.FAULT REFUSE: reset at once, nothing read or written
    std::error_code ignored;
    generic.set_option(asio::socket_base::linger(true, 0), ignored);
    generic.close(ignored);
    return;
  }
  if (clients.size() >= options.maxclients) {
    ++traffic.connections_rejected;  // INFO rejected_connections, as Redis counts it
    return refuse(std::move(generic), "-ERR max number of clients reached\r\n");
  }
  if (denied) return refuse(std::move(generic), kProtectedModeDenied);
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
    if (id == keep || client->closed()) continue;
    client->close();
    ++dropped;
  }
  return dropped;
}

bool Server::Core::drop(redis::ConnectionId id) {
  auto it = clients.find(id);
  if (it == clients.end() || it->second->closed()) return false;
  if (id == running) {
    it->second->close_after_reply = true;  // Redis clientKillCommand: the caller goes after its reply
    return true;
  }
  auto client = it->second;
  client->close();
  return true;
}

void Server::Core::retire(redis::ConnectionId id) {
  retired.push_back(id);
  if (command_depth > 0 || release_posted) return;  // the command's end releases it
  release_posted = true;
  asio::post(io, [this] {
    release_posted = false;
    release_retired();
  });
}

void Server::Core::release_retired() {
  // Never while a command runs: it may be an EXEC still running on the state of the
  // connection it killed, or one iterating the others (a RESTART, a PUBLISH).
  if (command_depth > 0) return;
  if (restart_pending) {
    restart_pending = false;
    model.flushall();
  }
  while (!retired.empty()) {
    const redis::ConnectionId id = retired.back();
    retired.pop_back();
    auto it = clients.find(id);
    LOCKSIM_ASSERT(it != clients.end(), "a connection is retired twice");
    LOCKSIM_ASSERT(it->second->closed(), "an open connection is retired");
    auto keep = it->second;  // destroyed after the map lets go, when its last handler has run
    clients.erase(it);
    model.disconnect(id);
  }
}

void Server::Core::restart(redis::ConnectionId keep) {
  drop_all_but(keep);
  if (script_busy) {  // (Server::restart from another thread) the data goes once the script has ended
    restart_pending = true;
    return;
  }
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
  tcp_backoff.cancel();
  local_backoff.cancel();
  traffic.pause_timer.cancel();  // CLIENT PAUSE and CONFIG SET timeout (traffic.hpp)
  traffic.idle_timer.cancel();
  drop_all_but(0);
  release_retired();
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
  if (ms < 0) throw std::out_of_range("Server::advance: a negative duration (use jump)");
  jump(ms);
}
void Server::jump(int64_t ms) {
  const bool moved = core_->call([this, ms] {
    if (!core_->clock.can_shift(ms)) return false;
    core_->clock.shift(ms);
    return true;
  });
  if (!moved) throw std::out_of_range("Server::jump: the clock would leave its range (1970 to 2262)");
}
namespace {
void check_duration(int64_t ms, const char* what) {
  if (ms < 0 || ms > kMaxDurationMs) throw std::out_of_range(std::string(what) + ": a duration out of range");
}
}  // namespace
void Server::freeze() {
  core_->call([this] { core_->clock.freeze(); });
}
void Server::resume() {
  core_->call([this] { core_->clock.resume(); });
}
void Server::pause(int64_t ms) {
  check_duration(ms, "Server::pause");
  core_->call([this, ms] { core_->pause_for(ms); });
}
size_t Server::drop_all() {
  return core_->call([this] { return core_->drop_all_but(0); });
}
void Server::delay(int64_t ms) {
  check_duration(ms, "Server::delay");
  core_->call([this, ms] { core_->reply_delay_ms = ms; });
}
void Server::restart() {
  core_->call([this] { core_->restart(0); });
}
size_t Server::client_count() {
  return core_->call([this] { return core_->clients.size(); });
}

}  // namespace locksim::server
