#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/text.hpp"
#include "core/time.hpp"
#include "fake_upstream.hpp"
#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "sources/source.hpp"

using namespace testing_support;
using model::SourceState;

namespace {

const sources::Source& x() { return *sources::find("x"); }

constexpr const char* kToken = "AAAAAAAAAAAAAAAAAAAAAL30testBearerToken%2Fsecret";
constexpr const char* kRoute = "api.x.com/2/tweets/search/recent";

core::UnixSeconds at(const char* iso) { return *core::parse_iso8601(iso); }

core::Config keyed() { return core::Config({{"X_BEARER_TOKEN", kToken}}, {}); }

// A November 2026 window seen from noon on its last day.
sources::Query november(const std::string& text = "rust 1.92") {
  auto q = make_query(text, "2026-11-01", "2026-11-29");
  q.now = at("2026-11-29T12:00:00Z");
  return q;
}

std::string param(const std::string& url, const std::string& name) {
  const auto at = url.find(name + "=");
  if (at == std::string::npos) return {};
  const auto end = url.find('&', at);
  return core::url_decode(
      url.substr(at + name.size() + 1, end == std::string::npos ? std::string::npos : end - at - name.size() - 1));
}

}  // namespace

TEST(X, ParsesTweetsUsersLinksAndMetrics) {
  FixtureFetcher f;
  f.on_body(kRoute, fixture("x/search_recent_rust_2026-11.json"));
  TestEnv t(f, keyed());
  auto q = november();
  q.now = at("2026-11-22T12:00:00Z");  // the whole fixture lies in reach
  q.window = model::Window::ending(at("2026-11-29T00:00:00Z"), 28);
  auto r = x().search(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 2u) << "the October recap and the post dated after 'now' fall outside what was searched";

  const auto& a = r.items[0];
  EXPECT_EQ(a.id, "x:2123809639224049665");
  EXPECT_EQ(a.source, "x");
  EXPECT_EQ(a.title, "Rust 1.92 is out: async closures & a faster borrow checker");  // entities decoded, t.co link dropped
  EXPECT_EQ(a.url, "https://blog.rust-lang.org/2026/11/20/Rust-1.92.0/");            // the shared article
  EXPECT_EQ(a.discussion_url, "https://x.com/rustlang/status/2123809639224049665");
  EXPECT_EQ(a.author, "rustlang");
  EXPECT_EQ(a.published_at, at("2026-11-20T16:04:11Z"));
  EXPECT_EQ(a.engagement_value("like_count"), 3180);
  EXPECT_EQ(a.engagement_value("retweet_count"), 412);
  EXPECT_EQ(a.engagement_value("reply_count"), 96);
  EXPECT_EQ(a.engagement_value("quote_count"), 57);
  EXPECT_EQ(a.engagement.size(), 4u) << "impressions and bookmarks are not engagement here";
  EXPECT_EQ(a.snippet, "Rust 1.92 is out: async closures & a faster borrow checker https://t.co/Rst192AbCd");

  const auto& b = r.items[1];  // no created_at: dated from the snowflake id
  EXPECT_EQ(b.published_at, at("2026-11-18T09:30:00Z"));
  EXPECT_EQ(b.title, "Day 3 of rewriting our ingest service in Rust.");
  EXPECT_EQ(b.url, "https://x.com/ferris_fan/status/2122985664008945666");
  EXPECT_FALSE(b.discussion_url.has_value());
  EXPECT_EQ(b.snippet, "Day 3 of rewriting our ingest service in Rust. The borrow checker <3 me now");
}

