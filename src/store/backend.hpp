#pragma once
// What the store needs from a database: statements with parameters, transactions, the
// schema, and full-text search (the one place the dialects differ in kind). The rules
// (what a run writes, what "seen" means, claims) live once, in store.cpp.
// Statements are written with '?' placeholders; the PostgreSQL backend numbers them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/deadline.hpp"
#include "model/memory.hpp"
#include "store/store.hpp"

namespace store {

// A deadlock or serialization failure (PostgreSQL 40P01 / 40001): the transaction was
// rolled back and may be tried again.
class Retry : public Error {
 public:
  using Error::Error;
};

using Param = std::variant<std::nullptr_t, std::int64_t, double, std::string>;
using Row = std::vector<std::optional<std::string>>;  // every value as text; NULL = nullopt

class Backend {
 public:
  virtual ~Backend() = default;
  virtual void set_deadline(core::Deadline deadline) = 0;
  virtual std::vector<Row> query(std::string_view sql, const std::vector<Param>& params) = 0;
  // write: take the write lock up front (SQLite BEGIN IMMEDIATE), so two writers queue
  // instead of failing on upgrade.
  virtual void begin(bool write) = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // Applies missing migrations (up to target) safely against concurrent openers;
  // returns the version now in force. Throws when the store is newer than this build.
  virtual int migrate(int target) = 0;
  // " FOR UPDATE SKIP LOCKED" where row locks exist; SQLite's write lock covers it.
  virtual std::string_view skip_locked() const = 0;
  // Whether an INSERT ... RETURNING can feed another INSERT in one statement (WITH).
  virtual bool chains_inserts() const = 0;
  // Full-text search over findings and briefs; words are plain tokens, already safe.
  // Best first, at most limit of each kind; topics left empty.
  // A finding comes with its id (the store adds its topics); a brief with id 0.
  virtual std::vector<std::pair<std::int64_t, model::LibraryHit>> search(const std::vector<std::string>& words, int limit) = 0;
};

// Library rows, the same columns from both backends:
// finding: id, title, url, source, first_seen, last_seen, sightings, score, snippet, published_at, max_engagement
// brief:   path, title, topic, mtime, score, snippet
std::pair<std::int64_t, model::LibraryHit> finding_hit(const Row& r);
std::pair<std::int64_t, model::LibraryHit> brief_hit(const Row& r);

struct PostgresUrl {
  std::string user, password, host, port, dbname;
  std::string display;  // the URI with the password replaced by ****
};
// Parses a libpq URI; nullopt with *error (which never quotes the URI) when malformed.
std::optional<PostgresUrl> parse_postgres_url(const std::string& url, std::string* error);

std::unique_ptr<Backend> open_sqlite(const std::string& path, core::Deadline deadline);
std::unique_ptr<Backend> open_postgres(const std::string& url, core::Deadline deadline);

// Shared by both backends' migrate(): the newest version this build knows, and the
// refusal message for a store made by a newer build.
int latest_version();
std::string newer_store_message(int found);

}  // namespace store
