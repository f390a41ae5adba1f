#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "core/time.hpp"
#include "fake_upstream.hpp"
#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "sources/source.hpp"

using namespace testing_support;
using model::SourceState;

namespace {

const sources::Source& wiki() { return *sources::find("wikipedia"); }

constexpr const char* kTop = "wikimedia.org/api/rest_v1/metrics/pageviews/top/en.wikipedia/all-access/";
constexpr const char* kDaily = "wikimedia.org/api/rest_v1/metrics/pageviews/per-article/en.wikipedia/all-access/user/";
constexpr const char* kSummary = "en.wikipedia.org/api/rest_v1/page/summary/";

core::UnixSeconds at(const char* iso) { return *core::parse_iso8601(iso); }

sources::ListingQuery week_to_29th() {
  sources::ListingQuery q;
  q.window = model::Window::ending(at("2026-11-29T00:00:00Z"), 7);
  q.now = at("2026-11-29T06:00:00Z");
  q.limit = 30;
  return q;
}

const model::Item* find(const sources::SourceResult& r, const std::string& id) {
  for (const auto& i : r.items)
    if (i.id == id) return &i;
  return nullptr;
}

}  // namespace

TEST(Wikipedia, ResearchLooksUpTheTopicsArticleAndMeasuresItsAttention) {
  FixtureFetcher f;
  f.on_body(kSummary, fixture("wikipedia/summary_rust_programming_language.json"));
  f.on_body(kDaily, fixture("wikipedia/per_article_rust_2026-10-03_2026-11-29.json"));
  TestEnv t(f);
  auto r = wiki().search(make_query("rust programming language", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 1u);
  const auto& a = r.items[0];
  EXPECT_EQ(a.id, "wikipedia:Rust_(programming_language)");
  EXPECT_EQ(a.source, "wikipedia");
  EXPECT_EQ(a.title, "Rust (programming language)");
  EXPECT_EQ(a.url, "https://en.wikipedia.org/wiki/Rust_(programming_language)");
  EXPECT_EQ(a.container, "en.wikipedia");
  EXPECT_EQ(a.published_at, at("2026-11-21T00:00:00Z")) << "dated by its peak day";
  EXPECT_EQ(a.engagement_value("views"), 146750);
  EXPECT_EQ(a.engagement_value("views_before"), 92140);
  EXPECT_EQ(a.snippet.rfind(
                "147k views over 29 days (peak 21k on 2026-11-21), 1.6\u00D7 the 29 days before. Rust is a general-purpose", 0),
            0u)
      << a.snippet;
  ASSERT_EQ(f.urls().size(), 2u);
  EXPECT_EQ(f.urls()[0], "https://en.wikipedia.org/api/rest_v1/page/summary/Rust_programming_language?redirect=true");
  EXPECT_EQ(f.urls()[1],
            "https://wikimedia.org/api/rest_v1/metrics/pageviews/per-article/en.wikipedia/all-access/user/"
            "Rust_%28programming_language%29/daily/20261003/20261129");
}

TEST(Wikipedia, NoArticleOrADisambiguationIsNoResultsNotAnError) {
  FixtureFetcher f;
  f.on_body(kSummary, fixture("wikipedia/summary_404.json"), "application/problem+json", 404);
  TestEnv t(f);
  auto r = wiki().search(make_query("zzqqxx nothing", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(r.state, SourceState::no_results);
  EXPECT_EQ(r.reason, "no English Wikipedia article titled \"Zzqqxx nothing\"");
  EXPECT_EQ(f.urls().size(), 1u);

  FixtureFetcher g;
  g.on_body(kSummary, fixture("wikipedia/summary_disambiguation_mercury.json"));
  TestEnv u(g);
  auto d = wiki().search(make_query("mercury", "2026-11-01", "2026-11-29"), u.env);
  EXPECT_EQ(d.state, SourceState::no_results);
  EXPECT_NE(d.reason.find("disambiguation"), std::string::npos);
  EXPECT_EQ(g.urls().size(), 1u) << "no page views asked for a disambiguation page";
}

TEST(Wikipedia, ListingNominatesArticlesOnlyAndMeasuresTheLeaders) {
  FixtureFetcher f;
  f.on_body("/all-access/2026/11/28", fixture("wikipedia/top_2026-11-28.json"));
  f.on_body("/all-access/2026/11/27", fixture("wikipedia/top_2026-11-27.json"));
  f.on_body(kTop, fixture("wikipedia/error_404_not_found.json"), "application/problem+json", 404);
  f.on_body(std::string(kDaily) + "GPT-6/", fixture("wikipedia/per_article_gpt6_listing.json"));
  f.on_body(kDaily, R"({"items":[]})");
  TestEnv t(f);
  auto r = wiki().listing(week_to_29th(), t.env);
  ASSERT_TRUE(wiki().has_listing());
  // Only two days are published in this fixture: the rest are 404s.
  EXPECT_EQ(r.state, SourceState::partial) << r.reason;
  for (const auto& item : r.items) {
    for (const char* ns : {"Main Page", "Special:", "File:", "Wikipedia:", "User talk:", "Portal:", "Template:"})
      EXPECT_EQ(item.title.find(ns), std::string::npos) << item.title;
    EXPECT_NE(item.title, "-");
  }
  EXPECT_EQ(r.items.size(), 6u);
  const auto* gpt = find(r, "wikipedia:GPT-6");
  ASSERT_NE(gpt, nullptr);
  EXPECT_EQ(gpt->url, "https://en.wikipedia.org/wiki/GPT-6");
  EXPECT_EQ(gpt->engagement_value("views"), 900 + 950 + 1000 + 980 + 1020 + 1100 + 1050 + 2000 + 4000 + 12000 + 90000 + 400000 +
                                                688214 + 1204522 - (900 + 950 + 1000 + 980 + 1020 + 1100 + 1050))
      << "views over the measured week, from the article's own daily counts";
  EXPECT_EQ(gpt->engagement_value("views_before"), 900 + 950 + 1000 + 980 + 1020 + 1100 + 1050);
  EXPECT_EQ(gpt->published_at, at("2026-11-28T00:00:00Z"));
  EXPECT_EQ(r.items[0].id, "wikipedia:GPT-6") << "ranked by views across the days read";
  const auto* thanks = find(r, "wikipedia:Thanksgiving");
  ASSERT_NE(thanks, nullptr);
  EXPECT_EQ(thanks->engagement_value("views"), 912330 + 198766) << "unmeasured: the top-list sum";
  EXPECT_EQ(thanks->published_at, at("2026-11-27T00:00:00Z"));
  const auto urls = f.urls();
  EXPECT_NE(std::find(urls.begin(), urls.end(),
                      "https://wikimedia.org/api/rest_v1/metrics/pageviews/top/en.wikipedia/all-access/2026/11/28"),
            urls.end());
  EXPECT_EQ(std::count_if(urls.begin(), urls.end(), [](const std::string& u) { return u.ends_with("/2026/11/29"); }), 0)
      << "today's list does not exist yet: start with yesterday";
}

TEST(Wikipedia, YesterdayNotYetPublishedIsNoFailure) {
  FixtureFetcher f;
  f.on_body("/all-access/2026/11/28", fixture("wikipedia/error_404_not_found.json"), "application/problem+json", 404);
  f.on_body(kTop, fixture("wikipedia/top_2026-11-27.json"));
  f.on_body(kDaily, R"({"items":[]})");
  TestEnv t(f);
  auto r = wiki().listing(week_to_29th(), t.env);
  EXPECT_EQ(r.state, SourceState::ok) << r.reason;
  EXPECT_FALSE(r.items.empty());
  int top_lists = 0;
  for (const auto& u : f.urls()) top_lists += u.find("/top/") != std::string::npos ? 1 : 0;
  EXPECT_EQ(top_lists, 7) << "the unpublished newest day, then the six other days of the window";
}

TEST(Wikipedia, MeasuringFailureKeepsTheTopListNumbers) {
  FixtureFetcher f;
  f.on_body(kTop, fixture("wikipedia/top_2026-11-27.json"));
  f.on_body(kDaily, "<html><body>Too many requests</body></html>", "text/html", 429);
  f.hold(kDaily, "/Thanksgiving/");  // the leader's measure fails while the others are in flight
  TestEnv t(f);
  auto r = wiki().listing(week_to_29th(), t.env);
  EXPECT_EQ(r.state, SourceState::partial);
  EXPECT_NE(r.reason.find("daily views unavailable"), std::string::npos) << r.reason;
  EXPECT_FALSE(r.items.empty());
  int daily = 0;
  for (const auto& u : f.urls()) daily += u.find("/per-article/") != std::string::npos ? 1 : 0;
  EXPECT_EQ(f.answered() - (static_cast<int>(f.urls().size()) - daily), 1)
      << "stops measuring after the first failure: the rest never sent, or cancelled in flight";
}

TEST(Wikipedia, HostileAnswersEndInAState) {
  const auto article = [](std::size_t i) {
    return fmt::format(R"({{"article":"Article_{}","views":{},"rank":{}}})", i, 900000 - i, i + 1);
  };
  HostileTable(wiki(), kTop, Format::json)
      .listing(week_to_29th())
      .also(kDaily, fixture("wikipedia/per_article_gpt6_listing.json"))
      .valid(fixture("wikipedia/top_2026-11-27.json"))
      .huge(R"({"items":[{"project":"en.wikipedia","access":"all-access","year":"2026","month":"11","day":"27","articles":[)",
            article, "]}]}")
      .expect("404", SourceState::error, "no top list for")  // a day not yet published
      .row("articles of the wrong shape", json_reply(R"({"items":{"articles":[]}})"), SourceState::schema_drift)
      .row(
          "articles of the wrong type",
          json_reply(
              R"({"items":[{"articles":[{"article":"Main_Page","views":1},{"article":"Special:Search","views":"9"},{"article":null},7,
             {"article":"Ok","views":-5},{"article":"Huge","views":1e300}]}]})"),
          SourceState::no_results)
      .run();
  // Research: the article's summary answers, its daily views do not.
  for (const auto& c : standard_hostile_answers(Format::json)) {
    FixtureFetcher f;
    f.on_body(kSummary, fixture("wikipedia/summary_rust_programming_language.json"));
    f.on(kDaily, c.reply);
    TestEnv t(f);
    auto r = wiki().search(make_query("rust", "2026-11-01", "2026-11-29"), t.env);
    EXPECT_NE(r.state, SourceState::ok) << c.name;
    EXPECT_FALSE(r.reason.empty()) << c.name;
  }
}

TEST(Wikipedia, ProbeReadsOnePublishedTopList) {
  FixtureFetcher f;
  f.on_body(kTop, fixture("wikipedia/top_2026-11-27.json"));
  TestEnv t(f);
  auto r = wiki().probe(t.env, at("2026-11-29T06:00:00Z"));
  EXPECT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(f.urls().size(), 1u);
  EXPECT_EQ(f.urls()[0], "https://wikimedia.org/api/rest_v1/metrics/pageviews/top/en.wikipedia/all-access/2026/11/27");
}
