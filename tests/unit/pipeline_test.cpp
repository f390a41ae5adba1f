// The pipeline's formulas, one stage at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "pipeline/plan.hpp"
#include "pipeline/stages.hpp"

using namespace pipeline;

namespace {

const model::Window kWindow = model::Window::ending(*core::parse_date("2026-11-29"), 30);
const core::UnixSeconds kDay = 86400;
const core::UnixSeconds kAsOf = *core::parse_date("2026-11-29") + 12 * 3600;

model::Item item(std::string source, std::string id, std::string title, std::string url = "",
                 std::optional<core::UnixSeconds> at = kAsOf, std::vector<model::Engagement> eng = {}) {
  model::Item it;
  it.source = source;
  it.id = source + ":" + id;
  it.title = std::move(title);
  it.url = url.empty() ? "https://example.com/" + source + "/" + id : url;
  it.published_at = at;
  it.engagement = std::move(eng);
  it.hits.push_back({0, 0, source});
  return it;
}

// A corpus as the fetch leaves it: nothing normalized or scored (what rank() starts from).
Corpus unranked(std::string topic, std::vector<model::Item> items) {
  Corpus c;
  c.items = std::move(items);
  c.topic = analyze_topic(topic, c.dict);
  return c;
}

Corpus corpus(std::string topic, std::vector<model::Item> items) {
  Corpus c = unranked(std::move(topic), std::move(items));
  normalize(c);
  return c;
}

// Runs scoring stages up to the base score, as research.cpp does.
void score(Corpus& c) {
  score_relevance(c);
  score_engagement(c);
  score_freshness(c, kWindow);
  score_base(c, {});
  assign_stream_ranks(c);
}

}  // namespace

TEST(Relevance, FullTitleMatchScoresHighest) {
  auto c =
      corpus("rust async runtime", {item("hackernews", "1", "A new Rust async runtime"),
                                    item("hackernews", "2", "Rust 2026 roadmap"), item("hackernews", "3", "Gardening tips")});
  score_relevance(c);
  EXPECT_DOUBLE_EQ(c.items[0].scores.relevance, 1.0);
  EXPECT_NEAR(c.items[1].scores.relevance, 0.6 / 3.0, 1e-9);  // 1 of 3 words: 0.6 coverage, no phrase
  EXPECT_EQ(c.items[2].scores.relevance, 0.0);
}

TEST(Relevance, MatchesOnGenericWordsAloneAreCapped) {
  auto c = corpus("new tokio release",
                  {item("reddit", "1", "The new release of my album"), item("reddit", "2", "Tokio 1.40 release notes")});
  score_relevance(c);
  EXPECT_LE(c.items[0].scores.relevance, 0.2);
  EXPECT_GT(c.items[1].scores.relevance, 0.5);
}

TEST(Relevance, PhraseAndSnippetMatches) {
  auto a = item("lobsters", "1", "Thoughts on zero copy parsing");
  auto b = item("lobsters", "2", "Parsing benchmarks");
  b.snippet = "we compare zero copy approaches";
  auto c = corpus("zero copy parsing", {a, b});
  score_relevance(c);
  EXPECT_DOUBLE_EQ(c.items[0].scores.relevance, 1.0);  // phrase in title, capped at 1
  EXPECT_LT(c.items[1].scores.relevance, c.items[0].scores.relevance);
  EXPECT_GT(c.items[1].scores.relevance, 0.4);
}

TEST(Engagement, WeightedLog1pPerSource) {
  auto it = item("hackernews", "1", "x", "", kAsOf, {{"points", 100}, {"num_comments", 50}});
  EXPECT_NEAR(engagement_raw(it), std::log1p(100) + 0.7 * std::log1p(50), 1e-9);
  auto unknown = item("hackernews", "2", "x", "", kAsOf, {{"mystery", 1e6}});
  EXPECT_EQ(engagement_raw(unknown), 0);
}

TEST(Engagement, NormalizedWithinEachStreamButNotInflated) {
  auto c = corpus("x", {item("hackernews", "1", "x", "", kAsOf, {{"points", 2000}, {"num_comments", 900}}),
                        item("hackernews", "2", "x", "", kAsOf, {{"points", 20}, {"num_comments", 5}}),
                        item("reddit", "3", "x", "", kAsOf, {{"score", 4}, {"num_comments", 1}})});
  score_engagement(c);
  EXPECT_DOUBLE_EQ(c.items[0].scores.engagement, 100.0);  // the stream's best
  EXPECT_LT(c.items[1].scores.engagement, 50.0);
  // The only reddit item is its stream's best, but 4 upvotes is not "100".
  EXPECT_LT(c.items[2].scores.engagement, 40.0);
}

// The yardstick is a front-page hit, not the pool's loudest item: in a quiet pool a routine
// question and a typical story stay what they are, and a front-page story still scores 100.
TEST(Engagement, AQuietPoolsLoudestItemIsNoFrontPageHit) {
  auto c = corpus("x", {item("stackexchange", "1", "x", "", kAsOf, {{"score", 10}, {"answer_count", 3}, {"view_count", 2000}}),
                        item("hackernews", "2", "x", "", kAsOf, {{"points", 150}, {"num_comments", 60}}),
                        item("reddit", "3", "x", "", kAsOf, {{"score", 6000}, {"num_comments", 1500}})});
  score_engagement(c);
  EXPECT_NEAR(c.items[0].scores.engagement, 100.0 / 1.5, 0.5) << "a typical question";
  EXPECT_NEAR(c.items[1].scores.engagement, 100.0 / 1.5, 0.5) << "a typical story";
  EXPECT_DOUBLE_EQ(c.items[2].scores.engagement, 100.0) << "past the yardstick, the pool's loudest";
}

// A picture or clip on the platform's own host, with no text, is a reaction to the news: twice
// the votes do not lift it over the story with text or an outside link.
TEST(Base, APostThatIsOnlyATitleRanksBelowTheStoryOfLessEngagement) {
  const std::string self = "https://www.reddit.com/r/docker/comments/2/meme/";
  auto story = item("reddit", "1", "Docker image size down 80% with distroless", "https://example.com/distroless");
  story.discussion_url = "https://www.reddit.com/r/docker/comments/1/distroless/";
  auto question = item("reddit", "3", "Docker image size: what worked for you?", self + "q");
  question.snippet = "We went from 1.2 GB to 90 MB with a multi-stage build.";
  auto meme = item("reddit", "2", "Docker image size so small it is just FROM scratch", self);
  EXPECT_FALSE(only_a_title(story));
  EXPECT_FALSE(only_a_title(question));
  EXPECT_TRUE(only_a_title(meme));
  auto c = corpus("docker image size", {story, meme, question});
  for (auto& it : c.items) it.scores.relevance = 1.0, it.scores.freshness = 100.0;
  c.items[0].scores.engagement = c.items[2].scores.engagement = 50.0;
  c.items[1].scores.engagement = 100.0;
  score_base(c, {});
  EXPECT_GT(c.features[0].base, c.features[1].base);
  EXPECT_GT(c.features[2].base, c.features[1].base);
  EXPECT_NEAR(c.features[1].base, 100.0 * 0.8 * (0.40 + 0.30 + 0.25), 1e-9);
}