TEST(X, UnknownAuthorAndQuoteOfAnotherPostStayOnX) {
  FixtureFetcher f;
  f.on_body(kRoute, fixture("x/search_recent_rust_2026-11.json"));
  TestEnv t(f, keyed());
  auto r = x().search(november(), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  const model::Item* quote = nullptr;
  for (const auto& i : r.items)
    if (i.id == "x:2126061619761905667") quote = &i;
  ASSERT_NE(quote, nullptr);
  EXPECT_EQ(quote->url, "https://x.com/i/web/status/2126061619761905667") << "author not in includes.users";
  EXPECT_FALSE(quote->discussion_url.has_value()) << "a link to another post is not an outside article";
  EXPECT_FALSE(quote->author.has_value());
}

TEST(X, SendsTheRealRequestWithTheBearerTokenAndNeverOlderThanSevenDays) {
  FixtureFetcher f;
  f.on_body(kRoute, fixture("x/search_recent_empty.json"));
  TestEnv t(f, keyed());
  auto q = november("tokio \"runtime\"");
  q.sub_queries.push_back({"spawn_blocking", 0.5});
  auto r = x().search(q, t.env);
  EXPECT_EQ(r.state, SourceState::no_results);
  ASSERT_EQ(f.urls().size(), 2u);
  std::string url = f.urls()[0];  // sent together: in any order
  if (url.find("spawn_blocking") != std::string::npos) url = f.urls()[1];
  EXPECT_EQ(url.rfind("https://api.x.com/2/tweets/search/recent?query=", 0), 0u) << url;
  EXPECT_EQ(param(url, "query"), "tokio \"runtime\" -is:retweet");
  EXPECT_EQ(param(url, "tweet.fields"), "created_at,public_metrics,author_id,entities");
  EXPECT_EQ(param(url, "expansions"), "author_id");
  EXPECT_EQ(param(url, "user.fields"), "username,name");
  EXPECT_EQ(param(url, "max_results"), "25");
  // The window starts 2026-11-01, but recent search reaches back 7 days from now (less slack).
  const auto start = core::parse_iso8601(param(url, "start_time"));
  ASSERT_TRUE(start.has_value());
  EXPECT_GE(*start, at("2026-11-22T12:00:00Z"));
  EXPECT_LE(*start, at("2026-11-22T12:05:00Z"));
  const auto end = core::parse_iso8601(param(url, "end_time"));
  ASSERT_TRUE(end.has_value());
  EXPECT_LT(*end, at("2026-11-29T12:00:00Z")) << "end_time must lie in the past";
  EXPECT_EQ(f.header(0, "Authorization"), std::string("Bearer ") + kToken);
  EXPECT_NE(r.reason.find("X covers only the last 7 days"), std::string::npos) << r.reason;
}

TEST(X, LongerWindowIsOkAndSaysItCoversSevenDays) {
  FixtureFetcher f;
  f.on_body(kRoute, fixture("x/search_recent_rust_2026-11.json"));
  TestEnv t(f, keyed());
  auto r = x().search(november(), t.env);
  EXPECT_EQ(r.state, SourceState::ok);
  EXPECT_NE(r.reason.find("X covers only the last 7 days"), std::string::npos) << r.reason;
  for (const auto& item : r.items) EXPECT_GE(*item.published_at, at("2026-11-22T12:00:00Z")) << item.id;
}

TEST(X, WindowWhollyOlderThanSevenDaysSendsNothing) {
  FixtureFetcher f;
  TestEnv t(f, keyed());
  auto q = make_query("rust", "2026-10-01", "2026-10-31");
  q.now = at("2026-11-29T12:00:00Z");
  auto r = x().search(q, t.env);
  EXPECT_EQ(r.state, SourceState::no_results);
  EXPECT_NE(r.reason.find("X covers only the last 7 days"), std::string::npos) << r.reason;
  EXPECT_TRUE(f.urls().empty());
  EXPECT_EQ(r.requests, 0);
}

TEST(X, RateLimitedWithTheResetTimeAndNoRetryStorm) {
  FixtureFetcher f;
  f.on(kRoute, reply(429, fixture("x/error_429_too_many_requests.json"), "application/json",
                     {{"x-rate-limit-limit", "60"}, {"x-rate-limit-remaining", "0"}, {"x-rate-limit-reset", "1796041800"}}));
  TestEnv t(f, keyed());
  auto q = november();
  for (const char* s : {"a", "b", "c", "d"}) q.sub_queries.push_back({s, 0.5});
  f.hold("query=a%20").hold("query=b%20");  // still in flight when the 429 arrives
  auto r = x().search(q, t.env);
  EXPECT_EQ(r.state, SourceState::rate_limited);
  EXPECT_NE(r.reason.find("resets at 2026-11-30T12:30:00Z"), std::string::npos) << r.reason;
  EXPECT_EQ(f.answered(), 1) << "a 429 ends the run's requests: the others never sent, or cancelled in flight";
  EXPECT_LE(f.urls().size(), 3u) << "at most three, each sent at most once: no retry";

  FixtureFetcher g;
  g.on(kRoute, reply(429, fixture("x/error_429_usage_capped.json")));
  TestEnv u(g, keyed());
  auto capped = x().search(november(), u.env);
  EXPECT_EQ(capped.state, SourceState::rate_limited);
  EXPECT_NE(capped.reason.find("Monthly product cap"), std::string::npos) << capped.reason;
}

TEST(X, AtMostThreeRequestsAndNoneAfterTheLimitSaysZero) {
  FixtureFetcher f;
  f.on_body(kRoute, fixture("x/search_recent_rust_2026-11.json"));
  TestEnv t(f, keyed());
  auto q = november();
  for (const char* s : {"a", "b", "c", "d"}) q.sub_queries.push_back({s, 0.5});
  auto r = x().search(q, t.env);
  EXPECT_EQ(f.urls().size(), 3u);
  EXPECT_EQ(r.requests, 3);

  FixtureFetcher g;
  g.on(kRoute, reply(200, fixture("x/search_recent_rust_2026-11.json"), "application/json",
                     {{"x-rate-limit-remaining", "0"}, {"x-rate-limit-reset", "1796041800"}}));
  TestEnv u(g, keyed());
  auto q2 = november();
  q2.sub_queries.push_back({"cargo", 0.5});
  g.hold("query=cargo");
  auto limited = x().search(q2, u.env);
  EXPECT_EQ(g.answered(), 1);
  EXPECT_EQ(limited.state, SourceState::partial);
  EXPECT_NE(limited.reason.find("1 of 2 sub-queries left out"), std::string::npos) << limited.reason;
  EXPECT_NE(limited.reason.find("2026-11-30T12:30:00Z"), std::string::npos) << limited.reason;
  EXPECT_FALSE(limited.items.empty());
}

TEST(X, RejectedTokenIsAuthFailedAndNeverEchoed) {
  struct Case {
    long status;
    std::string body;
    SourceState want;
    std::string says;
  };
  const std::vector<Case> cases = {
      {401, fixture("x/error_401_unauthorized.json"), SourceState::auth_failed, "X_BEARER_TOKEN"},
      {403, fixture("x/error_403_client_not_enrolled.json"), SourceState::auth_failed, "client-not-enrolled"},
      {400, fixture("x/error_400_invalid_query.json"), SourceState::error, "start_time"},
      {402, R"({"title":"CreditsDepleted","detail":"Your enrolled account does not have any credits"})",
       SourceState::rate_limited, "credits"},
  };
  for (const auto& c : cases) {
    FixtureFetcher f;
    const bool stops = c.want != SourceState::error;
    if (stops) f.hold("query=more");
    f.on(kRoute, reply(c.status, c.body));
    TestEnv t(f, keyed());
    auto q = november();
    q.sub_queries.push_back({"more", 0.5});
    auto r = x().search(q, t.env);
    EXPECT_EQ(r.state, c.want) << c.status << ": " << r.reason;
    EXPECT_NE(r.reason.find(c.says), std::string::npos) << r.reason;
    EXPECT_EQ(r.reason.find("L30test"), std::string::npos) << r.reason;
    EXPECT_EQ(f.answered(), stops ? 1 : 2) << c.status;
  }
}

TEST(X, WithoutTheTokenItIsSkippedNamingTheVariable) {
  EXPECT_EQ(x().unconfigured(core::Config()), "set X_BEARER_TOKEN");
  EXPECT_EQ(x().unconfigured(core::Config({{"X_BEARER_TOKEN", "   "}}, {})), "set X_BEARER_TOKEN");
  EXPECT_FALSE(x().unconfigured(keyed()).has_value());
  FixtureFetcher f;
  TestEnv t(f);
  EXPECT_EQ(x().search(november(), t.env).state, SourceState::skipped_unconfigured);
  EXPECT_TRUE(f.urls().empty());
}

TEST(X, HostileAnswersEndInAState) {
  const auto tweet = [](std::size_t i) {
    return fmt::format(R"({{"id":"{}","text":"rust post {}","author_id":"9","created_at":"2026-11-25T10:00:00Z"}})",
                       2126061619761905667ULL + i, i);
  };
  HostileTable(x(), kRoute, Format::json)
      .config(keyed())
      .secret(kToken)
      .call([](const sources::Source& s, sources::Env& e) { return s.search(november(), e); }, 25)
      .valid(fixture("x/search_recent_rust_2026-11.json"))
      .huge(R"({"data":[)", tweet, R"(],"meta":{"result_count":20000}})")
      .row("data of the wrong shape", json_reply(R"({"data":{"id":"1"}})"), SourceState::schema_drift)
      .row("neither data nor meta", json_reply(R"({"unexpected":true})"), SourceState::schema_drift)
      .row(
          "tweets of the wrong type",
          json_reply(
              R"({"data":[1,"x",null,{"id":"abc","text":"t"},{"id":"12","text":""},{"text":"no id"}],"meta":{"result_count":6}})"),
          SourceState::no_results)
      .row("only errors", json_reply(R"({"errors":[{"detail":"Could not find tweet"}]})"), SourceState::error)
      .run();
}

TEST(X, OddValuesAreToleratedNotInvented) {
  FixtureFetcher f;
  f.on_body(kRoute, R"J({"data":[
    {"id":"2126061619761905667","text":"odd metrics","author_id":"9","public_metrics":{"like_count":"12","retweet_count":-1,"reply_count":1e300},
     "created_at":"not a date","entities":{"urls":[{"expanded_url":"javascript:alert(1)"},{"expanded_url":"https://t.co/x"}]}}],
    "includes":{"users":[{"id":"9","username":"bad name/../"}]},"meta":{"result_count":1}})J");
  TestEnv t(f, keyed());
  auto r = x().search(november(), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 1u);
  const auto& i = r.items[0];
  EXPECT_EQ(i.engagement_value("like_count"), 12);
  EXPECT_EQ(i.engagement.size(), 1u);
  EXPECT_EQ(i.url, "https://x.com/i/web/status/2126061619761905667") << "no hostile link, no hostile username in a URL";
  EXPECT_EQ(i.published_at, at("2026-11-26T21:12:45Z")) << "an unreadable created_at falls back to the id";
}

