#include <algorithm>
#include <map>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "pipeline/order.hpp"
#include "pipeline/stages.hpp"

namespace pipeline {

namespace {

constexpr double kBaseShare = 0.7;  // final = 70% own merit + 30% agreement across streams
constexpr double kAuthorDemotion = 0.5;

const std::string& hit_source(const model::Item& it, const model::Item::Hit& h) {
  return h.source.empty() ? it.source : h.source;
}

struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

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

void fuse(Corpus& c, const std::vector<model::SubQuery>& sub_queries, const std::map<std::string, double>& source_weights) {
  auto order = identity(c.items.size());
  fuse_order(c, sub_queries, source_weights, order);
  permute(c, order);
}

void fuse_order(Corpus& c, const std::vector<model::SubQuery>& sub_queries, const std::map<std::string, double>& source_weights,
                std::vector<std::size_t>& order) {
  std::vector<double> fused(c.items.size(), 0.0);
  double max_fused = 0;
  for (std::size_t i : order) {
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
  for (std::size_t i : order) {
    const double agreement = max_fused > 0 ? 100.0 * fused[i] / max_fused : 0.0;
    c.items[i].scores.final = std::clamp(kBaseShare * c.features[i].base + (1 - kBaseShare) * agreement, 0.0, 100.0);
  }
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
}

}  // namespace pipeline
