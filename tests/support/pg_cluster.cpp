#include "pg_cluster.hpp"

#include <libpq-fe.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

#include "spawn.hpp"

namespace testing_support {

namespace fs = std::filesystem;

namespace {

std::string find_bindir() {
  std::string best;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const auto bin = e.path() / "bin";
    if (fs::exists(bin / "initdb") && bin.string() > best) best = bin.string();
  }
  if (best.empty())
    throw std::runtime_error(
        "PostgreSQL server binaries not found under /usr/lib/postgresql: run scripts/deps.sh (package postgresql)");
  return best;
}

}  // namespace

PgCluster::PgCluster() : bin_(find_bindir()) {
  std::string tmpl = (fs::temp_directory_path() / "l30pg-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp");
  dir_ = tmpl;
  std::random_device rd;
  // Characters that need percent-encoding in a URI, to prove they are handled.
  password_ = "pw:" + std::to_string(rd()) + "@x";
  { std::ofstream(dir_ + "/pwfile") << password_ << "\n"; }
  if (::geteuid() == 0) {
    const passwd* pw = ::getpwnam("postgres");
    if (pw == nullptr) throw std::runtime_error("running as root needs the 'postgres' user (package postgresql)");
    if (::chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0 || ::chown((dir_ + "/pwfile").c_str(), pw->pw_uid, pw->pw_gid) != 0)
      throw std::runtime_error("chown " + dir_);
  }
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                            fs::perms::others_exec);
  run_as_owner({bin_ + "/initdb", "-D", dir_ + "/data", "-U", "l30", "--pwfile=" + dir_ + "/pwfile", "--auth-local=scram-sha-256",
                "--auth-host=reject", "-E", "UTF8", "--locale=C", "--no-sync"});
  start();
}

PgCluster::~PgCluster() {
  try {
    stop();
  } catch (...) {}
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

PgCluster& PgCluster::shared() {
  static PgCluster* cluster = new PgCluster();
  static const bool registered = [] {
    std::atexit([] { delete cluster; });
    return true;
  }();
  (void)registered;
  return *cluster;
}

void PgCluster::run_as_owner(const std::vector<std::string>& args) const {
  std::vector<std::string> full;
  if (::geteuid() == 0) full = {"/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"};
  full.insert(full.end(), args.begin(), args.end());
  auto r = run_binary(full, {}, std::chrono::milliseconds(120000));
  if (r.exit_code != 0) throw std::runtime_error(args[0] + " failed: " + r.err + r.out);
}

void PgCluster::start() {
  run_as_owner({bin_ + "/pg_ctl", "-D", dir_ + "/data", "-l", dir_ + "/log", "-w", "-t", "60", "-o",
                "-k " + dir_ + " -h '' -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=60",
                "start"});
  running_ = true;
}

void PgCluster::stop() {
  if (!running_) return;
  running_ = false;
  run_as_owner({bin_ + "/pg_ctl", "-D", dir_ + "/data", "-m", "immediate", "-w", "stop"});
}

std::string PgCluster::percent_encode(const std::string& s) {
  std::string enc;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) enc += c;
    else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      enc += buf;
    }
  }
  return enc;
}

std::string PgCluster::url(const std::string& db) const {
  return "postgresql://l30:" + percent_encode(password_) + "@/" + db + "?host=" + dir_;
}

std::vector<std::vector<std::string>> PgCluster::query(const std::string& db, const std::string& sql) const {
  PGconn* c = PQconnectdb(url(db).c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    std::string msg = PQerrorMessage(c);
    PQfinish(c);
    throw std::runtime_error("connect: " + msg);
  }
  PGresult* r = PQexec(c, sql.c_str());
  std::vector<std::vector<std::string>> rows;
  const auto st = PQresultStatus(r);
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
    std::string msg = PQresultErrorMessage(r);
    PQclear(r);
    PQfinish(c);
    throw std::runtime_error("query: " + msg);
  }
  for (int i = 0; i < PQntuples(r); ++i) {
    std::vector<std::string> row;
    for (int j = 0; j < PQnfields(r); ++j) row.emplace_back(PQgetvalue(r, i, j));
    rows.push_back(std::move(row));
  }
  PQclear(r);
  PQfinish(c);
  return rows;
}

std::string PgCluster::fresh_database() {
  const std::string name = "t" + std::to_string(++next_db_);
  query("postgres", "CREATE DATABASE " + name);
  return name;
}

}  // namespace testing_support
