#include <utility>

#include "pipeline/stages.hpp"
#include "sources/source.hpp"

namespace pipeline {

bool is_social(std::string_view source) {
  const auto* s = sources::by_id(source);
  return s != nullptr && s->social();
}

namespace {
bool below_floor(const Corpus& c, std::size_t i) {
  const auto& it = c.items[i];
  double floor = kRelevanceFloor;
  // Known-zero engagement on a social site: nobody cared, so the text must carry it.
  if (is_social(it.source) && c.features[i].has_engagement_data && it.engagement_total() == 0) floor = kSocialZeroEngagementFloor;
  return it.scores.relevance < floor;
}
}  // namespace

int prune(Corpus& c) {
  std::vector<std::size_t> kept;
  const int dropped = prune_unmoved(c, kept);
  keep_in_order(c, std::move(kept));
  return dropped;
}

int prune_unmoved(Corpus& c, std::vector<std::size_t>& kept) {
  kept.clear();
  for (std::size_t i = 0; i < c.items.size(); ++i)
    if (!below_floor(c, i)) kept.push_back(i);
  return static_cast<int>(c.items.size() - kept.size());
}

}  // namespace pipeline
