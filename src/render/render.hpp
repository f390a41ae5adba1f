#pragma once
// Renderers read a finished report and nothing else: no HTTP, no sources.
#include <map>
#include <string>

#include "model/comparison.hpp"
#include "model/discovery.hpp"
#include "model/report.hpp"

namespace render {

std::string research_json(const model::Report& r);
std::string research_compact(const model::Report& r);
std::string research_markdown(const model::Report& r);
std::string research_html(const model::Report& r);

std::string comparison_json(const model::Comparison& c);
std::string comparison_compact(const model::Comparison& c);
std::string comparison_markdown(const model::Comparison& c);
std::string comparison_html(const model::Comparison& c);

// One compared entity in figures: the side-by-side table and the comparison JSON's "summary".
struct EntitySummary {
  std::size_t items = 0;
  std::size_t stories = 0;
  double engagement = 0;  // model::comparable_engagement over every item and sighting
  std::map<std::string, double> engagement_by_source;
};
EntitySummary summarize(const model::Report& r);
// The side-by-side table below the names: stories, items, engagement, then one row per
// source with its item count, or its state when it did not answer fully.
struct TableCell {
  std::string text;
  bool degraded = false;
  std::string note;  // the source's reason
};
struct TableRow {
  std::string label;
  std::vector<TableCell> cells;  // one per entity
};
std::vector<TableRow> comparison_table(const model::Comparison& c);
// How many of an entity's own (not shared) stories a text comparison shows.
constexpr std::size_t kStoriesPerEntity = 5;

std::string discovery_json(const model::DiscoveryReport& r);
std::string discovery_compact(const model::DiscoveryReport& r);
std::string discovery_markdown(const model::DiscoveryReport& r);
std::string nominations_compact(const std::string& bundle_id, const std::vector<model::Topic>& topics, const std::string& path);

// Shared by the text renderers.
std::string engagement_summary(const std::vector<model::Engagement>& engagement);  // "812 points · 411 comments"
std::string human_number(double v);                       // 1234 -> "1.2k"

}  // namespace render
