// The PostgreSQL backend: libpq in non-blocking mode, every wait bounded by the caller's
// deadline (a silent server ends in an error, never a hang), tables in the schema
// "last30days", schema creation under an advisory lock, tsvector full-text search.
// The only file that includes libpq-fe.h.
#include <libpq-fe.h>
#include <poll.h>

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <unordered_map>

#include "core/log.hpp"
#include "core/text.hpp"
#include "store/backend.hpp"
#include "store/schema.hpp"

namespace store {

namespace {

constexpr long long kSchemaLock = 0x4C333044;  // advisory lock key: "L30D"

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

class PgBackend final : public Backend {
 public:
  PgBackend(const std::string& url, std::string display, core::Deadline deadline)
      : display_(std::move(display)), deadline_(deadline) {
    const char* keys[] = {"dbname", "application_name", nullptr};
    const char* values[] = {url.c_str(), "last30days", nullptr};
    conn_ = PQconnectStartParams(keys, values, 1);
    if (conn_ == nullptr) throw Error(fmt::format("research store {}: out of memory", display_));
    // libpq prints server notices to stderr as they come; they are the store's warnings,
    // said in the product's words (and through the log's redactor).
    PQsetNoticeProcessor(conn_, &PgBackend::on_notice, this);
    if (PQstatus(conn_) == CONNECTION_BAD) fail_connection("cannot connect");
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    while (st != PGRES_POLLING_OK) {
      if (st == PGRES_POLLING_FAILED) fail_connection("cannot connect");
      wait(st == PGRES_POLLING_READING ? POLLIN : POLLOUT, "connecting");
      st = PQconnectPoll(conn_);
    }
    if (PQsetnonblocking(conn_, 1) != 0) fail_connection("cannot switch to non-blocking mode");
    run("SET search_path TO last30days", {}, true);
    run("SET client_min_messages TO warning", {}, true);
  }

  ~PgBackend() override {
    if (conn_) PQfinish(conn_);
  }

  void set_deadline(core::Deadline deadline) override { deadline_ = deadline; }

  std::vector<Row> query(std::string_view sql, const std::vector<Param>& params) override {
    // Writes repeat in a few shapes (a run's findings, its sightings): each is parsed and
    // planned once per connection. A search's plan depends on its words: planned each time.
    const bool write = sql.starts_with("INSERT ") || sql.starts_with("UPDATE ") || sql.starts_with("WITH up AS (INSERT ");
    return rows(run(number_placeholders(sql), params, false, write));
  }

  void begin(bool) override { run("BEGIN", {}, true); }
  void commit() override { run("COMMIT", {}, true); }
  void rollback() noexcept override {
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK || PQtransactionStatus(conn_) == PQTRANS_IDLE) return;
    try {
      const auto saved = deadline_;
      deadline_ = deadline_.earliest(core::Deadline::in(core::Millis(2000)));
      run("ROLLBACK", {}, true);
      deadline_ = saved;
    } catch (...) {
      PQfinish(conn_);  // a connection we cannot roll back is not reused
      conn_ = nullptr;
    }
  }

  int migrate(int target) override {
    int found = current_version();
    if (found > latest_version()) throw Error(newer_store_message(found));
    if (found >= target) return found;
    begin(true);
    try {
      // Several processes may start at once on an empty database: one migrates, the
      // others wait here and then find the work done.
      run(fmt::format("SELECT pg_advisory_xact_lock({})", kSchemaLock), {}, true);
      run("CREATE SCHEMA IF NOT EXISTS last30days", {}, true);
      run("CREATE TABLE IF NOT EXISTS schema_migrations(version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)", {}, true);
      found = static_cast<int>(
          std::stoll(rows(run("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", {}, false)).at(0).at(0).value_or("0")));
      if (found > latest_version()) throw Error(newer_store_message(found));
      for (const auto& m : migrations()) {
        if (m.version <= found || m.version > target) continue;
        run(std::string(m.postgres), {}, true);
        run("INSERT INTO schema_migrations(version, applied_at) VALUES ($1, extract(epoch from now())::bigint)",
            {std::int64_t{m.version}}, false);
        found = m.version;
      }
      commit();
    } catch (...) {
      rollback();
      throw;
    }
    return found;
  }

  std::string_view skip_locked() const override { return " FOR UPDATE SKIP LOCKED"; }
  bool chains_inserts() const override { return true; }

