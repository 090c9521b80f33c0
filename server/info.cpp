// INFO as Redis 7.0 lays it out, with every section client libraries and test suites
// read: Server (the real tcp_port), Clients, Memory, Persistence, Stats, Replication,
// CPU, Modules, Errorstats, Cluster, Keyspace, and Commandstats on request. Memory and
// Keyspace are the model's own; the rest is the front-end's.
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <fstream>

#include "locksim/server/connection.hpp"
#include "locksim/server/frontend.hpp"
#include "locksim/server/lower.hpp"
#include "locksim/server/traffic.hpp"
#include "locksim/sim/redis/arguments.hpp"

namespace locksim::server {

using redis::Command;
using redis::Reply;

namespace {
// A number INFO's text gives for `field` (0 when absent).
int64_t info_number(const std::string& text, std::string_view field) {
  const std::string key = "\n" + std::string(field) + ":";
  const size_t at = ("\n" + text).find(key);
  return at == std::string::npos ? 0 : std::atoll(text.c_str() + at + key.size() - 1);
}

constexpr std::array kDefaultSections = {"server",      "clients", "memory",     "persistence", "stats",   "replication",
                                         "cpu",         "modules", "errorstats", "cluster",     "keyspace"};

size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

std::string human(size_t bytes) {
  if (bytes >= (1u << 30)) return fmt::format("{:.2f}G", bytes / double(1u << 30));
  if (bytes >= (1u << 20)) return fmt::format("{:.2f}M", bytes / double(1u << 20));
  if (bytes >= 1024) return fmt::format("{:.2f}K", bytes / 1024.0);
  return fmt::format("{}B", bytes);
}

// 40 hex digits from the process and its start: fixed for the server's life.
std::string run_id(const Traffic& traffic) {
  uint64_t h = 1469598103934665603ULL ^ static_cast<uint64_t>(::getpid()) ^ static_cast<uint64_t>(traffic.started_ms);
  std::string id;
  while (id.size() < 40) {
    h = (h ^ (h >> 31)) * 0x9e3779b97f4a7c15ULL + 1;
    id += fmt::format("{:016x}", h);
  }
  return id.substr(0, 40);
}

std::string executable() {
  std::array<char, 4096> path{};
  const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size() - 1);
  return n > 0 ? std::string(path.data(), static_cast<size_t>(n)) : "";
}

std::string server_section(Server::Core& core) {
  const Traffic& t = core.traffic;
  utsname uts{};
  ::uname(&uts);
  const int64_t now_ms = Clock::host_ms();
  const int64_t up = (now_ms - t.started_ms) / 1000;
  return fmt::format(
      "# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\nredis_git_dirty:0\r\nredis_build_id:0\r\n"
      "redis_mode:standalone\r\nos:{} {} {}\r\narch_bits:64\r\nmonotonic_clock:POSIX clock_gettime\r\n"
      "multiplexing_api:epoll\r\natomicvar_api:c11-builtin\r\ngcc_version:12.0.0\r\nprocess_id:{}\r\n"
      "process_supervised:no\r\nrun_id:{}\r\ntcp_port:{}\r\nserver_time_usec:{}\r\nuptime_in_seconds:{}\r\n"
      "uptime_in_days:{}\r\nhz:10\r\nconfigured_hz:10\r\nlru_clock:{}\r\nexecutable:{}\r\nconfig_file:\r\n"
      "io_threads_active:0\r\nlocksim_time:{}\r\nlocksim_clock_ms:{}\r\n",
      uts.sysname, uts.release, uts.machine, ::getpid(), run_id(t), core.port, now_ms * 1000, up, up / 86400,
      (now_ms / 1000) & ((1 << 24) - 1), executable(), core.clock.mode() == TimeMode::Manual ? "manual" : "wall",
      core.clock.now_ms());
}

std::string clients_section(Server::Core& core) {
  size_t connected = 0, blocked = 0, tracking = 0;
  for (const auto& [id, client] : core.clients) {
    if (client->closed()) continue;  // closed in this command (an EXEC), released after it
    ++connected;
    if (core.model.is_blocked(id)) ++blocked;
    if (client->tracking.on) ++tracking;
  }
  return fmt::format(
      "# Clients\r\nconnected_clients:{}\r\ncluster_connections:0\r\nmaxclients:{}\r\n"
      "client_recent_max_input_buffer:0\r\nclient_recent_max_output_buffer:0\r\nblocked_clients:{}\r\n"
      "tracking_clients:{}\r\nclients_in_timeout_table:{}\r\n",
      connected, core.options.maxclients, blocked, tracking, blocked);
}

// The model's memory section (its data set as maxmemory counts it), then the process's.
std::string memory_section(Server::Core& core, const std::string& from_model) {
  const size_t rss = resident_bytes();
  core.traffic.peak_rss = std::max(core.traffic.peak_rss, rss);
  std::string out = from_model;
  out += fmt::format(
      "used_memory_rss:{}\r\nused_memory_rss_human:{}\r\nused_memory_peak:{}\r\nused_memory_peak_human:{}\r\n"
      "maxmemory:{}\r\nmaxmemory_human:{}\r\nmem_fragmentation_ratio:1.00\r\nmem_allocator:libc\r\n",
      rss, human(rss), core.traffic.peak_rss, human(core.traffic.peak_rss), core.options.model.maxmemory_bytes,
      human(core.options.model.maxmemory_bytes));
  return out;
}

std::string persistence_section(const Traffic& t) {
  return fmt::format(
      "# Persistence\r\nloading:0\r\nasync_loading:0\r\ncurrent_cow_peak:0\r\ncurrent_cow_size:0\r\n"
      "current_fork_perc:0.00\r\ncurrent_save_keys_processed:0\r\ncurrent_save_keys_total:0\r\n"
      "rdb_changes_since_last_save:0\r\nrdb_bgsave_in_progress:0\r\nrdb_last_save_time:{}\r\n"
      "rdb_last_bgsave_status:ok\r\nrdb_last_bgsave_time_sec:-1\r\nrdb_current_bgsave_time_sec:-1\r\n"
      "aof_enabled:0\r\naof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0\r\naof_last_rewrite_time_sec:-1\r\n"
      "aof_current_rewrite_time_sec:-1\r\naof_last_bgrewrite_status:ok\r\naof_rewrites:0\r\n"
      "aof_last_write_status:ok\r\naof_last_cow_size:0\r\nmodule_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n",
      t.started_ms / 1000);
}

// total_error_replies: the model counts every error reply, its own and the host's
// (redis::Server::note_host_command), where Redis counts them (command_stats.hpp).
std::string stats_section(Server::Core& core, int64_t error_replies) {
  const Traffic& t = core.traffic;
  return fmt::format(
      "# Stats\r\ntotal_connections_received:{}\r\ntotal_commands_processed:{}\r\ninstantaneous_ops_per_sec:0\r\n"
      "total_net_input_bytes:{}\r\ntotal_net_output_bytes:{}\r\ninstantaneous_input_kbps:0.00\r\n"
      "instantaneous_output_kbps:0.00\r\nrejected_connections:{}\r\nsync_full:0\r\nsync_partial_ok:0\r\n"
      "sync_partial_err:0\r\nexpired_keys:0\r\nexpired_stale_perc:0.00\r\nexpired_time_cap_reached_count:0\r\n"
      "expire_cycle_cpu_milliseconds:0\r\nevicted_keys:0\r\nevicted_clients:0\r\ntotal_eviction_exceeded_time:0\r\n"
      "current_eviction_exceeded_time:0\r\nkeyspace_hits:0\r\nkeyspace_misses:0\r\npubsub_channels:0\r\n"
      "pubsub_patterns:0\r\nlatest_fork_usec:0\r\ntotal_forks:0\r\nmigrate_cached_sockets:0\r\n"
      "slave_expires_tracked_keys:0\r\nactive_defrag_hits:0\r\nactive_defrag_misses:0\r\n"
      "active_defrag_key_hits:0\r\nactive_defrag_key_misses:0\r\ntotal_active_defrag_time:0\r\n"
      "current_active_defrag_time:0\r\ntracking_total_keys:0\r\ntracking_total_items:0\r\n"
      "tracking_total_prefixes:0\r\nunexpected_error_replies:0\r\ntotal_error_replies:{}\r\ndump_payload_sanitizations:0\r\n"
      "total_reads_processed:{}\r\ntotal_writes_processed:{}\r\nio_threaded_reads_processed:0\r\n"
      "io_threaded_writes_processed:0\r\n",
      t.connections_received, t.commands_processed, t.net_input_bytes, t.net_output_bytes, t.connections_rejected,
      error_replies, t.commands_processed, t.commands_processed);
}

std::string replication_section(const Traffic& t) {
  return fmt::format(
      "# Replication\r\nrole:master\r\nconnected_slaves:0\r\nmaster_failover_state:no-failover\r\n"
      "master_replid:{}\r\nmaster_replid2:0000000000000000000000000000000000000000\r\nmaster_repl_offset:0\r\n"
      "second_repl_offset:-1\r\nrepl_backlog_active:0\r\nrepl_backlog_size:1048576\r\n"
      "repl_backlog_first_byte_offset:0\r\nrepl_backlog_histlen:0\r\n",
      run_id(t));
}

std::string cpu_section() {
  rusage self{}, children{};
  ::getrusage(RUSAGE_SELF, &self);
  ::getrusage(RUSAGE_CHILDREN, &children);
  auto seconds = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  return fmt::format(
      "# CPU\r\nused_cpu_sys:{:.6f}\r\nused_cpu_user:{:.6f}\r\nused_cpu_sys_children:{:.6f}\r\n"
      "used_cpu_user_children:{:.6f}\r\nused_cpu_sys_main_thread:{:.6f}\r\nused_cpu_user_main_thread:{:.6f}\r\n",
      seconds(self.ru_stime), seconds(self.ru_utime), seconds(children.ru_stime), seconds(children.ru_utime),
      seconds(self.ru_stime), seconds(self.ru_utime));
}

}  // namespace

