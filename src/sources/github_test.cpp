#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/time.hpp"
#include "fake_upstream.hpp"
#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "sources/source.hpp"

using namespace testing_support;
using model::SourceState;

namespace {

const sources::Source& gh() { return *sources::find("github"); }

core::UnixSeconds at(const char* iso) { return *core::parse_iso8601(iso); }

bool has_field(const model::Item& item, std::string_view field) {
  for (const auto& e : item.engagement)
    if (e.field == field) return true;
  return false;
}

const model::Item* by_id(const std::vector<model::Item>& items, const std::string& id) {
  for (const auto& i : items)
    if (i.id == id) return &i;
  return nullptr;
}

// Records request headers on top of the URL-routed fixtures.

// How many requests' URLs contain `needle` (requests go together, in no fixed order).
int asked(const FixtureFetcher& f, std::string_view needle) {
  int n = 0;
  for (const auto& u : f.urls()) n += u.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

core::Config with_token(const std::string& token) { return core::Config({{"GITHUB_TOKEN", token}}, {}); }

constexpr const char* kRepos = "/search/repositories?";
constexpr const char* kIssues = "/search/issues?";
constexpr const char* kEmpty = R"({"total_count":0,"incomplete_results":false,"items":[]})";

FixtureFetcher& serve_rust(FixtureFetcher& f) {
  f.on_body("is%3Apr", fixture("github/search_pulls_rust_2026-11.json"));
  f.on_body(kIssues, fixture("github/search_issues_rust_2026-11.json"));
  f.on_body(kRepos, fixture("github/search_repositories_rust_2026-11.json"));
  return f;
}

}  // namespace

TEST(GitHub, ParsesRepositoriesAndIssuesIntoItems) {
  FixtureFetcher f;
  serve_rust(f);
  TestEnv t(f);
  auto r = gh().search(make_query("rust", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;  // incomplete_results: true is still an answer
  ASSERT_EQ(r.items.size(), 5u);

  const auto& repo = r.items[0];
  EXPECT_EQ(repo.id, "github:repo:1093847562");
  EXPECT_EQ(repo.source, "github");
  EXPECT_EQ(repo.title, "ferrite-rs/ferrite-os: A microkernel written in Rust 2024, with a verified scheduler");
  EXPECT_EQ(repo.url, "https://github.com/ferrite-rs/ferrite-os");
  EXPECT_FALSE(repo.discussion_url.has_value());
  EXPECT_EQ(repo.author, "ferrite-rs");
  EXPECT_EQ(repo.container, "ferrite-rs/ferrite-os");
  EXPECT_EQ(repo.published_at, at("2026-11-03T08:12:44Z"));
  EXPECT_EQ(repo.engagement_value("stars"), 4821);
  EXPECT_EQ(repo.engagement_value("forks"), 197);
  EXPECT_EQ(repo.snippet,
            "A microkernel written in Rust 2024, with a verified scheduler \xC2\xB7 Rust \xC2\xB7 topics: kernel, "
            "microkernel, operating-system, rust");

  const auto& bare = r.items[1];
  EXPECT_EQ(bare.title, "mkowalczyk/cargo-slim");  // null description
  EXPECT_EQ(bare.snippet, "");
  EXPECT_TRUE(has_field(bare, "forks"));  // a reported zero is data
  EXPECT_EQ(bare.engagement_value("stars"), 312);
  EXPECT_EQ(r.items[2].snippet,
            "HTTP router for WASI 0.3 components & edge runtimes \xC2\xB7 Rust \xC2\xB7 topics: wasi, webassembly");

  const auto& issue = r.items[3];
  EXPECT_EQ(issue.id, "github:issue:3611204587");
  EXPECT_EQ(issue.title, "Tracking issue for `async fn` in dyn traits");
  EXPECT_EQ(issue.url, "https://github.com/rust-lang/rust/issues/148812");
  EXPECT_EQ(issue.author, "compiler-errors");
  EXPECT_EQ(issue.container, "rust-lang/rust");
  EXPECT_EQ(issue.published_at, at("2026-11-04T16:20:31Z"));
  EXPECT_EQ(issue.engagement_value("comments"), 87);
  EXPECT_EQ(issue.engagement_value("reactions"), 412);
  // Markdown and HTML reduced to prose: no comment, heading marks, link targets, code block or table rule.
  EXPECT_EQ(issue.snippet,
            "Summary This is a tracking issue for RFC 3712, async fn in dyn Trait. Implement the RFC Adjust "
            "documentation & stabilization report step status");

  const auto& closed = r.items[4];
  EXPECT_EQ(closed.container, "tokio-rs/tokio");
  EXPECT_EQ(closed.snippet, "");                 // null body
  EXPECT_FALSE(has_field(closed, "reactions"));  // not reported: absent
  EXPECT_EQ(closed.engagement_value("comments"), 12);
  EXPECT_EQ(closed.hits[0].rank, 1);
}

TEST(GitHub, KeylessRequestsStayInsideTheSearchBudget) {
  FixtureFetcher f;
  serve_rust(f);
  TestEnv t(f);
  auto q = make_query("rust", "2026-11-01", "2026-11-29");
  q.sub_queries.push_back({"tokio io_uring", 0.5});
  q.sub_queries.push_back({"wasi", 0.3});
  q.limit = 20;
  auto r = gh().search(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  EXPECT_EQ(r.requests, 4);
  auto urls = f.urls();  // sent together: in any order
  std::sort(urls.begin(), urls.end());
  // The window starts 2026-11-01: "created:>" the day before includes it.
  EXPECT_EQ(urls, (std::vector<std::string>{
                      "https://api.github.com/search/issues?q=rust%20is%3Aissue%20created%3A%3E2026-10-31&sort=reactions&"
                      "order=desc&per_page=20",
                      "https://api.github.com/search/repositories?q=rust%20created%3A%3E2026-10-31&sort=stars&order=desc&"
                      "per_page=20",
                      "https://api.github.com/search/repositories?q=tokio%20io_uring%20created%3A%3E2026-10-31&sort=stars&"
                      "order=desc&per_page=20",
                      "https://api.github.com/search/repositories?q=wasi%20created%3A%3E2026-10-31&sort=stars&order=desc&"
                      "per_page=20"}));
  for (std::size_t i = 0; i < f.requests().size(); ++i) {
    EXPECT_EQ(f.header(i, "Accept"), "application/vnd.github+json");
    EXPECT_EQ(f.header(i, "X-GitHub-Api-Version"), "2022-11-28");
    EXPECT_FALSE(f.header(i, "Authorization").has_value());
  }
  // Repositories found by every sub-query fold into one item with three hits.
  ASSERT_EQ(r.items[0].hits.size(), 3u);
  EXPECT_EQ(r.items[0].hits[2].subquery, 2);
}

TEST(GitHub, TokenAddsIssuesAndPullRequestsForEverySubQuery) {
  FixtureFetcher f;
  serve_rust(f);
  TestEnv t(f, with_token("ghp_TESTTOKEN0000000000000000000000000000"));
  auto q = make_query("rust", "2026-11-01", "2026-11-29");
  q.sub_queries.push_back({"async traits", 0.5});
  auto r = gh().search(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  const auto urls = f.urls();
  ASSERT_EQ(urls.size(), 6u);
  EXPECT_EQ(asked(f, "/search/issues?q=rust%20is%3Apr%20created%3A%3E2026-10-31&sort=reactions"), 1);
  EXPECT_EQ(asked(f, "/search/issues?q=async%20traits%20is%3Aissue%20created"), 1);
  EXPECT_EQ(asked(f, "q=async%20traits%20is%3Apr%20"), 1);
  for (std::size_t i = 0; i < f.requests().size(); ++i)
    EXPECT_EQ(f.header(i, "Authorization"), "Bearer ghp_TESTTOKEN0000000000000000000000000000");
  const auto* pr = by_id(r.items, "github:issue:3625510093");
  ASSERT_NE(pr, nullptr);
  EXPECT_EQ(pr->url, "https://github.com/rust-lang/rust/pull/148950");
  EXPECT_EQ(pr->engagement_value("reactions"), 96);
  EXPECT_EQ(pr->engagement_value("comments"), 31);
  EXPECT_EQ(pr->snippet, "Closes #148812. r? @ghost");
}

TEST(GitHub, RejectedTokenIsAuthFailedWithoutLeakingIt) {
  FixtureFetcher f;
  f.on(kRepos, reply(401, R"({"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"})"));
  f.hold(kIssues);  // the issue and pull-request searches are still in flight when the 401 arrives
  TestEnv t(f, with_token("ghp_SECRETSECRETSECRET"));
  const auto t0 = std::chrono::steady_clock::now();
  auto r = gh().search(make_query("rust", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(r.state, SourceState::auth_failed);
  EXPECT_FALSE(r.reason.empty());
  EXPECT_EQ(r.reason.find("SECRET"), std::string::npos) << r.reason;
  EXPECT_EQ(f.answered(), 1) << "no point waiting for the rest: never sent, or cancelled in flight";
  EXPECT_LE(f.urls().size(), 3u) << "each search sent at most once";
}

TEST(GitHub, RateLimitStopsFurtherSearches) {
  FixtureFetcher f;
  f.on(kRepos, reply(403, fixture("github/error_403_rate_limit.json"), "application/json",
                     {{"x-ratelimit-limit", "10"}, {"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", "1796032800"}}));
  TestEnv t(f);
  auto q = make_query("rust", "2026-11-01", "2026-11-29");
  q.sub_queries.push_back({"cargo", 0.5});
  f.hold(kIssues).hold("q=cargo");
  auto r = gh().search(q, t.env);
  EXPECT_EQ(r.state, SourceState::rate_limited);
  EXPECT_FALSE(r.reason.empty());
  EXPECT_EQ(f.answered(), 1) << "the searches after the limit: never sent, or cancelled in flight";
  EXPECT_LE(f.urls().size(), 3u);

  FixtureFetcher g;
  g.on(kRepos,
       reply(429, R"({"message":"You have exceeded a secondary rate limit."})", "application/json", {{"retry-after", "60"}}));
  TestEnv u(g);
  auto s = gh().search(make_query("rust", "2026-11-01", "2026-11-29"), u.env);
  EXPECT_EQ(s.state, SourceState::rate_limited);
  EXPECT_NE(s.reason.find("60"), std::string::npos) << s.reason;

  // The secondary limit comes as a 403 without the remaining-count header.
  FixtureFetcher s2;
  s2.on(
      kRepos,
      reply(
          403,
          R"({"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits","status":"403"})"));
  TestEnv w(s2);
  EXPECT_EQ(gh().search(make_query("rust", "2026-11-01", "2026-11-29"), w.env).state, SourceState::rate_limited);

  // A 403 that is not about limits is an access problem.
  FixtureFetcher h;
  h.on(kRepos, reply(403, R"({"message":"Resource not accessible by personal access token"})"));
  TestEnv v(h);
  EXPECT_EQ(gh().search(make_query("rust", "2026-11-01", "2026-11-29"), v.env).state, SourceState::auth_failed);
}

TEST(GitHub, ValidationErrorCarriesGitHubsMessage) {
  FixtureFetcher f;
  f.on(kIssues, reply(422, fixture("github/error_422_missing_is_qualifier.json")));
  f.on_body(kRepos, fixture("github/search_repositories_rust_2026-11.json"));
  TestEnv t(f);
  auto r = gh().search(make_query("rust", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(r.state, SourceState::partial);
  EXPECT_EQ(r.items.size(), 3u);
  EXPECT_NE(r.reason.find("HTTP 422: Validation Failed: Query must include 'is:issue' or 'is:pull-request'"), std::string::npos)
      << r.reason;

  FixtureFetcher g;
  g.on("/search/", reply(422, fixture("github/error_422_missing_is_qualifier.json")));
  TestEnv u(g);
  auto all = gh().search(make_query("rust", "2026-11-01", "2026-11-29"), u.env);
  EXPECT_EQ(all.state, SourceState::error);
  EXPECT_EQ(all.reason, "HTTP 422: Validation Failed: Query must include 'is:issue' or 'is:pull-request'");

  FixtureFetcher h;
  h.on("/search/", reply(422, "not json"));
  TestEnv v(h);
  auto opaque = gh().search(make_query("rust", "2026-11-01", "2026-11-29"), v.env);
  EXPECT_EQ(opaque.state, SourceState::error);
  EXPECT_NE(opaque.reason.find("422"), std::string::npos) << opaque.reason;
}

TEST(GitHub, HostileAnswersEndInAState) {
  const auto repo = [](std::size_t i) {
    return fmt::format(R"({{"id":{},"full_name":"o/r{}","html_url":"https://github.com/o/r{}","stargazers_count":{},)"
                       R"("created_at":"2026-11-10T00:00:00Z"}})",
                       i, i, i, i);
  };
  HostileTable(gh(), "/search/", Format::json)
      .valid(fixture("github/search_repositories_rust_2026-11.json"))
      .huge(R"({"total_count":50000,"incomplete_results":false,"items":[)", repo, "]}")
      .row("renamed list", json_reply(R"({"total_count":3,"results":[]})"), SourceState::schema_drift)
      .row("items not a list", json_reply(R"({"items":{"id":1}})"), SourceState::schema_drift)
      .row("array instead of object", json_reply("[]"), SourceState::schema_drift)
      .row("no items", json_reply(R"({"total_count":0,"incomplete_results":false,"items":[]})"), SourceState::no_results)
      .row("items of the wrong type",
           json_reply(R"({"items":[1,"x",null,{"id":5},{"full_name":"a/b"},{"id":7,"title":"no url"}]})"),
           SourceState::no_results)
      .run();
}

TEST(GitHub, OddFieldValuesAreToleratedNotInvented) {
  const char* repos = R"({"incomplete_results":false,"items":[
    {"id":"77","full_name":"a/odd","html_url":"https://github.com/a/odd","owner":"a","description":"  spaced\tout  ",
     "stargazers_count":"1200","forks_count":-3,"created_at":"2026-11-10T00:00:00+02:00","topics":"rust"},
    {"id":78,"full_name":"a/undated","html_url":"https://github.com/a/undated","stargazers_count":1e300,
     "created_at":null,"owner":{"login":null}},
    {"id":79,"full_name":"a/future","html_url":"https://github.com/a/future","created_at":"2026-12-05T00:00:00Z"},
    {"id":80,"full_name":"a/old","html_url":"https://github.com/a/old","created_at":"2026-10-30T23:59:59Z"}
  ]})";
  const char* issues = R"({"items":[
    {"id":90,"title":"Odd issue","html_url":"https://github.com/a/odd/issues/1","repository_url":"https://example.com/x",
     "user":[],"comments":"4","reactions":5,"body":["x"],"created_at":"2026-11-11T10:00:00Z"}
  ]})";
  FixtureFetcher f;
  f.on_body(kRepos, repos);
  f.on_body(kIssues, issues);
  TestEnv t(f);
  auto r = gh().search(make_query("odd", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 3u);  // created outside the window: dropped
  const auto& odd = r.items[0];
  EXPECT_EQ(odd.title, "a/odd: spaced out");
  EXPECT_EQ(odd.engagement_value("stars"), 1200);
  EXPECT_FALSE(has_field(odd, "forks"));
  EXPECT_FALSE(odd.author.has_value());
  EXPECT_EQ(odd.published_at, at("2026-11-09T22:00:00Z"));
  EXPECT_EQ(odd.snippet, "spaced out");
  const auto& undated = r.items[1];
  EXPECT_FALSE(undated.published_at.has_value());  // kept, marked undated by having no date
  EXPECT_FALSE(undated.author.has_value());
  const auto& issue = r.items[2];
  EXPECT_FALSE(issue.container.has_value());
  EXPECT_FALSE(issue.author.has_value());
  EXPECT_EQ(issue.engagement_value("comments"), 4);
  EXPECT_FALSE(has_field(issue, "reactions"));
  EXPECT_EQ(issue.snippet, "");
}

TEST(GitHub, RealRecordedRepositorySearchParses) {
  FixtureFetcher f;
  f.on_body(kRepos, fixture("real/github/search_repositories_github_python_2014.json"));
  f.on_body(kIssues, kEmpty);
  TestEnv t(f);
  auto q = make_query("github", "2008-01-01", "2014-03-03");
  q.limit = 30;  // what the recording was asked for
  auto r = gh().search(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 30u);
  const auto& a = r.items[0];
  EXPECT_EQ(a.id, "github:repo:1951148");
  EXPECT_EQ(a.title, "kennethreitz/legit: Git for Humans, Inspired by GitHub for Mac\xE2\x84\xA2.");
  EXPECT_EQ(a.url, "https://github.com/kennethreitz/legit");
  EXPECT_EQ(a.author, "kennethreitz");
  EXPECT_EQ(a.container, "kennethreitz/legit");
  EXPECT_EQ(a.published_at, at("2011-06-25T05:58:18Z"));
  EXPECT_EQ(a.engagement_value("stars"), 3036);
  EXPECT_EQ(a.engagement_value("forks"), 118);
  EXPECT_EQ(a.snippet, "Git for Humans, Inspired by GitHub for Mac\xE2\x84\xA2. \xC2\xB7 Python");
  EXPECT_EQ(r.items[29].container, "dustin/py-github");
}

TEST(GitHub, ListingAsksForNewRepositoriesByStars) {
  ASSERT_TRUE(gh().has_listing());
  FixtureFetcher f;
  f.on_body(kRepos, fixture("github/search_repositories_rust_2026-11.json"));
  TestEnv t(f);
  sources::ListingQuery q;
  q.window = make_query("x", "2026-10-31", "2026-11-29").window;
  q.limit = 30;
  auto r = gh().listing(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(f.urls().size(), 1u);
  EXPECT_EQ(f.urls()[0],
            "https://api.github.com/search/repositories?q=created%3A%3E2026-11-22&sort=stars&order=desc&per_page=30");
  EXPECT_EQ(f.header(0, "Accept"), "application/vnd.github+json");
  EXPECT_EQ(r.items.size(), 3u);
  EXPECT_EQ(r.items[0].engagement_value("stars"), 4821);

  FixtureFetcher g;
  g.on_body(kRepos, kEmpty);
  TestEnv u(g);
  q.domain = "ai";
  q.domain_terms = {"llm agents", "rag"};
  auto d = gh().listing(q, u.env);
  EXPECT_EQ(d.state, SourceState::no_results);
  EXPECT_FALSE(d.reason.empty());
  ASSERT_EQ(g.urls().size(), 1u);
  EXPECT_EQ(g.urls()[0],
            "https://api.github.com/search/repositories?q=llm%20agents%20created%3A%3E2026-11-22&sort=stars&order=desc&"
            "per_page=30");
}

TEST(GitHub, HostileListingAnswersEndInAState) {
  HostileTable(gh(), kRepos, Format::json)
      .listing(make_listing_query("2026-10-31", "2026-11-29"))
      .valid(fixture("github/search_repositories_rust_2026-11.json"))
      .run();
}
