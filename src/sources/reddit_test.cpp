#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "core/time.hpp"
#include "fake_upstream.hpp"
#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "sources/source.hpp"

using namespace testing_support;
using model::SourceState;

namespace {

const sources::Source& reddit() { return *sources::find("reddit"); }

constexpr const char* kAtom = "application/atom+xml";
constexpr const char* kSearchUrl = "https://www.reddit.com/search.rss?q=rust%201.92&sort=relevance&t=month&limit=25";
constexpr const char* kArcticPrefix = "https://arctic-shift.photon-reddit.com/api/posts/ids?ids=";

// Keeps whole requests (method, headers, body), which FixtureFetcher does not.

core::Config oauth_config() {
  return core::Config({{"REDDIT_CLIENT_ID", "p-jcoLKBynTLew"}, {"REDDIT_CLIENT_SECRET", "gko_LXELoV07ZBNUXrvWZfzE3aI"}}, {});
}

const model::Item* find_item(const sources::SourceResult& r, const std::string& id) {
  for (const auto& item : r.items)
    if (item.id == id) return &item;
  return nullptr;
}

bool has_field(const model::Item& item, std::string_view field) {
  for (const auto& e : item.engagement)
    if (e.field == field) return true;
  return false;
}

FixtureFetcher& keyless_routes(FixtureFetcher& f) {
  f.on_body("www.reddit.com/search.rss", fixture("reddit/search_rust.rss.xml"), kAtom);
  f.on_body("arctic-shift.photon-reddit.com", fixture("reddit/arctic_ids.json"));
  return f;
}

}  // namespace

