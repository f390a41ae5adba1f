#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "fake_upstream.hpp"
#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "sources/source.hpp"

using namespace testing_support;
using model::SourceState;

namespace {

const sources::Source& lobsters() { return *sources::find("lobsters"); }

// The three listings a "rust async" search reads; anything else answers 404.
void serve_listings(FixtureFetcher& f) {
  f.on_body("lobste.rs/hottest.json", fixture("lobsters/hottest_2026-11-28.json"));
  f.on_body("lobste.rs/newest.json", fixture("lobsters/newest_2026-11-28.json"));
  f.on_body("lobste.rs/t/rust.json", fixture("lobsters/t_rust_2026-11-28.json"));
}

const model::Item* find_item(const sources::SourceResult& r, const std::string& id) {
  auto it = std::find_if(r.items.begin(), r.items.end(), [&](const model::Item& i) { return i.id == id; });
  return it == r.items.end() ? nullptr : &*it;
}

std::vector<std::string> ids_for(const sources::SourceResult& r, int subquery) {
  std::vector<std::pair<int, std::string>> ranked;
  for (const auto& i : r.items)
    for (const auto& h : i.hits)
      if (h.subquery == subquery) ranked.emplace_back(h.rank, i.id);
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (auto& [rank, id] : ranked) out.push_back(id);
  return out;
}

}  // namespace

TEST(Lobsters, FiltersListingsLocallyIntoItems) {
  FixtureFetcher f;
  serve_listings(f);
  TestEnv t(f);
  auto q = make_query("rust async", "2026-11-01", "2026-11-29");
  q.sub_queries.push_back({"The Who", 0.5});
  auto r = lobsters().search(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;

  // Order found across hottest, newest, then the tag page; duplicates once; the
  // October story is outside the window; "cli001" lacks "async".
  EXPECT_EQ(ids_for(r, 0),
            (std::vector<std::string>{"lobsters:k3xq7w", "lobsters:t0k1o2", "lobsters:acl0sr", "lobsters:exec01"}));
  // An all-stopword sub-query matches as a phrase on word boundaries ("The whole" does not count).
  EXPECT_EQ(ids_for(r, 1), (std::vector<std::string>{"lobsters:zzwho1"}));
  EXPECT_EQ(r.items.size(), 5u);

  const auto* a = find_item(r, "lobsters:k3xq7w");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->source, "lobsters");
  EXPECT_EQ(a->title, "Async Rust in 2027: the roadmap");
  EXPECT_EQ(a->url, "https://blog.rust-lang.org/inside-rust/2026/11/27/async-roadmap-2027.html");
  EXPECT_EQ(a->discussion_url, "https://lobste.rs/s/k3xq7w/async_rust_2027_roadmap");
  EXPECT_EQ(a->author, "tmandry");
  EXPECT_EQ(a->container, "rust");
  EXPECT_EQ(a->published_at, 1795792443);  // -06:00 offset honoured
  EXPECT_EQ(a->engagement_value("score"), 54);
  EXPECT_EQ(a->engagement_value("comment_count"), 21);
  EXPECT_EQ(a->snippet, "");

  const auto* tokio = find_item(r, "lobsters:t0k1o2");
  ASSERT_NE(tokio, nullptr);
  EXPECT_EQ(tokio->container, "rust, release");
  EXPECT_EQ(tokio->author, "carllerche");
  EXPECT_EQ(tokio->snippet, "The first major release of the async runtime since 2020.");
  EXPECT_EQ(tokio->engagement_value("score"), 88);
  EXPECT_EQ(tokio->engagement.size(), 1u);  // comment_count -1 is not a count: absent

  const auto* closures = find_item(r, "lobsters:acl0sr");
  ASSERT_NE(closures, nullptr);
  EXPECT_EQ(closures->author, "compiler-errors");  // submitter_user as an object
  EXPECT_EQ(closures->published_at, 1795258957);
}