TEST(Freshness, LinearOverTheWindowAndZeroWhenUndated) {
  auto fresh = item("hackernews", "1", "x", "", kWindow.to);
  auto old = item("hackernews", "2", "x", "", kWindow.from);
  auto mid = item("hackernews", "3", "x", "", kWindow.to - 15 * kDay);
  auto undated = item("hackernews", "4", "x", "", std::nullopt);
  EXPECT_DOUBLE_EQ(freshness(kWindow, fresh), 100.0);
  EXPECT_NEAR(freshness(kWindow, old), 0.0, 0.01);  // the first day is 31 calendar days before the end
  EXPECT_NEAR(freshness(kWindow, mid), 100.0 * (1 - 15.0 / 31.0), 0.01);
  EXPECT_EQ(freshness(kWindow, undated), 0.0);
}

TEST(Window, BothEndsInclusiveUndatedKept) {
  EXPECT_EQ(core::format_iso8601(kWindow.from), "2026-10-30T00:00:00Z");
  EXPECT_EQ(core::format_iso8601(kWindow.to), "2026-11-29T23:59:59Z");
  auto c =
      corpus("x", {item("hackernews", "in-first", "x", "", kWindow.from), item("hackernews", "in-last", "x", "", kWindow.to),
                   item("hackernews", "before", "x", "", kWindow.from - 1), item("hackernews", "after", "x", "", kWindow.to + 1),
                   item("hackernews", "undated", "x", "", std::nullopt)});
  EXPECT_EQ(window_filter(c, kWindow), 2);
  std::vector<std::string> kept;
  for (auto& it : c.items) kept.push_back(it.id);
  EXPECT_EQ(kept, (std::vector<std::string>{"hackernews:in-first", "hackernews:in-last", "hackernews:undated"}));
}

TEST(Prune, RelevanceFloorAndStricterFloorForUnlovedSocialPosts) {
  auto c = corpus("tokio runtime scheduler",
                  {item("reddit", "zero", "tokio scheduler", "", kAsOf, {{"score", 0}, {"num_comments", 0}}),  // 0.6 rel
                   item("reddit", "zero-weak", "tokio news", "", kAsOf, {{"score", 0}}),                       // 0.2 rel
                   item("reddit", "loved-weak", "tokio news today", "", kAsOf, {{"score", 40}}),               // 0.2 rel
                   item("reddit", "unknown", "tokio news again", "", kAsOf, {}),                               // no data
                   item("github", "zero", "tokio fork", "", kAsOf, {{"stars", 0}}),
                   item("hackernews", "off", "cooking pasta", "", kAsOf, {{"points", 900}})});
  score_relevance(c);
  prune(c);
  std::vector<std::string> kept;
  for (auto& it : c.items) kept.push_back(it.id);
  EXPECT_EQ(kept, (std::vector<std::string>{"reddit:zero", "reddit:loved-weak", "reddit:unknown", "github:zero"}));
}

TEST(Dedupe, FoldsCrossPostsByCanonicalUrlKeepingTheStrongest) {
  auto c = corpus(
      "rust 2",
      {item("reddit", "a", "Rust 2 is here", "https://blog.rust-lang.org/rust-2?utm_source=reddit", kAsOf, {{"score", 10}}),
       item("hackernews", "b", "Rust 2.0 released", "https://blog.rust-lang.org/rust-2/", kAsOf, {{"points", 900}}),
       item("lobsters", "c", "Something else about rust 2", "https://other.org/x")});
  score(c);
  EXPECT_EQ(dedupe(c), 1);
  ASSERT_EQ(c.items.size(), 2u);
  const auto& kept = c.items[0].source == "hackernews" ? c.items[0] : c.items[1];
  EXPECT_EQ(kept.id, "hackernews:b");
  ASSERT_EQ(kept.also_seen.size(), 1u);
  EXPECT_EQ(kept.also_seen[0].source, "reddit");
  EXPECT_EQ(kept.hits.size(), 2u) << "the sighting's stream position travels with it";
}

TEST(Dedupe, FoldsNearDuplicateTitlesButNotMerelySimilarOnes) {
  auto c = corpus("postgres", {item("hackernews", "1", "PostgreSQL 18 released with async IO and virtual columns"),
                               item("reddit", "2", "PostgreSQL 18 released with async IO and virtual columns!"),
                               item("lobsters", "3", "PostgreSQL 18 released: async IO, virtual generated columns"),
                               item("lobsters", "5", "What PostgreSQL 18 async IO means for your queries"),
                               item("github", "4", "PostgreSQL 17 performance regression in async IO")});
  score(c);
  dedupe(c);
  std::vector<std::string> ids;
  for (auto& it : c.items) ids.push_back(it.id);
  EXPECT_EQ(ids.size(), 3u) << "the twin and the one-word rewording fold; a different angle and another story stay";
  EXPECT_EQ(c.items[0].also_seen.size() + c.items[1].also_seen.size() + c.items[2].also_seen.size(), 2u);
}

TEST(Dedupe, ScalesWithoutAllPairs) {
  // 20k items that all share most words: an all-pairs scan would be 2e8 comparisons.
  std::vector<model::Item> items;
  for (int i = 0; i < 20000; ++i)
    items.push_back(item("reddit", std::to_string(i), "rust async runtime benchmark results part " + std::to_string(i)));
  auto c = corpus("rust async runtime", std::move(items));
  score(c);
  const auto t0 = std::chrono::steady_clock::now();
  dedupe(c);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 5000) << "dedupe took " << ms << " ms";  // generous: a guard against O(n^2), not a benchmark
}

TEST(Fusion, ReciprocalRankFusionRewardsAgreementAcrossStreams) {
  auto a = item("hackernews", "a", "tokio scheduler deep dive");
  auto b = item("hackernews", "b", "tokio scheduler deep dive part two");
  b.hits = {{0, 0, "hackernews"}, {1, 0, "hackernews"}};  // found by two sub-queries
  auto c = corpus("tokio scheduler", {a, b});
  score(c);
  fuse(c, {{"tokio scheduler", 1.0}, {"tokio", 0.7}}, {});
  EXPECT_EQ(c.items[0].id, "hackernews:b");
  // fused(b) = 1/61 + 0.7/61; fused(a) = 1/62 (second in stream 0): agreement shares 100 and 100*(1/62)/(1.7/61).
  const double base_a = 0.0;
  (void)base_a;
  EXPECT_NEAR(c.items[0].scores.final - c.items[1].scores.final, 0.3 * (100.0 - 100.0 * (1.0 / 62) / (1.7 / 61)) + 0.0, 3.0);
}