TEST(Reddit, KeylessSearchParsesAtomEntriesAndMergesArchiveScores) {
  FixtureFetcher f;
  keyless_routes(f);
  TestEnv t(f);
  auto r = reddit().search(make_query("rust 1.92", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  // The comment entry (t1_) and the October post (outside the window) are dropped.
  ASSERT_EQ(r.items.size(), 4u);
  EXPECT_EQ(r.requests, 2);

  const auto& a = r.items[0];  // link post: the article is the item, the thread is the discussion
  EXPECT_EQ(a.id, "reddit:1p4xk2a");
  EXPECT_EQ(a.source, "reddit");
  EXPECT_EQ(a.title, "Announcing Rust 1.92.0");
  EXPECT_EQ(a.url, "https://blog.rust-lang.org/2026/11/20/Rust-1.92.0/?utm_source=reddit&utm_medium=social");
  EXPECT_EQ(a.discussion_url, "https://www.reddit.com/r/rust/comments/1p4xk2a/announcing_rust_1920/");
  EXPECT_EQ(a.author, "ferris_the_crab");
  EXPECT_EQ(a.container, "r/rust");
  EXPECT_EQ(a.published_at, *core::parse_iso8601("2026-11-20T10:00:00Z"));
  EXPECT_EQ(a.snippet, "");  // only "submitted by ... [link] [comments]" boilerplate
  EXPECT_EQ(a.engagement_value("score"), 1843);
  EXPECT_EQ(a.engagement_value("num_comments"), 412);
  EXPECT_DOUBLE_EQ(a.engagement_value("upvote_ratio"), 0.97);
  ASSERT_EQ(a.hits.size(), 1u);
  EXPECT_EQ(a.hits[0].subquery, 0);
  EXPECT_EQ(a.hits[0].rank, 0);

  const auto& b = r.items[1];  // self post: the thread is the item
  EXPECT_EQ(b.id, "reddit:1p6ab3c");
  EXPECT_EQ(b.title, "Rust 1.92 broke my async trait & I don't know why");
  EXPECT_EQ(b.url, "https://www.reddit.com/r/learnrust/comments/1p6ab3c/rust_192_broke_my_async_trait/");
  EXPECT_FALSE(b.discussion_url.has_value());
  EXPECT_EQ(b.author, "borrowck_blues");
  EXPECT_EQ(b.container, "r/learnrust");
  EXPECT_EQ(b.snippet,
            "After upgrading to 1.92 my async fn in a trait stopped compiling. It's the new lifetime capture rules, "
            "right? Any pointers & workarounds welcome.");
  EXPECT_EQ(b.engagement_value("score"), 57);  // arrived as a string
  EXPECT_EQ(b.engagement_value("num_comments"), 23);

  const auto& c = r.items[2];  // image post, no <published>, not in the archive yet
  EXPECT_EQ(c.id, "reddit:1p7qq9z");
  EXPECT_EQ(c.url, "https://www.reddit.com/r/rustjerk/comments/1p7qq9z/me_after_1_92/");  // i.redd.it is not an outside link
  EXPECT_FALSE(c.discussion_url.has_value());
  EXPECT_EQ(c.published_at, *core::parse_iso8601("2026-11-26T17:03:11Z"));  // from <updated>
  EXPECT_TRUE(c.engagement.empty());                                        // absent, not zero

  const auto& d = r.items[3];  // deleted author, video post, null ratio
  EXPECT_EQ(d.id, "reddit:1p8zz10");
  EXPECT_FALSE(d.author.has_value());
  EXPECT_EQ(d.container, "r/programming");
  EXPECT_EQ(d.url, "https://www.reddit.com/r/programming/comments/1p8zz10/rust_192_in_100_seconds/");
  EXPECT_EQ(d.engagement_value("score"), 12);
  EXPECT_TRUE(has_field(d, "num_comments"));  // a reported 0 stays
  EXPECT_FALSE(has_field(d, "upvote_ratio"));
}

TEST(Reddit, KeylessSearchBuildsTheRealRequests) {
  FixtureFetcher f;
  keyless_routes(f);
  TestEnv t(f);
  reddit().search(make_query("rust 1.92", "2026-11-01", "2026-11-29"), t.env);
  const auto urls = f.urls();
  ASSERT_EQ(urls.size(), 2u);
  EXPECT_EQ(urls[0], kSearchUrl);
  // One batch, base36 ids without the t3_ prefix, in result order; only the fields we use.
  EXPECT_EQ(urls[1],
            std::string(kArcticPrefix) + "1p4xk2a,1p6ab3c,1p7qq9z,1p8zz10&fields=id,score,num_comments,upvote_ratio,created_utc");
}

TEST(Reddit, WindowLengthPicksTheTimeFilter) {
  const std::vector<std::pair<int, std::string>> cases = {{1, "t=day"},   {7, "t=week"},   {30, "t=month"}, {31, "t=month"},
                                                          {90, "t=year"}, {365, "t=year"}, {400, "t=all"}};
  for (const auto& [days, want] : cases) {
    FixtureFetcher f;
    keyless_routes(f);
    TestEnv t(f);
    auto q = make_query("rust", "2026-11-01", "2026-11-29");
    q.window = model::Window::ending(*core::parse_date("2026-11-29"), days);
    reddit().search(q, t.env);
    ASSERT_FALSE(f.urls().empty());
    EXPECT_NE(f.urls()[0].find("&" + want + "&"), std::string::npos) << days << " days: " << f.urls()[0];
  }
}

TEST(Reddit, SubQueriesShareOneSearchAndScoresAreOneBatch) {
  FixtureFetcher f;
  keyless_routes(f);
  TestEnv t(f);
  auto q = make_query("rust 1.92", "2026-11-01", "2026-11-29");
  q.sub_queries.push_back({"async trait", 0.5});
  auto r = reddit().search(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  const auto urls = f.urls();
  ASSERT_EQ(urls.size(), 2u) << "one paced search for both sub-queries, then the scores";
  EXPECT_EQ(urls[0],
            "https://www.reddit.com/search.rss?q=%28rust%201.92%29%20OR%20%28async%20trait%29&sort=relevance&t=month&limit=100");
  EXPECT_EQ(urls[1].rfind(kArcticPrefix, 0), 0u);
  EXPECT_EQ(r.requests, 2);
  ASSERT_EQ(r.items.size(), 4u);
  // Each post counts for the sub-queries whose words it carries, ranked in reddit's order
  // within each, as if each had been searched alone.
  const auto* both = find_item(r, "reddit:1p6ab3c");  // "Rust 1.92 broke my async trait"
  ASSERT_NE(both, nullptr);
  ASSERT_EQ(both->hits.size(), 2u);
  EXPECT_EQ(both->hits[0].subquery, 0);
  EXPECT_EQ(both->hits[0].rank, 1);
  EXPECT_EQ(both->hits[1].subquery, 1);
  EXPECT_EQ(both->hits[1].rank, 0);
  const auto* one = find_item(r, "reddit:1p4xk2a");  // "Announcing Rust 1.92.0"
  ASSERT_NE(one, nullptr);
  ASSERT_EQ(one->hits.size(), 1u);
  EXPECT_EQ(one->hits[0].subquery, 0);
  EXPECT_EQ(one->hits[0].rank, 0);
}

TEST(Reddit, PackedGroupsKeepTheirOwnMeaning) {
  FixtureFetcher f;
  keyless_routes(f);
  TestEnv t(f);
  auto q = make_query("tokio (runtime)", "2026-11-01", "2026-11-29");
  q.sub_queries.push_back({"rust OR go", 0.5});        // an operator word inside a sub-query is a word
  q.sub_queries.push_back({"\"async rust", 0.5});      // an unbalanced quote would swallow what follows
  q.sub_queries.push_back({"tokio  (runtime)", 0.5});  // the same group twice is asked once
  q.sub_queries.push_back({"\"io uring\" tokio", 0.5});
  (void)reddit().search(q, t.env);
  ASSERT_FALSE(f.urls().empty());
  const std::string url = f.urls()[0];
  const auto from = url.find("q=") + 2;
  EXPECT_EQ(core::url_decode(url.substr(from, url.find('&', from) - from)),
            "(tokio runtime) OR (rust or go) OR (async rust) OR (\"io uring\" tokio)");
}

namespace {
// A full page (100 posts) about one thing only.
std::string full_page_about(const std::string& words) {
  std::string feed = R"(<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>s</title>)";
  for (int i = 0; i < 100; ++i)
    feed += fmt::format(
        R"(<entry><author><name>/u/a{0}</name></author><category term="rust" label="r/rust"/>)"
        R"(<content type="html">x</content><id>t3_zz{0}</id><link href="https://www.reddit.com/r/rust/comments/zz{0}/x/" />)"
        R"(<published>2026-11-20T10:00:00+00:00</published><title>{1} number {0}</title></entry>)",
        i, words);
  return feed + "</feed>";
}
}  // namespace

TEST(Reddit, ASubQueryCrowdedOutOfAFullPackedPageGetsItsOwnSearch) {
  FixtureFetcher f;
  f.on_body("q=%28rust%201.92%29%20OR", full_page_about("Rust 1.92 tip"), kAtom);
  f.on_body("www.reddit.com/search.rss", fixture("reddit/search_rust.rss.xml"), kAtom);
  f.on_body("arctic-shift.photon-reddit.com", fixture("reddit/arctic_ids.json"));
  TestEnv t(f);
  auto q = make_query("rust 1.92", "2026-11-01", "2026-11-29");
  q.sub_queries.push_back({"async trait", 0.5});
  q.sub_queries.push_back({"rust tip", 0.5});
  auto r = reddit().search(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  const auto urls = f.urls();
  ASSERT_EQ(urls.size(), 3u);
  EXPECT_EQ(urls[1], "https://www.reddit.com/search.rss?q=async%20trait&sort=relevance&t=month&limit=25")
      << "only the sub-query with no post on the full page is searched alone";
  EXPECT_EQ(r.requests, 3);
  const auto* alone = find_item(r, "reddit:1p6ab3c");
  ASSERT_NE(alone, nullptr);
  ASSERT_EQ(alone->hits.size(), 1u);
  EXPECT_EQ(alone->hits[0].subquery, 1);
  // The packed page still counts: 25 ranks (the page each sub-query asked for) for each of
  // the two sub-queries it answered.
  const auto* tip = find_item(r, "reddit:zz0");
  ASSERT_NE(tip, nullptr);
  ASSERT_EQ(tip->hits.size(), 2u);
  EXPECT_EQ(find_item(r, "reddit:zz25"), nullptr);
}

TEST(Reddit, SubQueriesTooLongForOneSearchGoOneEach) {
  FixtureFetcher f;
  keyless_routes(f);
  TestEnv t(f);
  auto q = make_query(std::string(300, 'a'), "2026-11-01", "2026-11-29");
  q.sub_queries.push_back({std::string(300, 'b'), 0.5});
  q.limit = 500;  // reddit caps listings at 100
  auto r = reddit().search(q, t.env);
  const auto urls = f.urls();
  ASSERT_EQ(urls.size(), 3u);
  EXPECT_EQ(urls[0],
            fmt::format("https://www.reddit.com/search.rss?q={}&sort=relevance&t=month&limit=100", std::string(300, 'a')));
  EXPECT_EQ(urls[1],
            fmt::format("https://www.reddit.com/search.rss?q={}&sort=relevance&t=month&limit=100", std::string(300, 'b')));
  EXPECT_EQ(r.requests, 3);
}

TEST(Reddit, ArchiveFailureKeepsItemsWithoutScoresAsPartial) {
  const auto post = [](std::size_t i) { return fmt::format(R"({{"id":"z{}","score":{}}})", i, i); };
  HostileTable(reddit(), "arctic-shift", Format::json)
      .also("www.reddit.com/search.rss", fixture("reddit/search_rust.rss.xml"), kAtom)
      .failures_become(SourceState::partial, "scores unavailable: ")
      .valid(fixture("reddit/arctic_ids.json"))
      .huge(R"({"data":[)", post, "]}")
      .row("busy archive", json_reply(R"({"error":"Timeout. Maybe slow down a bit"})"), SourceState::schema_drift,
           "Timeout. Maybe slow down")
      .row("data is null", json_reply(R"({"data":null})"), SourceState::schema_drift, "no 'data' array")
      .run();
  // The posts stay, without made-up scores.
  FixtureFetcher f;
  f.on_body("www.reddit.com/search.rss", fixture("reddit/search_rust.rss.xml"), kAtom);
  f.on_error("arctic-shift", http::NetError::timeout);
  TestEnv t(f);
  auto r = reddit().search(make_query("rust 1.92", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(r.state, SourceState::partial);
  EXPECT_EQ(r.reason, "scores unavailable: no answer before the deadline");
  ASSERT_EQ(r.items.size(), 4u);
  for (const auto& item : r.items) EXPECT_TRUE(item.engagement.empty()) << item.id;
}

TEST(Reddit, OddArchiveValuesStayAbsent) {
  FixtureFetcher f;
  f.on_body("www.reddit.com/search.rss", fixture("reddit/search_rust.rss.xml"), kAtom);
  f.on_body("arctic-shift", R"({"data":[
    {"id":"t3_1p4xk2a","score":"NaN","num_comments":-3,"upvote_ratio":"0.5x"},
    {"id":"1p6ab3c","score":1e308,"num_comments":{"n":1},"upvote_ratio":2.5},
    {"id":null},7,"x",{"id":"1p7qq9z","score":true,"created_utc":-1}]})");
  TestEnv t(f);
  auto r = reddit().search(make_query("rust 1.92", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  const auto* a = find_item(r, "reddit:1p4xk2a");  // a t3_-prefixed id still matches
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->engagement.empty());
  const auto* b = find_item(r, "reddit:1p6ab3c");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->engagement.empty());  // a 1e308 score is corrupt, the object and the ratio > 1 are not numbers
}

TEST(Reddit, RealRecordedAtomFeedsParse) {
  {
    FixtureFetcher f;
    f.on_body("search.rss", fixture("real/reddit/r_Rakuten_top_rss_month.xml"), kAtom);
    f.on_body("arctic-shift", R"({"data":[]})");
    TestEnv t(f);
    auto r = reddit().search(make_query("rakuten", "2026-05-01", "2026-05-29"), t.env);
    ASSERT_EQ(r.state, SourceState::ok) << r.reason;
    ASSERT_EQ(r.items.size(), 5u);
    const auto& a = r.items[0];
    EXPECT_EQ(a.id, "reddit:1tiv013");
    EXPECT_EQ(a.title, "LETS GOO! $0.02!!!");
    EXPECT_EQ(a.url, "https://www.reddit.com/r/Rakuten/comments/1tiv013/lets_goo_002/");
    EXPECT_FALSE(a.discussion_url.has_value());
    EXPECT_EQ(a.author, "InternetUser52");
    EXPECT_EQ(a.container, "r/Rakuten");
    EXPECT_EQ(a.published_at, *core::parse_iso8601("2026-05-20T18:48:31Z"));
    EXPECT_EQ(a.snippet, "I'm rich!!");
    EXPECT_TRUE(a.engagement.empty());
    EXPECT_EQ(r.items[3].snippet, "");  // image post without text
  }
  {
    FixtureFetcher f;
    f.on_body("search.rss", fixture("real/reddit/r_gravelcycling_top_rss_year_2026-07-03.xml"), kAtom);
    f.on_body("arctic-shift", R"({"data":[{"id":"1qm7i79","score":2231,"num_comments":97,"upvote_ratio":0.96}]})");
    TestEnv t(f);
    auto q = make_query("gravel", "2026-11-01", "2026-11-29");
    q.window = model::Window::ending(*core::parse_date("2026-07-03"), 365);
    auto r = reddit().search(q, t.env);
    ASSERT_EQ(r.state, SourceState::ok) << r.reason;
    ASSERT_EQ(r.items.size(), 25u);
    const auto& a = r.items[0];
    EXPECT_EQ(a.id, "reddit:1qm7i79");
    EXPECT_EQ(a.title, "Rigid frame with flat bars. My kinda bike! RIP Alex Pretti");
    EXPECT_EQ(a.author, "Winyamo");
    EXPECT_EQ(a.container, "r/gravelcycling");
    EXPECT_EQ(a.url,
              "https://www.reddit.com/r/gravelcycling/comments/1qm7i79/rigid_frame_with_flat_bars_my_kinda_bike_rip_alex/");
    EXPECT_EQ(a.engagement_value("score"), 2231);
    for (const auto& item : r.items) {
      EXPECT_TRUE(item.published_at.has_value()) << item.id;
      EXPECT_FALSE(item.url.empty()) << item.id;
      EXPECT_EQ(item.snippet.find("submitted by"), std::string::npos) << item.snippet;
      EXPECT_LE(item.snippet.size(), 403u);
    }
  }
}

TEST(Reddit, OAuthSearchPostsForATokenThenSearchesWithIt) {
  FixtureFetcher inner;
  inner.on_body("/api/v1/access_token", fixture("reddit/oauth_token.json"));
  inner.on_body("oauth.reddit.com/search", fixture("reddit/oauth_search_rust.json"));
  TestEnv t(inner, oauth_config());
  auto r = reddit().search(make_query("rust 1.92", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  const auto sent = inner.requests();
  ASSERT_EQ(sent.size(), 2u);  // no archive lookup: the API has scores
  EXPECT_EQ(r.requests, 2);

  const auto& tok = sent[0];
  EXPECT_EQ(tok.url, "https://www.reddit.com/api/v1/access_token");
  EXPECT_EQ(tok.method, "POST");
  EXPECT_EQ(tok.body, "grant_type=client_credentials");
  // base64("p-jcoLKBynTLew:gko_LXELoV07ZBNUXrvWZfzE3aI")
  EXPECT_EQ(inner.header(0, "Authorization"), "Basic cC1qY29MS0J5blRMZXc6Z2tvX0xYRUxvVjA3WkJOVVhydldaZnpFM2FJ");
  EXPECT_EQ(inner.header(0, "Content-Type"), "application/x-www-form-urlencoded");

  const auto& search = sent[1];
  EXPECT_EQ(search.method, "GET");
  EXPECT_EQ(search.url, "https://oauth.reddit.com/search?q=rust%201.92&t=month&sort=relevance&limit=25&raw_json=1&type=link");
  EXPECT_EQ(inner.header(1, "Authorization"),
            "bearer "
            "eyJhbGciOiJSUzI1NiIsImtpZCI6IlNIQTI1NjpzS3dsMnlsV0VtMjVmcXhwTU40cWY4MXE2OWFFdWFyMnpLMUdhVGxjdWNZIiwidHlwIjoiSldUIn0."
            "test-token-body");

  // Three in-window posts; the October one, the null/odd children and the bad id are dropped.
  ASSERT_EQ(r.items.size(), 3u);
  const auto& a = r.items[0];
  EXPECT_EQ(a.id, "reddit:1p4xk2a");
  EXPECT_EQ(a.title, "Announcing Rust 1.92.0");
  EXPECT_EQ(a.url, "https://blog.rust-lang.org/2026/11/20/Rust-1.92.0/");
  EXPECT_EQ(a.discussion_url, "https://www.reddit.com/r/rust/comments/1p4xk2a/announcing_rust_1920/");
  EXPECT_EQ(a.author, "ferris_the_crab");
  EXPECT_EQ(a.container, "r/rust");
  EXPECT_EQ(a.published_at, 1795168800);
  EXPECT_EQ(a.engagement_value("score"), 1843);
  EXPECT_EQ(a.engagement_value("num_comments"), 412);
  EXPECT_DOUBLE_EQ(a.engagement_value("upvote_ratio"), 0.97);
  EXPECT_EQ(a.snippet, "");

  const auto& b = r.items[1];
  EXPECT_EQ(b.url, "https://www.reddit.com/r/learnrust/comments/1p6ab3c/rust_192_broke_my_async_trait/");
  EXPECT_FALSE(b.discussion_url.has_value());
  EXPECT_EQ(b.snippet, "After upgrading to 1.92 my async fn in a trait stopped compiling. Any pointers & workarounds welcome.");
  EXPECT_EQ(b.published_at, 1795508142);

  const auto& c = r.items[2];
  EXPECT_EQ(c.url, "https://www.reddit.com/r/rustjerk/comments/1p7qq9z/me_after_1_92/");  // image, not an outside link
  EXPECT_FALSE(c.author.has_value());                                                     // "[deleted]"
  EXPECT_EQ(c.engagement_value("score"), 88);                                             // numeric string
  EXPECT_FALSE(has_field(c, "num_comments"));                                             // null
  EXPECT_FALSE(has_field(c, "upvote_ratio"));                                             // 1.7 is not a ratio
}

TEST(Reddit, OAuthTokenFailuresEndTheRunWithoutLeakingSecrets) {
  HostileTable(reddit(), "/api/v1/access_token", Format::json)
      .config(oauth_config())
      .also("oauth.reddit.com", fixture("reddit/oauth_search_rust.json"))
      .secret("p-jcoLKBynTLew")
      .secret("gko_LXELoV07")
      .row("invalid grant", json_reply(R"({"error": "invalid_grant"})"), SourceState::auth_failed)
      .row("error echoing the secret", json_reply(R"({"error": "gko_LXELoV07ZBNUXrvWZfzE3aI is bad!"})"),
           SourceState::auth_failed)
      .row("no access token", json_reply(R"({"token_type": "bearer", "expires_in": 86400})"), SourceState::schema_drift)
      .row("whoa there", reply(200, "<html><body>whoa there, pardner!</body></html>", "text/html"), SourceState::rate_limited)
      .run();
  FixtureFetcher f;
  f.on_body("/api/v1/access_token", R"({"error": "invalid_grant"})");
  f.on_body("oauth.reddit.com", fixture("reddit/oauth_search_rust.json"));
  TestEnv t(f, oauth_config());
  auto r = reddit().search(make_query("rust", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(f.urls().size(), 1u) << "no search without a token";
  EXPECT_TRUE(r.items.empty());
}

TEST(Reddit, OAuthSearchFailuresMapToStates) {
  const auto child = [](std::size_t i) {
    return fmt::format(R"({{"kind":"t3","data":{{"id":"z{}","title":"Rust post {}","subreddit":"rust","created_utc":1795633544,)"
                       R"("permalink":"/r/rust/comments/z{}/x/","score":{}}}}})",
                       i, i, i, i);
  };
  HostileTable(reddit(), "oauth.reddit.com/search", Format::json)
      .config(oauth_config())
      .also("/api/v1/access_token", fixture("reddit/oauth_token.json"))
      .secret("eyJhbGci")
      .valid(fixture("reddit/oauth_search_rust.json"))
      .huge(R"({"kind":"Listing","data":{"children":[)", child, "]}}")
      .row("429 in a 200", json_reply(R"({"message": "Too Many Requests", "error": 429})"), SourceState::rate_limited)
      .row("no children", json_reply(R"({"kind": "Listing", "data": {"after": null}})"), SourceState::schema_drift)
      .row("array instead of a listing", json_reply(R"([{"kind": "Listing"}])"), SourceState::schema_drift)
      .row("empty listing", json_reply(R"({"kind": "Listing", "data": {"children": []}})"), SourceState::no_results)
      .run();
}

TEST(Reddit, RealRecordedOAuthListingsParse) {
  FixtureFetcher f;
  f.on_body("/api/v1/access_token", fixture("reddit/oauth_token.json"));
  f.on_body("oauth.reddit.com/r/all/top", fixture("real/reddit/r_askreddit_top_all_2016.json"));
  f.on_body("oauth.reddit.com/r/all/rising", fixture("real/reddit/r_all_search_praw_oauth_search_2016.json"));
  TestEnv t(f, oauth_config());
  sources::ListingQuery q;
  q.window = model::Window::ending(*core::parse_date("2026-11-29"), 30);
  q.limit = 100;  // what the recordings were asked for
  auto r = reddit().listing(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 106u);  // listings are "hot now": not filtered by the window
  const auto& a = r.items[0];
  EXPECT_EQ(a.id, "reddit:2np694");
  EXPECT_EQ(a.title, "What tasty food would be distusting if eaten over rice?");
  EXPECT_EQ(a.url, "https://www.reddit.com/r/AskReddit/comments/2np694/what_tasty_food_would_be_distusting_if_eaten_over/");
  EXPECT_FALSE(a.discussion_url.has_value());
  EXPECT_EQ(a.author, "DO_U_EVN_SPAGHETTI");
  EXPECT_EQ(a.container, "r/AskReddit");
  EXPECT_EQ(a.published_at, 1417208878);
  EXPECT_EQ(a.engagement_value("score"), 38445);
  EXPECT_EQ(a.engagement_value("num_comments"), 7804);
  EXPECT_FALSE(has_field(a, "upvote_ratio"));  // 2016 listings did not carry it
  const auto* s = find_item(r, "reddit:3gpbiu");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->container, "r/redditdev");
  EXPECT_EQ(s->hits[0].subquery, 1);
  EXPECT_EQ(s->snippet.rfind("solved Problem solved with this:", 0), 0u) << s->snippet;
  EXPECT_LE(s->snippet.size(), 403u);
  EXPECT_EQ(s->engagement_value("num_comments"), 21);
  EXPECT_TRUE(has_field(*s, "score"));  // a reported 0 stays
}

TEST(Reddit, ListingRequestsTopAndRisingOrADomainSearch) {
  sources::ListingQuery global;
  global.window = model::Window::ending(*core::parse_date("2026-11-29"), 7);
  {
    FixtureFetcher f;
    f.on_body("top.rss", fixture("reddit/search_rust.rss.xml"), kAtom);
    f.on_body("rising.rss", fixture("real/reddit/r_Rakuten_top_rss_month.xml"), kAtom);
    f.on_body("arctic-shift", fixture("reddit/arctic_ids.json"));
    TestEnv t(f);
    ASSERT_TRUE(reddit().has_listing());
    auto r = reddit().listing(global, t.env);
    ASSERT_EQ(r.state, SourceState::ok) << r.reason;
    const auto urls = f.urls();
    ASSERT_EQ(urls.size(), 3u);
    EXPECT_EQ(urls[0], "https://www.reddit.com/r/all/top.rss?t=day&limit=30");
    EXPECT_EQ(urls[1], "https://www.reddit.com/r/all/rising.rss?limit=30");
    EXPECT_NE(urls[2].find("1p4xk2a,1p6ab3c,1p7qq9z,1nzz001,1p8zz10,1tiv013,"), std::string::npos) << urls[2];
    EXPECT_EQ(r.items.size(), 10u);
    EXPECT_EQ(find_item(r, "reddit:1p4xk2a")->engagement_value("score"), 1843);
  }
  sources::ListingQuery domain = global;
  domain.domain = "ai";
  domain.domain_terms = {"openai", "large language model"};
  domain.limit = 50;
  {
    FixtureFetcher f;
    f.on_body("search.rss", fixture("reddit/search_rust.rss.xml"), kAtom);
    f.on_body("arctic-shift", fixture("reddit/arctic_ids.json"));
    TestEnv t(f);
    auto r = reddit().listing(domain, t.env);
    EXPECT_EQ(r.state, SourceState::ok) << r.reason;
    ASSERT_EQ(f.urls().size(), 2u);
    EXPECT_EQ(f.urls()[0], "https://www.reddit.com/search.rss?q=openai%20OR%20large%20language%20model&sort=top&t=week&limit=50");
  }
  {
    FixtureFetcher f;
    f.on_body("/api/v1/access_token", fixture("reddit/oauth_token.json"));
    f.on_body("oauth.reddit.com", fixture("reddit/oauth_search_rust.json"));
    TestEnv t(f, oauth_config());
    reddit().listing(global, t.env);
    auto urls = f.urls();
    ASSERT_EQ(urls.size(), 3u);
    EXPECT_NE(urls[0].find("/api/v1/access_token"), std::string::npos) << "the token comes first";
    std::sort(urls.begin() + 1, urls.end());  // the two listings go together
    EXPECT_EQ(urls[1], "https://oauth.reddit.com/r/all/rising?limit=30&raw_json=1");
    EXPECT_EQ(urls[2], "https://oauth.reddit.com/r/all/top?t=day&limit=30&raw_json=1");
  }
  {
    FixtureFetcher f;
    f.on_body("/api/v1/access_token", fixture("reddit/oauth_token.json"));
    f.on_body("oauth.reddit.com", fixture("reddit/oauth_search_rust.json"));
    TestEnv t(f, oauth_config());
    reddit().listing(domain, t.env);
    ASSERT_EQ(f.urls().size(), 2u);
    EXPECT_EQ(
        f.urls()[1],
        "https://oauth.reddit.com/search?q=openai%20OR%20large%20language%20model&sort=top&t=week&limit=50&raw_json=1&type=link");
  }
}

TEST(Reddit, ListingWithOneFailedStreamIsPartial) {
  sources::ListingQuery q;
  q.window = model::Window::ending(*core::parse_date("2026-11-29"), 7);
  FixtureFetcher f;
  f.on_body("top.rss", fixture("reddit/search_rust.rss.xml"), kAtom);
  f.on_body("rising.rss", "Too Many Requests", "text/plain", 429);
  f.on_body("arctic-shift", fixture("reddit/arctic_ids.json"));
  TestEnv t(f);
  auto r = reddit().listing(q, t.env);
  EXPECT_EQ(r.state, SourceState::partial);
  EXPECT_NE(r.reason.find("429"), std::string::npos) << r.reason;
  EXPECT_EQ(r.items.size(), 5u);
}

TEST(Reddit, HostileFeedAnswersEndInAState) {
  const std::string head = R"(<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom">)";
  const auto entry = [](std::size_t i) {
    return fmt::format(
        "<entry><id>t3_z{}</id><title>Rust post {}</title><category term=\"rust\"/>"
        "<published>2026-11-20T10:00:00+00:00</published></entry>",
        i, i);
  };
  HostileTable(reddit(), "search.rss", Format::xml)
      .also("arctic-shift", fixture("reddit/arctic_ids.json"))
      .valid(fixture("reddit/search_rust.rss.xml"))
      .huge(
          head, [&](std::size_t i) { return entry(i); }, "</feed>")
      .row("blocked", reply(403, "<html><body>You've been blocked by network security.</body></html>", "text/html"),
           SourceState::rate_limited)
      .row("whoa there", reply(200, "<html><body>whoa there, pardner!</body></html>", "text/html"), SourceState::rate_limited)
      .row("no entries", xml_reply(head + "<title>search results</title></feed>"), SourceState::no_results)
      .row("unusable entries",
           xml_reply(head + "<entry><id>t1_abc</id><title>a comment</title></entry><entry><id>t3_UPPER/../x</id>"
                            "<title>x</title></entry><entry><id>t3_abc</id></entry></feed>"),
           SourceState::no_results)
      .run();
  // Without items there is nothing to look up in the archive.
  FixtureFetcher f;
  f.on_body("search.rss", "Too Many Requests", "text/plain", 429);
  f.on_body("arctic-shift", fixture("reddit/arctic_ids.json"));
  TestEnv t(f);
  reddit().search(make_query("rust", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(f.urls().size(), 1u);
}

TEST(Reddit, HostileListingAnswersEndInAState) {
  HostileTable(reddit(), "/r/all/", Format::xml)
      .listing(make_listing_query("2026-11-23", "2026-11-29"))
      .also("arctic-shift", fixture("reddit/arctic_ids.json"))
      .valid(fixture("reddit/search_rust.rss.xml"))
      .run();
}

TEST(Reddit, OneCredentialAloneStaysKeyless) {
  FixtureFetcher f;
  keyless_routes(f);
  TestEnv t(f, core::Config({{"REDDIT_CLIENT_ID", "p-jcoLKBynTLew"}}, {}));
  EXPECT_FALSE(reddit().unconfigured(t.config).has_value());
  auto r = reddit().search(make_query("rust 1.92", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_FALSE(f.urls().empty());
  EXPECT_EQ(f.urls()[0], kSearchUrl);
}

// ---- comments ----

TEST(RedditComments, KeylessThreadComesFromTheArchiveBestScoredFirst) {
  FixtureFetcher f;
  f.on_body("arctic-shift.photon-reddit.com/api/comments/search", fixture("e2e/arctic_comments_1q2tok1.json"));
  TestEnv t(f);
  ASSERT_TRUE(reddit().has_comments());
  auto threads = reddit().comments({{"reddit:1q2tok1"}, 3}, t.env);
  ASSERT_EQ(f.urls().size(), 1u);
  EXPECT_EQ(f.urls()[0],
            "https://arctic-shift.photon-reddit.com/api/comments/search?link_id=1q2tok1&limit=100"
            "&fields=id,author,body,score,parent_id,permalink,distinguished,stickied");
  ASSERT_FALSE(threads[0].failure) << *threads[0].failure;
  const auto& c = threads[0].comments;
  // AutoModerator's pinned notice, [deleted], [removed], a bot and a reply are not quoted.
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].author, "Darksonn");
  EXPECT_EQ(c[0].score, 512);
  EXPECT_EQ(c[0].text,
            "Maintainer here: the migration guide covers block_in_place. If something in it is unclear, open an issue & we will "
            "fix the docs.");
  EXPECT_EQ(c[0].url, "https://www.reddit.com/r/rust/comments/1q2tok1/tokio_20_is_out_with_a_new_runtime_scheduler/k0aaaa1/");
  EXPECT_EQ(c[1].author, "ferris_fan");
  EXPECT_EQ(c[1].text, "Upgraded 12 crates in an afternoon. The only breakage was our own Vec<JoinHandle> juggling.");
}

TEST(RedditComments, OAuthThreadUsesTheSearchTokenAndTheJsonApi) {
  FixtureFetcher f;
  f.on_body("/api/v1/access_token", fixture("reddit/oauth_token.json"));
  f.on_body("oauth.reddit.com/search", fixture("reddit/oauth_search_rust.json"));
  f.on_body("oauth.reddit.com/comments/1p4xk2a", fixture("reddit/oauth_comments_1p4xk2a.json"));
  TestEnv t(f, oauth_config());
  auto r = reddit().search(make_query("rust 1.92", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  auto threads = reddit().comments({{"reddit:1p4xk2a", "reddit:1p6ab3c"}, 3}, t.env);
  const auto urls = f.urls();
  EXPECT_EQ(std::count(urls.begin(), urls.end(), "https://www.reddit.com/api/v1/access_token"), 1)
      << "one token for the session's searches and comments";
  EXPECT_NE(std::find(urls.begin(), urls.end(), "https://oauth.reddit.com/comments/1p4xk2a?sort=top&depth=1&limit=25"),
            urls.end());
  EXPECT_EQ(f.header(urls.size() - 1, "Authorization").value_or("").rfind("bearer ", 0), 0u);
  ASSERT_FALSE(threads[0].failure) << *threads[0].failure;
  const auto& c = threads[0].comments;
  ASSERT_EQ(c.size(), 2u) << "AutoModerator, [deleted], the bot and the 'more' stub are skipped";
  EXPECT_EQ(c[0].author, "Manishearth");
  EXPECT_EQ(c[0].text, "The async fn in traits stabilisation is the real headline & it took *years*. See the RFC.");
  EXPECT_EQ(c[1].text, "Cargo's new resolver finally picks up rust-version > MSRV by default.");
  ASSERT_TRUE(threads[1].failure) << "no fixture: the fetcher's 404";
  // A new session (another process, another fetcher) asks for its own token.
  FixtureFetcher g;
  g.on_body("/api/v1/access_token", fixture("reddit/oauth_token.json"));
  g.on_body("oauth.reddit.com/comments/", fixture("reddit/oauth_comments_1p4xk2a.json"));
  TestEnv u(g, oauth_config());
  reddit().comments({{"reddit:1p4xk2a"}, 3}, u.env);
  EXPECT_EQ(g.urls().front(), "https://www.reddit.com/api/v1/access_token");
}

TEST(RedditComments, FailuresAreReasonsNeverCrashes) {
  FixtureFetcher f;
  f.on_body("link_id=aaaaaa", R"({"error":"Timeout. Maybe slow down a bit"})");
  f.on_body("link_id=bbbbbb", R"([1,2,3])");
  f.on_body("link_id=cccccc", "<html>blocked</html>", "text/html", 403);
  f.on_body("link_id=dddddd", R"J({"data":[{"id":"x","author":"a","body":"hi","score":"NaN","parent_id":"t3_dddddd"},null,7,
    {"id":"y","author":"b","body":"yo","score":1e308,"parent_id":"t3_dddddd","permalink":"javascript:alert(1)"}]})J");
  TestEnv t(f);
  auto threads =
      reddit().comments({{"reddit:aaaaaa", "reddit:bbbbbb", "reddit:cccccc", "reddit:dddddd", "reddit:NOT-AN-ID"}, 3}, t.env);
  ASSERT_EQ(threads.size(), 5u);
  ASSERT_TRUE(threads[0].failure);
  EXPECT_NE(threads[0].failure->find("slow down"), std::string::npos);
  EXPECT_TRUE(threads[1].failure);
  ASSERT_TRUE(threads[2].failure);
  EXPECT_NE(threads[2].failure->find("rate-limited"), std::string::npos) << *threads[2].failure;
  ASSERT_FALSE(threads[3].failure);
  ASSERT_EQ(threads[3].comments.size(), 2u);
  EXPECT_FALSE(threads[3].comments[0].score.has_value() && !std::isfinite(*threads[3].comments[0].score));
  for (const auto& c : threads[3].comments)
    EXPECT_NE(c.url.value_or("").rfind("javascript:", 0), 0u) << "a URL is never built from junk";
  EXPECT_TRUE(threads[4].failure);
  EXPECT_EQ(f.urls().size(), 4u);
}
