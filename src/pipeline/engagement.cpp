#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "core/fold.hpp"
#include "pipeline/stages.hpp"
#include "sources/source.hpp"

namespace pipeline {

namespace {

// Per-source engagement model: each source declares its fields' weights and typical values
// (sources::EngagementField). "typical" keeps a stream of 3-upvote posts from scoring 100
// just because nothing in it did better.
double weight_of(std::string_view source, std::string_view field) {
  if (const auto* s = sources::by_id(source))
    for (const auto& f : s->engagement())
      if (f.field == field) return f.weight;
  return 0;
}

double typical_raw(std::string_view source) {
  double raw = 0;
  if (const auto* s = sources::by_id(source))
    for (const auto& f : s->engagement()) raw += f.weight * std::log1p(f.typical);
  return raw;
}

}  // namespace

double engagement_raw(const model::Item& item, double maturity) {
  double raw = 0;
  for (const auto& e : item.engagement) raw += weight_of(item.source, e.field) * std::log1p(std::max(0.0, e.value) / maturity);
  return raw;
}

namespace {
// 100 is the source's loudest item in the pool, but never less than a front-page hit: an item half
// again as engaged as the source's typical one on the log scale (about 1,500 points and 600
// comments on Hacker News, 4,000 upvotes and 1,000 comments on Reddit). A typical item scores 67,
// so a routine question that is the loudest of its source does not tie with the story of the week.
constexpr double kYardstick = 1.5;
constexpr double kMatureHours = 36;  // most votes and comments arrive within a day and a half
constexpr double kHeadStartHours = 3;
constexpr double kMinMaturity = 0.1;
}  // namespace

double maturity(double age_days) {
  if (age_days < 0) return 1.0;
  return std::clamp((age_days * 24.0 + kHeadStartHours) / kMatureHours, kMinMaturity, 1.0);
}

void score_engagement(Corpus& c) {
  std::unordered_map<std::string_view, double> max_raw;
  std::vector<double> raw(c.items.size());
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    // Votes arrive within a day or two on social sites; stars and views keep coming for weeks.
    raw[i] = engagement_raw(c.items[i], is_social(c.items[i].source) ? maturity(c.features[i].age_days) : 1.0);
    auto& m = max_raw[c.items[i].source];
    m = std::max(m, raw[i]);
  }
  std::unordered_map<std::string_view, double> scale;
  static const double yardstick = core::ablated("yardstick") ? 1.0 : kYardstick;
  for (auto& [source, m] : max_raw) scale[source] = std::max(m, yardstick * typical_raw(source));
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    const double s = scale[c.items[i].source];
    c.items[i].scores.engagement = s > 0 ? std::clamp(100.0 * raw[i] / s, 0.0, 100.0) : 0.0;
  }
}

namespace {
// Relevance scales everything: an item half as relevant needs twice the quality. Among items
// about equally relevant, freshness weighs nearly as much as engagement, so fresh coverage of
// an outcome beats a loud item from the window's first days (engagement is logarithmic and
// projected for young items).
constexpr double kFloor = 0.40, kWSubstance = 0.05, kWEng = 0.30, kWFresh = 0.25;
// Sources with no engagement signal at all (arXiv, web) count as modestly engaged: the missing
// signal must read neither as a perfect one nor as silence.
constexpr double kBareEngagement = 0.5;
// A post that is only a title (a picture, a video, a bare link to itself) says less than one
// with text or an outside link: across the eval's 42 cases, 8 of the 9 such items that reached
// a brief are graded 0 or 1 (memes, screenshots, a clip), where the 0.05 of substance alone
// left them level with the news on engagement.
constexpr double kTitleOnly = 0.8;
}  // namespace

bool only_a_title(const model::Item& it) { return it.snippet.empty() && (!it.discussion_url || *it.discussion_url == it.url); }

void score_base(Corpus& c, const std::map<std::string, double>& source_weights) {
  static const bool title_only = !core::ablated("title-only");
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    auto& it = c.items[i];
    const bool bare = typical_raw(it.source) == 0;
    const double engagement = bare ? kBareEngagement : it.scores.engagement / 100.0;
    const bool substance = !only_a_title(it);
    double base = 100.0 * it.scores.relevance *
                  (kFloor + (substance ? kWSubstance : 0.0) + kWEng * engagement + kWFresh * it.scores.freshness / 100.0);
    if (!substance && title_only) base *= kTitleOnly;
    if (auto w = source_weights.find(it.source); w != source_weights.end()) base *= w->second;
    c.features[i].base = std::clamp(base, 0.0, 100.0);
  }
}

}  // namespace pipeline