Reply run_info_command(Server::Core& core, Connection& conn, const Command& argv) {
  std::vector<std::string> wanted;
  bool everything = argv.size() == 1;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string name = lower(argv[i]);
    if (name == "default") {
      wanted.insert(wanted.end(), kDefaultSections.begin(), kDefaultSections.end());
    } else if (name == "all" || name == "everything") {
      wanted.insert(wanted.end(), kDefaultSections.begin(), kDefaultSections.end());
      wanted.emplace_back("commandstats");
      wanted.emplace_back("latencystats");
    } else {
      wanted.push_back(name);
    }
  }
  if (everything) wanted.assign(kDefaultSections.begin(), kDefaultSections.end());
  const int64_t now = core.clock.now_ms();
  auto from_model = [&](const char* section) -> std::optional<std::string> {
    Reply r = core.model.query(conn.id(), {"INFO", section}, now);
    if (r.is_error()) return std::nullopt;
    return r.str;
  };
  std::string out;
  std::vector<std::string> done;
  for (const std::string& name : wanted) {
    if (std::find(done.begin(), done.end(), name) != done.end()) continue;
    done.push_back(name);
    std::string text;
    if (name == "server") text = server_section(core);
    else if (name == "clients") text = clients_section(core);
    else if (name == "memory") text = memory_section(core, from_model("memory").value_or("# Memory\r\n"));
    else if (name == "persistence") text = persistence_section(core.traffic);
    else if (name == "stats")
      text = stats_section(core, info_number(from_model("stats").value_or(""), "total_error_replies"));
    else if (name == "replication") text = replication_section(core.traffic);
    else if (name == "cpu") text = cpu_section();
    else if (name == "modules") text = "# Modules\r\n";
    else if (name == "errorstats") text = from_model("errorstats").value_or("# Errorstats\r\n");
    else if (name == "cluster") text = "# Cluster\r\ncluster_enabled:0\r\n";
    else if (name == "keyspace") text = from_model("keyspace").value_or("# Keyspace\r\n");
    else if (name == "commandstats") text = from_model("commandstats").value_or("# Commandstats\r\n");
    else if (name == "latencystats") text = "# Latencystats\r\n";
    else continue;  // Redis answers nothing for a section it does not know
    if (!out.empty()) out += "\r\n";
    out += text;
  }
  return Reply::bulk(std::move(out));
}