TEST(Fusion, AuthorCapDemotesTheFourthItemOfOneAuthor) {
  std::vector<model::Item> items;
  for (int i = 0; i < 4; ++i) {
    auto it = item("reddit", std::to_string(i), "tokio tip number " + std::to_string(i), "", kAsOf, {{"score", 100.0 - i}});
    it.author = "prolific";
    items.push_back(it);
  }
  auto other = item("reddit", "x", "tokio tip from someone else", "", kAsOf, {{"score", 10}});
  other.author = "quiet";
  items.push_back(other);
  auto c = corpus("tokio tip", items);
  score(c);
  fuse(c, {{"tokio tip", 1.0}}, {});
  EXPECT_EQ(c.items.back().id, "reddit:3");
  EXPECT_EQ(c.items[3].id, "reddit:x");
}

TEST(Rerank, UndatedItemsNeverOutrankDatedOnes) {
  auto dated = item("hackernews", "d", "tokio something", "", kWindow.from, {{"points", 1}});
  auto undated = item("hackernews", "u", "tokio tokio exact", "", std::nullopt, {{"points", 5000}});
  auto c = corpus("tokio", {undated, dated});
  score(c);
  fuse(c, {{"tokio", 1.0}}, {});
  rerank(c);
  EXPECT_EQ(c.items[0].id, "hackernews:d");
  EXPECT_LT(c.items[1].scores.final, c.items[0].scores.final);
}

TEST(Cluster, GroupsOneStoryAcrossSourcesAndLabelsUncertainty) {
  auto c =
      corpus("openai", {item("hackernews", "1", "OpenAI announces Orion model with 1M context", "", kAsOf, {{"points", 800}}),
                        item("reddit", "2", "Orion model from OpenAI: 1M context window is wild", "", kAsOf, {{"score", 3000}}),
                        item("github", "3", "openai python sdk adds batch retries", "", kAsOf, {{"stars", 2}})});
  score(c);
  fuse(c, {{"openai", 1.0}}, {});
  rerank(c);
  auto clusters = cluster(c);
  ASSERT_EQ(clusters.size(), 2u);
  EXPECT_EQ(clusters[0].sources, (std::vector<std::string>{"hackernews", "reddit"}));
  EXPECT_EQ(clusters[0].items.size(), 2u);
  EXPECT_FALSE(clusters[0].uncertainty);
  EXPECT_EQ(clusters[1].uncertainty, "thin-evidence");
  for (const auto& it : c.items) EXPECT_FALSE(it.cluster.empty());
}

TEST(Outcome, NothingSolidAndEvidenceWarnings) {
  std::vector<std::string> warnings;
  std::vector<model::Item> weak{item("reddit", "1", "x")};
  weak[0].scores = {0.3, 10, 5, 20};
  EXPECT_EQ(decide_outcome(weak, {}, warnings), model::Outcome::nothing_solid);
  EXPECT_NE(std::find_if(warnings.begin(), warnings.end(), [](auto& w) { return w.find("thin evidence") != std::string::npos; }),
            warnings.end());

  warnings.clear();
  std::vector<model::Item> strong;
  for (int i = 0; i < 6; ++i) {
    strong.push_back(item("reddit", std::to_string(i), "x"));
    strong.back().scores = {0.9, 90, 50, 70};
  }
  std::map<std::string, model::SourceStatus> status{{"reddit", {}}, {"arxiv", {model::SourceState::timeout, 0, "slow", 0, 1}}};
  EXPECT_EQ(decide_outcome(strong, status, warnings), model::Outcome::ok);
  auto has = [&](std::string_view s) {
    return std::any_of(warnings.begin(), warnings.end(), [&](auto& w) { return w.find(s) != std::string::npos; });
  };
  EXPECT_TRUE(has("concentrated evidence"));
  EXPECT_TRUE(has("arxiv (timeout)"));
  EXPECT_TRUE(has("1 of 2 sources degraded"));
}

TEST(Outcome, PartialSourcesAnsweredButUnreachableOnesDidNot) {
  std::vector<std::string> warnings;
  auto has = [&](std::string_view s) {
    return std::any_of(warnings.begin(), warnings.end(), [&](auto& w) { return w.find(s) != std::string::npos; });
  };
  std::map<std::string, model::SourceStatus> partial{{"reddit", {model::SourceState::partial, 0, "one stream failed", 0, 2}}};
  EXPECT_EQ(decide_outcome({}, partial, warnings), model::Outcome::nothing_solid);
  EXPECT_FALSE(has("no source answered"));
  EXPECT_TRUE(has("nothing solid: nothing in the window matched the topic"));

  warnings.clear();
  std::map<std::string, model::SourceStatus> down{{"reddit", {model::SourceState::unreachable, 0, "dns", 0, 1}},
                                                  {"github", {model::SourceState::skipped_unconfigured, 0, "off", 0, 0}}};
  EXPECT_EQ(decide_outcome({}, down, warnings), model::Outcome::nothing_solid);
  EXPECT_TRUE(has("no source answered"));
  EXPECT_TRUE(has("1 of 1 sources degraded"));
  EXPECT_FALSE(has("nothing solid"));  // the empty brief is explained by the outage, not by the topic
}

TEST(Plan, DeterministicAndDepthBounded) {
  auto a = make_plan("Rust vs Go for backend services", model::Depth::standard);
  auto b = make_plan("Rust vs Go for backend services", model::Depth::standard);
  ASSERT_EQ(a.sub_queries.size(), b.sub_queries.size());
  for (std::size_t i = 0; i < a.sub_queries.size(); ++i) EXPECT_EQ(a.sub_queries[i].text, b.sub_queries[i].text);
  EXPECT_EQ(a.intent, "comparison");
  EXPECT_EQ(a.sub_queries[0].text, "Rust vs Go for backend services");
  EXPECT_EQ(a.sub_queries[1].text, "rust");
  EXPECT_EQ(a.sub_queries[2].text, "go for backend services");
  for (auto d : {model::Depth::quick, model::Depth::standard, model::Depth::deep}) {
    auto p = make_plan("how to profile tokio tasks in production", d);
    EXPECT_GE(p.sub_queries.size(), 1u);
    EXPECT_LE(static_cast<int>(p.sub_queries.size()), max_sub_queries(d));
    EXPECT_EQ(p.intent, "howto");
  }
  EXPECT_EQ(make_plan("will the fed cut rates", model::Depth::quick).intent, "prediction");
  // "news" by default is open: the ranking may read the intent from the pool; named, it is not.
  EXPECT_TRUE(make_plan("diffusion language models", model::Depth::standard).intent_open);
  EXPECT_FALSE(make_plan("diffusion language models papers", model::Depth::standard).intent_open);
  std::string why;
  const auto host = parse_host_plan(R"({"intent":"news","synonyms":{"dLLM":["diffusion LLM"]}})", &why);
  ASSERT_TRUE(host) << why;
  EXPECT_FALSE(plan_for("dLLM", model::Depth::standard, host).intent_open) << "the host said news";
  EXPECT_EQ(make_plan("tokio", model::Depth::deep).sub_queries.size(), 1u);
}

