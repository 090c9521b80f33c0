#include "locksim/real/run.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "locksim/real/sync_client.hpp"

namespace locksim::real {

using lock::Step;
using sim::FaultKind;
using sim::TraceKind;

namespace {

bool is_client(const lock::SimulationConfig& config, const std::string& name) {
  for (uint32_t c = 0; c < config.workload.clients; ++c)
    if (lock::client_name(c) == name) return true;
  return false;
}

// A delay aimed at one call, as a scenario writes it (real reaches lock, not props).
std::string real_delay_fault_text(const lock::CallFault& f) {
  return fmt::format("call={}:{}{}:delay:{}", lock::client_name(f.client), f.on == lock::CallFault::On::Write ? "write" : "",
                     f.call, sim::format_duration(f.pause));
}

bool is_server(const lock::SimulationConfig& config, const std::string& name) {
  for (const std::string& n : lock::redis_node_names(config))
    if (n == name) return true;
  return false;
}

}  // namespace

std::vector<std::string> not_reproducible(const lock::SimulationConfig& config) {
  std::vector<std::string> out;
  // The shadow model that turns real replies into the history cannot replay a
  // blocked command served by another client's push, nor deliver messages.
  if (const lock::Algorithm* a = lock::find_algorithm(config.algorithm); a && a->waits_on_redis)
    out.push_back(config.algorithm +
                  ": it waits on Redis (pub/sub messages, blocking commands), which only the simulator runs so far");
  for (const sim::Fault& f : config.faults.faults) {
    const std::string text = sim::to_string(f);
    if (f.node == "store" || f.peer == "store")
      out.push_back(text + ": the fenced resource lives inside locksim, not behind a network");
    else if (f.kind == FaultKind::ClockJump && is_server(config, f.node))
      out.push_back(text + ": a redis-server's clock cannot be moved (libfaketime is not wired in)");
    else if (!is_client(config, f.node) && !is_server(config, f.node))
      out.push_back(text + ": no node named '" + f.node + "' in this deployment");
  }
  for (const lock::CallFault& f : config.workload.call_faults)
    if (f.kind == lock::CallFault::Kind::Delay)
      out.push_back(real_delay_fault_text(f) +
                    (f.on == lock::CallFault::On::Write
                         ? ": the fenced resource lives inside locksim, not behind a network"
                         : ": a real client's request cannot be held in flight (no delaying proxy is wired in)"));
  for (size_t n = 0; n < config.redis_drifts_ppm.size(); ++n)
    if (config.redis_drifts_ppm[n] != 0)
      out.push_back(
          fmt::format("redis-drift={}:{:+}: a redis-server's clock rate cannot be changed (libfaketime is "
                      "not wired in)",
                      lock::redis_node_name(config, n), config.redis_drifts_ppm[n]));
  return out;
}

RealRun::RealRun(const lock::SimulationConfig& config, const RealSetup& setup)
    : config_(config), setup_(setup), algorithm_(lock::find_algorithm(config.algorithm)), dir_("locksim-real") {
  if (!algorithm_) throw std::invalid_argument(fmt::format("unknown algorithm '{}'", config.algorithm));
  if (config_.workload.clients == 0) throw std::invalid_argument("a run needs at least one client");
  if (auto bad = not_reproducible(config_); !bad.empty())
    throw std::invalid_argument("not reproducible for real: " + bad.front());
  install_child_cleanup();
  deployment_ = std::make_unique<Deployment>(loop_, config_, setup_.redis_server, dir_.path());
  std::vector<std::string> names;
  for (uint32_t c = 0; c < config_.workload.clients; ++c) {
    names.push_back(lock::client_name(c));
    trace_.set_node_name(client_node(c), names.back());
  }
  for (uint32_t n = 0; n < deployment_->nodes(); ++n) {
    trace_.set_node_name(server_node(n), deployment_->name(n));
    shadows_.push_back(std::make_unique<Shadow>(history_, n));
  }
  trace_.set_node_name(server_node(deployment_->nodes()), "store");
  history_.set_clients(names);
  history_.ledger().track(config_.lock.key);
  for (uint32_t n = 0; n < deployment_->nodes(); ++n) history_.ledger().name_node(n, deployment_->name(n));
  if (config_.replica) history_.ledger().set_replica(0, 1);
  for (uint32_t c = 0; c < config_.workload.clients; ++c) clients_.push_back(std::make_unique<RealClient>(*this, c));
}

RealRun::~RealRun() {
  clients_.clear();  // their tasks and connections first, while the loop is alive
  deployment_.reset();
}

void RealRun::run() {
  loop_.restart_clock();  // the scenario's time zero: the servers are up
  schedule_faults();
  for (auto& c : clients_) c->start();
  const auto horizon = loop_.at(sim::Instant{} + config_.horizon, [this] { loop_.stop(); });
  loop_.run();
  loop_.cancel(horizon);
  ended_at_ = loop_.now();
  history_.ledger().settle();
  if (!failure_.empty()) throw std::runtime_error(failure_);
  read_end();
}

void RealRun::read_end() {
  const RedisProcess& serving = deployment_->process(deployment_->serving(0));
  if (!serving.running()) return;
  try {
    SyncClient c = SyncClient::unix_socket(serving.socket_path());
    redis::Reply r = c.execute({"PTTL", config_.lock.key});
    if (r.type == redis::Reply::Type::Integer) key_pttl_ms_ = r.integer;
  } catch (const std::runtime_error&) {
    // a paused server at the end of the horizon: the key is unknown, as absent
  }
}

bool RealRun::over() const {
  if (faults_left_ > 0) return false;
  for (const auto& c : clients_)
    if (!c->finished() && !c->crashed()) return false;
  return true;
}

void RealRun::client_settled() {
  if (over())
    loop_.after(sim::Duration{}, [this] {
      if (over()) loop_.stop();
    });
}

void RealRun::fail(std::string why) {
  if (failure_.empty()) failure_ = std::move(why);
  loop_.stop();
}

void RealRun::resource_write(uint32_t client, int64_t token) {
  lock::HistoryEvent e;
  e.at = loop_.now();
  e.local = e.at;
  e.client = client;
  e.purpose = lock::Purpose::Resource;
  e.token = token;
  e.highest_seen = highest_token_;
  const bool accepted = token < 0 || token >= highest_token_;
  e.step = accepted ? Step::WriteAccepted : Step::WriteRejected;
  if (accepted && token > highest_token_) highest_token_ = token;
  history_.add(std::move(e));
}

void RealRun::schedule_faults() {
  faults_left_ = config_.faults.faults.size();
  for (const sim::Fault& f : config_.faults.faults) {
    loop_.at(f.at, [this, f] {
      --faults_left_;
      apply(f);
      client_settled();
    });
  }
}

void RealRun::apply(const sim::Fault& f) {
  if (f.kind == FaultKind::Cut || f.kind == FaultKind::Heal || f.kind == FaultKind::Reset) return apply_to_links(f);
  for (uint32_t n = 0; n < deployment_->nodes(); ++n)
    if (deployment_->name(n) == f.node) return apply_to_server(f, n);
  for (uint32_t c = 0; c < clients_.size(); ++c) {
    if (lock::client_name(c) != f.node) continue;
    RealClient& client = *clients_[c];
    switch (f.kind) {
      case FaultKind::Crash: client.crash(); break;
      case FaultKind::Restart: client.restart(); break;
      case FaultKind::Pause: client.pause(f.amount); break;
      case FaultKind::ClockJump: client.jump_clock(f.amount); break;
      default: break;
    }
  }
}

void RealRun::apply_to_server(const sim::Fault& f, uint32_t node) {
  RedisProcess& p = deployment_->process(node);
  switch (f.kind) {
    case FaultKind::Crash: crash_server(node); break;
    case FaultKind::Restart: restart_server(node); break;
    case FaultKind::Pause: {
      trace_.add(loop_.now(), server_node(node), TraceKind::Pause, f.amount.ns);
      p.pause();
      ++faults_left_;  // the resume is still to come
      loop_.after(f.amount, [this, node] {
        deployment_->process(node).resume();
        trace_.add(loop_.now(), server_node(node), TraceKind::Resume);
        --faults_left_;
        client_settled();
      });
      break;
    }
    default: break;
  }
}

void RealRun::server_event(Step step, uint32_t node) {
  lock::HistoryEvent e;
  e.at = loop_.now();
  e.local = e.at;
  e.step = step;
  e.keys_survive = deployment_->durable();
  e.server = node;
  history_.add(std::move(e));
}

void RealRun::crash_server(uint32_t node) {
  if (!deployment_->process(node).running()) return;
  deployment_->process(node).kill();
  if (!deployment_->durable()) shadows_[node]->forget(loop_.now());
  trace_.add(loop_.now(), server_node(node), TraceKind::Crash);
  server_event(Step::ServerCrashed, node);
  if (!config_.replica || node != 0 || promoted_) return;
  ++faults_left_;  // the failover is still to come
  loop_.after(config_.failover_after, [this] {
    --faults_left_;
    if (!promoted_ && !deployment_->process(0).running()) {
      promoted_ = true;
      deployment_->promote_replica();
      lock::HistoryEvent e;
      e.at = loop_.now();
      e.local = e.at;
      e.step = Step::ReplicaPromoted;
      e.server = 1;
      history_.add(std::move(e));
      history_.ledger().promoted(1, loop_.now());
      trace_.add(loop_.now(), server_node(1), TraceKind::Note, 0, 0, "replica promoted to master");
    }
    client_settled();
  });
}

void RealRun::restart_server(uint32_t node) {
  crash_server(node);                       // a restart of a running server crashes it first, as in the simulator
  deployment_->process(node).start(false);  // clients that call before it listens see a lost connection
  trace_.add(loop_.now(), server_node(node), TraceKind::Restart, 1);
  server_event(Step::ServerRestarted, node);
  history_.ledger().server_restarted(node, loop_.now());
}

void RealRun::apply_to_links(const sim::Fault& f) {
  auto matches = [&f](const std::string& x, const std::string& y) {
    return (f.node == x && (f.peer == y || f.peer == "*")) || (f.node == y && (f.peer == x || f.peer == "*"));
  };
  std::vector<LinkProxy*> links;
  for (uint32_t n = 0; n < deployment_->nodes(); ++n)
    for (uint32_t c = 0; c < clients_.size(); ++c)
      if (matches(deployment_->name(n), lock::client_name(c))) links.push_back(&deployment_->link(n, c));
  if (deployment_->replication() && matches(deployment_->name(0), deployment_->name(1)))
    links.push_back(deployment_->replication());
  sim::NodeId node = 0;
  for (uint32_t c = 0; c < clients_.size(); ++c)
    if (lock::client_name(c) == f.node) node = client_node(c);
  for (uint32_t n = 0; n < deployment_->nodes(); ++n)
    if (deployment_->name(n) == f.node) node = server_node(n);
  const std::string text = fmt::format("{} <-/-> {}", f.node, f.peer);
  switch (f.kind) {
    case FaultKind::Cut:
      trace_.add(loop_.now(), node, TraceKind::Cut, 0, f.amount.ns, text);
      for (LinkProxy* l : links) l->cut();
      if (f.amount.ns > 0) {
        ++faults_left_;
        loop_.after(f.amount, [this, links] {
          for (LinkProxy* l : links) l->heal();
          --faults_left_;
          client_settled();
        });
      }
      break;
    case FaultKind::Heal:
      trace_.add(loop_.now(), node, TraceKind::Heal, 0, 0, fmt::format("{} <---> {}", f.node, f.peer));
      for (LinkProxy* l : links) l->heal();
      break;
    default:
      trace_.add(loop_.now(), node, TraceKind::Reset, 0, 0, fmt::format("{} x {}", f.node, f.peer));
      for (LinkProxy* l : links) l->reset();
      break;
  }
}

}  // namespace locksim::real
