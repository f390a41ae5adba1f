#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/time.hpp"
#include "fake_upstream.hpp"
#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "sources/source.hpp"

using namespace testing_support;
using model::SourceState;

namespace {

const sources::Source& web() { return *sources::find("web"); }

constexpr const char* kKey = "BSAl30testSubscriptionToken0000";
constexpr const char* kBrave = "api.search.brave.com/res/v1/web/search";
constexpr const char* kSearx = "searx.example.org/search";

core::UnixSeconds at(const char* iso) { return *core::parse_iso8601(iso); }
core::Config brave() { return core::Config({{"BRAVE_API_KEY", kKey}}, {}); }
core::Config searx(const std::string& url = "https://searx.example.org/") { return core::Config({{"SEARXNG_URL", url}}, {}); }

sources::Query november(const std::string& text = "rust 1.92") {
  auto q = make_query(text, "2026-11-01", "2026-11-29");
  q.now = at("2026-11-29T12:00:00Z");
  return q;
}

}  // namespace

TEST(Web, BraveResultsWithDatesFromPageAgeOrAgeAndUndatedKept) {
  FixtureFetcher f;
  f.on_body(kBrave, fixture("web/brave_web_search_rust_2026-11.json"));
  TestEnv t(f, brave());
  auto r = web().search(november(), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 3u) << "September's notes are outside the window; a javascript: URL is no result";

  const auto& a = r.items[0];
  EXPECT_EQ(a.source, "web");
  EXPECT_EQ(a.id.rfind("web:", 0), 0u);
  EXPECT_EQ(a.title, "Announcing Rust 1.92.0 | Rust Blog");
  EXPECT_EQ(a.url, "https://blog.rust-lang.org/2026/11/20/Rust-1.92.0/");
  EXPECT_EQ(a.container, "blog.rust-lang.org");
  EXPECT_EQ(a.published_at, at("2026-11-20T00:00:00Z"));
  EXPECT_TRUE(a.engagement.empty()) << "pages have no engagement";

  const auto& b = r.items[1];
  EXPECT_EQ(b.title, "Rust 1.92: What's new for async code & the borrow checker");
  EXPECT_EQ(b.container, "infoq.example");
  EXPECT_EQ(b.published_at, at("2026-11-26T12:00:00Z")) << "'3 days ago' from the run's clock";
  EXPECT_EQ(b.snippet, "Async closures stabilize in Rust 1.92, alongside borrow checker speedups.");

  const auto& c = r.items[2];
  EXPECT_EQ(c.url, "https://doc.rust-lang.org/book/");
  EXPECT_FALSE(c.published_at.has_value()) << "undated: kept as context";

  ASSERT_EQ(f.urls().size(), 1u);
  EXPECT_EQ(f.urls()[0],
            "https://api.search.brave.com/res/v1/web/"
            "search?q=rust%201.92&count=20&freshness=2026-11-01to2026-11-29&text_decorations=false");
  EXPECT_EQ(f.header(0, "X-Subscription-Token"), kKey);
  EXPECT_EQ(f.header(0, "Accept"), "application/json");
}

TEST(Web, BraveAsksAtMostTwoSubQueries) {
  FixtureFetcher f;
  f.on_body(kBrave, fixture("web/brave_web_search_rust_2026-11.json"));
  TestEnv t(f, brave());
  auto q = november();
  for (const char* s : {"a", "b", "c"}) q.sub_queries.push_back({s, 0.5});
  auto r = web().search(q, t.env);
  EXPECT_EQ(f.urls().size(), 2u);
  ASSERT_FALSE(r.items.empty());
  EXPECT_EQ(r.items[0].hits.size(), 2u) << "the same page from both sub-queries is one item";
}

TEST(Web, BraveErrorsInItsOwnForms) {
  struct Case {
    long status;
    std::string body;
    std::vector<http::Header> headers;
    SourceState want;
    std::string says;
  };
  const std::vector<Case> cases = {
      {422,
       fixture("web/brave_error_422_subscription_token_invalid.json"),
       {},
       SourceState::auth_failed,
       "SUBSCRIPTION_TOKEN_INVALID"},
      {401, R"({"type":"ErrorResponse","error":{"status":401,"code":"UNAUTHORIZED"}})", {}, SourceState::auth_failed, "401"},
      {429,
       fixture("web/brave_error_429_rate_limited.json"),
       {{"x-ratelimit-reset", "1, 1419704"}},
       SourceState::rate_limited,
       "RATE_LIMITED"},
      {422, fixture("web/brave_error_422_validation.json"), {}, SourceState::error, "VALIDATION"},
  };
  for (const auto& c : cases) {
    FixtureFetcher f;
    const bool stops = c.want != SourceState::error;
    if (stops) f.hold("q=cargo");
    f.on(kBrave, reply(c.status, c.body, "application/json", c.headers));
    TestEnv t(f, brave());
    auto q = november();
    q.sub_queries.push_back({"cargo", 0.5});
    auto r = web().search(q, t.env);
    EXPECT_EQ(r.state, c.want) << r.reason;
    EXPECT_NE(r.reason.find(c.says), std::string::npos) << r.reason;
    EXPECT_EQ(r.reason.find(kKey), std::string::npos);
    EXPECT_EQ(f.answered(), stops ? 1 : 2) << "a rejected key or spent limit stops the searches";
  }
}