namespace {

std::vector<std::string> asked(std::string_view topic, model::Depth depth = model::Depth::standard) {
  std::vector<std::string> out;
  for (const auto& q : make_plan(topic, depth).sub_queries) out.push_back(q.text);
  return out;
}

bool has(const std::vector<std::string>& v, std::string_view s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

// Platforms' searches hold every word, so each word the topic adds is a filter: the planner
// also asks for the head entity without its qualifiers, and the head with each qualifier.
TEST(Plan, AsksForTheHeadWithoutItsQualifiers) {
  auto q = asked("Signal app");
  EXPECT_EQ(q[0], "Signal app");
  EXPECT_TRUE(has(q, "Signal")) << "news about Signal rarely says 'app'";
  q = asked("Rep. Adam Smith");
  EXPECT_EQ(q[0], "Rep. Adam Smith");
  EXPECT_TRUE(has(q, "Adam Smith")) << "a title is a qualifier, not part of the name";
  q = asked("Kubernetes 1.38 controversy");
  ASSERT_GE(q.size(), 2u);
  EXPECT_EQ(q[1], "Kubernetes 1.38") << "the head before the spellings: a qualifier filters more than a spelling brings";
  // A year at the end dates the question: also asked without it (and the joined edition stays).
  const auto dated = make_plan("Steam Machine 2026", model::Depth::standard);
  ASSERT_GE(dated.sub_queries.size(), 2u);
  EXPECT_EQ(dated.sub_queries[1].text, "Steam Machine");
  EXPECT_DOUBLE_EQ(dated.sub_queries[1].weight, 1.0) << "as much the question as the topic typed";
  EXPECT_TRUE(has(asked("Steam Machine in 2026"), "Steam Machine"));
  EXPECT_TRUE(has(asked("diffusion language models 2026"), "diffusion language models"));
  q = asked("PostgreSQL 19 2026");
  EXPECT_TRUE(has(q, "Postgres 19")) << "spelled the other ways without the year";
  EXPECT_FALSE(has(q, "Postgres 19 2026"));
  q = asked("ACL 2026");
  EXPECT_TRUE(has(q, "ACL2026"));
  q = asked("rep. adam smith");
  EXPECT_TRUE(has(q, "adam smith")) << "what follows a title is a name, however it is typed";
  EXPECT_EQ(asked("TypeScript 7's")[1], "TypeScript 7") << "a version's possessive too";
  q = asked("Washington minimum wage");
  EXPECT_TRUE(has(q, "Washington"));
  EXPECT_TRUE(has(q, "Washington wage")) << "the head with the qualifier's own head noun";
  q = asked("Mistral new model");
  EXPECT_TRUE(has(q, "Mistral"));
  for (const auto& s : q) EXPECT_NE(s.find("Mistral"), std::string::npos) << "never a qualifier alone: " << s;
  // A quick run asks the topic and the next form: the topic alone reached 325 of the cases'
  // 395 stories at quick, these two 369.
  EXPECT_EQ(asked("Starlink outage", model::Depth::quick), (std::vector<std::string>{"Starlink outage", "Starlink"}));
  EXPECT_EQ(asked("year 2038 problem", model::Depth::quick).size(), 1u) << "nothing else to ask: nothing made up";
  // No capital, no question: nothing says which word is the name ("tim cook"), so nothing is split.
  EXPECT_EQ(asked("tim cook"), (std::vector<std::string>{"tim cook"}));
  EXPECT_EQ(asked("Kevin Rose"), (std::vector<std::string>{"Kevin Rose"})) << "a name is one unit";
  EXPECT_EQ(asked("Paris Agreement"), (std::vector<std::string>{"Paris Agreement"}));
}

// The words that ask for news name no subject; typed in lower case they are left out, with the
// function words they leave at the ends, but not a question's frame, and never all of the topic.
TEST(Plan, TheSubjectIsTheTopicWithoutTheWordsThatAskForNews) {
  struct Row {
    std::string_view topic, subject, why;
  };
  const Row rows[] = {
      {"Kubernetes 1.38 news", "Kubernetes 1.38", ""},
      {"latest news on the Steam Machine", "Steam Machine", ""},
      {"Steam Machine this week", "Steam Machine", ""},
      {"recent developments in diffusion language models", "diffusion language models", ""},
      {"STEAM MACHINE NEWS", "STEAM MACHINE", "capitals say nothing of names"},
      {"latest how do I reduce Docker image size", "how do I reduce Docker image size", ""},
      {"Fox News", "Fox News", "a name"},
      {"Hacker News", "Hacker News", ""},
      {"news", "news", "never the whole topic"},
      {"latest news", "latest news", ""},
      {"Swift 6 concurrency", "Swift 6 concurrency", ""},
      {"this week in rust", "rust", ""},
      {"This Week in Rust", "This Week in Rust", "the newsletter"},
      {"what are people saying about the Steam Machine", "Steam Machine", ""},
      {"thoughts on Zig 1.0", "Zig 1.0", ""},
      {"Steam Machine reddit", "Steam Machine", ""},
      {"reddit api pricing", "reddit api pricing", "the subject"},
      {"what are people saying about how to set up passkeys", "how to set up passkeys", ""},
      {"Kubernetes news and updates", "Kubernetes", ""},
      {"Mistral news model", "Mistral news model", "only at the ends"},
      {"the Paris Agreement", "Paris Agreement", "a leading article"},
      {"The Verge", "The Verge", ""},
      {"what do people think of the Steam Machine", "Steam Machine", ""},
      {"people analytics", "people analytics", "who, without talk, is a subject"},
      {"new york city", "new york city", ""},
      {"What's new with Bun", "Bun", "a sentence's capital"},
      {"Latest on the Steam Machine", "Steam Machine", ""},
      {"News Corp", "News Corp", ""},
      {"what is new in Swift 6", "Swift 6", ""},
      {"Steam Machine recap", "Steam Machine", ""},
      {"windows update", "windows update", "an update may be the subject"},
      {"show hn", "show hn", ""},
      {"Steam Machine news & updates", "Steam Machine", "punctuation between asking words"},
      {"&", "&", ""},
      {"Steam Machine news 2026", "Steam Machine 2026", "the year dates the subject"},
      {"ACL 2026 news", "ACL 2026", ""},
      {"give me the latest on Zig 1.0", "Zig 1.0", "a request to the tool"},
      {"catch me up on the Steam Machine", "Steam Machine", ""},
      {"catch 22", "catch 22", ""},
      {"summarize Kubernetes 1.38 news", "Kubernetes 1.38", ""},
      {"Steam Machine News", "Steam Machine", "Title Case: an asking word ending three words"},
      {"Latest Steam Machine News", "Steam Machine", ""},
      {"Google News", "Google News", "ending two: maybe a name's"},
      {"GDL Streik aktuell", "GDL Streik", "German"},
      {"Verifactu autónomos noticias", "Verifactu autónomos", "Spanish"},
      {"about the Steam Machine", "Steam Machine", "what a request says before its subject"},
      {"About Schmidt", "About Schmidt", "a title"},
      {"anything new on Zig 1.0", "Zig 1.0", ""},
      {"Steam Machine in the last 30 days", "Steam Machine", ""},
      {"Steam Machine past few weeks", "Steam Machine", ""},
      {"the last days of pompeii", "last days of pompeii", "no number: no span of time (the article goes)"},
      {"Steam Machine buzz", "Steam Machine", ""},
      {"Steam Machine hot takes", "Steam Machine", ""},
      {"hot takes", "hot takes", "never the whole topic"},
      {"what's going on with the Steam Machine", "Steam Machine", ""},
      {"Steam Machine: what happened", "Steam Machine", "the separator goes with the asking"},
      {"Steam Machine on hacker news", "Steam Machine", ""},
      {"Steam Machine on hn", "Steam Machine", ""},
      {"tldr Kubernetes 1.38", "Kubernetes 1.38", ""},
      {"summary of the Steam Machine", "Steam Machine", ""},
      {"executive summary", "executive summary", ""},
      {"thinking machines lab", "thinking machines lab", "a talk word alone is no question"},
      {"going concern", "going concern", ""},
      {"saying goodbye to windows 10", "saying goodbye to windows 10", ""},
      {"what happened", "what happened", "never the whole topic"},
      {"hottest Zig 1.0 news", "Zig 1.0", "a superlative asks with asking at the end"},
      {"hottest how to set up passkeys news", "how to set up passkeys", "the question stays whole"},
      {"hottest takes", "hottest takes", "alone it is the subject's"},
      {"best buy news", "best buy", "names open with other superlatives"},
      {"top gear news", "top gear", ""},
      {"info on the Steam Machine", "Steam Machine", ""},
      {"anything about Bun 2", "Bun 2", ""},
      {"information about Zig 1.0", "Zig 1.0", ""},
      {"information retrieval", "information retrieval", "a subject, not a request"},
      {"anything goes", "anything goes", ""},
      {"everything everywhere all at once", "everything everywhere all at once", ""},
      {"Steam Machine hn", "Steam Machine", "a platform's name after the subject"},
      {"show hn", "show hn", "Hacker News's own kind of post"},
      {"ask hn", "ask hn", ""},
  };
  for (const auto& r : rows) EXPECT_EQ(subject_of(r.topic), r.subject) << r.topic << ": " << r.why;
}

TEST(Plan, AQuestionIsAskedWithoutItsFrameAndTaskVerb) {
  EXPECT_EQ(asked("what is Kubernetes 1.38")[0], "Kubernetes 1.38") << "a lower-case opening: a question, not a title";
  EXPECT_EQ(asked("What Is Kubernetes 1.38")[0], "What Is Kubernetes 1.38") << "a title";
  auto q = asked("how to set up passkeys for elderly parents");
  EXPECT_EQ(q[0], "passkeys elderly parents") << "no answer repeats 'how to set up'";
  EXPECT_TRUE(has(q, "passkeys")) << "a lower-case question's first phrase is what it is about";
  EXPECT_TRUE(has(q, "passkeys parents"));
  q = asked("how do I reduce Docker image size");
  EXPECT_EQ(q[0], "Docker image size");
  EXPECT_TRUE(has(q, "Docker"));
  EXPECT_FALSE(has(asked("how do I reduce Docker image size"), "how do I reduce Docker image size"));
  EXPECT_EQ(asked("CAN bus protocol")[0], "CAN bus protocol") << "an auxiliary opens a question only with a '?'";
  EXPECT_EQ(asked("can I run llama.cpp on a phone?")[0], "llama.cpp phone");
  EXPECT_EQ(asked("How I Met Your Mother")[0], "How I Met Your Mother") << "a title, not a question";
  EXPECT_EQ(asked("what are diffusion language models")[0], "diffusion language models") << "no verb to drop";
}

TEST(Plan, AQuestionMarkIsNeverSearchedFor) {
  for (const char* topic : {"Rep. Adam Smith?", "Rep. Adam Smith??", "is Bun 2 any good?"})
    for (const auto& sq : make_plan(topic, model::Depth::deep).sub_queries)
      EXPECT_EQ(sq.text.find('?'), std::string::npos) << topic << ": " << sq.text;
  EXPECT_EQ(asked("Rep. Adam Smith?")[0], "Rep. Adam Smith");
  EXPECT_TRUE(has(asked("Rep. Adam Smith?", model::Depth::deep), "\"Rep. Adam Smith\""));
  EXPECT_EQ(asked("is Bun 2 any good?")[0], "Bun 2 good") << "still a question: the mark is read before it goes";
  EXPECT_EQ(asked("Steam Machine ?")[0], "Steam Machine") << "nor the space before it";
  EXPECT_EQ(asked("?")[0], "?") << "nothing else to ask";
  for (const auto& sq : make_plan("\"?\"", model::Depth::deep).sub_queries) EXPECT_NE(sq.text, "\"\"") << "no empty phrase";
}

TEST(Plan, NamesSideBySideAloneNamesAWordApartTogether) {
  auto q = asked("QUICbleed CVE-2026-31790");
  EXPECT_TRUE(has(q, "QUICbleed")) << "the press names the nickname only";
  EXPECT_TRUE(has(q, "CVE-2026-31790")) << "advisories name the id only";
  q = asked("migrate Postgres to MySQL");
  EXPECT_TRUE(has(q, "Postgres MySQL")) << "migrating, moving from, Postgres → MySQL: the entities hold every form";
  q = asked("moving from Heroku to DigitalOcean");
  EXPECT_TRUE(has(q, "Heroku DigitalOcean"));
  EXPECT_FALSE(has(q, "DigitalOcean")) << "the destination alone is another topic";
  EXPECT_FALSE(has(q, "Heroku"));
  EXPECT_TRUE(has(asked("Python with Rust"), "Python Rust"));
}

TEST(Plan, VersionsJoinedAndWordsSpelledTheOtherWays) {
  EXPECT_EQ(asked("ACL 2026"), (std::vector<std::string>{"ACL 2026", "ACL", "ACL2026"})) << "a year may date the question";
  auto q = asked("Go 1.26");
  EXPECT_EQ(q[1], "Golang 1.26") << "the table's spellings come first";
  EXPECT_TRUE(has(q, "Go1.26")) << "toolchains write go1.26";
  EXPECT_TRUE(has(asked("Swift 6 concurrency"), "Swift6"));
  EXPECT_TRUE(has(asked("Zürich"), "zuerich")) << "platforms fold accents, they do not transliterate";
  EXPECT_TRUE(has(asked("diffusion language models", model::Depth::deep), "diffusion language model"));
}

TEST(Plan, HostPlanIsValidated) {
  std::string err;
  auto p =
      parse_host_plan(R"({"intent":"news","sub_queries":["a b",{"query":"c","weight":0.5}],"source_weights":{"hn":1.5}})", &err);
  ASSERT_TRUE(p) << err;
  EXPECT_EQ(p->sub_queries.size(), 2u);
  EXPECT_EQ(p->sub_queries[1].weight, 0.5);
  EXPECT_EQ(p->source_weights.at("hackernews"), 1.5);
  EXPECT_TRUE(p->from_host);
  EXPECT_FALSE(parse_host_plan("[1]", &err));
  EXPECT_FALSE(parse_host_plan(R"({"sub_queries":[]})", &err));
  EXPECT_FALSE(parse_host_plan(R"({"sub_queries":["a","b","c","d","e","f"]})", &err));
  EXPECT_FALSE(parse_host_plan(R"({"sub_queries":["a"],"source_weights":{"myspace":1}})", &err));
  EXPECT_NE(err.find("myspace"), std::string::npos);
  EXPECT_FALSE(parse_host_plan(R"({"sub_queries":[{"query":"a","weight":-1}]})", &err));
}

TEST(Dedupe, AFoldedItemsUrlStillLeadsToItsRepresentative) {
  // b folds into a by title; c shares only b's URL. c must fold into a, not vanish with b.
  auto c = corpus(
      "vector database",
      {item("hackernews", "a", "Vector database benchmarks for 2026 released", "https://a.example/post", kAsOf,
            {{"points", 900}}),
       item("reddit", "b", "Vector database benchmarks for 2026 released", "https://b.example/post", kAsOf, {{"score", 50}}),
       item("lobsters", "c", "Totally different wording here", "https://b.example/post", kAsOf, {{"score", 1}})});
  score(c);
  EXPECT_EQ(dedupe(c), 2);
  ASSERT_EQ(c.items.size(), 1u);
  std::set<std::string> seen;
  for (const auto& s : c.items[0].also_seen) seen.insert(s.source);
  EXPECT_EQ(seen, (std::set<std::string>{"reddit", "lobsters"}));
}

namespace {
// The titles dedupe keeps apart, each against the first: ids of the survivors.
std::size_t survivors(std::vector<std::string> titles) {
  std::vector<model::Item> items;
  for (std::size_t k = 0; k < titles.size(); ++k)
    items.push_back(item(k % 2 ? "reddit" : "hackernews", std::to_string(k), titles[k], "", kAsOf,
                         {{"score", 100.0 - static_cast<double>(k)}}));
  auto c = corpus("", std::move(items));
  dedupe(c);
  return c.items.size();
}

Facts facts_of(std::string_view title, TokenDict& dict) { return title_facts(match_sequence(title, dict), dict); }
bool compatible(std::string_view a, std::string_view b) {
  TokenDict dict;
  return compatible_facts(facts_of(a, dict), facts_of(b, dict));
}
}  // namespace

// Near-duplicate titles that state different facts are different stories.
TEST(Facts, NegationsVersionsAndIdentifiersMustAgree) {
  // The issue's examples.
  EXPECT_FALSE(compatible("Tokio 2.0 released", "Tokio 2.0 not released"));
  EXPECT_FALSE(compatible("Rust 1.91", "Rust 1.92"));
  EXPECT_FALSE(compatible("Critical OpenSSL flaw CVE-2025-1234 patched", "Critical OpenSSL flaw CVE-2025-1235 patched"));
  // Negation words, contracted or not, and words that reverse a statement.
  for (const char* negated :
       {"Tokio 2.0 isn't released", "Tokio 2.0 won't be released", "Tokio 2.0 never released", "No Tokio 2.0 release",
        "Tokio 2.0 release delayed", "Tokio 2.0 release fails", "Tokio maintainers deny 2.0 release",
        "Tokio 2.0 release postponed", "Tokio 2.0 released without io-uring", "Tokio 2.0 release rumor is false",
        "Tokio 2.0 can't be released", "Tokio 2.0 release cancelled"})
    EXPECT_FALSE(compatible("Tokio 2.0 released", negated)) << negated;
  EXPECT_FALSE(compatible("Tokio 2.0 not delayed", "Tokio 2.0 delayed"));  // a negated reversal is another fact again
  // Identifiers: GHSA ids, issue and PR numbers, RFCs, arXiv ids, model numbers.
  EXPECT_FALSE(compatible("Advisory GHSA-jfh8-c2jp-5v3q in tokio", "Advisory GHSA-4g5x-q2vw-8m3f in tokio"));
  EXPECT_FALSE(compatible("Fix data race in scheduler (#1234)", "Fix data race in scheduler (#1235)"));
  EXPECT_FALSE(compatible("RFC 9110 explained", "RFC 9111 explained"));
  EXPECT_FALSE(compatible("arXiv:2401.12345 scaling laws revisited", "arXiv:2401.12346 scaling laws revisited"));
  EXPECT_FALSE(compatible("GPT-5 benchmark results", "GPT-6 benchmark results"));
  EXPECT_FALSE(compatible("Python 3.13.1 fixes the JIT", "Python 3.13.2 fixes the JIT"));
  // The same facts written differently agree.
  EXPECT_TRUE(compatible("Tokio 2.0 released", "tokio v2 RELEASED!"));
  EXPECT_TRUE(compatible("GPT-6 is here", "OpenAI announces GPT 6"));
  EXPECT_TRUE(compatible("gpt6 is here", "OpenAI announces GPT-6"));
  EXPECT_TRUE(compatible("Rust 1.92.0 released", "Announcing Rust 1.92"));
  EXPECT_TRUE(compatible("Tokio 2.0 isn't slow", "Tokio 2.0 isnt slow"));
  EXPECT_TRUE(compatible("CVE-2025-1234 in OpenSSL", "CVE-2025-1234 in OpenSSL 3.5"));      // one says more, nothing conflicts
  EXPECT_TRUE(compatible("Tokio 2.0 released", "Tokio 2.0 released (2026)"));               // Hacker News's year suffix
  EXPECT_TRUE(compatible("Notion launches offline mode", "Notion launches offline mode"));  // "not" inside a word is no negation
  EXPECT_TRUE(compatible("Nothing Phone 3 review", "Phone 3 from Nothing: review"));
}

TEST(Dedupe, NearDuplicatesWithDifferentFactsStayApart) {
  EXPECT_EQ(survivors({"Tokio 2.0 released with a new runtime scheduler today",
                       "Tokio 2.0 not released with a new runtime scheduler today"}),
            2u);
  // Same token set, so the exact-title fold must ask too.
  EXPECT_EQ(survivors({"Tokio 2.0 released", "Tokio 2.0 not released"}), 2u);
  EXPECT_EQ(survivors({"Announcing Rust 1.91: faster builds and a new borrow checker for everyone",
                       "Announcing Rust 1.92: faster builds and a new borrow checker for everyone"}),
            2u);
  EXPECT_EQ(survivors({"OpenSSL CVE-2025-1234 remote code execution in the TLS handshake parser",
                       "OpenSSL CVE-2025-9876 remote code execution in the TLS handshake parser"}),
            2u);
  EXPECT_EQ(survivors({"Apple confirms the iPhone 17 launch event for September in Cupertino",
                       "Apple denies the iPhone 17 launch event for September in Cupertino"}),
            2u);
  EXPECT_EQ(survivors({"Fix data race in the tokio scheduler when tasks are cancelled early (#1234)",
                       "Fix data race in the tokio scheduler when tasks are cancelled early (#1299)"}),
            2u);
}

TEST(Dedupe, RealDuplicatesStillFold) {
  EXPECT_EQ(survivors({"Tokio 2.0: a new runtime scheduler", "tokio 2.0 - A New Runtime Scheduler!",
                       "Show HN: Tokio 2.0, a new runtime scheduler"}),
            1u);
  EXPECT_EQ(survivors({"Announcing Rust 1.92.0 with faster incremental builds and new lints",
                       "Announcing Rust 1.92 with faster incremental builds and new lints"}),
            1u);
  EXPECT_EQ(survivors({"OpenSSL CVE-2025-1234: remote code execution in the TLS handshake",
                       "OpenSSL cve-2025-1234 remote code execution in the TLS handshake"}),
            1u);
  EXPECT_EQ(survivors({"Tokio 2.0 isn't coming to Windows this year after all, maintainers say",
                       "Tokio 2.0 isnt coming to Windows this year after all, maintainers say"}),
            1u);
  // A cross-post of one URL folds whatever its title says.
  auto c =
      corpus("", {item("hackernews", "1", "Tokio 2.0 released", "https://tokio.rs/blog/2-0", kAsOf, {{"points", 500}}),
                  item("reddit", "2", "Tokio 2.0 is finally out (not a drill)", "https://tokio.rs/blog/2-0?utm_source=reddit")});
  EXPECT_EQ(dedupe(c), 1);
}

TEST(Cluster, StoriesDoNotMixDifferentFacts) {
  auto c =
      corpus("", {item("hackernews", "1", "Rust 1.91 released with new borrow checker", "", kAsOf, {{"points", 900}}),
                  item("reddit", "2", "Rust 1.92 released with new borrow checker improvements", "", kAsOf, {{"score", 800}}),
                  item("lobsters", "3", "Rust 1.91 borrow checker deep dive", "", kAsOf, {{"score", 50}}),
                  item("hackernews", "4", "Tokio 2.0 runtime scheduler released", "", kAsOf, {{"points", 700}}),
                  item("reddit", "5", "Tokio 2.0 runtime scheduler not released", "", kAsOf, {{"score", 600}})});
  cluster(c);
  std::map<std::string, std::string> cluster_of;
  for (const auto& it : c.items) cluster_of[it.id] = it.cluster;
  EXPECT_EQ(cluster_of["hackernews:1"], cluster_of["lobsters:3"]) << "one release, one story";
  EXPECT_NE(cluster_of["hackernews:1"], cluster_of["reddit:2"]) << "Rust 1.91 and 1.92 are two releases";
  EXPECT_NE(cluster_of["hackernews:4"], cluster_of["reddit:5"]) << "released and not released are two facts";
}

// The ranking as the runner calls it (rank.cpp, stages 3-12), on a corpus nothing has touched.
namespace {

std::vector<model::Item> rank_items() {
  return {
      item("hackernews", "quiet", "Tokio runtime 2.0 released", "https://tokio.rs/blog/2-0", kAsOf,
           {{"points", 12}, {"num_comments", 3}}),
      item("reddit", "cross", "Tokio runtime 2.0 released", "https://tokio.rs/blog/2-0?utm_source=reddit", kAsOf - kDay,
           {{"score", 40}, {"num_comments", 5}}),
      item("hackernews", "old", "Tokio runtime internals", "", kWindow.from - 5 * kDay,
           {{"points", 5000}, {"num_comments", 900}}),
      item("hackernews", "loud", "Show HN: a garden planner for balconies", "", kAsOf, {{"points", 3000}, {"num_comments", 800}}),
      item("hackernews", "near", "A new JavaScript runtime", "", kAsOf, {{"points", 2000}, {"num_comments", 600}})};
}

RankSpec rank_spec() { return {kWindow, {{"tokio runtime", 1.0}}, {}}; }

std::vector<std::string> ids(const Corpus& c) {
  std::vector<std::string> out;
  for (const auto& it : c.items) out.push_back(it.id);
  return out;
}

bool holds(const Corpus& c, const std::string& id) {
  return std::any_of(c.items.begin(), c.items.end(), [&](const model::Item& it) { return it.id == id; });
}

}  // namespace

TEST(Rank, EachStageWorksOnWhatTheOneBeforeLeft) {
  auto c = unranked("tokio runtime", rank_items());
  const auto r = rank(c, rank_spec());
  // The window comes first: the loudest item, from before the window, is in no later stage's output.
  EXPECT_EQ(r.windowed, 1);
  EXPECT_FALSE(holds(c, "hackernews:old")) << testing::PrintToString(ids(c));
  // Then relevance and the prune: the loud item off the topic is dropped, however many points it has.
  EXPECT_EQ(r.pruned, 1);
  EXPECT_FALSE(holds(c, "hackernews:loud")) << testing::PrintToString(ids(c));
  // Dedupe folds the cross-post (same canonical URL) into one item that says where else it was.
  EXPECT_EQ(r.folded, 1);
  ASSERT_EQ(c.items.size(), 2u) << testing::PrintToString(ids(c));
  // Fusion and the rerank order what is left: the story on the topic outranks the louder item
  // that only shares a word with it.
  EXPECT_EQ(c.items[1].id, "hackernews:near");
  EXPECT_GT(c.items[0].scores.final, c.items[1].scores.final);
  EXPECT_EQ(c.items[0].also_seen.size(), 1u);
  EXPECT_FALSE(c.items[0].why.empty()) << "the rerank wrote its reason";
  // Clustering comes last: every item that is left belongs to a story, best first, and a
  // story holds only items that are left.
  ASSERT_FALSE(r.clusters.empty());
  EXPECT_EQ(r.clusters[0].items.front(), c.items[0].id);
  for (const auto& it : c.items) EXPECT_FALSE(it.cluster.empty()) << it.id;
  for (const auto& story : r.clusters)
    for (const auto& id : story.items) EXPECT_TRUE(holds(c, id)) << story.title << " holds " << id << ", no longer an item";
}

// A topic whose words name no intent can still be research: when arXiv holds several of the
// strong matches, the papers weigh as they would for "... papers" (and the plan says so).
TEST(Rank, APoolOfPapersIsResearchWhenTheTopicNamedNone) {
  const auto pool = [](int papers, int posts = 6) {
    std::vector<model::Item> items;
    for (int i = 0; i < papers; ++i)
      items.push_back(item("arxiv", "p" + std::to_string(i),
                           "Masked diffusion language models at scale, part " + std::to_string(i), "", kAsOf - (i + 1) * kDay));
    for (int i = 0; i < posts; ++i)
      items.push_back(item("hackernews", "h" + std::to_string(i),
                           "Diffusion language models, explained (" + std::to_string(i) + ")", "", kAsOf - (i + 1) * kDay,
                           {{"points", 400.0 + i}, {"num_comments", 120}}));
    return items;
  };
  const auto paper_rank = [](const Corpus& c) {
    for (std::size_t k = 0; k < c.items.size(); ++k)
      if (c.items[k].source == "arxiv") return k;
    return c.items.size();
  };
  RankSpec open{kWindow, {{"diffusion language models", 1.0}}, intent_source_weights("news")};
  open.intent_open = true;
  auto c = unranked("diffusion language models", pool(3));
  const auto r = rank(c, open);
  ASSERT_TRUE(r.intent.has_value());
  EXPECT_EQ(*r.intent, "research");
  EXPECT_EQ(r.source_weights, intent_source_weights("research"));
  EXPECT_EQ(paper_rank(c), 0u) << "the papers lead: " << testing::PrintToString(ids(c));

  RankSpec said = open;  // the topic's words or a host named the intent
  said.intent_open = false;
  auto named = unranked("diffusion language models", pool(3));
  EXPECT_FALSE(rank(named, said).intent.has_value());
  EXPECT_GT(paper_rank(named), 0u) << "news weights: the loud explainers lead";

  auto two = unranked("diffusion language models", pool(2));
  EXPECT_FALSE(rank(two, open).intent.has_value()) << "two papers are not a research topic";
  auto few = unranked("diffusion language models", pool(3, 24));
  EXPECT_FALSE(rank(few, open).intent.has_value()) << "nor three among 27 strong matches";
}

// A sub-query ending in a year that only dates the question searched for the year too: what
// only it found counts less than what the undated search found.
TEST(Rank, ASearchForADatingYearCountsLessInFusion) {
  std::vector<model::Item> items;
  for (int i = 0; i < 4; ++i)
    items.push_back(item("hackernews", "s" + std::to_string(i), "Steam Machine teardown, part " + std::to_string(i), "",
                         kAsOf - (i + 1) * kDay, {{"points", 100}, {"num_comments", 20}}));
  auto by_dated = item("reddit", "dated", "Steam Machine owners, one week in", "", kAsOf - 2 * kDay, {{"score", 300}});
  auto by_plain = item("reddit", "plain", "Steam Machine owners, one month in", "", kAsOf - 2 * kDay, {{"score", 300}});
  by_dated.hits = {{0, 0, "reddit"}};
  by_plain.hits = {{1, 0, "reddit"}};
  items.push_back(by_dated);
  items.push_back(by_plain);
  auto c = unranked("Steam Machine 2026", items);
  rank(c, {kWindow, {{"Steam Machine 2026", 1.0}, {"Steam Machine", 1.0}}, {}});
  double dated = 0, plain = 0;
  for (const auto& it : c.items) {
    if (it.id == "reddit:dated") dated = it.scores.final;
    if (it.id == "reddit:plain") plain = it.scores.final;
  }
  EXPECT_GT(plain, dated) << "the year searched for, not the subject";
}

// From prune to the rerank the items move once, where the slice ends: a cut anywhere in those
// stages, or every stage alone, ranks as the whole does.
TEST(Rank, EveryCutBetweenPruneAndClusterRanksAsTheWhole) {
  auto items = rank_items();
  items.push_back(item("reddit", "undated", "Tokio runtime tuning notes", "", std::nullopt, {{"score", 90}}));
  items.push_back(item("lobsters", "dup", "Tokio runtime 2.0 released!", "https://lobste.rs/s/abc", kAsOf - 2 * kDay,
                       {{"score", 30}, {"comments", 4}}));
  items.push_back(item("reddit", "weak", "My runtime errors in Rust", "", kAsOf - 3 * kDay, {{"score", 0}}));
  for (int k = 0; k < 5; ++k) {
    auto extra = item("reddit", "a" + std::to_string(k), "Tokio runtime question " + std::to_string(k), "", kAsOf - k * kDay,
                      {{"score", 10.0 + k}});
    extra.author = "same_author";
    items.push_back(extra);
  }
  const auto finals = [](const Corpus& c) {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& it : c.items) out.emplace_back(it.id, it.scores.final);
    return out;
  };
  auto whole = unranked("tokio runtime", items);
  rank(whole, rank_spec());
  const std::vector<Stage> cuts = {Stage::prune, Stage::dedupe, Stage::fuse, Stage::rerank, Stage::cluster};
  for (Stage cut : cuts) {
    auto c = unranked("tokio runtime", items);
    auto head = rank_spec(), tail = rank_spec();
    head.last = static_cast<Stage>(static_cast<int>(cut) - 1);
    tail.first = cut;
    rank(c, head);
    rank(c, tail);
    EXPECT_EQ(finals(c), finals(whole)) << "cut before stage " << static_cast<int>(cut);
  }
  auto c = unranked("tokio runtime", items);
  auto head = rank_spec();
  head.last = Stage::stream_ranks;
  rank(c, head);
  for (Stage s : cuts) {
    auto one = rank_spec();
    one.first = one.last = s;
    rank(c, one);
  }
  EXPECT_EQ(finals(c), finals(whole)) << "each stage alone";
  EXPECT_LT(c.items.size(), items.size()) << "the slices dropped and folded items";
}

TEST(Rank, ASliceStopsWhereAskedAndTheRestFinishesTheRanking) {
  auto whole = unranked("tokio runtime", rank_items());
  const auto all = rank(whole, rank_spec());

  auto c = unranked("tokio runtime", rank_items());
  auto head = rank_spec();
  head.last = Stage::stream_ranks;
  const auto scored = rank(c, head);
  EXPECT_EQ(scored.windowed, 1) << "the window is inside the slice";
  EXPECT_EQ(c.items.size(), 4u) << "no prune, no dedupe: " << testing::PrintToString(ids(c));
  EXPECT_TRUE(holds(c, "hackernews:loud"));
  EXPECT_TRUE(scored.clusters.empty());
  for (const auto& it : c.items) {
    EXPECT_EQ(it.scores.final, 0) << it.id << ": fusion is outside the slice";
    EXPECT_TRUE(it.cluster.empty()) << it.id;
  }
  EXPECT_GT(c.items[0].scores.relevance, 0.5) << "relevance is inside it";

  auto tail = rank_spec();
  tail.first = Stage::prune;
  const auto rest = rank(c, tail);
  EXPECT_EQ(rest.windowed, 0) << "the window is not run twice";
  EXPECT_EQ(rest.pruned, all.pruned);
  EXPECT_EQ(rest.folded, all.folded);
  EXPECT_EQ(ids(c), ids(whole)) << "two slices rank as the whole does";
  ASSERT_EQ(rest.clusters.size(), all.clusters.size());
  for (std::size_t k = 0; k < all.clusters.size(); ++k) EXPECT_EQ(rest.clusters[k].items, all.clusters[k].items);
}
