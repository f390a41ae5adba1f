#pragma once
// A real, throw-away PostgreSQL server for the store tests: initdb in a temp dir, Unix
// socket only (no TCP), password authentication, run as `postgres` when the tests run as
// root. One per test binary (shared()); stopped at exit.
#include <string>
#include <vector>

namespace testing_support {

class PgCluster {
 public:
  PgCluster();
  ~PgCluster();
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  static PgCluster& shared();
  static std::string percent_encode(const std::string& s);

  const std::string& password() const { return password_; }
  const std::string& socket_dir() const { return dir_; }
  // postgresql://l30:PASSWORD@/DB?host=SOCKET_DIR
  std::string url(const std::string& db = "postgres") const;
  // A fresh, empty database for one test.
  std::string fresh_database();
  // Runs SQL (as the superuser); returns the rows of the last statement, values as text.
  std::vector<std::vector<std::string>> query(const std::string& db, const std::string& sql) const;

  void stop();  // immediate shutdown
  void start();

 private:
  void run_as_owner(const std::vector<std::string>& args) const;
  std::string dir_, bin_, password_;
  int next_db_ = 0;
  bool running_ = false;
};

}  // namespace testing_support
