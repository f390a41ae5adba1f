#pragma once
// A finished comparison (spec §5 "Comparison"): one research report per entity, side by side.
#include <string>
#include <vector>

#include "model/report.hpp"
#include "model/synthesis.hpp"

namespace model {

struct ComparedEntity {
  std::string name;  // as typed
  Report report;     // a research report whose topic is the entity
};

// A story found for more than one entity: listed once, not under each entity.
struct SharedStory {
  std::string title;
  std::string url;
  std::vector<std::string> entities;  // names, in input order
  struct Member {
    std::size_t entity = 0;  // index into Comparison::entities
    std::string cluster;     // that entity's cluster id
  };
  std::vector<Member> members;
};

struct Comparison {
  std::string topic;  // as typed
  Depth depth = Depth::standard;
  Window window;
  core::UnixSeconds generated_at = 0;
  std::vector<ComparedEntity> entities;  // input order
  std::vector<SharedStory> shared;       // best first
  std::vector<std::string> warnings;
  Outcome outcome = Outcome::ok;
  std::optional<Synthesis> synthesis;  // --summarize: one synthesis contrasting the entities

  // The shared story an entity's cluster belongs to, or nullptr.
  const SharedStory* shared_story(std::size_t entity, const std::string& cluster) const;
  // The entity's stories that are its alone, best first.
  std::vector<const Cluster*> own_stories(std::size_t entity) const;
};

}  // namespace model
