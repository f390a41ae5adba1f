#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>

#include "pipeline/stages.hpp"

namespace pipeline {

namespace {

struct FieldWeight {
  std::string_view source;
  std::string_view field;
  double weight;
  double typical;  // a solidly-engaged item's value: the normalization never goes below it
};

// Per-source engagement model. "typical" keeps a stream of 3-upvote posts from
// scoring 100 just because nothing in it did better.
constexpr std::array<FieldWeight, 28> kFields{{
    {"hackernews", "points", 1.0, 150},      {"hackernews", "num_comments", 0.7, 60},
    {"reddit", "score", 1.0, 300},           {"reddit", "num_comments", 0.7, 80},
    {"polymarket", "volume", 0.6, 500000},   {"polymarket", "volume24hr", 0.5, 50000},
    {"polymarket", "liquidity", 0.3, 50000}, {"github", "stars", 1.0, 300},
    {"github", "forks", 0.4, 40},            {"github", "comments", 0.6, 20},
    {"github", "reactions", 0.8, 20},        {"lobsters", "score", 1.0, 30},
    {"lobsters", "comment_count", 0.7, 15},  {"stackexchange", "score", 1.0, 10},
    {"stackexchange", "answer_count", 0.8, 3}, {"stackexchange", "view_count", 0.25, 2000},
    {"bluesky", "likeCount", 1.0, 100},      {"bluesky", "repostCount", 0.8, 20},
    {"bluesky", "replyCount", 0.6, 15},      {"bluesky", "quoteCount", 0.6, 5},
    {"x", "like_count", 1.0, 300},           {"x", "retweet_count", 0.8, 50},
    {"x", "reply_count", 0.6, 30},           {"x", "quote_count", 0.6, 10},
    {"youtube", "views", 0.5, 50000},        {"youtube", "likes", 1.0, 2000},
    {"youtube", "comments", 0.7, 200},       {"wikipedia", "views", 1.0, 100000},
}};

double weight_of(std::string_view source, std::string_view field) {
  for (const auto& f : kFields)
    if (f.source == source && f.field == field) return f.weight;
  return 0;
}

double typical_raw(std::string_view source) {
  double raw = 0;
  for (const auto& f : kFields)
    if (f.source == source) raw += f.weight * std::log1p(f.typical);
  return raw;
}

}  // namespace

double engagement_raw(const model::Item& item) {
  double raw = 0;
  for (const auto& e : item.engagement) raw += weight_of(item.source, e.field) * std::log1p(std::max(0.0, e.value));
  return raw;
}

void score_engagement(Corpus& c) {
  std::unordered_map<std::string_view, double> max_raw;
  std::vector<double> raw(c.items.size());
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    raw[i] = engagement_raw(c.items[i]);
    auto& m = max_raw[c.items[i].source];
    m = std::max(m, raw[i]);
  }
  std::unordered_map<std::string_view, double> scale;
  for (auto& [source, m] : max_raw) scale[source] = std::max(m, typical_raw(source));
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    const double s = scale[c.items[i].source];
    c.items[i].scores.engagement = s > 0 ? std::clamp(100.0 * raw[i] / s, 0.0, 100.0) : 0.0;
  }
}

double freshness(const model::Window& w, const model::Item& item) {
  if (!item.published_at) return 0;
  const double age_days = static_cast<double>(w.to - *item.published_at) / 86400.0;
  const double span = static_cast<double>(w.days) + 1.0;
  return std::clamp(100.0 * (1.0 - age_days / span), 0.0, 100.0);
}

void score_freshness(Corpus& c, const model::Window& w) {
  for (auto& it : c.items) it.scores.freshness = freshness(w, it);
}

namespace {
constexpr double kWRel = 0.5, kWEng = 0.3, kWFresh = 0.2;
// Sources with no engagement signal at all (arXiv, web) rank on relevance and recency,
// slightly discounted so that the missing signal does not read as a perfect one.
constexpr double kWRelBare = 0.65, kWFreshBare = 0.35, kBareDiscount = 0.85;
}  // namespace

void score_base(Corpus& c, const std::map<std::string, double>& source_weights) {
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    auto& it = c.items[i];
    const bool bare = typical_raw(it.source) == 0;
    double base = bare ? kBareDiscount * 100.0 * (kWRelBare * it.scores.relevance + kWFreshBare * it.scores.freshness / 100.0)
                       : 100.0 * (kWRel * it.scores.relevance + kWEng * it.scores.engagement / 100.0 +
                                  kWFresh * it.scores.freshness / 100.0);
    if (auto w = source_weights.find(it.source); w != source_weights.end()) base *= w->second;
    c.features[i].base = std::clamp(base, 0.0, 100.0);
  }
}

bool is_social(std::string_view source) {
  return source == "reddit" || source == "hackernews" || source == "lobsters" || source == "x" || source == "bluesky";
}

int prune(Corpus& c) {
  std::vector<bool> drop(c.items.size(), false);
  int dropped = 0;
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    const auto& it = c.items[i];
    double floor = kRelevanceFloor;
    // Known-zero engagement on a social site: nobody cared, so the text must carry it.
    if (is_social(it.source) && c.features[i].has_engagement_data && it.engagement_total() == 0)
      floor = kSocialZeroEngagementFloor;
    if (it.scores.relevance < floor) {
      drop[i] = true;
      ++dropped;
    }
  }
  erase_items(c, drop);
  return dropped;
}

}  // namespace pipeline