  std::vector<std::pair<std::int64_t, model::LibraryHit>> search(const std::vector<std::string>& words, int limit) override {
    // plainto_tsquery reads plain text: no operator in the user's words is interpreted.
    std::string text;
    for (const auto& w : words) text += (text.empty() ? "" : " ") + w;
    std::vector<std::pair<std::int64_t, model::LibraryHit>> out;
    const auto findings = query(
        "SELECT m.id, m.title, m.url, m.source, m.first_seen, m.last_seen, m.sightings, m.score, "
        "ts_headline('english', m.snippet, m.q, 'MaxWords=24, MinWords=8, StartSel=\"\", StopSel=\"\"'), m.published_at, "
        "m.max_engagement FROM ("
        "SELECT f.id, f.title, f.url, f.source, f.first_seen, f.last_seen, f.sightings, f.snippet, f.published_at, "
        "f.max_engagement, q, "
        "ts_rank_cd(f.tsv, q) AS score "
        "FROM findings f, plainto_tsquery('english', ?) q WHERE f.tsv @@ q ORDER BY score DESC, f.id LIMIT ?) m ORDER BY m.score "
        "DESC, m.id",
        {text, std::int64_t{limit}});
    for (const auto& r : findings) out.push_back(finding_hit(r));
    const auto briefs = query(
        "SELECT b.path, b.title, b.topic, b.mtime, ts_rank_cd(b.tsv, q) AS score, "
        "ts_headline('english', left(b.body, 20000), q, 'MaxWords=24, MinWords=8, StartSel=\"\", StopSel=\"\"') "
        "FROM briefs b, plainto_tsquery('english', ?) q WHERE b.tsv @@ q ORDER BY score DESC, b.id LIMIT ?",
        {text, std::int64_t{limit}});
    for (const auto& r : briefs) out.push_back(brief_hit(r));
    return out;
  }

 private:
  static std::string number_placeholders(std::string_view sql) {
    std::string out;
    out.reserve(sql.size() + 16);
    int n = 0;
    bool quoted = false;
    for (char c : sql) {
      if (c == '\'') quoted = !quoted;
      if (c == '?' && !quoted) out += "$" + std::to_string(++n);
      else out += c;
    }
    return out;
  }

  // Waits until the socket is ready for `events` or the deadline passes.
  void wait(short events, std::string_view doing) {
    const int fd = PQsocket(conn_);
    if (fd < 0) fail_connection("lost the connection");
    for (;;) {
      if (deadline_.expired()) timed_out(doing);
      pollfd p{fd, events, 0};
      const auto left = deadline_.remaining().count();
      const int rc = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
      if (rc > 0) return;
      if (rc < 0 && errno != EINTR) fail_connection("poll failed");
    }
  }

  static void on_notice(void* self, const char* message) {
    std::string text = message ? message : "";
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    core::log::warn("research store {}: {}", static_cast<PgBackend*>(self)->display_, core::printable_line(text));
  }

  [[noreturn]] void timed_out(std::string_view doing) {
    // No PQcancel: it blocks on a server that does not answer. Closing is enough.
    PQfinish(conn_);
    conn_ = nullptr;
    throw Unanswered(fmt::format("research store {}: the server did not answer before the deadline ({})", display_, doing));
  }

  [[noreturn]] void fail_connection(std::string_view what) {
    std::string msg = conn_ ? PQerrorMessage(conn_) : "";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    for (auto& c : msg)
      if (c == '\n') c = ' ';
    if (conn_) PQfinish(conn_);
    conn_ = nullptr;
    throw Error(fmt::format("research store {}: {}{}{}", display_, what, msg.empty() ? "" : ": ", msg));
  }

  // The name of the server-side prepared statement for `sql`, preparing it on first use;
  // nullptr when this connection already holds kMaxPrepared of them.
  const std::string* prepared(const std::string& sql, int nparams) {
    if (const auto it = prepared_.find(sql); it != prepared_.end()) return &it->second;
    if (prepared_.size() >= kMaxPrepared) return nullptr;
    std::string name = fmt::format("l30_{}", prepared_.size());
    if (!PQsendPrepare(conn_, name.c_str(), sql.c_str(), nparams, nullptr)) fail_connection("cannot send a query");
    finish();
    return &prepared_.emplace(sql, std::move(name)).first->second;
  }

  Result run(const std::string& sql, const std::vector<Param>& params, bool simple, bool prepare = false) {
    if (!conn_) throw Error(fmt::format("research store {}: the connection was closed after an earlier failure", display_));
    if (PQstatus(conn_) != CONNECTION_OK) fail_connection("the server went away");
    int sent = 0;
    if (simple) {
      sent = PQsendQuery(conn_, sql.c_str());  // several statements allowed (migrations)
    } else {
      std::vector<std::string> text(params.size());
      std::vector<const char*> values(params.size());
      for (std::size_t i = 0; i < params.size(); ++i) {
        const Param& p = params[i];
        if (std::holds_alternative<std::nullptr_t>(p)) {
          values[i] = nullptr;
          continue;
        }
        if (const auto* n = std::get_if<std::int64_t>(&p)) text[i] = std::to_string(*n);
        else if (const auto* d = std::get_if<double>(&p)) text[i] = fmt::format("{:.17g}", *d);
        else text[i] = std::get<std::string>(p);
        values[i] = text[i].c_str();
      }
      const int n = static_cast<int>(params.size());
      if (const std::string* name = prepare ? prepared(sql, n) : nullptr)
        sent = PQsendQueryPrepared(conn_, name->c_str(), n, values.data(), nullptr, nullptr, 0);
      else sent = PQsendQueryParams(conn_, sql.c_str(), n, nullptr, values.data(), nullptr, nullptr, 0);
    }
    if (!sent) fail_connection("cannot send a query");
    return finish();
  }

