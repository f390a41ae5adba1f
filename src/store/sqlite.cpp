// The SQLite backend: one file, WAL, a busy handler bounded by the caller's deadline,
// FTS5 with BM25. The only file that includes sqlite3.h.
#include <sqlite3.h>

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <thread>
#include <unordered_map>
#include <vector>

#include "store/backend.hpp"
#include "store/schema.hpp"

namespace store {

namespace {

constexpr int kApplicationId = 0x4C333044;        // "L30D": marks a last30days store
constexpr std::int64_t kRankedCandidates = 1000;  // library search: matches ranked at most (the newest)
constexpr std::int64_t kWeightSample = 10000;     // library search: findings its word weights are counted in (the newest)

// FTS5's bm25() (fts5_aux.c, same k1, b, column weights, average length and sum), except
// that each phrase's IDF may come from the caller: l30_bm25(fts, <one weight per column>,
// <one IDF per phrase>), the search's rank function. bm25() counts every phrase's matches
// over the whole index before it scores the first row, which for a word in most of a large
// store cost more than the ranking itself. Without IDFs, or with a count that does not fit
// (a phrase FTS5 dropped, e.g. only punctuation), it counts each phrase as bm25() does.
struct Bm25Data {
  double avgdl = 0;
  std::vector<double> weights, idf, freq;
};

void sampled_bm25(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int nval, sqlite3_value** val) {
  constexpr double k1 = 1.2, b = 0.75;
  try {
    auto* d = static_cast<Bm25Data*>(api->xGetAuxdata(fts, 0));
    int rc = SQLITE_OK;
    if (!d) {
      auto fresh = std::make_unique<Bm25Data>();
      const int ncol = api->xColumnCount(fts), nphrase = api->xPhraseCount(fts);
      sqlite3_int64 rows = 0, tokens = 0;
      rc = api->xRowCount(fts, &rows);
      if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
      fresh->avgdl = static_cast<double>(tokens) / static_cast<double>(rows);
      for (int c = 0; c < ncol; ++c) fresh->weights.push_back(c < nval ? sqlite3_value_double(val[c]) : 1.0);
      for (int i = 0; rc == SQLITE_OK && i < nphrase; ++i) {
        if (nval == ncol + nphrase) {
          fresh->idf.push_back(sqlite3_value_double(val[ncol + i]));
          continue;
        }
        sqlite3_int64 hits = 0;
        rc = api->xQueryPhrase(fts, i, &hits, [](const Fts5ExtensionApi*, Fts5Context*, void* n) {
          ++*static_cast<sqlite3_int64*>(n);
          return SQLITE_OK;
        });
        double idf = std::log((static_cast<double>(rows - hits) + 0.5) / (static_cast<double>(hits) + 0.5));
        fresh->idf.push_back(idf <= 0.0 ? 1e-6 : idf);
      }
      fresh->freq.assign(fresh->idf.size(), 0.0);
      if (rc == SQLITE_OK) {
        d = fresh.release();
        rc = api->xSetAuxdata(fts, d, [](void* p) { delete static_cast<Bm25Data*>(p); });  // deletes d on failure
        if (rc != SQLITE_OK) d = nullptr;
      }
    }
    int ninst = 0;
    if (rc == SQLITE_OK) {
      std::fill(d->freq.begin(), d->freq.end(), 0.0);
      rc = api->xInstCount(fts, &ninst);
    }
    for (int i = 0; rc == SQLITE_OK && i < ninst; ++i) {
      int phrase = 0, col = 0, off = 0;
      rc = api->xInst(fts, i, &phrase, &col, &off);
      if (rc == SQLITE_OK) d->freq[static_cast<std::size_t>(phrase)] += d->weights[static_cast<std::size_t>(col)];
    }
    int ntok = 0;
    if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &ntok);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(ctx, rc);
      return;
    }
    const double len = static_cast<double>(ntok);
    double score = 0.0;
    for (std::size_t i = 0; i < d->idf.size(); ++i)
      score += d->idf[i] * ((d->freq[i] * (k1 + 1.0)) / (d->freq[i] + k1 * (1 - b + b * len / d->avgdl)));
    sqlite3_result_double(ctx, -1.0 * score);
  } catch (const std::bad_alloc&) {
    sqlite3_result_error_nomem(ctx);
  }
}

