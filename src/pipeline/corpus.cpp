#include "pipeline/corpus.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace pipeline {

TokenId TokenDict::intern(std::string_view token) {
  auto it = ids_.find(std::string(token));
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<TokenId>(words_.size());
  words_.emplace_back(token);
  ids_.emplace(words_.back(), id);
  return id;
}

std::string normalize_token(std::string_view token) {
  std::string t(token);
  if (t.size() > 3 && t.back() == 's' && t[t.size() - 2] != 's' && t[t.size() - 2] != 'u' &&
      t[t.size() - 2] != 'i')
    t.pop_back();
  return t;
}

namespace {
bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
}  // namespace

std::vector<TokenId> token_set(std::string_view text, TokenDict& dict) {
  std::vector<TokenId> out;
  const auto raw = core::tokenize(text);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (core::is_stopword(raw[i])) continue;
    out.push_back(dict.intern(normalize_token(raw[i])));
    // "GPT-6", "iPhone 17": the name-number pair is the entity; alone the number is noise.
    if (i > 0 && all_digits(raw[i]) && raw[i].size() <= 3 && !all_digits(raw[i - 1]) && !core::is_stopword(raw[i - 1]))
      out.push_back(dict.intern(raw[i - 1] + raw[i]));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Topic analyze_topic(std::string_view topic, TokenDict& dict) {
  Topic t;
  t.phrase = core::collapse_whitespace(core::casefold(topic));
  t.tokens = token_set(topic, dict);
  for (TokenId id : t.tokens) t.generic.push_back(core::is_generic(dict.text(id)));
  return t;
}

void erase_items(Corpus& c, const std::vector<bool>& drop) {
  std::size_t w = 0;
  for (std::size_t r = 0; r < c.items.size(); ++r) {
    if (drop[r]) continue;
    if (w != r) {
      c.items[w] = std::move(c.items[r]);
      c.features[w] = std::move(c.features[r]);
    }
    ++w;
  }
  c.items.resize(w);
  c.features.resize(w);
}

// In place, one cycle at a time: building new vectors meant ~50 MB of fresh memory per
// call at 100k items, and dedupe, fuse and rerank call this up to five times per run.
void permute(Corpus& c, const std::vector<std::size_t>& order) {
  std::vector<bool> placed(order.size(), false);
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (placed[start] || order[start] == start) continue;
    model::Item item = std::move(c.items[start]);
    Features features = std::move(c.features[start]);
    std::size_t to = start;
    for (std::size_t from = order[to]; from != start; to = from, from = order[to]) {
      c.items[to] = std::move(c.items[from]);
      c.features[to] = std::move(c.features[from]);
      placed[to] = true;
    }
    c.items[to] = std::move(item);
    c.features[to] = std::move(features);
    placed[to] = true;
  }
}

}  // namespace pipeline
