// The evaluation harness: its formulas, its fake search engines, and its corpora read back
// through the real source parsers (a typo in a case file must not pass silently).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "case.hpp"
#include "core/time.hpp"
#include "fixture_fetcher.hpp"
#include "metrics.hpp"
#include "scenario.hpp"
#include "source_run.hpp"
#include "sources/source.hpp"
#include "upstream.hpp"

using namespace l30eval;
using nlohmann::json;

namespace {

Case tiny() {
  Case c;
  c.topic = "t";
  c.cls = "test";
  auto add = [&](std::string id, int grade, bool wrong = false, std::string story = "") {
    CaseItem it;
    it.source = "hackernews";
    it.report_id = "hackernews:" + id;
    it.label = {grade, wrong, std::move(story), "n"};
    c.items.push_back(it);
  };
  add("a", 3);
  add("b", 2);
  add("c", 0, true);
  add("d", 1, false, "s");
  add("e", 1, false, "s");  // a cross-post of d
  return c;
}

}  // namespace

TEST(EvalMetrics, PerfectRankingIsOneAndWorseRankingsLess) {
  const Case c = tiny();
  const auto perfect = score(c, {"hackernews:a", "hackernews:b", "hackernews:d", "hackernews:c"});
  EXPECT_NEAR(perfect.ndcg, 1.0, 1e-12);
  EXPECT_NEAR(perfect.precision, 0.4, 1e-12);
  EXPECT_EQ(perfect.wrong, 1);
  // Ideal: 7/log2(2) + 3/log2(3) + 1/log2(4); this ranking: 3/log2(2) + 7/log2(3).
  const double ideal = 7 + 3 / std::log2(3.0) + 1 / std::log2(4.0);
  const auto swapped = score(c, {"hackernews:b", "hackernews:a"});
  EXPECT_NEAR(swapped.ndcg, (3 + 7 / std::log2(3.0)) / ideal, 1e-12);
  EXPECT_EQ(swapped.wrong, 0);
}

TEST(EvalMetrics, AStoryCountsOnceAndOnlyTheFirstFiveCount) {
  const Case c = tiny();
  const auto twice = score(c, {"hackernews:d", "hackernews:e"});
  const auto once = score(c, {"hackernews:d", "hackernews:c"});
  EXPECT_NEAR(twice.ndcg, once.ndcg, 1e-12) << "the cross-post adds nothing";
  const auto late =
      score(c, {"hackernews:c", "hackernews:c2", "hackernews:c3", "hackernews:c4", "hackernews:c5", "hackernews:a"});
  EXPECT_EQ(late.unknown.size(), 4u);
  EXPECT_EQ(late.ndcg, 0.0) << "the sixth place is outside the cutoff";
  EXPECT_EQ(score(c, {}).ndcg, 0.0);
}

TEST(EvalMetrics, RecallCountsRelevantStoriesOnceWhicheverPostWasServed) {
  const Case c = tiny();  // relevant: a (3), b (2); d/e are one story graded 1
  EXPECT_EQ(recall(c, {}).reached, 0);
  EXPECT_EQ(recall(c, {}).relevant, 2);
  EXPECT_EQ(recall(c, {}).missed, (std::vector<std::string>{"hackernews:a", "hackernews:b"}));
  const auto some = recall(c, {"hackernews:a", "hackernews:c", "hackernews:d", "hackernews:e"});
  EXPECT_EQ(some.reached, 1) << "irrelevant and grade-1 items reached add nothing";
  EXPECT_NEAR(some.ratio(), 0.5, 1e-12);
  EXPECT_EQ(some.missed, (std::vector<std::string>{"hackernews:b"}));

  Case x = tiny();
  for (auto& it : x.items)
    if (it.report_id == "hackernews:d" || it.report_id == "hackernews:e") it.label.grade = 2;
  EXPECT_EQ(recall(x, {}).relevant, 3) << "a cross-posted story counts once";
  EXPECT_EQ(recall(x, {"hackernews:e"}).reached, 1) << "any of its posts reaches it";
}