  // Sends what is queued and collects the answer: the last result, or the first error thrown.
  Result finish() {
    for (;;) {
      const int f = PQflush(conn_);
      if (f == 0) break;
      if (f < 0) fail_connection("cannot send a query");
      wait(POLLIN | POLLOUT, "sending");
      if (!PQconsumeInput(conn_)) fail_connection("the server went away");
    }
    Result last, error;
    for (;;) {
      while (PQisBusy(conn_)) {
        wait(POLLIN, "waiting for an answer");
        if (!PQconsumeInput(conn_)) fail_connection("the server went away");
      }
      Result r(PQgetResult(conn_));
      if (!r) break;
      const auto st = PQresultStatus(r.get());
      if (st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR) {
        if (!error) error = std::move(r);
      } else {
        last = std::move(r);
      }
    }
    if (error) {
      const char* state = PQresultErrorField(error.get(), PG_DIAG_SQLSTATE);
      std::string msg = PQresultErrorMessage(error.get());
      while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
      if (state && (std::strcmp(state, "40P01") == 0 || std::strcmp(state, "40001") == 0))
        throw Retry(fmt::format("research store {}: {}", display_, msg));
      if (PQstatus(conn_) != CONNECTION_OK) fail_connection("the server went away");
      throw Error(fmt::format("research store {}: {}", display_, msg));
    }
    if (PQstatus(conn_) != CONNECTION_OK) fail_connection("the server went away");
    return last;
  }

  static std::vector<Row> rows(const Result& r) {
    std::vector<Row> out;
    if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK) return out;
    const int n = PQntuples(r.get()), m = PQnfields(r.get());
    out.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      Row row;
      row.reserve(static_cast<std::size_t>(m));
      for (int j = 0; j < m; ++j)
        row.emplace_back(PQgetisnull(r.get(), i, j)
                             ? std::nullopt
                             : std::optional<std::string>(
                                   std::string(PQgetvalue(r.get(), i, j), static_cast<std::size_t>(PQgetlength(r.get(), i, j)))));
      out.push_back(std::move(row));
    }
    return out;
  }

  int current_version() {
    const auto exists = rows(run("SELECT to_regclass('last30days.schema_migrations') IS NOT NULL", {}, false));
    if (exists.empty() || exists[0][0].value_or("f") != "t") return 0;
    const auto v = rows(run("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", {}, false));
    return v.empty() ? 0 : static_cast<int>(std::stoll(v[0][0].value_or("0")));
  }

  static constexpr std::size_t kMaxPrepared = 64;
  std::string display_;
  core::Deadline deadline_;
  PGconn* conn_ = nullptr;
  std::unordered_map<std::string, std::string> prepared_;  // SQL -> statement name, on this connection
};

}  // namespace

std::optional<PostgresUrl> parse_postgres_url(const std::string& url, std::string* error) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(url.c_str(), &err);
  if (opts == nullptr) {
    std::string msg = err ? err : "cannot parse it";
    if (err) PQfreemem(err);
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    // libpq quotes the offending part, which may hold the password: say only what it is.
    *error = "LAST30DAYS_STORE_URL is not a valid PostgreSQL URI";
    (void)msg;
    return std::nullopt;
  }
  PostgresUrl out;
  for (auto* o = opts; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    const std::string_view k = o->keyword;
    if (k == "password") out.password = o->val;
    else if (k == "user") out.user = o->val;
    else if (k == "host") out.host = o->val;
    else if (k == "port") out.port = o->val;
    else if (k == "dbname") out.dbname = o->val;
  }
  PQconninfoFree(opts);
  const bool socket = !out.host.empty() && out.host.front() == '/';
  std::string auth = out.user;
  if (!out.password.empty()) auth += ":****";
  if (!auth.empty()) auth += "@";
  out.display = fmt::format("postgresql://{}{}{}/{}{}", auth, socket || out.host.empty() ? "" : out.host,
                            out.port.empty() ? "" : ":" + out.port, out.dbname, socket ? "?host=" + out.host : "");
  return out;
}

std::unique_ptr<Backend> open_postgres(const std::string& url, core::Deadline deadline) {
  std::string error;
  const auto parsed = parse_postgres_url(url, &error);
  if (!parsed) throw Error(error);
  return std::make_unique<PgBackend>(url, parsed->display, deadline);
}

}  // namespace store
