#pragma once
// Nominations -> topics: item velocity, grouping the same story across sources,
// distilled names, junk flags, and the floor that separates trends from noise.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/discovery.hpp"

namespace discover {

// Engagement is sources::comparable_engagement (points/upvotes/stars/comments count one
// each; Polymarket dollars of 24 h volume one per $1000).
// engagement × 1/√(age_days+1), × 1.5 when the item is under 7 days old.
double item_velocity(const model::Item& item, core::UnixSeconds now);
// Σ item velocity × (1 + 0.15 × (sources − 1)).
double topic_velocity(double sum_item_velocity, std::size_t sources);

// A short name distilled from the topic's titles ("Tokio 2.0"), never a whole long title.
std::string distill_name(const std::vector<const model::Item*>& items_best_first);
// Generic words only, bare numbers, URLs, too short.
bool junk_shaped(std::string_view name);

// Groups listing items into topics, best (fastest) first, with ids n1.., unique names.
std::vector<model::Topic> group_topics(std::vector<model::Item> items, core::UnixSeconds now, const model::Window& window);

// The floor (seed evidence only; the enriched corpus never corroborates).
constexpr double kFloorEngagement = 25;
constexpr double kSingleSourceEngagement = 200;
struct Verdict {
  bool pass = false;
  std::string reason;  // why it failed, for the weak signal
};
Verdict floor_verdict(const model::Topic& t);

// Folds topics that share >= 2 evidence URLs (keeping the faster one), applies the
// floor, ranks by `score` (velocity, or a judged blend) and keeps at most 10.
struct Selection {
  std::vector<model::Topic> survivors;
  std::optional<model::WeakSignal> weak_signal;  // when nothing passed
};
constexpr std::size_t kMaxResults = 10;
Selection select_topics(std::vector<model::Topic> topics, const std::vector<double>& score);

std::string why_line(const model::Topic& t);

}  // namespace discover