TEST(EvalUpstream, RecordsWhatEachSearchServedAndWhatWasAsked) {
  Case c;
  c.topic = "Helix editor";
  c.cls = "test";
  auto add = [&](std::string source, json data, int grade) {
    CaseItem it;
    it.source = source;
    it.report_id = source + ":" + data["id"].get<std::string>();
    it.at = *core::parse_iso8601("2026-11-20T10:00:00Z");
    it.data = std::move(data);
    it.label = {grade, false, "", "n"};
    c.items.push_back(std::move(it));
  };
  add("hackernews", {{"id", "1"}, {"title", "Helix 26.11 released"}}, 3);
  add("hackernews", {{"id", "2"}, {"title", "Helix editor config tips"}}, 2);
  add("reddit", {{"id", "r1"}, {"sub", "HelixEditor"}, {"title", "Steel plugins are here"}}, 3);
  CaseUpstream up(c);
  testing_support::FakeRequest hn;
  hn.path = "/hn/api/v1/search";
  hn.query = "query=helix%20editor&tags=story";
  up.answer(hn);
  EXPECT_EQ(up.served(), (std::set<std::string>{"hackernews:2"})) << "all words: the release post lacks 'editor'";
  EXPECT_NEAR(recall(c, up.served()).ratio(), 1.0 / 3, 1e-12);
  testing_support::FakeRequest rd;
  rd.path = "/reddit/search.rss";
  rd.query = "q=helixeditor";
  up.answer(rd);
  EXPECT_EQ(up.served(), (std::set<std::string>{"hackernews:2", "reddit:r1"})) << "Reddit matches the subreddit's name";
  EXPECT_EQ(up.asked().at("hackernews"), (std::set<std::string>{"helix editor"}));
  EXPECT_EQ(up.asked().at("reddit"), (std::set<std::string>{"helixeditor"}));
}

// Every source the eval runs (those that need no credentials: the eval's binary has none)
// is answered by this fake internet: its search ends ok or with no results, and no request
// gets the fake's no-answer. The hosts' mapping is checked by Registry.EverySourceHasAFakeInTheTestsInternet.
TEST(EvalUpstream, AnswersEverySourceTheEvalRuns) {
  Case c;
  c.topic = "tokio runtime";
  c.cls = "test";
  const CaseUpstream up(c);
  const testing_support::TempDir home;
  const core::Config config(testing_support::isolated_env(home, up.host_map()), {});
  sources::Query q;
  q.sub_queries = {{c.topic, 1.0}};
  q.window = model::Window::ending(*core::parse_date(c.as_of), c.days);
  q.now = q.window.to;
  int ran = 0;
  for (const sources::Source* s : sources::all()) {
    SCOPED_TRACE("source " + std::string(s->id()));
    if (s->unconfigured(config)) continue;  // skipped in every case
    if (!testing_support::unmapped_hosts(*s).empty()) {
      ADD_FAILURE() << "a host of it is mapped to no fake";
      continue;
    }
    ++ran;
    const auto before = up.unanswered().size();
    const auto r = testing_support::search_via(*s, up.host_map(), config, q);
    EXPECT_EQ(testing_support::unanswered(r), "");
    const auto unanswered = up.unanswered();
    for (auto i = before; i < unanswered.size(); ++i) ADD_FAILURE() << "eval/upstream.cpp has no answer for " << unanswered[i];
  }
  EXPECT_GE(ran, 7) << "the sources the cases hold";
}

TEST(EvalUpstream, AListedLobstersStoryReachesTheRankerOnlyIfItHoldsASubQuery) {
  Case c;
  c.topic = "Helix editor";
  c.cls = "test";
  for (const auto& [id, title] :
       std::vector<std::pair<std::string, std::string>>{{"ab1", "The Helix editor, a year in"}, {"ab2", "Helix 26.11"}}) {
    CaseItem it;
    it.source = "lobsters";
    it.report_id = "lobsters:" + id;
    it.at = *core::parse_iso8601("2026-11-20T10:00:00Z");
    it.data = {{"id", id}, {"title", title}, {"tags", {"editors"}}};
    it.label = {3, false, "", "n"};
    c.items.push_back(std::move(it));
  }
  CaseUpstream up(c);
  testing_support::FakeRequest hot;
  hot.path = "/lobsters/hottest.json";
  up.answer(hot);
  EXPECT_TRUE(up.served().empty()) << "listed, but no sub-query asked yet";
  testing_support::FakeRequest hn;
  hn.path = "/hn/api/v1/search";
  hn.query = "query=the%20helix%20editor&tags=story";
  up.answer(hn);
  EXPECT_EQ(up.served(), (std::set<std::string>{"lobsters:ab1"})) << "stopwords are not needed; 'editor' is";
}

