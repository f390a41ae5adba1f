#include "pipeline/stages.hpp"

namespace pipeline {

Ranked rank(Corpus& c, const RankSpec& spec) {
  Ranked out;
  const auto runs = [&spec](Stage s) { return spec.first <= s && s <= spec.last; };
  if (runs(Stage::normalize)) normalize(c);                               // 3
  if (runs(Stage::window)) out.windowed = window_filter(c, spec.window);  // 4
  if (runs(Stage::relevance)) score_relevance(c);                         // 5
  if (runs(Stage::freshness)) score_freshness(c, spec.window);            // 6
  if (runs(Stage::engagement)) score_engagement(c);                       // 7
  if (runs(Stage::base)) score_base(c, spec.source_weights);
  if (runs(Stage::stream_ranks)) assign_stream_ranks(c);
  if (runs(Stage::prune)) out.pruned = prune(c);                          // 8
  if (runs(Stage::dedupe)) out.folded = dedupe(c);                        // 9
  if (runs(Stage::fuse)) fuse(c, spec.sub_queries, spec.source_weights);  // 10
  if (runs(Stage::rerank)) rerank(c);                                     // 11
  if (runs(Stage::cluster)) out.clusters = cluster(c);                    // 12
  return out;
}

}  // namespace pipeline
