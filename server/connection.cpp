#include "locksim/server/connection.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>

#include "locksim/sim/redis/arguments.hpp"

namespace locksim::server {

namespace {
constexpr size_t kReadChunk = 16 * 1024;
// Commands stop running once this much output waits: the client must read first, so
// a client that reads nothing holds at most this (plus one reply), never more.
constexpr size_t kOutputHighWater = 64 * 1024;
// Pushes to a client that does not read are capped as Redis caps pub/sub clients
// (client-output-buffer-limit pubsub 32mb): beyond it the client is disconnected.
constexpr size_t kPushOutputLimit = 32 * 1024 * 1024;

// A model that can block a command answers a reply of a kind that has no wire form.
template <class R>
bool waits(const R& reply) {
  if constexpr (requires { reply.is_blocked(); })
    return reply.is_blocked();
  else
    return false;
}

// (P|S)SUBSCRIBE and (P|S)UNSUBSCRIBE, whose notices are pushes.
bool is_subscription_command(const std::string& name) {
  return name.size() >= 9 && redis::equals_lower(std::string_view(name).substr(name.size() - 9), "subscribe");
}

std::string address_text(const sockaddr_storage& addr, socklen_t len) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (addr.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(addr);
    ::inet_ntop(AF_INET, &in.sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(in.sin_port));
  }
  if (addr.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(addr);
    ::inet_ntop(AF_INET6, &in6.sin6_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(in6.sin6_port));
  }
  if (addr.ss_family == AF_UNIX && len > sizeof(sa_family_t)) {
    const auto& un = reinterpret_cast<const sockaddr_un&>(addr);
    return std::string(un.sun_path) + ":0";
  }
  return "?:0";
}

std::string endpoint_text(int fd, bool peer) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  int rc = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len)
                : ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return rc == 0 ? address_text(addr, len) : "?:0";
}
}  // namespace

Connection::Connection(Server::Core& core, Socket socket, redis::ConnectionId id, bool is_tcp)
    : core_(core),
      socket_(std::move(socket)),
      id_(id),
      is_tcp_(is_tcp),
      created_ms_(Clock::host_ms()),
      delay_timer_(core.io) {
  const int fd = socket_.native_handle();
  if (is_tcp_) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // replies go out at once, as in Redis
  }
  peer_ = endpoint_text(fd, true);
  local_ = endpoint_text(fd, false);
  authenticated = core.options.requirepass.empty();
  parser_.set_unauthenticated(!authenticated);
  in_.resize(kReadChunk);
}

void Connection::start() { pump(); }

void Connection::pump() {
  if (closed_) return;
  run_commands();
  if (closed_) return;
  if (!out_.empty()) {
    if (!writing_) start_write();
    return;
  }
  if (writing_) return;
  if (close_after_reply) {
    close();
    return;
  }
  if (!reading_ && !core_.paused) start_read();
}

void Connection::run_commands() {
  while (!core_.paused && !close_after_reply && !waiting_ && out_.size() < kOutputHighWater && !closed_) {
    const Verdict verdict = held_ ? screen_command(core_, *this, argv_) : Verdict{};
    if (held_ && verdict.action == Verdict::Action::Hold) break;  // still paused: pumped at its end
    if (held_) {
      held_ = false;
      execute(argv_, verdict);
      continue;
    }
    size_t pos = in_begin_;
    parser_.set_unauthenticated(!authenticated);
    const auto result = parser_.parse(std::string_view(in_.data(), in_end_), pos, argv_);
    in_begin_ = pos;
    if (result == RequestParser::Result::NeedMore) break;
    if (result == RequestParser::Result::TooBig) {
      close();  // Redis: "Closing client that reached max query buffer length", no reply
      return;
    }
    if (result == RequestParser::Result::ProtocolError) {
      out_ += '-';
      out_ += parser_.error();
      out_ += "\r\n";
      close_after_reply = true;
      break;
    }
    const Verdict fresh = screen_command(core_, *this, argv_);
    if (fresh.action == Verdict::Action::Hold) {
      held_ = true;
      break;
    }
    execute(argv_, fresh);
  }
  // (A read in progress writes at in_end_: the buffer is rearranged only between reads.)
  if (in_begin_ == in_end_ && !reading_) in_begin_ = in_end_ = 0;
}

