#pragma once
// A finished discovery report (spec §5 "Discovery"): what renderers read.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/item.hpp"
#include "model/report.hpp"
#include "model/source_state.hpp"
#include "model/synthesis.hpp"

namespace model {

enum class EnrichStatus { enriched, nomination_only, failed };
std::string_view to_string(EnrichStatus s);  // "enriched" | "nomination-only" | "failed"

struct TopicEnrichment {
  EnrichStatus status = EnrichStatus::nomination_only;
  std::optional<std::string> error;
  int items = 0;
  std::vector<std::string> top_urls;  // the sub-run's best items, cited as extra evidence
  std::vector<std::string> top_titles;
};

struct Topic {
  std::string id;     // "n1".."n15": nomination order
  std::string name;   // distilled, collision-free
  bool junk = false;  // generic words, bare numbers, URLs
  double velocity = 0;
  double engagement = 0;             // seed engagement total (discovery units)
  std::string momentum;              // "new-this-week" | "building"
  std::vector<std::string> sources;  // seed sources only
  std::map<std::string, double> engagement_by_source;
  std::vector<std::string> evidence_urls;  // seed URLs first
  std::vector<Item> seeds;                 // the listing items behind it, best first
  TopicEnrichment enrichment;
  std::optional<double> worthiness;           // host judgment, 0..100
  std::string why;                            // one line: what makes it spike
  std::map<std::string, std::string> angles;  // "podcast", "x_article"
};

struct EnrichmentInfo {
  std::string tier;  // "one-shot" | "shallow" | "deep"
  Depth depth = Depth::quick;
  int max_workers = 3;
  double budget_seconds = 240;
  long elapsed_ms = 0;
};

struct WeakSignal {
  std::string name;
  double velocity = 0;
  std::vector<std::string> sources;
  double engagement = 0;
  std::string reason;
};

struct DiscoveryReport {
  std::string domain;  // "" = global
  Window window;
  core::UnixSeconds generated_at = 0;
  long nomination_ms = 0;
  std::map<std::string, SourceStatus> source_status;
  EnrichmentInfo enrichment;
  std::vector<Topic> results;  // ranked, 0..10
  std::vector<std::string> warnings;
  Outcome outcome = Outcome::ok;
  std::optional<WeakSignal> weak_signal;
  std::string bundle_id;               // protocol legs only
  std::optional<Synthesis> synthesis;  // --summarize: what each top topic is
};

}  // namespace model