TEST(X, RealRecordedSearchParsesAndIsDatedFromItsIds) {
  FixtureFetcher f;
  f.on_body(kRoute, fixture("real/x/search_recent_tweepy_2022-10-07.json"));
  TestEnv t(f, keyed());
  auto q = make_query("Tweepy", "2022-10-01", "2022-10-07");
  q.now = at("2022-10-07T22:43:19Z");
  auto r = x().search(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 10u);
  // Each text is the time its bot posted it: "2022-10-07 22:42:12.637103 tweepy".
  for (const auto& item : r.items) {
    const auto stamp = core::parse_iso8601(item.title.substr(0, 19));
    ASSERT_TRUE(stamp.has_value()) << item.title;
    ASSERT_TRUE(item.published_at.has_value());
    EXPECT_LE(std::llabs(*item.published_at - *stamp), 1) << item.title;
    EXPECT_TRUE(item.engagement.empty());
  }
  EXPECT_EQ(r.items[0].url, "https://x.com/i/web/status/1578516068309794817");
}

TEST(X, ListingSearchesRecentLinkPostsOrTheDomain) {
  ASSERT_TRUE(x().has_listing());
  FixtureFetcher f;
  f.on_body(kRoute, fixture("x/search_recent_rust_2026-11.json"));
  TestEnv t(f, keyed());
  sources::ListingQuery q;
  q.window = model::Window::ending(at("2026-11-29T00:00:00Z"), 7);
  q.now = at("2026-11-29T12:00:00Z");
  auto r = x().listing(q, t.env);
  EXPECT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(f.urls().size(), 1u);
  EXPECT_EQ(param(f.urls()[0], "query"), "has:links -is:retweet -is:reply lang:en");
  EXPECT_EQ(param(f.urls()[0], "max_results"), "100");
  q.domain = "ai";
  q.domain_terms = {"llm", "openai"};
  FixtureFetcher g;
  g.on_body(kRoute, fixture("x/search_recent_empty.json"));
  TestEnv u(g, keyed());
  x().listing(q, u.env);
  EXPECT_EQ(param(g.urls()[0], "query"), "(llm OR openai) -is:retweet lang:en");
}
