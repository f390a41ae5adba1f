#include <algorithm>
#include <map>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "pipeline/stages.hpp"

namespace pipeline {

namespace {

constexpr double kBaseShare = 0.7;  // final = 70% own merit + 30% agreement across streams
constexpr double kAuthorDemotion = 0.5;

const std::string& hit_source(const model::Item& it, const model::Item::Hit& h) {
  return h.source.empty() ? it.source : h.source;
}

// The other sources that carried the item's story, each once.
void other_sources(const model::Item& it, std::vector<std::string_view>& out) {
  out.clear();
  for (const auto& s : it.also_seen)
    if (s.source != it.source && std::find(out.begin(), out.end(), s.source) == out.end()) out.push_back(s.source);
}

struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

std::vector<std::size_t> identity(std::size_t n) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// Sorts the index sequence, not the items: the stages below sort more than once and
// then move the items once (moving 100k items costs more than the sorts themselves).
// Stable-sorting a sequence of indices orders exactly as stable-sorting the items in
// that sequence would.
// The scores are copied beside the indices first: comparing through the items missed the
// cache on almost every comparison.
void sort_by_final(const Corpus& c, std::vector<std::size_t>& order) {
  struct Key {
    double final;
    std::size_t item;
  };
  std::vector<Key> keys(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) keys[k] = {c.items[order[k]].scores.final, order[k]};
  std::stable_sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    if (a.final != b.final) return a.final > b.final;
    return c.items[a.item].id < c.items[b.item].id;  // deterministic ties
  });
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = keys[k].item;
}

}  // namespace

// Re-ranks every (source, sub-query) stream by base score: upstream order is by
// date for some APIs and by local filtering for others, so it is not comparable.
void assign_stream_ranks(Corpus& c) {
  struct Entry {
    std::size_t stream, item, hit;
    double base;
  };
  struct Stream {
    std::string_view source;  // into an item's hits, which stay put from here on
    int subquery;
  };
  std::vector<Stream> streams;  // a few dozen: a scan beats a tree of string keys
  std::vector<Entry> entries;
  entries.reserve(c.items.size() * 2);
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    auto& hits = c.items[i].hits;
    for (auto& h : hits)
      if (h.source.empty()) h.source = c.items[i].source;
    std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
      return std::tie(a.source, a.subquery, a.rank) < std::tie(b.source, b.subquery, b.rank);
    });
    hits.erase(std::unique(hits.begin(), hits.end(),
                           [](const auto& a, const auto& b) { return a.source == b.source && a.subquery == b.subquery; }),
               hits.end());
    if (hits.empty()) hits.push_back({0, 0, c.items[i].source});
    for (std::size_t h = 0; h < hits.size(); ++h) {
      std::size_t id = 0;
      while (id < streams.size() && (streams[id].subquery != hits[h].subquery || streams[id].source != hits[h].source)) ++id;
      if (id == streams.size()) streams.push_back({hits[h].source, hits[h].subquery});
      entries.push_back({id, i, h, c.features[i].base});
    }
  }
  std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    if (a.stream != b.stream) return a.stream < b.stream;
    if (a.base != b.base) return a.base > b.base;
    return c.items[a.item].id < c.items[b.item].id;
  });
  std::size_t rank = 0;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    rank = e > 0 && entries[e].stream == entries[e - 1].stream ? rank + 1 : 0;
    c.items[entries[e].item].hits[entries[e].hit].rank = static_cast<int>(rank);
  }
}

