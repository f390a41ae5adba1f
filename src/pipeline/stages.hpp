#pragma once
// The research pipeline's stages, in the order rank() runs them, one file each (window.cpp,
// freshness.cpp, prune.cpp, rerank.cpp...; 1. plan is plan.cpp, 2. fetch is fetch.cpp).
// Every stage works on one run's Corpus, which nothing else may touch during the call. The
// threading rule: a stage may run chunks of items on threads of its own (core::parallel_chunks,
// joined before it returns) only where each chunk writes its own items' results and reads
// nothing another chunk writes, so the result is the one-thread pass's whatever the
// scheduling (tests/concurrency/normalize_parallel_test.cpp compares the two). Threaded so:
// normalize, relevance's per-item scores and sense feedback's counts, dedupe's hashes, the
// rerank's "why", the stories' assembly in cluster. The greedy passes (dedupe's folds,
// cluster's joins) stay in order.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/report.hpp"
#include "pipeline/corpus.hpp"

namespace pipeline {

// 3. normalize: clean text, canonical URLs, token features. Runs chunks of items on up to two
// threads (the rule above); the result (dictionary ids included) is the one a single pass
// gives, whatever the threads do. Safe to call from any thread.
void normalize(Corpus& c);

// 4. window: drops dated items outside the window. Returns how many were dropped.
int window_filter(Corpus& c, const model::Window& w);

// 5. relevance: the topic's words, phrase, names and versions in the title, the text and the
// item's context labels, with context feedback from the strong matches, 0..1 (relevance.cpp).
void score_relevance(Corpus& c);
// A strong match: relevant, and its title says the topic the way the topic does (its entity,
// its words close together in order). Context feedback and the story's moment come from these.
bool strong_match(const model::Item& it, const Features& f);

// 6. freshness: 100 at the window's end, falling linearly to 0 before its start; undated = 0.
// When most strong matches fall within a few days (a story), items from before that stretch
// are background and their freshness fades. Also records each item's age for engagement.
double freshness(const model::Window& w, const model::Item& item);
void score_freshness(Corpus& c, const model::Window& w);

// 7. engagement: per-source weighted log1p, normalized within each source's stream, 0..100.
// An item younger than a day and a half is still gathering votes: its counts are projected
// to what they will be (divided by the share of its life it has had, see maturity()).
double engagement_raw(const model::Item& item, double maturity = 1.0);
double maturity(double age_days);  // 0.1..1; 1 for undated items
void score_engagement(Corpus& c);

// Base score, 0..100: relevance times quality, where quality = 0.40 + 0.05 if the item has text
// or an outside link + 0.30 engagement + 0.25 freshness (0..1 each; 0.5 engagement for sources
// that report none), times 0.8 for an item that is only a title, times the plan's source weight.
void score_base(Corpus& c, const std::map<std::string, double>& source_weights);
// Ranks each (source, sub-query) stream by base score; one hit per stream per item.
void assign_stream_ranks(Corpus& c);
// A post with no text and no outside link: a picture or video on the platform's own host, a
// question asked in its title alone.
bool only_a_title(const model::Item& item);

// 8. prune: relevance floor; zero-engagement social items need more. Returns the count dropped.
constexpr double kRelevanceFloor = 0.15;
constexpr double kSocialZeroEngagementFloor = 0.5;
bool is_social(std::string_view source);
int prune(Corpus& c);
// The same, moving none: `kept` lists the items above their floor, ascending (for
// dedupe_unmoved, which moves them once).
int prune_unmoved(Corpus& c, std::vector<std::size_t>& kept);

// 9. dedupe: folds same-URL cross-posts and near-duplicate titles into the best item.
constexpr double kNearDuplicateJaccard = 0.8;
int dedupe(Corpus& c);
// The same on the items `kept` lists (ascending; prune_unmoved's), the others dropped, moving
// none: `kept` becomes those not folded, best first (for fuse_order; rank() moves the items
// once, after the rerank).
int dedupe_unmoved(Corpus& c, std::vector<std::size_t>& kept);

// 10. fusion: weighted reciprocal-rank fusion over (source, sub-query) streams, k = 60,
// then at most kAuthorCap items per author before demotion.
constexpr double kRrfK = 60;
constexpr int kAuthorCap = 3;
void fuse(Corpus& c, const std::vector<model::SubQuery>& sub_queries, const std::map<std::string, double>& source_weights);
// fuse() on the items `order` lists (indices into c.items, in their current order), moving
// none: `order` becomes the fused order, which fuse() applies with permute().
void fuse_order(Corpus& c, const std::vector<model::SubQuery>& sub_queries, const std::map<std::string, double>& source_weights,
                std::vector<std::size_t>& order);

// 11. heuristic rerank: corroboration bonus, weak-relevance damping, undated items below
// dated ones; then each item's "why".
void rerank(Corpus& c);
// rerank() on the items `order` lists, in that order (fuse_order's); the others are dropped.
// The items are moved once, as keep_in_order does.
void rerank(Corpus& c, std::vector<std::size_t> order);
// The short reason an item ranks where it does (needs the relevance evidence and age).
std::string explain(const Corpus& c, std::size_t i);

// 12. clustering into stories. Words in more than common_share of the titles describe
// the whole corpus (the topic), not one story, and are ignored.
std::vector<model::Cluster> cluster(Corpus& c, double common_share = 0.2);

// 13. outcome: warnings and nothing-solid.
constexpr double kSolidFinal = 30;
constexpr double kSolidRelevance = 0.5;
model::Outcome decide_outcome(const std::vector<model::Item>& items, const std::map<std::string, model::SourceStatus>& status,
                              std::vector<std::string>& warnings);

// The ranking, stages 3 to 12 in order (rank.cpp): the one place the order is written. The
// runner, the benchmarks and the tests call it; a slice [first, last] runs part of it.
enum class Stage {
  normalize,
  window,
  relevance,
  freshness,
  engagement,
  base,
  stream_ranks,
  prune,
  dedupe,
  fuse,
  rerank,
  cluster
};
struct RankSpec {
  model::Window window;
  std::vector<model::SubQuery> sub_queries;
  std::map<std::string, double> source_weights;
  Stage first = Stage::normalize;
  Stage last = Stage::cluster;
  bool intent_open = false;  // model::Plan::intent_open: the pool may show the topic is research
};
struct Ranked {
  int windowed = 0;  // dropped by each stage that drops
  int pruned = 0;
  int folded = 0;
  std::vector<model::Cluster> clusters;
  std::optional<std::string> intent;             // read from the pool: "research"
  std::map<std::string, double> source_weights;  // the weights the ranking used
};
Ranked rank(Corpus& c, const RankSpec& spec);
// After relevance: arXiv holds enough of the strong matches that the topic is research.
bool research_pool(const Corpus& c);

}  // namespace pipeline