void Connection::execute(const redis::Command& argv, const Verdict& verdict) {
  const size_t reply_start = out_.size();
  reply_suppressed = false;
  switch (verdict.action) {  // a LOCKSIM.FAULT rule's (traffic.cpp)
    case Verdict::Action::Skip: return;
    case Verdict::Action::Close: close(); return;
    case Verdict::Action::Error: out_ += "-" + verdict.error + "\r\n"; break;
    default: answer(argv);
  }
  note_command(core_, *this, argv, std::string_view(out_).substr(reply_start));
  if (verdict.drop_reply) out_.resize(reply_start);
  hold_reply_ms = std::max(hold_reply_ms, verdict.delay_ms);
  // CLIENT REPLY OFF/SKIP silence the reply; pub/sub notices go out anyway (CLIENT_PUSHING).
  const bool silenced = reply_suppressed || ((reply_off || skipping_) && !is_subscription_command(argv[0]));
  if (silenced) out_.resize(reply_start);
  skipping_ = skip_next;  // Redis: SKIP silences the command after CLIENT REPLY SKIP only
  skip_next = false;
  if (!core_.pushed.empty()) core_.deliver_pushes();
}

// Runs one command, on the front-end or the model, and writes its reply.
void Connection::answer(const redis::Command& argv) {
  const bool queued_by_model = in_multi_ && queued_for_frontend(argv[0]);
  if (auto reply = queued_by_model ? std::nullopt : run_frontend_command(core_, *this, argv)) {
    append_reply_for(out_, *reply, protocol, resp3_form(argv));
    return;
  }
  if (!authenticated) {
    out_ += "-NOAUTH Authentication required.\r\n";
    return;
  }
  const redis::Reply reply = execute_on_model(argv);
  if (waits(reply)) {
    waiting_ = true;
    blocked_form_ = resp3_form(argv);
  } else if (!queued_.empty() && redis::equals_lower(argv[0], "exec")) {
    write_exec_reply(reply);
  } else {
    append_reply_for(out_, reply, protocol, resp3_form(argv));
  }
  track_transaction(argv, reply);
}

// EXEC's replies, each in the RESP3 form of the command it answers.
void Connection::write_exec_reply(const redis::Reply& reply) {
  if (protocol == redis::Protocol::Resp2 || reply.type != redis::Reply::Type::Array ||
      reply.elements.size() != queued_.size()) {
    redis::append_reply(out_, reply, protocol);
    return;
  }
  out_ += '*';
  out_ += std::to_string(reply.elements.size());
  out_ += "\r\n";
  for (size_t i = 0; i < reply.elements.size(); ++i)
    append_reply_for(out_, reply.elements[i], protocol, resp3_form(queued_[i]));
}

// Whether MULTI is open, and the commands it queued (to type EXEC's replies): MULTI opens
// it; EXEC ends it whatever its reply (EXECABORT, a WATCH abort); DISCARD if it succeeds.
void Connection::track_transaction(const redis::Command& argv, const redis::Reply& reply) {
  const bool is_status = reply.type == redis::Reply::Type::Status;
  if (is_status && reply.str == "QUEUED") {
    queued_.push_back(argv);
    return;
  }
  if (argv[0].size() != 4 && argv[0].size() != 5 && argv[0].size() != 7) return;  // not MULTI, EXEC, DISCARD
  if (redis::equals_lower(argv[0], "multi")) {
    in_multi_ = in_multi_ || (is_status && reply.str == "OK");
  } else if (redis::equals_lower(argv[0], "exec") || (redis::equals_lower(argv[0], "discard") && is_status)) {
    in_multi_ = false;
    queued_.clear();
  }
}

// A fault in the model answers that client with an error; it never stops the server.
redis::Reply Connection::execute_on_model(const redis::Command& argv) {
  try {
    return core_.model.execute(id_, argv, core_.clock.now_ms());
  } catch (const std::exception& e) {
    return redis::Reply::error(std::string("ERR internal error in the model: ") + e.what());
  }
}

void Connection::receive(std::vector<redis::Reply>& replies) {
  for (const redis::Reply& reply : replies) {
    if (waiting_) {
      waiting_ = false;
      if (!reply_off) append_reply_for(out_, reply, protocol, blocked_form_);
    } else {
      redis::append_reply(out_, reply, protocol, redis::Aggregate::Push);
    }
  }
  if (out_.size() > kPushOutputLimit) asio::post(core_.io, [self = shared_from_this()] { self->close(); });
}