class SqliteBackend final : public Backend {
 public:
  SqliteBackend(const std::string& path, core::Deadline deadline) : path_(path), deadline_(deadline) {
    const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
      const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close_v2(db_);
      db_ = nullptr;
      throw Error(fmt::format("research store {}: cannot open: {}", path_, msg));
    }
    sqlite3_extended_result_codes(db_, 1);
    // Waiting for another writer is bounded by the deadline, not by a fixed timeout.
    sqlite3_busy_handler(db_, &SqliteBackend::on_busy, this);
    // A statement still running at the deadline is interrupted.
    sqlite3_progress_handler(db_, 10000, &SqliteBackend::on_progress, this);
    try {
      register_bm25();
      script("PRAGMA foreign_keys = ON");
      if (!sqlite3_db_readonly(db_, "main")) {
        const auto mode = query("PRAGMA journal_mode = WAL", {});
        (void)mode;
        script("PRAGMA synchronous = NORMAL");  // WAL + NORMAL: a killed process never corrupts
      }
    } catch (...) {
      sqlite3_close_v2(db_);
      db_ = nullptr;
      throw;
    }
  }

  ~SqliteBackend() override {
    for (auto& [sql, st] : cache_) sqlite3_finalize(st);
    if (db_) sqlite3_close_v2(db_);
  }

  void set_deadline(core::Deadline deadline) override { deadline_ = deadline; }

  std::vector<Row> query(std::string_view sql, const std::vector<Param>& params) override {
    sqlite3_stmt* st = prepare(sql);
    struct Reset {
      sqlite3_stmt* st;
      ~Reset() {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
      }
    } reset{st};
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int idx = static_cast<int>(i + 1);
      const Param& p = params[i];
      if (std::holds_alternative<std::nullptr_t>(p)) sqlite3_bind_null(st, idx);
      else if (const auto* n = std::get_if<std::int64_t>(&p)) sqlite3_bind_int64(st, idx, *n);
      else if (const auto* d = std::get_if<double>(&p)) sqlite3_bind_double(st, idx, *d);
      else {
        const auto& s = std::get<std::string>(p);
        sqlite3_bind_text(st, idx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      }
    }
    std::vector<Row> rows;
    for (;;) {
      const int rc = sqlite3_step(st);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) fail(rc, "query");
      Row row;
      const int n = sqlite3_column_count(st);
      row.reserve(static_cast<std::size_t>(n));
      for (int c = 0; c < n; ++c) {
        if (sqlite3_column_type(st, c) == SQLITE_NULL) {
          row.emplace_back(std::nullopt);
        } else {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
          row.emplace_back(std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(st, c))));
        }
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  void begin(bool write) override { script(write ? "BEGIN IMMEDIATE" : "BEGIN"); }
  void commit() override { script("COMMIT"); }
  void rollback() noexcept override {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

  int migrate(int target) override {
    check_application();
    int found = applied_version();
    if (found > latest_version()) throw Error(newer_store_message(found));
    if (found >= target) return found;
    begin(true);
    try {
      script("CREATE TABLE IF NOT EXISTS schema_migrations(version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
      found = applied_version();  // another process may have migrated meanwhile
      if (found > latest_version()) throw Error(newer_store_message(found));
      for (const auto& m : migrations()) {
        if (m.version <= found || m.version > target) continue;
        script(std::string(m.sqlite));
        query("INSERT INTO schema_migrations(version, applied_at) VALUES (?, strftime('%s','now'))", {std::int64_t{m.version}});
        found = m.version;
      }
      script(fmt::format("PRAGMA application_id = {}", kApplicationId));
      commit();
    } catch (...) {
      rollback();
      throw;
    }
    return found;
  }

  std::string_view skip_locked() const override { return ""; }
  bool chains_inserts() const override { return false; }

  std::vector<std::pair<std::int64_t, model::LibraryHit>> search(const std::vector<std::string>& words, int limit) override {
    // Each word becomes one FTS5 string: operators, parentheses and quotes in the user's
    // text never reach the query syntax.
    std::string match;
    std::vector<std::string> phrases;
    for (const auto& w : words) {
      std::string quoted = "\"";
      for (char c : w) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      phrases.push_back(quoted + "\"");
      match += (match.empty() ? "" : " ") + phrases.back();
    }
    std::vector<std::pair<std::int64_t, model::LibraryHit>> out;
    if (match.empty()) return out;
    // FTS5 scores every match before it can return the best, so a word in most findings
    // costs a scan of most of the store. The candidates are bounded: when more than
    // kRankedCandidates findings match, only the kRankedCandidates most recently stored
    // (highest ids) are ranked. Finding them walks the index newest first and stops there.
    const auto floor = query("SELECT rowid FROM findings_fts WHERE findings_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                             {match, std::int64_t{kRankedCandidates - 1}});
    const std::int64_t lowest = floor.empty() ? 0 : std::stoll(floor[0][0].value_or("0"));
    // BM25 as FTS5 ranks, its word weights (IDF) counted in the kWeightSample highest ids
    // instead of the whole store: bm25() counted each word's matches in all of it first,
    // which for a common word cost more than the ranking. An id in the sample that was
    // forgotten counts as a finding without the word. In a smaller store no counts are
    // passed and l30_bm25 counts as bm25() does.
    std::string idfs;
    const auto top = query("SELECT COALESCE(max(id), 0) FROM findings", {});
    const std::int64_t sample_from = std::stoll(top.at(0)[0].value_or("0")) - kWeightSample + 1;
    if (sample_from > 1) {
      constexpr double rows = static_cast<double>(kWeightSample);
      for (const auto& phrase : phrases) {
        // Past half the sample the IDF is at its floor: counting stops there.
        const auto n =
            query("SELECT count(*) FROM (SELECT 1 FROM findings_fts WHERE findings_fts MATCH ? AND rowid >= ? LIMIT ?)",
                  {phrase, sample_from, std::int64_t{kWeightSample / 2 + 1}});
        const double hits = std::stod(n.at(0)[0].value_or("0"));
        const double idf = std::log((rows - hits + 0.5) / (hits + 0.5));  // bm25()'s formula and floor
        idfs += fmt::format(", {:.17f}", idf <= 0.0 ? 1e-6 : idf);        // FTS5 reads no exponent here
      }
    }
    // As FTS5's rank function: FTS5 sorts by it and makes snippets for the rows returned only.
    const auto findings = query(
        "SELECT f.id, f.title, f.url, f.source, f.first_seen, f.last_seen, f.sightings, -m.rank, m.snip, f.published_at, "
        "f.max_engagement "
        "FROM (SELECT rowid, rank, snippet(findings_fts, 1, '', '', '…', 24) AS snip FROM findings_fts "
        "      WHERE findings_fts MATCH ? AND rank MATCH ? AND rowid >= ? ORDER BY rank LIMIT ?) m "
        "JOIN findings f ON f.id = m.rowid ORDER BY m.rank",
        {match, fmt::format("l30_bm25(10.0, 3.0, 1.0{})", idfs), lowest, std::int64_t{limit}});
    for (const auto& r : findings) out.push_back(finding_hit(r));
    if (has_table("briefs")) {
      const auto briefs = query(
          "SELECT b.path, b.title, b.topic, b.mtime, -m.rank, m.snip "
          "FROM (SELECT rowid, rank, snippet(briefs_fts, 1, '', '', '…', 24) AS snip FROM briefs_fts "
          "      WHERE briefs_fts MATCH ? ORDER BY rank LIMIT ?) m "
          "JOIN briefs b ON b.id = m.rowid ORDER BY m.rank",
          {match, std::int64_t{limit}});
      for (const auto& r : briefs) out.push_back(brief_hit(r));
    }
    return out;
  }

 private:
  static int on_busy(void* self, int attempt) {
    auto* me = static_cast<SqliteBackend*>(self);
    if (me->deadline_.expired()) return 0;
    const auto wait = core::Millis(std::min(2 + attempt * 2, 25));
    std::this_thread::sleep_for(std::min(wait, me->deadline_.remaining()));
    return me->deadline_.expired() ? 0 : 1;
  }
  static int on_progress(void* self) { return static_cast<SqliteBackend*>(self)->deadline_.expired() ? 1 : 0; }

  void register_bm25() {
    fts5_api* api = nullptr;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, "SELECT fts5(?1)", -1, &st, nullptr) == SQLITE_OK) {
      sqlite3_bind_pointer(st, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
      sqlite3_step(st);
    }
    sqlite3_finalize(st);
    if (!api || api->xCreateFunction(api, "l30_bm25", nullptr, &sampled_bm25, nullptr) != SQLITE_OK)
      throw Error(fmt::format("research store {}: this SQLite has no full-text search (FTS5)", path_));
  }

  sqlite3_stmt* prepare(std::string_view sql) {
    std::string key(sql);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    sqlite3_stmt* st = nullptr;
    const int rc = sqlite3_prepare_v3(db_, key.c_str(), static_cast<int>(key.size()), SQLITE_PREPARE_PERSISTENT, &st, nullptr);
    if (rc != SQLITE_OK) fail(rc, "prepare");
    cache_.emplace(std::move(key), st);
    return st;
  }

  void script(const std::string& sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    if (err) sqlite3_free(err);
    if (rc != SQLITE_OK) fail(rc, "statement");
  }

  bool has_table(std::string_view name) {
    return !query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", {std::string(name)}).empty();
  }

  int applied_version() {
    if (!has_table("schema_migrations")) return 0;
    const auto rows = query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", {});
    return rows.empty() ? 0 : std::stoi(rows[0][0].value_or("0"));
  }

  // Refuses to add tables to someone else's database.
  void check_application() {
    const auto id = query("PRAGMA application_id", {});
    const long long app = id.empty() ? 0 : std::stoll(id[0][0].value_or("0"));
    if (app == kApplicationId) return;
    const auto tables = query("SELECT count(*) FROM sqlite_master WHERE name <> 'schema_migrations'", {});
    if (app != 0 || (!tables.empty() && tables[0][0].value_or("0") != "0"))
      throw Error(fmt::format("research store {}: this SQLite file is not a last30days store; refusing to change it", path_));
  }

  [[noreturn]] void fail(int rc, std::string_view what) {
    const int primary = rc & 0xff;
    std::string msg = sqlite3_errmsg(db_);
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
      msg = "the store is locked by another process and stayed busy until the deadline";
    else if (primary == SQLITE_INTERRUPT) msg = "the store did not answer before the deadline";
    else if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT)
      msg += " (the file is damaged or not a SQLite database: move it aside to start a new store)";
    else if (primary == SQLITE_READONLY) msg += " (the store is read-only: check the file's and its directory's permissions)";
    else if (primary == SQLITE_FULL) msg += " (the disk is full)";
    (void)what;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_INTERRUPT)
      throw Unanswered(fmt::format("research store {}: {}", path_, msg));
    throw Error(fmt::format("research store {}: {}", path_, msg));
  }

  std::string path_;
  core::Deadline deadline_;
  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
};

}  // namespace

std::unique_ptr<Backend> open_sqlite(const std::string& path, core::Deadline deadline) {
  return std::make_unique<SqliteBackend>(path, deadline);
}

}  // namespace store
