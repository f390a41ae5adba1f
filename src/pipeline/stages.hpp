#pragma once
// The research pipeline's stages, in the order research.cpp runs them.
// Every stage is single-threaded and works on one run's Corpus.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/report.hpp"
#include "pipeline/corpus.hpp"

namespace pipeline {

// 3. normalize: clean text, canonical URLs, token features.
void normalize(Corpus& c);

// 4. window: drops dated items outside the window. Returns how many were dropped.
int window_filter(Corpus& c, const model::Window& w);

// 5. relevance: token and phrase overlap with the topic, 0..1.
double relevance(const Topic& topic, const Features& f);
void score_relevance(Corpus& c);

// 6. engagement: per-source weighted log1p, normalized within each source's stream, 0..100.
double engagement_raw(const model::Item& item);
void score_engagement(Corpus& c);

// 7. freshness: 100 at the window's end, falling linearly to 0 before its start; undated = 0.
double freshness(const model::Window& w, const model::Item& item);
void score_freshness(Corpus& c, const model::Window& w);

// Base score from the three signals and the plan's source weight, 0..100.
void score_base(Corpus& c, const std::map<std::string, double>& source_weights);
// Ranks each (source, sub-query) stream by base score; one hit per stream per item.
void assign_stream_ranks(Corpus& c);

// 8. prune: relevance floor; zero-engagement social items need more. Returns the count dropped.
constexpr double kRelevanceFloor = 0.25;
constexpr double kSocialZeroEngagementFloor = 0.5;
bool is_social(std::string_view source);
int prune(Corpus& c);

// 9. dedupe: folds same-URL cross-posts and near-duplicate titles into the best item.
constexpr double kNearDuplicateJaccard = 0.8;
int dedupe(Corpus& c);

// 10. fusion: weighted reciprocal-rank fusion over (source, sub-query) streams, k = 60,
// then at most kAuthorCap items per author before demotion.
constexpr double kRrfK = 60;
constexpr int kAuthorCap = 3;
void fuse(Corpus& c, const std::vector<model::SubQuery>& sub_queries,
          const std::map<std::string, double>& source_weights);

// 11. heuristic rerank: phrase bonus, weak-relevance damping, undated items below dated ones.
void rerank(Corpus& c);

// 12. clustering into stories. Words in more than common_share of the titles describe
// the whole corpus (the topic), not one story, and are ignored.
std::vector<model::Cluster> cluster(Corpus& c, double common_share = 0.2);

// 13. outcome: warnings and nothing-solid.
constexpr double kSolidFinal = 30;
constexpr double kSolidRelevance = 0.5;
model::Outcome decide_outcome(const std::vector<model::Item>& items, const std::map<std::string, model::SourceStatus>& status,
                              std::vector<std::string>& warnings);

}  // namespace pipeline