TEST(Web, BraveWithNothingFoundIsNoResults) {
  FixtureFetcher f;
  f.on_body(kBrave, fixture("web/brave_no_web_results.json"));
  TestEnv t(f, brave());
  EXPECT_EQ(web().search(november("zzqqxx nothing"), t.env).state, SourceState::no_results);
}

TEST(Web, SearxngKeylessWithTimeRangeAndItsDates) {
  FixtureFetcher f;
  f.on_body(kSearx, fixture("web/searxng_search_rust.json"));
  TestEnv t(f, searx("https://searx.example.org/search/"));
  auto r = web().search(november(), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(f.urls().size(), 1u);
  EXPECT_EQ(f.urls()[0], "https://searx.example.org/search?q=rust%201.92&format=json&time_range=month");
  EXPECT_FALSE(f.header(0, "X-Subscription-Token").has_value());
  ASSERT_EQ(r.items.size(), 2u) << "the 2025 page is outside the window";
  EXPECT_EQ(r.items[0].published_at, at("2026-11-20T00:00:00Z"));
  EXPECT_EQ(r.items[0].snippet, "The Rust team is happy to announce a new version of Rust, 1.92.0.");
  EXPECT_EQ(r.items[1].container, "lwn.example");
  EXPECT_FALSE(r.items[1].published_at.has_value());
}

TEST(Web, SearxngFailuresSayWhatToFix) {
  FixtureFetcher f;
  f.on_body(kSearx, "<html><body>403 Forbidden</body></html>", "text/html", 403);
  TestEnv t(f, searx());
  auto r = web().search(november(), t.env);
  EXPECT_EQ(r.state, SourceState::error);
  EXPECT_NE(r.reason.find("search.formats"), std::string::npos) << r.reason;

  FixtureFetcher g;
  g.on_body(kSearx, fixture("web/searxng_all_engines_failed.json"));
  TestEnv u(g, searx());
  auto dead = web().search(november(), u.env);
  EXPECT_EQ(dead.state, SourceState::unreachable);
  EXPECT_NE(dead.reason.find("duckduckgo (CAPTCHA)"), std::string::npos) << dead.reason;
}

TEST(Web, WithoutEitherSettingItIsSkippedNamingBoth) {
  EXPECT_EQ(web().unconfigured(core::Config()), "set BRAVE_API_KEY or SEARXNG_URL");
  EXPECT_FALSE(web().unconfigured(brave()).has_value());
  EXPECT_FALSE(web().unconfigured(searx()).has_value());
  for (const char* bad :
       {"searx.example.org", "ftp://searx.example.org", "https://searx.example.org/search?q=x", "javascript:alert(1)"}) {
    auto why = web().unconfigured(searx(bad));
    ASSERT_TRUE(why.has_value()) << bad;
    EXPECT_NE(why->find("SEARXNG_URL"), std::string::npos) << *why;
  }
}

TEST(Web, HostileAnswersEndInAState) {
  const auto page = [](std::size_t i) {
    return fmt::format(R"({{"title":"rust page {}","url":"https://example.com/{}","page_age":"2026-11-20T10:00:00"}})", i, i);
  };
  auto november_search = [](const sources::Source& s, sources::Env& e) { return s.search(november(), e); };
  HostileTable(web(), kBrave, Format::json)
      .config(brave())
      .secret(kKey)
      .call(november_search, 20)
      .valid(fixture("web/brave_web_search_rust_2026-11.json"))
      .huge(R"({"type":"search","web":{"results":[)", page, "]}}")
      .row("results of the wrong shape", json_reply(R"({"web":{"results":{"0":1}}})"), SourceState::schema_drift)
      .row("another kind of answer", json_reply(R"({"type":"something-else"})"), SourceState::schema_drift)
      .row(
          "results of the wrong type",
          json_reply(
              R"({"type":"search","web":{"results":[null,1,{"url":"https://x.example"},{"title":"no url"},{"title":"t","url":"file:///etc/passwd"}]}})"),
          SourceState::no_results)
      .run();
  HostileTable(web(), kSearx, Format::json)
      .config(searx())
      .call(november_search, 20)
      .valid(fixture("web/searxng_search_rust.json"))
      .expect("403", SourceState::error, "format=json")  // SearXNG has no credentials: json output is off
      .run();
}
