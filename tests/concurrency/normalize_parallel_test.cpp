// normalize runs chunks of items on two threads (normalize.cpp). Its result must be the one a
// single pass over the items gives: the same dictionary ids (first-seen order, which dedupe's
// hashes and clustering's seed words depend on) and the same features. Under ThreadSanitizer
// (label "sanitize") this also checks the chunks share nothing unsynchronized.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pipeline/stages.hpp"

using namespace pipeline;

namespace {

// Titles and snippets whose words first appear in every chunk, with versions (facts),
// name-number pairs, tags and subreddits (context labels), "Show HN" prefixes and non-ASCII.
std::vector<model::Item> items(std::size_t n) {
  std::vector<model::Item> out;
  for (std::size_t i = 0; i < n; ++i) {
    model::Item it;
    it.source = i % 3 == 0 ? "reddit" : i % 3 == 1 ? "github" : "hackernews";
    it.id = it.source + ":" + std::to_string(i);
    const std::string w = "w" + std::to_string(i % 997), v = "v" + std::to_string(i);
    it.title = (i % 11 == 0 ? "Show HN: " : "") + std::string("Rust async ") + w + " " + v + " GPT " + std::to_string(i % 7) +
               " release 1." + std::to_string(i % 13) + ".0 Zürich";
    it.snippet = "Notes on " + v + " and " + w + " — café tokio-rs/tokio " + std::to_string(i % 5);
    it.url = "https://example.com/" + std::to_string(i) + "?utm_source=x";
    if (i % 3 == 0) it.container = "r/sub" + std::to_string(i % 17);
    if (i % 4 == 0) it.tags = {"tag" + std::to_string(i % 23), "Rust"};
    it.author = "a" + std::to_string(i % 31);
    out.push_back(std::move(it));
  }
  return out;
}

std::vector<TokenId> ids(const std::vector<MatchWord>& ws) {
  std::vector<TokenId> out;
  for (const auto& w : ws) out.push_back(w.id);
  return out;
}

}  // namespace

TEST(NormalizeParallel, ChunksOnThreadsGiveTheIdsAndFeaturesOfOneItemAtATime) {
  constexpr std::size_t kItems = 5000;  // several chunks
  Corpus all;
  all.items = items(kItems);
  all.topic = analyze_topic("rust async runtime", all.dict);
  normalize(all);

  // The reference: one item per call, the dictionary carried from call to call.
  TokenDict dict;
  analyze_topic("rust async runtime", dict);
  std::vector<Corpus> one(kItems);
  auto src = items(kItems);
  for (std::size_t i = 0; i < kItems; ++i) {
    one[i].items = {std::move(src[i])};
    one[i].dict = std::move(dict);
    normalize(one[i]);
    dict = std::move(one[i].dict);
  }

  ASSERT_EQ(all.dict.size(), dict.size());
  for (TokenId id = 0; id < dict.size(); ++id) ASSERT_EQ(all.dict.text(id), dict.text(id)) << "id " << id;
  for (std::size_t i = 0; i < kItems; ++i) {
    const Features& a = all.features[i];
    const Features& b = one[i].features[0];
    ASSERT_EQ(a.title, b.title) << i;
    ASSERT_EQ(ids(a.title_words), ids(b.title_words)) << i;
    ASSERT_EQ(ids(a.snippet_words), ids(b.snippet_words)) << i;
    ASSERT_EQ(a.facts.values, b.facts.values) << i;
    ASSERT_EQ(a.facts.polarity, b.facts.polarity) << i;
    ASSERT_EQ(a.context_labels, b.context_labels) << i;
    ASSERT_EQ(a.context_words.size(), b.context_words.size()) << i;
    for (std::size_t k = 0; k < a.context_words.size(); ++k) ASSERT_EQ(ids(a.context_words[k]), ids(b.context_words[k])) << i;
    ASSERT_EQ(a.canonical_url, b.canonical_url) << i;
    ASSERT_EQ(all.items[i].title, one[i].items[0].title) << i;
    ASSERT_EQ(all.items[i].url, one[i].items[0].url) << i;
  }
  // Words first seen in a late chunk exist (the test covers the merge, not one chunk).
  EXPECT_EQ(all.dict.text(all.features[kItems - 1].title_words[3].id), "v4999");
}
