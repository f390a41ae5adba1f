// normalize runs chunks of items on two threads (normalize.cpp). Its result must be the one a
// single pass over the items gives: the same dictionary ids (first-seen order, which dedupe's
// hashes and clustering's seed words depend on) and the same features. So must the later
// stages that run chunks on two threads (relevance's scoring, dedupe's hashes, the rerank's
// "why", the stories). Under ThreadSanitizer (label "sanitize") this also checks the chunks
// share nothing unsynchronized.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "core/time.hpp"
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

namespace {

// items(), dated, engaged, some cross-posted (the same URL) and some near-duplicate titles,
// some with the whole topic in the text or the title: every stage has work.
std::vector<model::Item> ranked_items(std::size_t n, const model::Window& w) {
  auto out = items(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto& it = out[i];
    it.published_at = w.to - static_cast<core::UnixSeconds>((i % 29) * 86400 + i % 3600);
    it.engagement = {{it.source == "github" ? "stars" : "score", static_cast<double>((i * 37) % 500)}};
    if (i % 7 == 0) it.snippet += " a new rust async runtime";
    if (i % 13 == 0 && i > 0) it.url = out[i - 1].url;
    if (i % 17 == 0 && i > 0) it.title = out[i - 1].title + " now";
    // Strong matches (the topic in the title, in order) and the words they share with others:
    // sense feedback has a profile to count and items to judge.
    if (i % 5 == 0) it.title = "Rust async runtime scheduler " + it.title;
    if (i % 6 == 0) it.snippet += " scheduler internals";
    it.hits = {{static_cast<int>(i % 2), static_cast<int>(i), it.source}};
  }
  return out;
}

struct RankRun {
  Corpus c;
  Ranked ranked;
};

RankRun rank_on(std::size_t threads, std::size_t n) {
  const std::size_t before = core::cpu_threads();
  core::set_cpu_threads(threads);
  RankSpec spec;
  spec.window = model::Window::ending(core::days_from_civil(2026, 3, 15) * 86400, 30);
  spec.sub_queries = {{"rust async runtime", 1.0}, {"async runtime", 0.5}};
  spec.source_weights = {{"github", 1.1}};
  RankRun r;
  r.c.items = ranked_items(n, spec.window);
  r.c.topic = analyze_topic("rust async runtime", r.c.dict);
  r.ranked = rank(r.c, spec);
  core::set_cpu_threads(before);
  return r;
}

}  // namespace

TEST(RankParallel, TwoThreadsGiveWhatOneThreadGives) {
  constexpr std::size_t kItems = 6000;  // several chunks in every stage that cuts them
  const RankRun one = rank_on(1, kItems);
  const RankRun two = rank_on(2, kItems);
  ASSERT_EQ(one.ranked.windowed, two.ranked.windowed);
  ASSERT_EQ(one.ranked.pruned, two.ranked.pruned);
  ASSERT_EQ(one.ranked.folded, two.ranked.folded);
  ASSERT_GT(one.ranked.folded, 0);  // the test covers dedupe's folds, not only its hashes
  ASSERT_EQ(one.c.items.size(), two.c.items.size());
  // ... and sense feedback's counts (relevance.cpp, in chunks of items): it judged some items.
  const auto judged =
      std::count_if(one.c.features.begin(), one.c.features.end(), [](const Features& f) { return f.evidence.sense >= 0; });
  ASSERT_GT(judged, 0);
  for (std::size_t i = 0; i < one.c.items.size(); ++i) {
    const auto& a = one.c.items[i];
    const auto& b = two.c.items[i];
    ASSERT_EQ(a.id, b.id) << i;
    // Exact: the same arithmetic in the same order, to the last bit.
    ASSERT_EQ(a.scores.relevance, b.scores.relevance) << a.id;
    ASSERT_EQ(a.scores.freshness, b.scores.freshness) << a.id;
    ASSERT_EQ(a.scores.engagement, b.scores.engagement) << a.id;
    ASSERT_EQ(a.scores.final, b.scores.final) << a.id;
    ASSERT_EQ(a.why, b.why) << a.id;
    ASSERT_EQ(a.cluster, b.cluster) << a.id;
    ASSERT_EQ(a.also_seen.size(), b.also_seen.size()) << a.id;
    for (std::size_t k = 0; k < a.also_seen.size(); ++k) ASSERT_EQ(a.also_seen[k].id, b.also_seen[k].id) << a.id;
    const Evidence& x = one.c.features[i].evidence;
    const Evidence& y = two.c.features[i].evidence;
    ASSERT_EQ(one.c.features[i].base, two.c.features[i].base) << a.id;
    ASSERT_TRUE(x.phrase == y.phrase && x.conflict == y.conflict && x.terms == y.terms && x.matched == y.matched &&
                x.in_title == y.in_title && x.form == y.form && x.context == y.context && x.support == y.support &&
                x.sense == y.sense && x.title_entity == y.title_entity && x.title_in_order == y.title_in_order &&
                x.context_names_topic == y.context_names_topic && x.generic_only == y.generic_only && x.mention == y.mention)
        << a.id;
  }
  const auto& ca = one.ranked.clusters;
  const auto& cb = two.ranked.clusters;
  ASSERT_EQ(ca.size(), cb.size());
  ASSERT_GT(ca.size(), 512u);  // more stories than one chunk of them
  for (std::size_t k = 0; k < ca.size(); ++k) {
    ASSERT_EQ(ca[k].id, cb[k].id);
    ASSERT_EQ(ca[k].title, cb[k].title) << ca[k].id;
    ASSERT_EQ(ca[k].score, cb[k].score) << ca[k].id;
    ASSERT_EQ(ca[k].items, cb[k].items) << ca[k].id;
    ASSERT_EQ(ca[k].sources, cb[k].sources) << ca[k].id;
    ASSERT_EQ(ca[k].uncertainty, cb[k].uncertainty) << ca[k].id;
  }
}