TEST(Lobsters, TextPostIsItsOwnThread) {
  FixtureFetcher f;
  serve_listings(f);
  TestEnv t(f);
  auto r = lobsters().search(make_query("weekend plans", "2026-11-01", "2026-11-29"), t.env);
  // "plans" is not in the story ("plan" is): all words must occur.
  EXPECT_EQ(r.state, SourceState::no_results);
  auto s = lobsters().search(make_query("doing this weekend", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(s.state, SourceState::ok) << s.reason;
  ASSERT_EQ(s.items.size(), 1u);
  const auto& i = s.items[0];
  EXPECT_EQ(i.id, "lobsters:pq0zna");
  EXPECT_EQ(i.url, "https://lobste.rs/s/pq0zna/what_are_you_doing_this_weekend");
  EXPECT_FALSE(i.discussion_url.has_value());
  EXPECT_EQ(i.engagement_value("score"), 12);  // numeric string
  EXPECT_EQ(i.snippet.rfind("Feel free to tell what you plan on doing this weekend & even ask", 0), 0u) << i.snippet;
}

TEST(Lobsters, RequestsListingsAndNamedTags) {
  FixtureFetcher f;
  serve_listings(f);
  TestEnv t(f);
  auto q = make_query("rust async", "2026-11-01", "2026-11-29");
  q.sub_queries.push_back({"zig c++ build", 0.5});
  auto r = lobsters().search(q, t.env);
  auto urls = f.urls();  // sent together: in any order
  std::sort(urls.begin(), urls.end());
  EXPECT_EQ(urls, (std::vector<std::string>{"https://lobste.rs/hottest.json", "https://lobste.rs/newest.json",
                                            "https://lobste.rs/t/c%2B%2B.json", "https://lobste.rs/t/rust.json",
                                            "https://lobste.rs/t/zig.json"}));
  // The unknown-to-the-fixture tags answered 404: skipped, not a partial failure.
  EXPECT_EQ(r.state, SourceState::ok) << r.reason;
  EXPECT_EQ(r.requests, 5);
}

TEST(Lobsters, DeepRunPagesNewestUntilBeforeTheWindow) {
  FixtureFetcher f;
  serve_listings(f);
  f.on_body("lobste.rs/newest/page/2.json",
            R"([{"short_id":"pg2new","short_id_url":"https://lobste.rs/s/pg2new","created_at":"2026-11-02T10:00:00.000-06:00",
  "title":"Pin projections for async Rust","url":"https://example.dev/pin","score":5,"flags":0,"comment_count":1,
  "description":"","description_plain":"","comments_url":"https://lobste.rs/s/pg2new/pin_projections","submitter_user":"withoutboats",
  "user_is_author":true,"tags":["rust"]},
 {"short_id":"pg2old","short_id_url":"https://lobste.rs/s/pg2old","created_at":"2026-10-30T10:00:00.000-05:00",
  "title":"Async Rust, one year later","url":"https://example.dev/year","score":5,"flags":0,"comment_count":1,
  "description":"","description_plain":"","comments_url":"https://lobste.rs/s/pg2old/one_year_later","submitter_user":"x",
  "user_is_author":false,"tags":["rust"]}])");
  TestEnv t(f);
  auto q = make_query("rust async", "2026-11-01", "2026-11-29");
  q.depth = model::Depth::deep;
  auto r = lobsters().search(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  const auto urls = f.urls();
  EXPECT_NE(std::find(urls.begin(), urls.end(), "https://lobste.rs/newest/page/2.json"), urls.end());
  EXPECT_EQ(std::find(urls.begin(), urls.end(), "https://lobste.rs/newest/page/3.json"), urls.end());
  EXPECT_NE(find_item(r, "lobsters:pg2new"), nullptr);
  EXPECT_EQ(find_item(r, "lobsters:pg2old"), nullptr);  // before the window
}

TEST(Lobsters, LimitCapsEachSubQuery) {
  FixtureFetcher f;
  serve_listings(f);
  TestEnv t(f);
  auto q = make_query("rust", "2026-11-01", "2026-11-29");
  q.limit = 2;
  auto r = lobsters().search(q, t.env);
  EXPECT_EQ(ids_for(r, 0), (std::vector<std::string>{"lobsters:k3xq7w", "lobsters:t0k1o2"}));
}

TEST(Lobsters, RealRecordedStoryParses) {
  FixtureFetcher f;
  f.on_body("lobste.rs/hottest.json", "[" + fixture("real/lobsters/s_tdfoqh_2025-02.json") + "]");
  f.on_body("lobste.rs/newest.json", "[]");
  TestEnv t(f);
  auto r = lobsters().search(make_query("ranking comments", "2022-07-01", "2022-07-31"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 1u);
  const auto& i = r.items[0];
  EXPECT_EQ(i.id, "lobsters:tdfoqh");
  EXPECT_EQ(i.title, "Ranking comments by sum of replies' scores");
  EXPECT_EQ(i.url, "https://lobste.rs/s/tdfoqh/ranking_comments_by_sum_replies_scores");  // text post
  EXPECT_FALSE(i.discussion_url.has_value());
  EXPECT_EQ(i.author, "gioele");
  EXPECT_EQ(i.container, "meta");
  EXPECT_EQ(i.published_at, 1658509619);
  EXPECT_EQ(i.engagement_value("score"), 18);
  EXPECT_EQ(i.engagement_value("comment_count"), 10);
  EXPECT_EQ(i.snippet.rfind("There are often cases where comments with a poor score", 0), 0u) << i.snippet;
  EXPECT_LE(i.snippet.size(), 403u);
}

TEST(Lobsters, ListingKeepsHottestInWindowWhateverTheDomain) {
  FixtureFetcher f;
  serve_listings(f);
  TestEnv t(f);
  sources::ListingQuery q;
  q.window.from = 1793491200;  // 2026-11-01
  q.window.to = 1795996799;    // 2026-11-29 end
  auto all = lobsters().listing(q, t.env);
  ASSERT_EQ(all.state, SourceState::ok) << all.reason;
  EXPECT_EQ(ids_for(all, 0), (std::vector<std::string>{"lobsters:k3xq7w", "lobsters:pq0zna", "lobsters:f8m2ds", "lobsters:t0k1o2",
                                                       "lobsters:zzwho1"}));
  EXPECT_EQ(f.urls(), (std::vector<std::string>{"https://lobste.rs/hottest.json"}));

  // A domain run reads the same page; discovery selects its stories (discover::selects).
  q.domain = "rust";
  q.domain_terms = {"rust", "tokio"};
  auto domain = lobsters().listing(q, t.env);
  EXPECT_EQ(ids_for(domain, 0), ids_for(all, 0));
  EXPECT_TRUE(lobsters().has_listing());
}

TEST(Lobsters, HostileAnswersEndInAState) {
  const auto story = [](std::size_t i) {
    return fmt::format(R"({{"short_id":"s{}","title":"Rust story {}","url":"https://example.com/{}","score":1,)"
                       R"("created_at":"2026-11-20T10:00:00.000-06:00","tags":["rust"]}})",
                       i, i, i);
  };
  HostileTable(lobsters(), "lobste.rs/", Format::json)
      .valid(fixture("lobsters/hottest_2026-11-28.json"))
      .huge("[", story, "]")
      .row("object instead of a list", json_reply(R"({"error":"not found"})"), SourceState::schema_drift)
      .row("empty list", json_reply("[]"), SourceState::no_results)
      .row("stories of the wrong type", json_reply(R"([null, 1, "x", {"short_id": 5, "title": [1]}])"), SourceState::no_results)
      .run();
}

TEST(Lobsters, OddValuesAreKeptButNothingIsMadeUp) {
  FixtureFetcher f;
  f.on_body("lobste.rs/", R"([{"short_id":"nan001","title":"Rust NaN handling","score":"NaN","comment_count":1e308,)"
                          R"("created_at":"not a date","tags":"rust","submitter_user":7}])");
  TestEnv t(f);
  auto r = lobsters().search(make_query("rust", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 1u);
  EXPECT_TRUE(r.items[0].engagement.empty());  // "NaN" and 1e308 are not counts
  EXPECT_FALSE(r.items[0].published_at.has_value());
  EXPECT_FALSE(r.items[0].author.has_value());
  EXPECT_FALSE(r.items[0].container.has_value());
}

TEST(Lobsters, OneFailedListingIsPartial) {
  FixtureFetcher f;
  f.on_body("lobste.rs/hottest.json", fixture("lobsters/hottest_2026-11-28.json"));
  f.on_body("lobste.rs/newest.json", "<html><body>502 Bad Gateway</body></html>", "text/html", 502);
  TestEnv t(f);
  auto r = lobsters().search(make_query("zig build", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(r.state, SourceState::partial);
  EXPECT_FALSE(r.reason.empty());
  EXPECT_EQ(r.items.size(), 1u);
}

TEST(Lobsters, HostileListingAnswersEndInAState) {
  HostileTable(lobsters(), "lobste.rs/", Format::json)
      .listing(make_listing_query("2026-11-01", "2026-11-29"))
      .valid(fixture("lobsters/hottest_2026-11-28.json"))
      .run();
}

// ---- comments ----

TEST(LobstersComments, RealStoryGivesTopLevelCommentsByScoreWithReplyCounts) {
  FixtureFetcher f;
  f.on_body("/s/tdfoqh.json", fixture("real/lobsters/s_tdfoqh_2025-02.json"));
  TestEnv t(f);
  const auto& src = *sources::find("lobsters");
  ASSERT_TRUE(src.has_comments());
  auto threads = src.comments({{"lobsters:tdfoqh"}, 3}, t.env);
  ASSERT_EQ(f.urls(), (std::vector<std::string>{"https://lobste.rs/s/tdfoqh.json"}));
  ASSERT_FALSE(threads[0].failure) << *threads[0].failure;
  const auto& c = threads[0].comments;
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].author, "dpercy");
  EXPECT_EQ(c[0].score, 17);
  EXPECT_EQ(c[0].replies, 0);
  EXPECT_EQ(c[0].url, "https://lobste.rs/s/tdfoqh/ranking_comments_by_sum_replies_scores#c_ncdsfc");
  EXPECT_EQ(c[0].text.rfind("to avoid giving importance to superficial back-and-forth discussions Maybe take the max", 0), 0u)
      << c[0].text;
  EXPECT_EQ(c[1].author, "friendlysock");
  EXPECT_EQ(c[1].replies, 1);
  EXPECT_EQ(c[2].author, "kghose");
  EXPECT_EQ(c[2].replies, 2) << "a reply to a reply counts under its top-level comment";
}

TEST(LobstersComments, SkipsDeletedModeratedAndRepliesAndSurvivesHostileTrees) {
  FixtureFetcher f;
  f.on_body("/s/abc123.json", R"({"short_id":"abc123","title":"t","comments":[
    {"short_id":"c1","is_deleted":true,"is_moderated":false,"score":50,"parent_comment":null,"comment":"<p>gone</p>","commenting_user":"x"},
    {"short_id":"c2","is_deleted":false,"is_moderated":true,"score":40,"parent_comment":null,"comment":"<p>spam</p>","commenting_user":"y"},
    {"short_id":"c3","is_deleted":false,"is_moderated":false,"score":30,"parent_comment":"c4","depth":1,"comment":"<p>reply</p>","commenting_user":"z"},
    {"short_id":"c4","is_deleted":false,"is_moderated":false,"score":"7","parent_comment":"c3","comment":"<p>a cycle</p>","commenting_user":{"username":"old-shape"}},
    {"short_id":"c5","is_deleted":false,"is_moderated":false,"score":3,"parent_comment":null,"comment":"","comment_plain":"plain only","commenting_user":"p"},
    {"short_id":"c6","score":9,"parent_comment":null,"comment":"<p>hi</p>"},
    42
  ]})");
  f.on_body("/s/nocomm.json", R"({"short_id":"nocomm","title":"t"})");
  TestEnv t(f);
  auto threads = sources::find("lobsters")->comments({{"lobsters:abc123", "lobsters:nocomm", "lobsters:bad/../id"}, 5}, t.env);
  ASSERT_EQ(threads.size(), 3u);
  ASSERT_EQ(threads[0].comments.size(), 1u) << "deleted, moderated, replies and authorless comments are skipped";
  EXPECT_EQ(threads[0].comments[0].text, "plain only");
  ASSERT_TRUE(threads[1].failure);
  EXPECT_NE(threads[1].failure->find("comments"), std::string::npos);
  EXPECT_TRUE(threads[2].failure);
}
