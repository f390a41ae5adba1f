// Stories: items that share distinctive title words, across sources, and state compatible
// facts (compatible_facts: "Rust 1.91" and "Rust 1.92" are two stories). Greedy in rank
// order with an inverted index, so each item looks only at clusters that share a word.
#include <fmt/format.h>
#include <algorithm>
#include <numeric>
#include <string_view>
#include <vector>

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
  std::vector<TokenId> words;      // sorted
  std::vector<TokenId> unindexed;  // words whose posting list was already full, sorted
  Facts facts;                     // what the story states so far (its members' values)
};

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
  std::vector<std::vector<std::size_t>> postings(c.dict.size());  // token -> drafts indexed under it
  std::vector<std::size_t> votes;  // per draft, reset after each item: sig words found through postings
  std::vector<std::size_t> touched;
  std::vector<TokenId> sig;
  std::vector<bool> in_sig(c.dict.size(), false);
  for (std::size_t i = 0; i < n; ++i) {
    for (TokenId t : sig) in_sig[t] = false;
    sig.clear();
    for (TokenId t : c.features[i].title)
      if (!exclude[t]) sig.push_back(t), in_sig[t] = true;
    std::size_t best = drafts.size();
    if (sig.size() >= 2) {
      // Shared words counted through the postings rather than by merging word lists:
      // a draft is in the postings of each of its indexed words exactly once.
      touched.clear();
      for (TokenId t : sig)
        for (std::size_t d : postings[t])
          if (votes[d]++ == 0) touched.push_back(d);
      double best_ratio = 0;
      for (std::size_t d : touched) {
        std::size_t shared = votes[d];
        votes[d] = 0;
        for (TokenId t : drafts[d].unindexed) shared += in_sig[t] ? 1 : 0;
        if (shared < 2 || !compatible_facts(c.features[i].facts, drafts[d].facts)) continue;
        const double ratio = static_cast<double>(shared) / static_cast<double>(std::min(sig.size(), drafts[d].words.size()));
        // The best ratio, the earliest draft on ties: what a scan in draft order picks.
        if (ratio >= kJoinRatio && (ratio > best_ratio || (ratio == best_ratio && d < best))) best_ratio = ratio, best = d;
      }
    }
    if (best == drafts.size()) {
      Draft d;
      d.members.push_back(i);
      d.facts = c.features[i].facts;
      d.words = sig;
      if (d.words.size() > kSeedWords) d.words.resize(kSeedWords);
      for (TokenId t : d.words) {
        auto& p = postings[t];
        if (p.size() < kPostingCap) p.push_back(best);
        else d.unindexed.push_back(t);
      }
      drafts.push_back(std::move(d));
      votes.push_back(0);
    } else {
      drafts[best].members.push_back(i);
      merge_facts(drafts[best].facts, c.features[i].facts);
    }
  }

  std::vector<model::Cluster> out;
  out.reserve(drafts.size());
  std::vector<std::string_view> sources;
  for (const auto& d : drafts) {
    model::Cluster cl;
    const auto& seed = c.items[d.members.front()];
    cl.title = seed.title;
    // Sorted and unique, as a std::set gave them, without a node per source per story.
    sources.clear();
    std::size_t evidence = 0;
    cl.items.reserve(d.members.size());
    for (std::size_t m : d.members) {
      const auto& it = c.items[m];
      cl.items.push_back(it.id);
      sources.push_back(it.source);
      evidence += 1 + it.also_seen.size();
      for (const auto& s : it.also_seen) sources.push_back(s.source);
    }
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    cl.sources.assign(sources.begin(), sources.end());
    cl.score =
        std::min(100.0, seed.scores.final + kSourceBonus * static_cast<double>(std::min<std::size_t>(sources.size() - 1, 3)));
    if (evidence == 1 && seed.scores.engagement < kThinEngagement) cl.uncertainty = "thin-evidence";
    else if (sources.size() == 1) cl.uncertainty = "single-source";
    out.push_back(std::move(cl));
  }
  std::vector<std::size_t> order(out.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return out[a].score > out[b].score; });
  std::vector<model::Cluster> sorted;
  sorted.reserve(out.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    auto cl = std::move(out[order[k]]);
    cl.id = fmt::format("c{}", k + 1);
    // Every item is a member of exactly one draft. (This was a map from item id to cluster
    // id; ids are unique within a run, see model::Item, and hashing 100k scattered id
    // strings cost more than the rest of this loop.)
    for (std::size_t m : drafts[order[k]].members) c.items[m].cluster = cl.id;
    sorted.push_back(std::move(cl));
  }
  return sorted;
}

}  // namespace pipeline
