#include <algorithm>

#include "pipeline/stages.hpp"

namespace pipeline {

namespace {
constexpr double kGenericWeight = 0.3;
constexpr double kGenericOnlyCap = 0.2;  // a match on "new" and "2026" alone is not evidence
constexpr double kTitleShare = 0.65;
constexpr double kPhraseInTitle = 0.25;
constexpr double kPhraseInSnippet = 0.1;

bool contains(const std::vector<TokenId>& sorted, TokenId t) { return std::binary_search(sorted.begin(), sorted.end(), t); }
}  // namespace

double relevance(const Topic& topic, const Features& f) {
  if (topic.tokens.empty()) return 0;
  double total = 0, in_title = 0, in_text = 0;
  bool specific_match = false;
  for (std::size_t i = 0; i < topic.tokens.size(); ++i) {
    const double w = topic.generic[i] ? kGenericWeight : 1.0;
    total += w;
    const bool t = contains(f.title, topic.tokens[i]);
    const bool x = t || contains(f.text, topic.tokens[i]);
    if (t) in_title += w;
    if (x) in_text += w;
    if (x && !topic.generic[i]) specific_match = true;
  }
  double score = kTitleShare * (in_title / total) + (1 - kTitleShare) * (in_text / total);
  const bool multiword = topic.tokens.size() >= 2;
  if (multiword && f.folded_title.find(topic.phrase) != std::string::npos) score += kPhraseInTitle;
  else if (multiword && f.folded_snippet.find(topic.phrase) != std::string::npos) score += kPhraseInSnippet;
  const bool all_generic = std::all_of(topic.generic.begin(), topic.generic.end(), [](bool g) { return g; });
  if (!specific_match && !all_generic) score = std::min(score, kGenericOnlyCap);
  return std::clamp(score, 0.0, 1.0);
}

void score_relevance(Corpus& c) {
  for (std::size_t i = 0; i < c.items.size(); ++i) c.items[i].scores.relevance = relevance(c.topic, c.features[i]);
}

}  // namespace pipeline
