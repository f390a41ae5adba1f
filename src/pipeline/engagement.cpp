#include <algorithm>
#include <optional>
#include <cmath>
#include <unordered_map>

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

namespace {
constexpr double kBurstDays = 3;         // a story's main coverage arrives within a few days
constexpr double kBurstShare = 0.6;      // and holds most of the strongly relevant items
constexpr std::size_t kBurstMin = 5;
constexpr double kBurstRelevance = 0.75;
constexpr double kEventDay = 86400;      // the day before the coverage is the event's own
constexpr double kBackgroundDays = 5;    // before that, freshness fades on this scale

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
    if (f.before_story) it.scores.freshness *= std::exp(-static_cast<double>(*story - *it.published_at) / 86400.0 / kBackgroundDays);
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
}  // namespace

void score_base(Corpus& c, const std::map<std::string, double>& source_weights) {
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    auto& it = c.items[i];
    const bool bare = typical_raw(it.source) == 0;
    const double engagement = bare ? kBareEngagement : it.scores.engagement / 100.0;
    // A post that is only a title (a picture, a bare link to itself) says less than one with
    // text or an outside link.
    const bool substance = !it.snippet.empty() || (it.discussion_url && *it.discussion_url != it.url);
    double base = 100.0 * it.scores.relevance *
                  (kFloor + (substance ? kWSubstance : 0.0) + kWEng * engagement + kWFresh * it.scores.freshness / 100.0);
    if (auto w = source_weights.find(it.source); w != source_weights.end()) base *= w->second;
    c.features[i].base = std::clamp(base, 0.0, 100.0);
  }
}

bool is_social(std::string_view source) {
  const auto* s = sources::by_id(source);
  return s != nullptr && s->social();
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
