#pragma once
// The research store (spec §7): topics, runs, findings (unique by canonical URL),
// sightings (finding x run), saved briefs, full-text search and the watchlist.
// SQLite by default, PostgreSQL with LAST30DAYS_STORE_URL; one interface, the same
// schema and migrations (store/schema.cpp). sqlite3.h and libpq-fe.h stay inside their
// backend .cpp files.
//
// A Store is a capability like persist::Writer: opening one takes the Writer, which only
// the top-level command holds, so research runs and discovery sub-runs cannot open one
// (spec §6.4). It cannot be copied or moved.
//
// Threading: a Store is used by one thread at a time (callers serialise).
// Errors: every failure throws store::Error with a message fit for the user (never a
// password); a failed write leaves nothing behind (one transaction per call).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.hpp"
#include "core/deadline.hpp"
#include "model/discovery.hpp"
#include "model/memory.hpp"
#include "model/report.hpp"
#include "persist/writer.hpp"

namespace store {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// The store did not answer within the time it was given (a frozen server, a lock held
// elsewhere): nothing is wrong with its contents, so a research run goes on without it.
class Unanswered : public Error {
 public:
  using Error::Error;
};
// A stored value that is not what its column holds (a damaged row).
class Damaged : public Error {
 public:
  using Error::Error;
};
// A watch claim expired and another process took the topic: this run is not recorded.
class LeaseLost : public Error {
 public:
  using Error::Error;
};

struct Location {
  enum class Kind { sqlite, postgres };
  Kind kind = Kind::sqlite;
  std::string target;   // the file path or the libpq URI (holds the password: never print it)
  std::string display;  // printable: the path, or the URI without its password
};
// LAST30DAYS_STORE_URL (postgresql:// or postgres://) wins over LAST30DAYS_STORE_PATH,
// then $XDG_DATA_HOME/last30days/research.db. A URL's password is registered as a secret.
// nullopt with *error for a malformed setting (a usage error).
std::optional<Location> locate(const core::Config& config, std::string* error);

// Case-folded, whitespace collapsed, control characters as spaces: how topics are
// matched. Discovery runs live in their own namespace (a key starting with \x01, which
// no research key can), so a research topic "Discover: Global" has its own history.
std::string topic_key(std::string_view topic);
std::string topic_key(std::string_view topic, std::string_view kind);
// This machine in a shared store: LAST30DAYS_MACHINE_ID, /etc/machine-id, else the host name.
std::string machine_identity(const core::Config& config);
// A finding's identity: the canonical URL dedupe uses (secrets scrubbed first).
std::string finding_key(std::string_view url);

struct FindingInput {
  std::string url;  // as cited; keyed by core::canonical_url
  std::string title;
  std::string source;
  std::string snippet;
  double engagement = 0;  // raw: the sum of the source's engagement fields
  std::optional<core::UnixSeconds> published_at;
};

struct RunInput {
  std::string topic;
  std::string kind = "research";  // "research" | "discovery"
  model::Window window;
  model::Depth depth = model::Depth::standard;
  core::UnixSeconds started_at = 0;
  core::UnixSeconds finished_at = 0;
  std::map<std::string, model::SourceStatus> source_status;
  std::vector<FindingInput> findings;
};
// What a finished report contributes: each item (and each folded cross-post with its
// own canonical URL) once.
RunInput run_input(const model::Report& report, core::UnixSeconds started_at, core::UnixSeconds finished_at);
RunInput run_input(const model::DiscoveryReport& report, core::UnixSeconds started_at, core::UnixSeconds finished_at);

// A watch run's bookkeeping, committed with its run.
struct WatchCommit {
  std::string claimant;
  // When the run has news: its digest (one `watch` run object as JSON) is queued for
  // each of these channels in the same transaction, until delivered.
  std::vector<std::string> notify_channels;
  std::string run_json;
};

struct PendingDigest {
  std::int64_t id = 0;
  std::string run_json;
};

// What the store knows about a topic before a run.
struct Prior {
  std::int64_t first_run_id = 0;  // the topic's earliest run that saw it
  double max_engagement = 0;      // the highest engagement stored for it in this topic
};
struct TopicMemory {
  model::History history;
  std::vector<std::int64_t> run_ids;   // the topic's runs, oldest first
  std::map<std::string, Prior> seen;   // finding_key -> prior sightings in this topic
  int runs_ago(const Prior& p) const;  // runs of this topic since it was first seen
};

struct OpenOptions {
  int schema_version = 0;  // 0 = the latest; tests build older stores with a lower one
};

class Backend;

class Store {
 public:
  // Opens (creating the file or schema when needed) and migrates. Every call, this one
  // included, is bounded by `deadline`: a busy file or a silent server ends in an Error.
  static std::unique_ptr<Store> open(const Location& where, const persist::Writer& writer, core::Deadline deadline,
                                     OpenOptions options = {});
  ~Store();
  Store(const Store&) = delete;
  Store(Store&&) = delete;
  Store& operator=(const Store&) = delete;
  Store& operator=(Store&&) = delete;