void Connection::prepare_input_space() {
  const size_t wanted = std::max(kReadChunk, parser_.bytes_wanted());
  if (in_begin_ == in_end_) {
    in_begin_ = in_end_ = 0;
    if (in_.size() > 4 * kReadChunk && wanted == kReadChunk) std::vector<char>(kReadChunk).swap(in_);
  }
  if (in_.size() - in_end_ >= wanted) return;
  if (in_begin_ > 0) {
    std::memmove(in_.data(), in_.data() + in_begin_, in_end_ - in_begin_);
    in_end_ -= in_begin_;
    in_begin_ = 0;
  }
  if (in_.size() - in_end_ < wanted) in_.resize(std::max(in_.size() * 2, in_end_ + wanted));
}

void Connection::start_read() {
  // A blocked client is still read (to see it leave) but runs nothing: cap what it piles up.
  if (in_end_ - in_begin_ > ProtocolLimits{}.max_pending_bytes) {
    close();
    return;
  }
  prepare_input_space();
  reading_ = true;
  socket_.async_read_some(asio::buffer(in_.data() + in_end_, in_.size() - in_end_),
                          [self = shared_from_this()](const std::error_code& ec, size_t n) { self->on_read(ec, n); });
}

void Connection::on_read(const std::error_code& ec, size_t n) {
  reading_ = false;
  if (closed_) return;
  if (ec) {
    close();
    return;
  }
  in_end_ += n;
  core_.traffic.net_input_bytes += n;
  last_active_ms = Clock::host_ms();
  pump();
}

void Connection::start_write() {
  sending_.swap(out_);
  writing_ = true;
  const int64_t delay_ms = std::max(core_.reply_delay_ms, hold_reply_ms);
  hold_reply_ms = 0;
  if (delay_ms <= 0) {
    write_now();
    return;
  }
  delay_timer_.expires_after(std::chrono::milliseconds(delay_ms));
  delay_timer_.async_wait([self = shared_from_this()](const std::error_code&) {
    if (!self->closed_) self->write_now();
  });
}

void Connection::write_now() {
  asio::async_write(socket_, asio::buffer(sending_),
                    [self = shared_from_this()](const std::error_code& ec, size_t) { self->on_written(ec); });
}

void Connection::on_written(const std::error_code& ec) {
  writing_ = false;
  sending_.clear();
  if (closed_) return;
  if (ec) {
    close();
    return;
  }
  pump();
}

void Connection::close() {
  if (closed_) return;
  auto self = shared_from_this();  // the map may hold the last reference
  closed_ = true;
  std::error_code ignored;
  socket_.shutdown(asio::socket_base::shutdown_both, ignored);
  socket_.close(ignored);
  delay_timer_.cancel();
  core_.model.disconnect(id_);
  core_.clients.erase(id_);
}

void Connection::reset_connection_state() {
  protocol = redis::Protocol::Resp2;
  name.clear();
  queued_.clear();
  in_multi_ = false;
  reply_off = skip_next = false;
}

int64_t Connection::age_seconds() const { return (Clock::host_ms() - created_ms_) / 1000; }

std::string Connection::info_line() const {
  const int64_t now = Clock::host_ms();
  std::string line =
      "id=" + std::to_string(id_) + " addr=" + peer_ + " laddr=" + local_ +
      " fd=" + std::to_string(closed_ ? -1 : const_cast<Socket&>(socket_).native_handle()) + " name=" + name +
      " age=" + std::to_string((now - created_ms_) / 1000) +
      " idle=0 flags=" + std::string(monitor ? "O" : "N") + " db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=" + std::to_string(in_end_ - in_begin_) +
      " qbuf-free=" + std::to_string(in_.size() - in_end_) +
      " argv-mem=0 multi-mem=0 rbs=" + std::to_string(in_.size()) + " rbp=0 obl=" + std::to_string(out_.size()) +
      " oll=0 omem=" + std::to_string(sending_.size()) +
      " tot-mem=" + std::to_string(in_.size() + out_.capacity() + sending_.capacity()) +
      " events=r cmd=client|info user=default redir=-1 resp=" + std::to_string(static_cast<int>(protocol));
  return line;
}

}  // namespace locksim::server
