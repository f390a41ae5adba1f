#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "core/parallel.hpp"
#include "pipeline/order.hpp"
#include "pipeline/stages.hpp"
#include "sources/source.hpp"

namespace pipeline {

namespace {

// The other sources that carried the item's story, each once.
void other_sources(const model::Item& it, std::vector<std::string_view>& out) {
  out.clear();
  for (const auto& s : it.also_seen)
    if (s.source != it.source && std::find(out.begin(), out.end(), s.source) == out.end()) out.push_back(s.source);
}

}  // namespace

namespace {
constexpr double kCorroborationBonus = 4;  // per other source that carried the same story
constexpr int kCorroborationMaxSources = 2;
constexpr double kWeakRelevance = 0.4;
constexpr double kWeakDamping = 0.85;
}  // namespace

void rerank(Corpus& c) { rerank(c, identity(c.items.size())); }

void rerank(Corpus& c, std::vector<std::size_t> order) {
  std::vector<std::string_view> others;
  for (std::size_t i : order) {
    auto& it = c.items[i];
    other_sources(it, others);
    double f = it.scores.final;
    f += kCorroborationBonus * static_cast<double>(std::min<std::size_t>(others.size(), kCorroborationMaxSources));
    if (it.scores.relevance < kWeakRelevance) f *= kWeakDamping;
    it.scores.final = std::clamp(f, 0.0, 100.0);
  }
  sort_by_final(c, order);
  // Undated items never outrank dated ones: they sink below the weakest dated item.
  double floor_dated = 100;
  bool any_dated = false;
  for (std::size_t i : order)
    if (c.items[i].dated()) floor_dated = std::min(floor_dated, c.items[i].scores.final), any_dated = true;
  if (any_dated) {
    for (std::size_t i : order)
      if (auto& it = c.items[i]; !it.dated()) it.scores.final = std::min(it.scores.final, std::max(0.0, floor_dated - 0.01));
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return c.items[a].dated() && !c.items[b].dated(); });
  }
  keep_in_order(c, std::move(order));
  // A "why" reads its own item and the run's topic only: chunks of items on two threads.
  core::parallel_chunks(c.items.size(), 1024, core::cpu_threads(), [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) c.items[i].why = explain(c, i);
  });
}

namespace {
constexpr double kLoud = 80;  // engagement score worth naming
}  // namespace

std::string explain(const Corpus& c, std::size_t i) {
  const auto& it = c.items[i];
  const auto& f = c.features[i];
  const Evidence& ev = f.evidence;
  std::string why;
  why.reserve(96);
  if (ev.generic_only) why = "matches only generic words";
  else if (ev.phrase == Evidence::Phrase::title) why = "phrase match in title";
  else if (ev.terms > 1 && ev.in_title == ev.terms)
    why.append("all ").append(std::to_string(ev.terms)).append(" words in title, not as a phrase");
  else if (ev.phrase == Evidence::Phrase::text) why = "phrase match in text";
  else if (ev.terms > 1 && ev.matched == ev.terms)
    why.append("all ").append(std::to_string(ev.terms)).append(" words, not as a phrase");
  else if (ev.terms > 1) why.append(std::to_string(ev.matched)).append(" of ").append(std::to_string(ev.terms)).append(" words");
  else why = "weak match";
  if (ev.form >= 0 && static_cast<std::size_t>(ev.form) < c.topic.form_names.size())
    why.append(" as '").append(c.topic.form_names[static_cast<std::size_t>(ev.form)]).append("'");
  if (ev.phrase == Evidence::Phrase::none) {
    switch (ev.conflict) {
      case Evidence::Conflict::other_version: why += "; names another version"; break;
      case Evidence::Conflict::other_name: why += "; the name belongs to someone else"; break;
      case Evidence::Conflict::common_word: why += "; a topic word used as a common word"; break;
      case Evidence::Conflict::none: break;
    }
  }
  if (ev.context >= 0 && static_cast<std::size_t>(ev.context) < f.context_origin.size()) {
    const int origin = f.context_origin[static_cast<std::size_t>(ev.context)];
    const sources::Source* source = sources::by_id(it.source);
    const auto meaning = source ? source->context_container() : std::nullopt;
    if (origin < 0 && it.container) why.append("; ").append(meaning ? meaning->why : "").append(*it.container);
    else if (origin >= 0 && static_cast<std::size_t>(origin) < it.tags.size())
      why.append("; ").append(source ? source->tag_word() : "tag ").append(it.tags[static_cast<std::size_t>(origin)]);
    why += " context";
  } else if (ev.support == 2) why += "; context shared with strong matches";
  else if (ev.support == 0) why += "; context unlike the strong matches";
  const int days = static_cast<int>(f.age_days);
  if (f.age_days < 0) why += "; undated";
  else if (f.age_days < 1) why += "; under a day old";
  else why.append("; ").append(std::to_string(days)).append(days == 1 ? " day old" : " days old");
  if (f.before_story) why += ", before the main coverage";
  if (it.scores.engagement >= kLoud) why += "; high engagement";
  if (only_a_title(it)) why += "; only a title";
  // Other sources that carried it, each once, in name order.
  std::vector<std::string_view> others;
  other_sources(it, others);
  std::sort(others.begin(), others.end());
  for (std::size_t k = 0; k < others.size(); ++k) why.append(k == 0 ? "; also on " : ", ").append(others[k]);
  return why;
}

}  // namespace pipeline