  void set_deadline(core::Deadline deadline);
  const Location& location() const { return where_; }
  int schema_version() const;
  static int latest_schema_version();

  TopicMemory memory(std::string_view topic, const std::vector<std::string>& url_keys);
  // Marks report.history and each item's seen_before from what was stored before.
  void annotate(model::Report& report);
  // Records runs in one transaction (a comparison records each entity's run together).
  // With `watch`, the topic's watch bookkeeping commits with it, or LeaseLost.
  std::vector<std::int64_t> record(const std::vector<RunInput>& runs, const WatchCommit* watch = nullptr);
  // One report, for callers that store per entity (comparisons).
  std::int64_t record_report(const model::Report& report, core::UnixSeconds started_at, core::UnixSeconds finished_at);

  // Full-text search over findings and saved briefs; the user's words are quoted, never
  // FTS syntax. Best first.
  model::LibraryResult search(std::string_view query, int limit);
  // Indexes the saved briefs (*-raw.md) in dir incrementally: unchanged files (mtime and
  // size) are not read, changed ones are re-hashed, removed ones leave the index.
  struct SyncStats {
    int scanned = 0, indexed = 0, removed = 0;
  };
  // `origin` names this machine (machine_identity): on a shared store each machine keeps
  // its own briefs, so one machine's sync never removes another's.
  SyncStats sync_briefs(const std::filesystem::path& dir, core::UnixSeconds now, const std::string& origin = "");

  // library list / forget. forget: false for an unknown topic; removes its runs, their
  // sightings, the findings no other topic holds, its watch entry and pending digests.
  std::vector<model::TopicSummary> topics();
  bool forget(std::string_view topic);

  // Notifications: digests waiting for a channel (oldest first); after an attempt,
  // `delivered` leave the queue and the channel's last outcome is logged.
  std::vector<PendingDigest> notify_pending(std::string_view channel);
  void notify_done(std::string_view channel, const std::vector<std::int64_t>& delivered, core::UnixSeconds at, bool ok,
                   std::string_view detail);
  std::vector<model::DeliveryLog> notify_log();

  // Daily request budgets (day = YYYY-MM-DD, UTC): what a source spent, and adding to it.
  long budget_spent(std::string_view source, std::string_view day);
  void budget_add(std::string_view source, std::string_view day, long requests);
  std::map<std::string, long> budget_day(std::string_view day);
  // The budgets kept in the store (`watch budget`): requests a UTC day, by source id. set:
  // nullopt removes the source's budget; true when the source had one before.
  std::map<std::string, long> budget_limits();
  bool budget_set(std::string_view source, std::optional<long> requests, core::UnixSeconds now);

  // The watchlist. add: true when new, false when an existing topic was updated.
  bool watch_add(const model::WatchEntry& entry, core::UnixSeconds now);
  bool watch_remove(std::string_view topic);
  std::vector<model::WatchEntry> watch_list();
  // Claims one due topic (or, with all, one not run after `since`) for `claimant` until
  // now + lease; nullopt when none is left. Each topic is claimed by exactly one
  // claimant; an expired claim is reclaimed.
  std::optional<model::WatchEntry> watch_claim(const std::string& claimant, core::UnixSeconds now, long lease_seconds, bool all,
                                               core::UnixSeconds since);
  void watch_release(const std::string& claimant, std::string_view topic);

 private:
  Store(Location where, std::unique_ptr<Backend> backend);
  Location where_;
  std::unique_ptr<Backend> backend_;
};

}  // namespace store
