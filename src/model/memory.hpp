#pragma once
// What the memory commands print (spec §7): library hits, the watchlist and a watch run.
// Renderers read these; the store fills them.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/time.hpp"
#include "model/item.hpp"
#include "model/source_state.hpp"
#include "model/synthesis.hpp"

namespace model {

struct LibraryHit {
  std::string kind;  // "finding" | "brief"
  std::string title;
  std::string url;     // a finding's URL, or file:// of a saved brief
  std::string source;  // source id, or "brief"
  core::UnixSeconds first_seen = 0;
  core::UnixSeconds last_seen = 0;
  int sightings = 0;
  double score = 0;  // higher is better (BM25 on SQLite, ts_rank_cd on PostgreSQL)
  std::string snippet;
  std::vector<std::string> topics;
  std::optional<core::UnixSeconds> published_at;  // a finding's date upstream
  double engagement = 0;                          // a finding's highest stored engagement
  std::string location;                           // a saved brief's file on this machine
};

struct LibraryResult {
  std::string query;
  std::vector<LibraryHit> results;
};

struct WatchEntry {
  std::string topic;  // as first typed
  int days = 30;
  double every_hours = 24;
  std::vector<std::string> sources;  // empty = all available
  std::optional<core::UnixSeconds> last_run_at;
  core::UnixSeconds next_due_at = 0;
  // Channels for this topic's news: nullopt = every configured channel, {} = none.
  std::optional<std::vector<std::string>> notify;
  // A claim by a running (or killed) `watch run`: whose, and until when it holds.
  std::optional<std::string> claimed_by;
  std::optional<core::UnixSeconds> claimed_until;
};

// The last delivery of watch news to one notification channel.
struct DeliveryLog {
  std::string channel;
  core::UnixSeconds at = 0;
  bool ok = false;
  std::string detail;
  int pending = 0;  // topic digests still waiting for this channel
};

// A configured channel as `watch list` shows it: its masked URL and its last delivery.
struct ChannelStatus {
  std::string channel;
  std::string masked_url;
  std::optional<DeliveryLog> last;
};

// One source's daily request budget (LAST30DAYS_BUDGET_<SOURCE> and/or `watch budget`) and
// what it spent today (UTC), for doctor and watch list.
struct BudgetStatus {
  std::string source;
  std::optional<long> env_limit;    // LAST30DAYS_BUDGET_<SOURCE>
  std::optional<long> store_limit;  // watch budget SOURCE N
  long limit = 0;                   // the one in force: the stricter
  bool by_store = false;            // the store's is the one in force
  long spent = 0;                   // today, UTC
  std::string cost;                 // what one request costs upstream ("" = nothing to say)
};

// A stored topic (library list).
struct TopicSummary {
  std::string topic;
  std::string kind;  // "research" | "discovery"
  int runs = 0;
  std::optional<core::UnixSeconds> last_run_at;
};

struct WatchRun {
  std::string topic;
  std::optional<core::UnixSeconds> previous_run_at;
  std::vector<Item> fresh;                            // "new": never seen in an earlier run of this topic
  std::vector<Item> surging;                          // engagement at least doubled (and grew by >= 10)
  std::map<std::string, double> previous_engagement;  // surging item id -> highest stored before
  std::map<std::string, SourceStatus> source_status;
  std::optional<std::string> error;    // the run could not be recorded (lease lost, store error)
  std::optional<Synthesis> synthesis;  // --summarize: what is new, in a few verified sentences
};

struct WatchReport {
  core::UnixSeconds generated_at = 0;
  std::vector<WatchRun> runs;  // by topic
  std::vector<std::string> warnings;
};

}  // namespace model
