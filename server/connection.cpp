#include "locksim/server/connection.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <charconv>
#include <chrono>
#include <cstring>

#include "locksim/base/assert.hpp"
#include "locksim/sim/redis/arguments.hpp"

namespace locksim::server {

namespace {
constexpr size_t kReadChunk = 16 * 1024;
// Commands stop running once this much output waits: the client must read first, so
// a client that reads nothing holds at most this (plus one reply), never more.
constexpr size_t kOutputHighWater = 64 * 1024;
// A client's turn ends after this much time running its pipelined commands: the others
// are served before it goes on, so 50 pipelined scripts that each run to their
// instruction budget hold another client for one budget, not fifty.
constexpr auto kTurn = std::chrono::milliseconds(10);

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

// A scalar reply (+OK, :1, $5 value, the nil bulk) written straight into the output, as
// redis::append_reply writes it; false for the rest (arrays, RESP3's typed forms), which
// go the general way.
bool append_scalar_reply(std::string& out, const redis::Reply& reply, redis::Protocol protocol) {
  char head[24];
  char* end = head + 1;
  const std::string* body = nullptr;
  switch (reply.type) {
    case redis::Reply::Type::Status: head[0] = '+', body = &reply.str; break;
    case redis::Reply::Type::Error: head[0] = '-', body = &reply.str; break;
    case redis::Reply::Type::Integer: head[0] = ':', end = std::to_chars(end, head + sizeof head, reply.integer).ptr; break;
    case redis::Reply::Type::Bulk:
      head[0] = '$', end = std::to_chars(end, head + sizeof head, reply.str.size()).ptr;
      *end++ = '\r', *end++ = '\n';
      body = &reply.str;
      break;
    case redis::Reply::Type::Nil:
      out += protocol == redis::Protocol::Resp3 ? "_\r\n" : "$-1\r\n";
      return true;
    default: return false;
  }
  out.append(head, static_cast<size_t>(end - head));  // (not the iterator pair: that goes through replace)
  if (body) out += *body;
  out.append("\r\n", 2);
  return true;
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

void Connection::report_memory() {
  const size_t bytes = closed_ ? 0 : memory_bytes();
  core_.clients_bytes = core_.clients_bytes - reported_bytes_ + bytes;
  reported_bytes_ = bytes;
}

void Connection::pump() {
  pump_io();
  report_memory();
}

void Connection::pump_io() {
  // A client whose command runs (a busy script) is read and written no further until it ends.
  if (closed_ || executing_) return;
  run_commands();
  // Replies the socket takes whole are written at once, and what else was read runs next
  // (no asynchronous write and trip through the scheduler per batch of replies).
  while (!closed_ && !out_.empty() && !writing_ && !yielded_ && write_at_once()) run_commands();
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
  if (yielded_) {  // commands are left: after the others' turn
    yielded_ = false;
    asio::post(core_.io, [self = shared_from_this()] { self->pump(); });
  }
  if (!reading_ && !core_.paused) start_read();
}

ProtocolLimits Connection::protocol_limits() const {
  const ClientLimits& limits = core_.options.limits;
  ProtocolLimits parsing;
  parsing.max_bulk_len = limits.proto_max_bulk_len;
  parsing.max_pending_bytes = limits.query_buffer_limit;
  return parsing;
}

void Connection::run_commands() {
  // Inside another client's command only while its script is busy (script_watch.hpp).
  if (core_.command_depth > 0 && !core_.script_busy) return;
  // The turn's clock is read when its first command runs: a call that finds no whole
  // command (after each write, say) reads none.
  std::chrono::steady_clock::time_point turn_start;
  bool turn_started = false;
  const auto start_turn = [&] {
    if (turn_started) return;
    turn_started = true;
    turn_start = command_ended_ = std::chrono::steady_clock::now();
  };
  yielded_ = false;
  while (!core_.paused && !close_after_reply && !waiting_ && out_.size() < kOutputHighWater && !closed_) {
    if (turn_started && command_ended_ - turn_start > kTurn) {  // (the clock execute() read last: one read a command)
      yielded_ = true;
      break;
    }
    if (held_) {  // a command CLIENT PAUSE held: it runs first, once the pause is over
      const Verdict verdict = screen_command(core_, *this, argv_);
      if (verdict.action == Verdict::Action::Hold) break;  // still paused: pumped at its end
      held_ = false;
      start_turn();
      execute(argv_, verdict);
      continue;
    }
    size_t pos = in_begin_;
    parser_.set_unauthenticated(!authenticated);
    parser_.set_limits(protocol_limits());
    const auto result = parser_.parse(std::string_view(in_.data(), in_end_), pos, argv_);
    in_begin_ = pos;
    if (result == RequestParser::Result::NeedMore) break;
    if (result == RequestParser::Result::TooBig) {
      core_.log("Closing client that reached max query buffer length: " + info_line());  // no reply, as Redis
      close();
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
    start_turn();
    execute(argv_, fresh);
  }
  // (A read in progress writes at in_end_: the buffer is rearranged only between reads.)
  if (in_begin_ == in_end_ && !reading_) in_begin_ = in_end_ = 0;
}

// Runs one command under a LOCKSIM.FAULT verdict (traffic.cpp): a dropped request
// runs nothing; a Close verdict closes through close(), released with the rest below.
void Connection::execute(const redis::Command& argv, const Verdict& verdict) {
  LOCKSIM_ASSERT(!closed_, "a closed connection runs a command");
  LOCKSIM_ASSERT(core_.command_depth == 0 || core_.script_busy, "a command runs inside another");
  if (verdict.action == Verdict::Action::Skip) return;
  if (verdict.action == Verdict::Action::Close) {
    close();
    core_.release_retired();
    return;
  }
  report_memory();  // (the model counts the clients' buffers before a write: this one's are exact)
  const size_t reply_start = out_.size();
  reply_suppressed = false;
  answered_by_model_ = false;
  executing_ = true;
  // (The previous command's end, or the turn's start: one clock read a command. Parsing
  // this command, in between, is counted in its time: under a microsecond.)
  const auto started = command_ended_;
  core_.run_command(id_, [&] {
    struct Done {
      bool& executing;
      ~Done() { executing = false; }
    } done{executing_};
    if (verdict.action == Verdict::Action::Error)
      out_ += "-" + verdict.error + "\r\n";
    else
      answer(argv);
  });
  command_ended_ = std::chrono::steady_clock::now();
  note_slow(std::chrono::duration_cast<std::chrono::microseconds>(command_ended_ - started).count(), argv);
  // (A connection closed meanwhile has no pending output: nothing of it was written.)
  const bool wrote = out_.size() > reply_start;
  const bool failed = wrote && out_[reply_start] == '-';
  track_reads(core_, *this, argv, failed);
  if (!failed && (redis::equals_lower(argv[0], "flushall") || redis::equals_lower(argv[0], "flushdb")))
    invalidate_everything(core_);
  note_command(core_, *this, argv, wrote ? std::string_view(out_).substr(reply_start) : std::string_view{},
               answered_by_model_);
  if (verdict.drop_reply && wrote) out_.resize(reply_start);
  hold_reply_ms = std::max(hold_reply_ms, verdict.delay_ms);
  // CLIENT REPLY OFF/SKIP silence the reply; pub/sub notices go out anyway (CLIENT_PUSHING).
  const bool silenced = reply_suppressed || ((reply_off || skipping_) && !is_subscription_command(argv[0]));
  if (silenced && out_.size() > reply_start) out_.resize(reply_start);
  skipping_ = skip_next;  // Redis: SKIP silences the command after CLIENT REPLY SKIP only
  skip_next = false;
  if (argv_.capacity() > 1024 && argv.size() < 64) redis::Command().swap(argv_);  // a huge command's argv goes
  for (const redis::Reply& push : pending_pushes_)
    if (!closed_) redis::append_reply(out_, push, protocol, redis::Aggregate::Push);
  pending_pushes_.clear();
  if (!closed_) check_output_limits();
  if (!core_.pushed.empty() && core_.command_depth == 0) core_.deliver_pushes();
  core_.release_retired();  // whatever the command closed, itself included
}

// SLOWLOG: the configured threshold and length are CONFIG SET's (config_set.cpp keeps them parsed).
void Connection::note_slow(int64_t duration_us, const redis::Command& argv) {
  core_.slowlog.record(argv, duration_us, peer_, name);
}

void Connection::check_output_limits() {
  const size_t bytes = out_.size() + sending_.size();
  const ClientLimits& limits = core_.options.limits;
  const ClientClass cls = subscriptions_ > 0 ? ClientClass::Pubsub : ClientClass::Normal;
  const OutputLimit& limit = limits.of(cls);
  const bool below_soft = !limit.soft || bytes < limit.soft;  // (then the time is not needed: no clock read)
  const bool over_class = output_limit_reached(limit, bytes, below_soft ? 0 : Clock::host_ms(), soft_limit_since_);
  const bool over_clients = limits.maxmemory_clients && memory_bytes() > limits.maxmemory_clients;
  if (!over_class && !over_clients) return;
  core_.log((over_class ? "Client " : "Evicting client (maxmemory-clients): ") + info_line() +
            (over_class ? " closed for overcoming of output buffer limits." : ""));
  close();
}

void Connection::note_subscriptions(const redis::Reply& reply) {
  if (reply.type != redis::Reply::Type::Array || reply.elements.size() != 3) return;
  const redis::Reply& kind = reply.elements[0];
  if (reply.elements[2].type != redis::Reply::Type::Integer || !is_subscription_command(kind.str)) return;
  subscriptions_ = reply.elements[2].integer;
}

size_t Connection::memory_bytes() const {
  return (in_end_ - in_begin_) + parser_.pending_bytes() + argv_.capacity() * sizeof(std::string) + out_.size() + sending_.size();
}

// Runs one command, on the front-end or the model, and writes its reply.
void Connection::answer(const redis::Command& argv) {
  const bool queued_by_model = in_multi_ && queued_for_frontend(argv[0]);
  if (auto reply = queued_by_model ? std::nullopt : run_frontend_command(core_, *this, argv)) {
    append_reply_for(out_, *reply, protocol, form_of(argv));
    return;
  }
  if (!authenticated) {
    out_ += "-NOAUTH Authentication required.\r\n";
    return;
  }
  answered_by_model_ = true;  // the model counts it in INFO commandstats and errorstats
  redis::Reply reply = execute_on_model(argv);
  note_subscriptions(reply);
  if (waits(reply)) {
    waiting_ = true;
    blocked_form_ = resp3_form(argv);
  } else if (!queued_.empty() && redis::equals_lower(argv[0], "exec")) {
    write_exec_reply(reply);
  } else {
    track_transaction(argv, reply);
    const Resp3Form form = form_of(argv);
    if (form == Resp3Form::Plain && append_scalar_reply(out_, reply, protocol)) return;
    return append_reply_releasing(std::move(reply), form);
  }
  track_transaction(argv, reply);
}

// An array reply is written element by element, each released once written, so a huge
// reply (MGET of a 1 MB key 1000 times) is not held twice; writing stops once the
// client is over maxmemory-clients (check_output_limits then closes it: nothing of
// the partial reply is sent).
void Connection::append_reply_releasing(redis::Reply reply, Resp3Form form) {
  const bool plain = protocol == redis::Protocol::Resp2 || form == Resp3Form::Plain;
  if (!plain || reply.type != redis::Reply::Type::Array) return append_reply_for(out_, reply, protocol, form);
  out_ += '*';
  out_ += std::to_string(reply.elements.size());
  out_ += "\r\n";
  const size_t cap = core_.options.limits.maxmemory_clients;
  for (redis::Reply& element : reply.elements) {
    redis::append_reply(out_, element, protocol);
    element = redis::Reply{};
    if (cap && out_.size() > cap) return;
  }
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
  if (is_status && std::string_view(reply.str) == "QUEUED") {
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
  if (closed_) return;
  for (const redis::Reply& reply : replies) {
    if (waiting_) {
      waiting_ = false;
      if (!reply_off) append_reply_for(out_, reply, protocol, blocked_form_);
    } else {
      note_subscriptions(reply);
      redis::append_reply(out_, reply, protocol, redis::Aggregate::Push);
    }
  }
  check_output_limits();
  report_memory();
}

void Connection::push_out(redis::Reply reply) {
  if (closed_) return;
  if (executing_) {
    pending_pushes_.push_back(std::move(reply));
    return;
  }
  redis::append_reply(out_, reply, protocol, redis::Aggregate::Push);
  report_memory();
  asio::post(core_.io, [self = shared_from_this()] { self->pump(); });
}

// Room for the next read. A bulk being read gets room as its bytes arrive, doubling
// with what came, never its announced length at once: a client that announces 512 MB
// and sends nothing holds a chunk, not 512 MB (Redis also reserves lazily).
void Connection::prepare_input_space() {
  if (in_begin_ == in_end_) {
    in_begin_ = in_end_ = 0;
    if (in_.size() > 4 * kReadChunk && parser_.bytes_wanted() == 0) std::vector<char>(kReadChunk).swap(in_);
  }
  const size_t buffered = in_end_ - in_begin_;
  const size_t wanted = parser_.bytes_wanted();
  const size_t rest = wanted > buffered ? wanted - buffered : 0;
  const size_t room = std::max(kReadChunk, std::min(rest, buffered));
  if (in_.size() - in_end_ >= room) return;
  if (in_begin_ > 0) {
    std::memmove(in_.data(), in_.data() + in_begin_, buffered);
    in_end_ = buffered;
    in_begin_ = 0;
  }
  if (in_.size() - in_end_ < room) in_.resize(in_end_ + room);
}

void Connection::start_read() {
  // A blocked client is still read (to see it leave) but runs nothing: cap what it piles up.
  if (in_end_ - in_begin_ > core_.options.limits.query_buffer_limit) {
    core_.log("Closing client that reached max query buffer length: " + info_line());
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

// Writes out_ now if the socket takes all of it without waiting. False leaves what is
// left to start_write: a reply held back (a DELAY fault, DEBUG SLEEP's hold), a full
// socket buffer, or a connection closed by a failed write.
bool Connection::write_at_once() {
  if (core_.reply_delay_ms > 0 || hold_reply_ms > 0) return false;
  std::error_code ec;
  if (!socket_.non_blocking()) socket_.non_blocking(true, ec);  // a full buffer answers would_block
  const size_t n = ec ? 0 : socket_.write_some(asio::buffer(out_), ec);
  if (ec && ec != asio::error::would_block && ec != asio::error::try_again) {
    close();
    return false;
  }
  if (n < out_.size()) {
    out_.erase(0, n);
    return false;
  }
  out_.clear();
  return true;
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
  closed_ = true;
  std::error_code ignored;
  socket_.shutdown(asio::socket_base::shutdown_both, ignored);
  socket_.close(ignored);
  delay_timer_.cancel();
  out_.clear();  // pending replies are lost
  report_memory();
  core_.retire(id_);
}

void Connection::reset_connection_state() {
  protocol = redis::Protocol::Resp2;
  name.clear();
  queued_.clear();
  in_multi_ = false;
  reply_off = skip_next = false;
  subscriptions_ = 0;  // RESET left every subscription
}

int64_t Connection::age_seconds() const { return (Clock::host_ms() - created_ms_) / 1000; }

std::string Connection::info_line() const {
  const int64_t now = Clock::host_ms();
  std::string line =
      "id=" + std::to_string(id_) + " addr=" + peer_ + " laddr=" + local_ +
      " fd=" + std::to_string(closed_ ? -1 : const_cast<Socket&>(socket_).native_handle()) + " name=" + name +
      " age=" + std::to_string((now - created_ms_) / 1000) +
      " idle=0 flags=" + std::string(monitor ? "O" : subscribed() ? "P" : "N") + " db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=" + std::to_string(in_end_ - in_begin_) +
      " qbuf-free=" + std::to_string(in_.size() - in_end_) +
      " argv-mem=0 multi-mem=0 rbs=" + std::to_string(in_.size()) + " rbp=0 obl=" + std::to_string(out_.size()) +
      " oll=0 omem=" + std::to_string(sending_.size()) +
      " tot-mem=" + std::to_string(in_.size() + out_.capacity() + sending_.capacity()) +
      " events=r cmd=client|info user=default redir=-1 resp=" + std::to_string(static_cast<int>(protocol));
  return line;
}

}  // namespace locksim::server
