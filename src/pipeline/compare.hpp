#pragma once
// Comparison (spec §2, §5): "A vs B [vs C ...]" splits into entities, each researched in
// parallel over the one shared HTTP client (so per-host politeness is shared too), then
// the stories found for more than one entity are named once as shared.
#include <string>
#include <string_view>
#include <vector>

#include "model/comparison.hpp"
#include "pipeline/research.hpp"

namespace pipeline {

constexpr std::size_t kMaxEntities = 6;

struct TopicSplit {
  std::vector<std::string> entities;  // 2..6 when the topic is a comparison, else empty
  std::string error;                  // set when it looks like one but is malformed
};
// Separators: "vs", "vs." or "versus", any case, with whitespace on both sides in the
// topic as typed (so "VS Code" is a topic, and "tokio vs " has an empty second entity).
TopicSplit split_comparison(std::string_view typed);

// Researches every entity (specs[i].topic is entity i) at once and joins them; each run is
// bounded by env.deadline, so the join is too. Thread-safe like run_research.
model::Comparison run_comparison(const std::string& topic, const std::vector<ResearchSpec>& specs, const ResearchEnv& env);

// Fills c.shared from the entities' reports: clusters of different entities that share an
// item, a canonical URL (item, discussion or sighting) or a near-duplicate title.
void find_shared_stories(model::Comparison& c);

}  // namespace pipeline
