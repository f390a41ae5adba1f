#include <algorithm>
#include <cmath>
#include <optional>

#include "pipeline/stages.hpp"

namespace pipeline {

double freshness(const model::Window& w, const model::Item& item) {
  if (!item.published_at) return 0;
  const double age_days = static_cast<double>(w.to - *item.published_at) / 86400.0;
  const double span = static_cast<double>(w.days) + 1.0;
  return std::clamp(100.0 * (1.0 - age_days / span), 0.0, 100.0);
}

namespace {
constexpr double kBurstDays = 3;     // a story's main coverage arrives within a few days
constexpr double kBurstShare = 0.6;  // and holds most of the strongly relevant items
constexpr std::size_t kBurstMin = 5;
constexpr double kBurstRelevance = 0.75;
constexpr double kEventDay = 86400;    // the day before the coverage is the event's own
constexpr double kBackgroundDays = 5;  // before that, freshness fades on this scale

// When the strong matches crowd into a few days the topic has a story, and that is its moment:
// what came before is background ("Zig 1.0 will ship this month", once it has shipped). The
// latest such stretch wins. Returns its start, or nullopt for a topic without one.
std::optional<core::UnixSeconds> story_start(const Corpus& c) {
  std::vector<core::UnixSeconds> when;
  for (std::size_t i = 0; i < c.items.size(); ++i)
    if (c.items[i].published_at && c.items[i].scores.relevance >= kBurstRelevance) when.push_back(*c.items[i].published_at);
  if (when.size() < kBurstMin) return std::nullopt;
  std::sort(when.begin(), when.end());
  std::size_t best = 0, best_from = 0;
  for (std::size_t a = 0, b = 0; a < when.size(); ++a) {
    while (b < when.size() && static_cast<double>(when[b] - when[a]) <= kBurstDays * 86400) ++b;
    if (b - a >= best) best = b - a, best_from = a;
  }
  if (static_cast<double>(best) < kBurstShare * static_cast<double>(when.size())) return std::nullopt;
  return when[best_from] - static_cast<core::UnixSeconds>(kEventDay);
}
}  // namespace

void score_freshness(Corpus& c, const model::Window& w) {
  const auto story = story_start(c);
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    auto& it = c.items[i];
    auto& f = c.features[i];
    it.scores.freshness = freshness(w, it);
    f.age_days = it.published_at ? std::max(0.0, static_cast<double>(w.to - *it.published_at) / 86400.0) : -1.0;
    f.before_story = story && it.published_at && *it.published_at < *story;
    if (f.before_story)
      it.scores.freshness *= std::exp(-static_cast<double>(*story - *it.published_at) / 86400.0 / kBackgroundDays);
  }
}

}  // namespace pipeline
