// Stories: items that share distinctive title words, across sources, and state compatible
// facts (compatible_facts: "Rust 1.91" and "Rust 1.92" are two stories). Greedy in rank
// order with an inverted index, so each item looks only at clusters that share a word.
#include <fmt/format.h>
#include <algorithm>
#include <numeric>
#include <string_view>
#include <vector>

#include "core/parallel.hpp"
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
  Facts facts;  // what the story states so far (its members' values)
};

// What an item reads of each draft it meets through the postings (often hundreds of drafts
// per item), side by side: the draft's word count and where its unindexed words (those whose
// posting list was already full, sorted) lie in one shared array.
struct Probe {
  std::uint32_t words = 0;
  std::uint32_t unindexed_from = 0, unindexed_count = 0;
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
  std::vector<Probe> probes;       // per draft
  std::vector<TokenId> unindexed;  // every draft's unindexed words, see Probe
  // token -> the drafts indexed under it (at most kPostingCap), in blocks of kPostingCap
  // entries in one array: each item walks a hundred or so posting entries.
  constexpr std::uint32_t kNoBlock = ~std::uint32_t{0};
  std::vector<std::uint32_t> block_of(c.dict.size(), kNoBlock);
  std::vector<std::uint32_t> posted;       // the blocks
  std::vector<std::uint32_t> posted_size;  // per block
  std::vector<std::uint32_t> votes;        // per draft, reset after each item: sig words found through postings
  std::vector<std::uint32_t> touched;
  std::vector<TokenId> sig;
  std::vector<bool> in_sig(c.dict.size(), false);
  static_assert(kJoinRatio == 0.5, "the bound below tests ratio >= kJoinRatio in integers: 2 * shared >= words");
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
      for (TokenId t : sig) {
        if (block_of[t] == kNoBlock) continue;
        const std::uint32_t* block = &posted[std::size_t{block_of[t]} * kPostingCap];
        for (std::uint32_t k = 0; k < posted_size[block_of[t]]; ++k)
          if (votes[block[k]]++ == 0) touched.push_back(block[k]);
      }
      double best_ratio = 0;
      // The best ratio, the earliest draft on ties: what a scan in draft order picks. A draft
      // whose bound (every unindexed word shared) is under kJoinRatio, or cannot beat the
      // best so far, is skipped unread: its ratio is at most the bound's.
      const auto beats = [&](double ratio, std::size_t d) {
        return ratio >= kJoinRatio && (ratio > best_ratio || (ratio == best_ratio && d < best));
      };
      for (std::uint32_t d : touched) {
        std::size_t shared = votes[d];
        votes[d] = 0;
        const Probe& p = probes[d];
        const std::size_t words = std::min<std::size_t>(sig.size(), p.words);
        const std::size_t bound = shared + p.unindexed_count;
        if (bound < 2 || 2 * bound < words || !beats(static_cast<double>(bound) / static_cast<double>(words), d)) continue;
        for (std::uint32_t k = 0; k < p.unindexed_count; ++k) shared += in_sig[unindexed[p.unindexed_from + k]] ? 1 : 0;
        if (shared < 2) continue;
        const double ratio = static_cast<double>(shared) / static_cast<double>(words);
        if (beats(ratio, d) && compatible_facts(c.features[i].facts, drafts[d].facts)) best_ratio = ratio, best = d;
      }
    }
    if (best == drafts.size()) {
      Draft d;
      d.members.push_back(i);
      d.facts = c.features[i].facts;
      Probe p;
      p.words = static_cast<std::uint32_t>(std::min(sig.size(), kSeedWords));
      p.unindexed_from = static_cast<std::uint32_t>(unindexed.size());
      for (std::size_t k = 0; k < p.words; ++k) {
        std::uint32_t& b = block_of[sig[k]];
        if (b == kNoBlock) {
          b = static_cast<std::uint32_t>(posted_size.size());
          posted_size.push_back(0);
          posted.resize(posted.size() + kPostingCap);
        }
        if (posted_size[b] < kPostingCap)
          posted[std::size_t{b} * kPostingCap + posted_size[b]++] = static_cast<std::uint32_t>(best);
        else unindexed.push_back(sig[k]);
      }
      p.unindexed_count = static_cast<std::uint32_t>(unindexed.size() - p.unindexed_from);
      drafts.push_back(std::move(d));
      probes.push_back(p);
      votes.push_back(0);
    } else {
      drafts[best].members.push_back(i);
      merge_facts(drafts[best].facts, c.features[i].facts);
    }
  }

  // Each story is built from its own members, so chunks of stories build on two threads.
  std::vector<model::Cluster> out(drafts.size());
  core::parallel_chunks(drafts.size(), 512, core::cpu_threads(), [&](std::size_t, std::size_t begin, std::size_t end) {
    std::vector<std::string_view> sources;
    for (std::size_t k = begin; k < end; ++k) {
      const Draft& d = drafts[k];
      model::Cluster& cl = out[k];
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
    }
  });
  std::vector<std::size_t> order(out.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return out[a].score > out[b].score; });
  std::vector<model::Cluster> sorted(out.size());
  core::parallel_chunks(order.size(), 512, core::cpu_threads(), [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      auto& cl = sorted[k] = std::move(out[order[k]]);
      cl.id = fmt::format("c{}", k + 1);
      // Every item is a member of exactly one draft, so the stories' writes never meet. (This
      // was a map from item id to cluster id; ids are unique within a run, see model::Item,
      // and hashing 100k scattered id strings cost more than the rest of this loop.)
      for (std::size_t m : drafts[order[k]].members) c.items[m].cluster = cl.id;
    }
  });
  return sorted;
}

}  // namespace pipeline
