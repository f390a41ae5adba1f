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
};

struct WatchRun {
  std::string topic;
  std::optional<core::UnixSeconds> previous_run_at;
  std::vector<Item> fresh;    // "new": never seen in an earlier run of this topic
  std::vector<Item> surging;  // engagement at least doubled (and grew by >= 10)
  std::map<std::string, double> previous_engagement;  // surging item id -> highest stored before
  std::map<std::string, SourceStatus> source_status;
  std::optional<std::string> error;  // the run could not be recorded (lease lost, store error)
  std::optional<Synthesis> synthesis;  // --summarize: what is new, in a few verified sentences
};

struct WatchReport {
  core::UnixSeconds generated_at = 0;
  std::vector<WatchRun> runs;  // by topic
  std::vector<std::string> warnings;
};

}  // namespace model
