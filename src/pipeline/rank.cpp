#include <optional>

#include "core/fold.hpp"
#include "pipeline/order.hpp"
#include "pipeline/plan.hpp"
#include "pipeline/stages.hpp"

namespace pipeline {

namespace {
// A topic whose words name no intent ("diffusion language models") can still be research: the
// pool shows it when arXiv holds several of the strongly relevant items. Then the papers and
// the code are what is wanted, weighed as if the topic had said "papers". Built from
// b-diffusion-language-models (four of its 19 strong matches are papers); no other case holds
// more than two (zurich and a-washington-minimum-wage, an eighth of their strong matches: with
// a bound of two, zurich's place stories lose to its papers).
constexpr int kResearchPapers = 3;
constexpr double kResearchShare = 0.15;
constexpr double kStrongMatch = 0.75;

// A sub-query that ends in a year relevance found only dates the question (weigh_years) was a
// search for that year too: it returns whatever holds the year ("Pokémon GO Tour 2026" for "Go
// 1.26 2026"), so its stream counts half in fusion.
constexpr double kDatedStream = 0.5;

std::vector<model::SubQuery> undated_streams(const Corpus& c, std::vector<model::SubQuery> subs) {
  static const bool off = core::ablated("dated-stream");
  if (off) return subs;
  for (const auto& term : c.topic.terms) {
    if (!term.number || term.weight != 0 || term.forms[0].size() != 1) continue;
    const std::string_view year = c.dict.text(term.forms[0][0]);
    if (!is_year(year)) continue;
    for (auto& q : subs) {
      const auto space = q.text.rfind(' ');
      if (space != std::string::npos && std::string_view(q.text).substr(space + 1) == year) q.weight *= kDatedStream;
    }
  }
  return subs;
}
}  // namespace

bool research_pool(const Corpus& c) {
  int strong = 0, papers = 0;
  for (const auto& it : c.items) {
    if (it.scores.relevance < kStrongMatch) continue;
    ++strong;
    papers += it.source == "arxiv" ? 1 : 0;
  }
  return papers >= kResearchPapers && papers >= kResearchShare * strong;
}

Ranked rank(Corpus& c, const RankSpec& spec) {
  Ranked out;
  out.source_weights = spec.source_weights;
  const auto runs = [&spec](Stage s) { return spec.first <= s && s <= spec.last; };
  if (runs(Stage::normalize)) normalize(c);                               // 3
  if (runs(Stage::window)) out.windowed = window_filter(c, spec.window);  // 4
  if (runs(Stage::relevance)) score_relevance(c);                         // 5
  static const bool read_intent = !core::ablated("pool-intent");
  if (read_intent && spec.intent_open && runs(Stage::base) && research_pool(c)) {
    out.intent = "research";
    out.source_weights = intent_source_weights("research");
  }
  if (runs(Stage::freshness)) score_freshness(c, spec.window);  // 6
  if (runs(Stage::engagement)) score_engagement(c);             // 7
  if (runs(Stage::base)) score_base(c, out.source_weights);
  if (runs(Stage::stream_ranks)) assign_stream_ranks(c);
  // From prune to the rerank `kept` lists the items kept, in their order: the items are moved
  // once, by the rerank (or where the slice ends), not at each of the four stages.
  std::optional<std::vector<std::size_t>> kept;  // engaged while the items wait to be moved
  const auto listed = [&]() -> std::vector<std::size_t>& {
    if (!kept) kept = identity(c.items.size());
    return *kept;
  };
  if (runs(Stage::prune)) out.pruned = prune_unmoved(c, listed());                                           // 8
  if (runs(Stage::dedupe)) out.folded = dedupe_unmoved(c, listed());                                         // 9
  if (runs(Stage::fuse)) fuse_order(c, undated_streams(c, spec.sub_queries), out.source_weights, listed());  // 10
  if (runs(Stage::rerank)) rerank(c, std::move(listed()));                                                   // 11
  else if (kept) keep_in_order(c, std::move(*kept));
  kept.reset();
  if (runs(Stage::cluster)) out.clusters = cluster(c);  // 12
  return out;
}

}  // namespace pipeline
