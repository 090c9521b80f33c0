#include "real_mariadb.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

namespace locksim::db::testing {

namespace {

const char* find_program(const std::vector<const char*>& candidates) {
  for (const char* p : candidates)
    if (access(p, X_OK) == 0) return p;
  return nullptr;
}

// Runs argv with stdout/stderr to log; returns the child's pid.
int spawn(const std::vector<std::string>& args, const std::string& log) {
  int pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

MYSQL* connect_to(const std::string& socket, bool nonblocking) {
  MYSQL* m = mysql_init(nullptr);
  if (nonblocking) mysql_options(m, MYSQL_OPT_NONBLOCK, nullptr);
  if (!mysql_real_connect(m, nullptr, "root", nullptr, nullptr, 0, socket.c_str(), 0)) {
    std::string error = mysql_error(m);
    mysql_close(m);
    throw std::runtime_error("cannot connect to MariaDB on " + socket + ": " + error);
  }
  return m;
}

}  // namespace

RealMariaDb::RealMariaDb() {
  const char* install = find_program({"/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db"});
  const char* server = find_program({"/usr/sbin/mariadbd", "/usr/sbin/mysqld"});
  if (!install || !server)
    throw std::runtime_error(
        "MariaDB is not installed (Debian: apt-get install mariadb-server); ./run.sh test installs it");
  char tmpl[] = "/tmp/locksim-mariadb-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
  socket_ = dir_ + "/sock";
  int setup = spawn({install, "--no-defaults", "--user=root", "--datadir=" + dir_ + "/data",
                     "--auth-root-authentication-method=normal", "--skip-test-db"},
                    dir_ + "/install.log");
  int status = 0;
  waitpid(setup, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("mariadb-install-db failed; see " + dir_ + "/install.log");
  pid_ = spawn({server, "--no-defaults", "--user=root", "--datadir=" + dir_ + "/data", "--socket=" + socket_,
                "--skip-networking", "--innodb-buffer-pool-size=16M", "--skip-grant-tables",
                "--pid-file=" + dir_ + "/pid", "--log-error=" + dir_ + "/error.log"},
               dir_ + "/server.log");
  for (int i = 0; i < 300; ++i) {  // up to 30 s on a loaded machine
    struct stat st;
    if (stat(socket_.c_str(), &st) == 0) return;
    if (waitpid(pid_, &status, WNOHANG) == pid_) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw std::runtime_error("mariadbd did not start; see " + dir_ + "/error.log");
}

void RealMariaDb::hold_purge() {
  snapshot_ = connect_to(socket_, false);
  if (mysql_query(snapshot_, "START TRANSACTION WITH CONSISTENT SNAPSHOT") != 0)
    throw std::runtime_error("MariaDB: cannot open a snapshot: " + std::string(mysql_error(snapshot_)));
}

RealMariaDb::~RealMariaDb() {
  if (snapshot_) mysql_close(snapshot_);
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

void RealMariaDb::wait_gone(unsigned long thread_id) {
  const std::string q = "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID=" + std::to_string(thread_id);
  MYSQL* m = connect_to(socket_, false);
  for (int i = 0; i < 3000; ++i) {
    bool gone = false;
    if (mysql_query(m, q.c_str()) == 0) {
      MYSQL_RES* res = mysql_store_result(m);
      MYSQL_ROW row = res ? mysql_fetch_row(res) : nullptr;
      gone = row && row[0] && std::string(row[0]) == "0";
      if (res) mysql_free_result(res);
    }
    if (gone) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  mysql_close(m);
}

void RealMariaDb::admin(const std::string& sql) {
  MYSQL* m = connect_to(socket_, false);
  if (mysql_query(m, sql.c_str()) != 0) {
    std::string error = mysql_error(m);
    mysql_close(m);
    throw std::runtime_error("MariaDB: " + sql + ": " + error);
  }
  mysql_close(m);
}

RealSession::RealSession(const std::string& socket, unsigned lock_wait_timeout_s) {
  mysql_ = connect_to(socket, true);
  watch_ = connect_to(socket, false);
  thread_id_ = mysql_thread_id(mysql_);
  // Through the non-blocking calls too: a blocking call on this handle would
  // leave it blocking.
  for (const std::string& sql :
       {"SET SESSION innodb_lock_wait_timeout=" + std::to_string(lock_wait_timeout_s), std::string("USE locksim")}) {
    Result r = start(sql);
    if (!r.finished || r.error) {
      std::string error = mysql_error(mysql_);
      close();
      throw std::runtime_error("MariaDB session setup: " + error);
    }
  }
}

RealSession::~RealSession() { close(); }

void RealSession::close() {
  if (mysql_) mysql_close(mysql_);
  if (watch_) mysql_close(watch_);
  mysql_ = watch_ = nullptr;
  status_ = 0;
}

bool RealSession::in_lock_wait() {
  const std::string q =
      "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state='LOCK WAIT' AND "
      "trx_mysql_thread_id=" +
      std::to_string(thread_id_);
  if (mysql_query(watch_, q.c_str()) != 0) throw std::runtime_error("MariaDB: " + std::string(mysql_error(watch_)));
  MYSQL_RES* res = mysql_store_result(watch_);
  MYSQL_ROW row = res ? mysql_fetch_row(res) : nullptr;
  const bool waiting = row && row[0] && std::string(row[0]) != "0";
  if (res) mysql_free_result(res);
  return waiting;
}

RealSession::Result RealSession::start(const std::string& sql) {
  if (status_) throw std::logic_error("RealSession: a statement is still blocked");
  status_ = mysql_real_query_start(&ret_, mysql_, sql.c_str(), sql.size());
  return poll();
}

RealSession::Result RealSession::poll() {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (status_) {
    if (std::chrono::steady_clock::now() > give_up)
      throw std::runtime_error("MariaDB: a statement neither finished nor waited for a lock in 60 s");
    pollfd pfd{mysql_get_socket(mysql_), 0, 0};
    if (status_ & MYSQL_WAIT_READ) pfd.events |= POLLIN;
    if (status_ & MYSQL_WAIT_WRITE) pfd.events |= POLLOUT;
    // INNODB_TRX is a cache that InnoDB refreshes only when it was not read
    // for 100 ms: asking more often would read the same stale rows forever.
    if (::poll(&pfd, 1, 150) == 0) {
      if (in_lock_wait()) return {};
      continue;
    }
    int events = 0;
    if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) events |= MYSQL_WAIT_READ;
    if (pfd.revents & POLLOUT) events |= MYSQL_WAIT_WRITE;
    status_ = mysql_real_query_cont(&ret_, mysql_, events ? events : status_);
  }
  return finish();
}

RealSession::Result RealSession::finish() {
  Result r;
  r.finished = true;
  if (ret_) {
    r.error = mysql_errno(mysql_);
    return r;
  }
  MYSQL_RES* res = mysql_store_result(mysql_);
  if (!res) {
    r.affected = mysql_affected_rows(mysql_);
    return r;
  }
  unsigned columns = mysql_num_fields(res);
  while (MYSQL_ROW row = mysql_fetch_row(res)) {
    std::vector<std::string> values;
    for (unsigned c = 0; c < columns; ++c) values.push_back(row[c] ? row[c] : "NULL");
    r.rows.push_back(std::move(values));
  }
  mysql_free_result(res);
  return r;
}

}  // namespace locksim::db::testing