TEST(EvalUpstream, FoldsLikeASearchEngineButDoesNotTransliterate) {
  EXPECT_EQ(search_words("Z\\\"urich, ETH Z{\\\"u}rich and Z&uuml;rich"),
            (std::vector<std::string>{"zurich", "eth", "zurich", "and", "zurich"}));
  EXPECT_EQ(search_words("S&atilde;o Paulo"), (std::vector<std::string>{"sao", "paulo"}));
  const auto doc = search_words("Zuerich tram strike");
  EXPECT_FALSE(matches_all(doc, search_fold("Zuerich tram strike"), search_words("Zürich")));
  EXPECT_TRUE(matches_all(doc, search_fold("Zuerich tram strike"), search_words("tram zuerich")));
  const std::string jp = "東京で震度5弱の地震";
  EXPECT_TRUE(matches_all(search_words(jp), search_fold(jp), search_words("東京 地震")));
  EXPECT_FALSE(matches_all(search_words(jp), search_fold(jp), search_words("大阪 地震")));
}

namespace {

// Serves every item of one source to the real source and returns what it parsed.
std::set<std::string> parsed_ids(const Case& c, const std::string& source) {
  std::vector<const CaseItem*> items;
  for (const auto& it : c.items)
    if (it.source == source) items.push_back(&it);
  testing_support::FixtureFetcher f;
  if (source == "hackernews") f.on_body("hn.algolia.com", hn_body(items, c.topic));
  if (source == "reddit") {
    f.on_body("search.rss", reddit_atom(items, c.topic), "application/atom+xml");
    f.on_body("arctic-shift", arctic_body(items));
  }
  if (source == "github") {
    std::vector<const CaseItem*> repos, issues;
    for (const auto* it : items) (it->data.value("kind", std::string("repo")) == "repo" ? repos : issues).push_back(it);
    f.on_body("search/repositories", github_body(repos));
    f.on_body("search/issues", github_body(issues));
  }
  if (source == "stackexchange") f.on_body("stackexchange", stackexchange_body(items));
  if (source == "lobsters") f.on_body("lobste.rs", lobsters_body(items));
  if (source == "polymarket") f.on_body("polymarket", polymarket_body(items));
  if (source == "arxiv") f.on_body("arxiv", arxiv_body(items, c.topic), "application/atom+xml");
  testing_support::TestEnv env(f);
  sources::Query q;
  // The lobsters source filters its listings by the sub-queries: one per story title.
  q.sub_queries.push_back({c.topic, 1.0});
  if (source == "lobsters")
    for (const auto* it : items) q.sub_queries.push_back({it->data.value("title", ""), 1.0});
  q.window = model::Window::ending(*core::parse_date("2026-12-31"), 3650);
  q.limit = 100;
  const auto result = sources::find(source)->search(q, env.env);
  EXPECT_TRUE(result.state == model::SourceState::ok || items.empty()) << c.name << " " << source << ": " << result.reason;
  std::set<std::string> ids;
  for (const auto& it : result.items) {
    ids.insert(it.id);
    // What the case gives as text must reach the item's snippet.
    const CaseItem* labelled = c.find(it.id);
    if (!labelled) continue;
    for (const char* field : {"selftext", "text", "body", "summary", "description"}) {
      const auto& d = labelled->data;
      if (!d.contains(field) || d[field].is_null()) continue;
      const bool empty = d[field].is_array() ? d[field].empty() : d[field].get<std::string>().empty();
      EXPECT_TRUE(empty || !it.snippet.empty()) << c.name << ": " << it.id << " lost its " << field;
    }
  }
  return ids;
}

}  // namespace

TEST(EvalCorpora, EveryItemReadsBackThroughTheRealParsers) {
  const auto cases = load_cases(L30_EVAL_CASES);
  ASSERT_GE(cases.size(), 12u);
  std::set<std::string> classes;
  for (const auto& c : cases) {
    classes.insert(c.cls);
    std::map<std::string, std::set<std::string>> by_source;
    for (const auto& it : c.items) by_source[it.source];
    for (auto& [source, ids] : by_source) ids = parsed_ids(c, source);
    int relevant = 0;
    for (const auto& it : c.items) {
      EXPECT_TRUE(by_source[it.source].count(it.report_id)) << c.name << ": " << it.report_id << " did not parse";
      relevant += it.label.grade >= 2 ? 1 : 0;
    }
    EXPECT_GE(relevant, 3) << c.name << ": a case needs something to find";
  }
  EXPECT_GE(classes.size(), 9u) << "the issue's nine classes of hard topics";
}
