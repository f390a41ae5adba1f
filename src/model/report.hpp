#pragma once
// A finished research report: what renderers read. Nothing here refers to HTTP or sources.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/item.hpp"
#include "model/source_state.hpp"
#include "model/synthesis.hpp"

namespace model {

enum class Depth { quick, standard, deep };
std::string_view to_string(Depth d);  // "quick" | "default" | "deep"

struct Window {
  core::UnixSeconds from = 0;  // 00:00:00 UTC of the first day
  core::UnixSeconds to = 0;    // 23:59:59 UTC of the as-of day
  int days = 30;
  bool contains(core::UnixSeconds t) const { return t >= from && t <= to; }
  static Window ending(core::UnixSeconds as_of_day, int days);
};

struct Cluster {
  std::string id;
  std::string title;
  double score = 0;
  std::vector<std::string> sources;
  std::vector<std::string> items;          // item ids, best first
  std::optional<std::string> uncertainty;  // "single-source" | "thin-evidence"
};

enum class Outcome { ok, nothing_solid };

struct SubQuery {
  std::string text;
  double weight = 1.0;
};

// Other ways of writing a word or phrase of the topic ("Postgres" for "PostgreSQL", "Tokyo"
// for "東京"). A one- to three-letter alternative ("PG", "JS") is an abbreviation and counts
// only next to the rest of the topic ("PG19", "PG 19").
struct Synonym {
  std::string term;  // as it appears in the topic
  std::vector<std::string> alternatives;
  bool from_host = false;
};

struct Plan {
  std::string intent;  // "news", "howto", "comparison", "research", "prediction", "product"
  std::vector<SubQuery> sub_queries;
  std::map<std::string, double> source_weights;
  std::vector<Synonym> synonyms;
  bool from_host = false;
  // "news" only because nothing named another intent (neither the topic's words nor a host),
  // and no host weights: the ranking may read the intent from the pool (pipeline::rank).
  bool intent_open = false;
};

// With --store: how often and when this topic ran before (spec §5 "history").
struct History {
  int runs_before = 0;
  std::optional<core::UnixSeconds> last_run_at;  // the previous run's finish time
};

struct Report {
  std::string topic;
  Depth depth = Depth::standard;
  Window window;
  core::UnixSeconds generated_at = 0;
  Plan plan;
  std::map<std::string, SourceStatus> source_status;
  std::vector<Item> items;        // best first
  std::vector<Cluster> clusters;  // best first
  std::vector<std::string> warnings;
  Outcome outcome = Outcome::ok;
  std::optional<History> history;      // set only when the run is stored
  std::optional<Synthesis> synthesis;  // --summarize
};

}  // namespace model