namespace {

std::string model_info(Server::Core& core, Connection& conn, const char* section) {
  Reply r = core.model.query(conn.id(), {"INFO", section}, core.clock.now_ms());
  return r.is_error() ? std::string() : r.str;
}
}  // namespace

// MEMORY STATS: Redis's fields, from the model's data set, the clients' buffers and the
// process's resident size; db.<n> for each database with keys.
Reply memory_stats(Server::Core& core, Connection& conn) {
  const std::string memory = model_info(core, conn, "memory");
  const std::string keyspace = model_info(core, conn, "keyspace");
  const int64_t rss = static_cast<int64_t>(resident_bytes());
  core.traffic.peak_rss = std::max(core.traffic.peak_rss, static_cast<size_t>(rss));
  const int64_t used = info_number(memory, "used_memory"), dataset = info_number(memory, "used_memory_dataset");
  int64_t clients = 0;
  for (const auto& [id, client] : core.clients) clients += static_cast<int64_t>(client->memory_bytes());
  int64_t keys = 0;
  std::vector<Reply> dbs;
  for (int db = 0; db < 16; ++db) {
    const std::string tag = "db" + std::to_string(db) + ":keys=";
    const size_t at = keyspace.find(tag);
    if (at == std::string::npos) continue;
    const int64_t n = std::atoll(keyspace.c_str() + at + tag.size());
    keys += n;
    dbs.push_back(Reply::bulk("db." + std::to_string(db)));
    dbs.push_back(Reply::array({Reply::bulk("overhead.hashtable.main"), Reply::integer_(n * 24),
                                Reply::bulk("overhead.hashtable.expires"), Reply::integer_(0)}));
  }
  auto pair = [](std::vector<Reply>& out, const char* name, Reply value) {
    out.push_back(Reply::bulk(name));
    out.push_back(std::move(value));
  };
  std::vector<Reply> out;
  pair(out, "peak.allocated", Reply::integer_(static_cast<int64_t>(core.traffic.peak_rss)));
  pair(out, "total.allocated", Reply::integer_(used + clients));
  pair(out, "startup.allocated", Reply::integer_(used - dataset));
  pair(out, "replication.backlog", Reply::integer_(0));
  pair(out, "clients.slaves", Reply::integer_(0));
  pair(out, "clients.normal", Reply::integer_(clients));
  pair(out, "cluster.links", Reply::integer_(0));
  pair(out, "aof.buffer", Reply::integer_(0));
  pair(out, "lua.caches", Reply::integer_(info_number(memory, "used_memory_lua")));
  pair(out, "functions.caches", Reply::integer_(0));
  for (Reply& r : dbs) out.push_back(std::move(r));
  pair(out, "overhead.total", Reply::integer_(used - dataset + clients));
  pair(out, "keys.count", Reply::integer_(keys));
  pair(out, "keys.bytes-per-key", Reply::integer_(keys ? dataset / keys : 0));
  pair(out, "dataset.bytes", Reply::integer_(dataset));
  pair(out, "rss-overhead.bytes", Reply::integer_(rss - used));
  return Reply::array(std::move(out));
}

// MEMORY DOCTOR: Redis's verdict for an instance this small, else that it found nothing
// (the model has no allocator fragmentation to report).
Reply memory_doctor(Server::Core& core, Connection& conn) {
  if (info_number(model_info(core, conn, "memory"), "used_memory") < 5 * 1024 * 1024)
    return Reply::bulk(
        "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these "
        "conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be "
        "back to our programming as soon as I finished rebooting.");
  return Reply::bulk("Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on "
                     "this base.");
}

}  // namespace locksim::server
