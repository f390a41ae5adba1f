// Stories: items that share distinctive title words, across sources. Greedy in rank
// order with an inverted index, so each item looks only at clusters that share a word.
#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <set>
#include <unordered_map>

#include "core/text.hpp"
#include "pipeline/stages.hpp"

namespace pipeline {

namespace {

constexpr std::size_t kPostingCap = 32;  // clusters remembered per word
constexpr std::size_t kSeedWords = 12;   // words a cluster is indexed under
constexpr double kJoinRatio = 0.5;
constexpr double kSourceBonus = 3;
constexpr double kThinEngagement = 20;

struct Draft {
  std::vector<std::size_t> members;
  std::vector<TokenId> words;  // sorted
};

std::size_t overlap(const std::vector<TokenId>& a, const std::vector<TokenId>& b) {
  std::size_t i = 0, j = 0, n = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) ++n, ++i, ++j;
    else if (a[i] < b[j]) ++i;
    else ++j;
  }
  return n;
}

}  // namespace

std::vector<model::Cluster> cluster(Corpus& c, double common_share) {
  const std::size_t n = c.items.size();
  std::vector<std::uint32_t> df(c.dict.size(), 0);
  for (const auto& f : c.features)
    for (TokenId t : f.title) ++df[t];
  const double common = std::max(2.0, common_share * static_cast<double>(n));
  std::vector<bool> exclude(c.dict.size(), false);
  for (TokenId t : c.topic.tokens) exclude[t] = true;
  for (TokenId t = 0; t < c.dict.size(); ++t)
    if (core::is_generic(c.dict.text(t)) || (n >= 10 && df[t] > common)) exclude[t] = true;

  std::vector<Draft> drafts;
  std::unordered_map<TokenId, std::vector<std::size_t>> postings;
  std::vector<std::size_t> votes;
  std::vector<std::size_t> touched;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<TokenId> sig;
    for (TokenId t : c.features[i].title)
      if (!exclude[t]) sig.push_back(t);
    std::size_t best = drafts.size();
    if (sig.size() >= 2) {
      touched.clear();
      for (TokenId t : sig) {
        auto it = postings.find(t);
        if (it == postings.end()) continue;
        for (std::size_t d : it->second) touched.push_back(d);
      }
      std::sort(touched.begin(), touched.end());
      touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
      double best_ratio = 0;
      for (std::size_t d : touched) {
        const std::size_t shared = overlap(sig, drafts[d].words);
        if (shared < 2) continue;
        const double ratio = static_cast<double>(shared) / static_cast<double>(std::min(sig.size(), drafts[d].words.size()));
        if (ratio >= kJoinRatio && ratio > best_ratio) best_ratio = ratio, best = d;
      }
    }
    if (best == drafts.size()) {
      Draft d;
      d.members.push_back(i);
      d.words = sig;
      if (d.words.size() > kSeedWords) d.words.resize(kSeedWords);
      drafts.push_back(std::move(d));
      for (TokenId t : drafts.back().words) {
        auto& p = postings[t];
        if (p.size() < kPostingCap) p.push_back(best);
      }
    } else {
      drafts[best].members.push_back(i);
    }
  }

  std::vector<model::Cluster> out;
  out.reserve(drafts.size());
  for (const auto& d : drafts) {
    model::Cluster cl;
    const auto& seed = c.items[d.members.front()];
    cl.title = seed.title;
    std::set<std::string> sources;
    std::size_t evidence = 0;
    for (std::size_t m : d.members) {
      const auto& it = c.items[m];
      cl.items.push_back(it.id);
      sources.insert(it.source);
      evidence += 1 + it.also_seen.size();
      for (const auto& s : it.also_seen) sources.insert(s.source);
    }
    cl.sources.assign(sources.begin(), sources.end());
    cl.score = std::min(100.0, seed.scores.final + kSourceBonus * static_cast<double>(std::min<std::size_t>(sources.size() - 1, 3)));
    if (evidence == 1 && seed.scores.engagement < kThinEngagement) cl.uncertainty = "thin-evidence";
    else if (sources.size() == 1) cl.uncertainty = "single-source";
    out.push_back(std::move(cl));
  }
  std::vector<std::size_t> order(out.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return out[a].score > out[b].score; });
  std::vector<model::Cluster> sorted;
  sorted.reserve(out.size());
  std::unordered_map<std::string, std::string> item_cluster;
  for (std::size_t k = 0; k < order.size(); ++k) {
    auto cl = std::move(out[order[k]]);
    cl.id = fmt::format("c{}", k + 1);
    for (const auto& id : cl.items) item_cluster[id] = cl.id;
    sorted.push_back(std::move(cl));
  }
  for (auto& it : c.items) it.cluster = item_cluster[it.id];
  return sorted;
}

}  // namespace pipeline
