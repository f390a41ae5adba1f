#include "model/comparison.hpp"

namespace model {

const SharedStory* Comparison::shared_story(std::size_t entity, const std::string& cluster) const {
  for (const auto& s : shared)
    for (const auto& m : s.members)
      if (m.entity == entity && m.cluster == cluster) return &s;
  return nullptr;
}

std::vector<const Cluster*> Comparison::own_stories(std::size_t entity) const {
  std::vector<const Cluster*> out;
  for (const auto& cl : entities.at(entity).report.clusters)
    if (shared_story(entity, cl.id) == nullptr) out.push_back(&cl);
  return out;
}

}  // namespace model