void fuse(Corpus& c, const std::vector<model::SubQuery>& sub_queries,
          const std::map<std::string, double>& source_weights) {
  std::vector<double> fused(c.items.size(), 0.0);
  double max_fused = 0;
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    const auto& it = c.items[i];
    for (const auto& h : it.hits) {
      const auto sw = source_weights.find(hit_source(it, h));
      const double ws = sw == source_weights.end() ? 1.0 : sw->second;
      const double wq = h.subquery >= 0 && static_cast<std::size_t>(h.subquery) < sub_queries.size()
                            ? sub_queries[static_cast<std::size_t>(h.subquery)].weight
                            : 1.0;
      fused[i] += ws * wq / (kRrfK + h.rank + 1);
    }
    max_fused = std::max(max_fused, fused[i]);
  }
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    const double agreement = max_fused > 0 ? 100.0 * fused[i] / max_fused : 0.0;
    c.items[i].scores.final = std::clamp(kBaseShare * c.features[i].base + (1 - kBaseShare) * agreement, 0.0, 100.0);
  }
  auto order = identity(c.items.size());
  sort_by_final(c, order);
  // One voice should not fill the brief: past the cap an author's items are demoted.
  std::unordered_map<std::string, int, KeyHash, std::equal_to<>> per_author;
  std::string key;  // reused: one allocation, not one per item
  bool demoted = false;
  for (std::size_t i : order) {
    auto& it = c.items[i];
    if (!it.author) continue;
    key.assign(it.source).append("\x1f").append(*it.author);
    auto at = per_author.find(std::string_view(key));
    if (at == per_author.end()) at = per_author.emplace(key, 0).first;
    if (++at->second > kAuthorCap) {
      it.scores.final *= kAuthorDemotion;
      demoted = true;
    }
  }
  if (demoted) sort_by_final(c, order);
  permute(c, order);
}

namespace {
constexpr double kCorroborationBonus = 4;  // per other source that carried the same story
constexpr int kCorroborationMaxSources = 2;
constexpr double kWeakRelevance = 0.4;
constexpr double kWeakDamping = 0.85;
}  // namespace

void rerank(Corpus& c) {
  std::vector<std::string_view> others;
  for (auto& it : c.items) {
    other_sources(it, others);
    double f = it.scores.final;
    f += kCorroborationBonus * static_cast<double>(std::min<std::size_t>(others.size(), kCorroborationMaxSources));
    if (it.scores.relevance < kWeakRelevance) f *= kWeakDamping;
    it.scores.final = std::clamp(f, 0.0, 100.0);
  }
  auto order = identity(c.items.size());
  sort_by_final(c, order);
  // Undated items never outrank dated ones: they sink below the weakest dated item.
  double floor_dated = 100;
  bool any_dated = false;
  for (const auto& it : c.items)
    if (it.dated()) floor_dated = std::min(floor_dated, it.scores.final), any_dated = true;
  if (any_dated) {
    for (auto& it : c.items)
      if (!it.dated()) it.scores.final = std::min(it.scores.final, std::max(0.0, floor_dated - 0.01));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return c.items[a].dated() && !c.items[b].dated();
    });
  }
  permute(c, order);
  for (std::size_t i = 0; i < c.items.size(); ++i) c.items[i].why = explain(c, i);
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
  else if (ev.terms > 1 && ev.in_title == ev.terms) why.append("all ").append(std::to_string(ev.terms)).append(" words in title, not as a phrase");
  else if (ev.phrase == Evidence::Phrase::text) why = "phrase match in text";
  else if (ev.terms > 1 && ev.matched == ev.terms) why.append("all ").append(std::to_string(ev.terms)).append(" words, not as a phrase");
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
    if (origin < 0 && it.container) why.append("; ").append(it.source == "reddit" ? "" : "repo ").append(*it.container);
    else if (origin >= 0 && static_cast<std::size_t>(origin) < it.tags.size())
      why.append(it.source == "github" ? "; topic " : "; tag ").append(it.tags[static_cast<std::size_t>(origin)]);
    why += " context";
  }
  else if (ev.support == 2) why += "; context shared with strong matches";
  else if (ev.support == 0) why += "; context unlike the strong matches";
  const int days = static_cast<int>(f.age_days);
  if (f.age_days < 0) why += "; undated";
  else if (f.age_days < 1) why += "; under a day old";
  else why.append("; ").append(std::to_string(days)).append(days == 1 ? " day old" : " days old");
  if (f.before_story) why += ", before the main coverage";
  if (it.scores.engagement >= kLoud) why += "; high engagement";
  // Other sources that carried it, each once, in name order.
  std::vector<std::string_view> others;
  other_sources(it, others);
  std::sort(others.begin(), others.end());
  for (std::size_t k = 0; k < others.size(); ++k) why.append(k == 0 ? "; also on " : ", ").append(others[k]);
  return why;
}

}  // namespace pipeline
