#pragma once
// Stage state: the items of one run plus the features stages compute once and share.
// A Corpus belongs to one run on one thread; stages are plain functions over it.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/item.hpp"
#include "model/report.hpp"

namespace pipeline {

using TokenId = std::uint32_t;

// Interns word tokens so that stages compare integers, not strings.
class TokenDict {
 public:
  TokenId intern(std::string_view token);
  const std::string& text(TokenId id) const { return words_[id]; }
  std::size_t size() const { return words_.size(); }

 private:
  std::unordered_map<std::string, TokenId> ids_;
  std::vector<std::string> words_;
};

// Light normalization shared by topic and items: case-folded, trailing plural 's' dropped.
std::string normalize_token(std::string_view token);
// Sorted, unique, stopwords removed.
std::vector<TokenId> token_set(std::string_view text, TokenDict& dict);

struct Features {
  std::vector<TokenId> title;  // sorted unique
  std::vector<TokenId> text;   // title + snippet, sorted unique
  std::string canonical_url;
  std::string folded_title;    // case-folded, for phrase tests
  std::string folded_snippet;
  double base = 0;             // score before fusion (0..100)
  bool has_engagement_data = false;
};

struct Topic {
  std::string phrase;               // case-folded, whitespace-collapsed
  std::vector<TokenId> tokens;      // non-stopword tokens, sorted unique
  std::vector<bool> generic;        // parallel to tokens
};

struct Corpus {
  std::vector<model::Item> items;
  std::vector<Features> features;  // parallel to items
  TokenDict dict;
  Topic topic;
};

Topic analyze_topic(std::string_view topic, TokenDict& dict);

// Keeps the parallel vectors in step: removes items where drop[i] is true.
void erase_items(Corpus& c, const std::vector<bool>& drop);
// Reorders both vectors by the permutation (new position -> old index), in place;
// order must hold every index exactly once.
void permute(Corpus& c, const std::vector<std::size_t>& order);

}  // namespace pipeline
