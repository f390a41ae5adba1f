#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <mutex>

#include "core/redact.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "core/url.hpp"
#include "fake_upstream.hpp"
#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "sources/source.hpp"

using namespace testing_support;
using model::SourceState;
using nlohmann::json;

namespace {

const sources::Source& bsky() { return *sources::find("bsky"); }

constexpr const char* kHandle = "l30tester.bsky.social";
constexpr const char* kPassword = "abcd-efgh-ijkl-mnop";
constexpr const char* kLogin = "https://bsky.social/xrpc/com.atproto.server.createSession";
constexpr const char* kPds = "https://morel.us-east.host.bsky.network";
constexpr const char* kSearch = "/xrpc/app.bsky.feed.searchPosts";

core::UnixSeconds at(const char* iso) { return *core::parse_iso8601(iso); }

core::Config keyed() { return core::Config({{"BSKY_HANDLE", kHandle}, {"BSKY_APP_PASSWORD", kPassword}}, {}); }

http::Response answer(long status, std::string body, std::vector<http::Header> headers = {}) {
  return reply(status, std::move(body), "application/json", std::move(headers));
}

std::string session_fixture() { return fixture("bluesky/create_session.json"); }
std::string access_jwt() { return json::parse(session_fixture())["accessJwt"]; }
std::string refresh_jwt() { return json::parse(session_fixture())["refreshJwt"]; }

// A session whose DID document names this PDS endpoint (and service id).
std::string session_with_pds(const std::string& endpoint, const std::string& id = "#atproto_pds") {
  auto s = json::parse(session_fixture());
  s["didDoc"]["service"][0]["serviceEndpoint"] = endpoint;
  s["didDoc"]["service"][0]["id"] = id;
  return s.dump();
}

// Answers from a function, so a test can change its answer as requests arrive.
class Scripted : public sources::Fetcher {
 public:
  explicit Scripted(std::function<http::Response(const http::Request&, int)> fn) : fn_(std::move(fn)) {}
  http::Response get(const http::Request& r) override {
    int n;
    {
      std::lock_guard lock(mu_);
      requests_.push_back(r);
      n = static_cast<int>(requests_.size());
    }
    return fn_(r, n);
  }
  std::vector<http::Request> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  int count(std::string_view part) const {
    int n = 0;
    for (const auto& r : requests()) n += r.url.find(part) != std::string::npos;
    return n;
  }

 private:
  std::function<http::Response(const http::Request&, int)> fn_;
  mutable std::mutex mu_;
  std::vector<http::Request> requests_;
};

std::string header_of(const http::Request& r, std::string_view name) {
  for (const auto& h : r.headers)
    if (h.name == name) return h.value;
  return {};
}

std::string param(const std::string& url, const std::string& name) {
  if (auto u = core::Url::parse(url))
    for (const auto& [key, value] : core::split_query(u->query))
      if (key == name) return core::url_decode(value);
  return {};
}

sources::Query november(const std::string& text = "rust") { return make_query(text, "2026-11-01", "2026-11-29"); }

FixtureFetcher& logged_in(FixtureFetcher& f, const std::string& session = session_fixture()) {
  f.on_body("com.atproto.server.createSession", session);
  return f;
}

}  // namespace

TEST(Bluesky, ParsesPostsLinksAuthorsDatesAndEngagement) {
  FixtureFetcher f;
  logged_in(f).on_body(kSearch, fixture("bluesky/search_posts_rust_2026-11.json"));
  TestEnv t(f, keyed());
  auto r = bsky().search(november(), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 3u) << "the September post is outside the window and a like record is not a post";

  const auto& a = r.items[0];
  EXPECT_EQ(a.id, "bluesky:did:plc:ewvi7nxzyoun6zhxrhs64oiz/3m6a2rustk2x");
  EXPECT_EQ(a.source, "bluesky");
  EXPECT_EQ(a.title, "Rust 1.92 is out! Async closures are stable and the borrow checker got faster.");
  EXPECT_EQ(a.url, "https://blog.rust-lang.org/2026/11/20/Rust-1.92.0/") << "the shared article";
  EXPECT_EQ(a.discussion_url, "https://bsky.app/profile/rust-lang.org/post/3m6a2rustk2x");
  EXPECT_EQ(a.author, "rust-lang.org");
  EXPECT_EQ(a.published_at, at("2026-11-20T16:10:02Z"));
  EXPECT_EQ(a.engagement_value("likeCount"), 1287);
  EXPECT_EQ(a.engagement_value("repostCount"), 221);
  EXPECT_EQ(a.engagement_value("replyCount"), 33);
  EXPECT_EQ(a.engagement_value("quoteCount"), 19);
  EXPECT_EQ(a.engagement.size(), 4u);

  const auto& b = r.items[1];  // a link in the text (a facet), no card
  EXPECT_EQ(b.url, "https://jess.dev/posts/queue-workers-in-rust");
  EXPECT_EQ(b.discussion_url, "https://bsky.app/profile/jess.dev/post/3m6bq7nqs2c2f");
  EXPECT_EQ(b.title, "Wrote up how we moved our queue workers to Rust: 40% less memory");
  EXPECT_EQ(b.snippet, "Wrote up how we moved our queue workers to Rust: 40% less memory long thread below");

  const auto& c = r.items[2];  // handle.invalid, and a createdAt a month after it was indexed
  EXPECT_EQ(c.url, "https://bsky.app/profile/did:plc:yk4dd2qkboz2yv6tpubpc6co/post/3m6cz2xyf4a2t") << "the DID stands in";
  EXPECT_FALSE(c.author.has_value());
  EXPECT_FALSE(c.discussion_url.has_value());
  EXPECT_EQ(c.published_at, at("2026-11-25T12:00:00Z")) << "the index time bounds a claimed future date";
  EXPECT_EQ(c.title, "rust in production");
}

TEST(Bluesky, LogsInOnBskySocialThenSearchesTheWindowOnTheAccountsPds) {
  FixtureFetcher f;
  logged_in(f).on_body(kSearch, fixture("bluesky/search_posts_empty.json"));
  TestEnv t(f, keyed());
  auto q = november("tokio \"runtime\"");
  q.sub_queries.push_back({"spawn_blocking", 0.5});
  auto r = bsky().search(q, t.env);
  EXPECT_EQ(r.state, SourceState::no_results) << r.reason;
  const auto reqs = f.requests();
  ASSERT_EQ(reqs.size(), 3u) << "one login, then one search per sub-query";
  EXPECT_EQ(reqs[0].url, kLogin);
  EXPECT_EQ(reqs[0].method, "POST");
  const auto body = json::parse(reqs[0].body);
  EXPECT_EQ(body["identifier"], kHandle);
  EXPECT_EQ(body["password"], kPassword);
  std::set<std::string> queries;
  for (std::size_t i = 1; i < reqs.size(); ++i) {
    const std::string& url = reqs[i].url;
    EXPECT_EQ(url.rfind(std::string(kPds) + kSearch + "?", 0), 0u) << url;
    EXPECT_EQ(param(url, "since"), "2026-11-01T00:00:00Z");
    EXPECT_EQ(param(url, "until"), "2026-11-30T00:00:00Z") << "until is exclusive: the whole last day";
    EXPECT_EQ(param(url, "sort"), "top");
    EXPECT_EQ(param(url, "limit"), "25");
    EXPECT_EQ(header_of(reqs[i], "Authorization"), "Bearer " + access_jwt());
    queries.insert(param(url, "q"));
  }
  EXPECT_EQ(queries, (std::set<std::string>{"tokio \"runtime\"", "spawn_blocking"}));
  EXPECT_EQ(r.requests, 3);
}

TEST(Bluesky, WithoutADidDocItSearchesThroughBskySocial) {
  FixtureFetcher f;
  logged_in(f, fixture("bluesky/create_session_no_diddoc.json"))
      .on_body(kSearch, fixture("bluesky/search_posts_rust_2026-11.json"));
  TestEnv t(f, keyed());
  auto r = bsky().search(november(), t.env);
  EXPECT_EQ(r.state, SourceState::ok) << r.reason;
  EXPECT_TRUE(r.reason.empty()) << "no DID document is normal, not worth a note: " << r.reason;
  ASSERT_EQ(f.urls().size(), 2u);
  EXPECT_EQ(f.urls()[1].rfind(std::string("https://bsky.social") + kSearch + "?", 0), 0u) << f.urls()[1];
}

TEST(Bluesky, AHostileDidDocNeverGetsTheToken) {
  // Each names a place the session token must not go: plain http, an IP, another domain,
  // user info, a path or query, a look-alike host, another account's document.
  const std::vector<std::string> endpoints = {
      "http://morel.us-east.host.bsky.network",
      "https://evil.example",
      "https://127.0.0.1",
      "https://[::1]:8443",
      "https://10.0.0.7.bsky.network@evil.example",
      "https://user:pw@morel.us-east.host.bsky.network",
      "https://morel.us-east.host.bsky.network/steal",
      "https://morel.us-east.host.bsky.network?x=1",
      "https://evilbsky.network",
      "https://bsky.network.evil.example",
      "https://evil.example/.bsky.network",
      "javascript:alert(1)",
      "https://morel.us-east.host.bsky.network\r\nX-Injected: 1",
      "",
  };
  for (const auto& e : endpoints) {
    SCOPED_TRACE(e);
    FixtureFetcher f;
    logged_in(f, session_with_pds(e)).on_body(kSearch, fixture("bluesky/search_posts_rust_2026-11.json"));
    TestEnv t(f, keyed());
    auto r = bsky().search(november(), t.env);
    EXPECT_EQ(r.state, SourceState::ok) << r.reason;
    EXPECT_NE(r.reason.find("searched through bsky.social"), std::string::npos) << r.reason;
    ASSERT_EQ(f.urls().size(), 2u);
    EXPECT_EQ(f.urls()[1].rfind(std::string("https://bsky.social") + kSearch + "?", 0), 0u) << f.urls()[1];
  }
  // Another account's DID document.
  auto other = json::parse(session_fixture());
  other["didDoc"]["id"] = "did:plc:someoneelse00000000000000";
  other["didDoc"]["service"][0]["serviceEndpoint"] = "https://puffball.us-west.host.bsky.network";
  FixtureFetcher f;
  logged_in(f, other.dump()).on_body(kSearch, fixture("bluesky/search_posts_empty.json"));
  TestEnv t(f, keyed());
  auto r = bsky().search(november(), t.env);
  EXPECT_NE(r.reason.find("another account's"), std::string::npos) << r.reason;
  EXPECT_EQ(f.urls()[1].rfind("https://bsky.social/", 0), 0u) << f.urls()[1];
}

TEST(Bluesky, AnyOfBlueskysOwnPdsHostsIsUsed) {
  const std::vector<std::pair<std::string, std::string>> ok = {
      {"https://puffball.us-west.host.bsky.network", "https://puffball.us-west.host.bsky.network"},
      {"https://Shiitake.US-East.host.bsky.network/", "https://shiitake.us-east.host.bsky.network"},
      {"https://pds.bsky.social:8443", "https://pds.bsky.social:8443"},
  };
  for (const auto& [endpoint, origin] : ok) {
    SCOPED_TRACE(endpoint);
    FixtureFetcher f;
    logged_in(f, session_with_pds(endpoint, "did:plc:w4xbfzo7kqfes5zb7r6qv3rw#atproto_pds"))
        .on_body(kSearch, fixture("bluesky/search_posts_empty.json"));
    TestEnv t(f, keyed());
    auto r = bsky().search(november(), t.env);
    EXPECT_EQ(r.state, SourceState::no_results) << r.reason;
    ASSERT_EQ(f.urls().size(), 2u);
    EXPECT_EQ(f.urls()[1].rfind(origin + kSearch + "?", 0), 0u) << f.urls()[1];
  }
}

TEST(Bluesky, AnExpiredTokenLogsInAgainOnceAndResends) {
  auto renewed = json::parse(session_fixture());
  renewed["accessJwt"] = "eyJhbGciOiJFUzI1NksifQ.eyJyZW5ld2VkIjp0cnVlfQ.RENEWEDsig0000";
  int logins = 0;
  Scripted f([&](const http::Request& r, int) {
    if (r.url == kLogin) return answer(200, ++logins == 1 ? session_fixture() : renewed.dump());
    if (header_of(r, "Authorization") == "Bearer " + access_jwt())
      return answer(400, fixture("bluesky/error_expired_token.json"));
    return answer(200, fixture("bluesky/search_posts_rust_2026-11.json"));
  });
  TestEnv t(f, keyed());
  auto q = november();
  q.sub_queries.push_back({"cargo", 0.5});
  auto r = bsky().search(q, t.env);
  EXPECT_EQ(r.state, SourceState::ok) << r.reason;
  EXPECT_EQ(r.items.size(), 3u);
  EXPECT_EQ(f.count("createSession"), 2) << "two expired answers, one new session";
  EXPECT_EQ(f.count(kSearch), 4);
  EXPECT_EQ(r.requests, 6);
  const auto reqs = f.requests();
  EXPECT_EQ(header_of(reqs.back(), "Authorization"), "Bearer " + renewed["accessJwt"].get<std::string>());
  // The new session is the one kept: the next search of this HTTP session logs in no more.
  bsky().search(november(), t.env);
  EXPECT_EQ(f.count("createSession"), 2);
}

TEST(Bluesky, ATokenThatStaysExpiredIsAuthFailedAfterOneRetry) {
  for (long status : {400L, 401L}) {
    SCOPED_TRACE(status);
    Scripted f([&](const http::Request& r, int) {
      if (r.url == kLogin) return answer(200, session_fixture());
      return answer(status,
                    fixture(status == 400 ? "bluesky/error_expired_token.json" : "bluesky/error_authentication_required.json"));
    });
    TestEnv t(f, keyed());
    auto q = november();
    q.sub_queries.push_back({"cargo", 0.5});
    auto r = bsky().search(q, t.env);
    EXPECT_EQ(r.state, SourceState::auth_failed) << r.reason;
    EXPECT_NE(r.reason.find(status == 400 ? "ExpiredToken" : "AuthenticationRequired"), std::string::npos) << r.reason;
    EXPECT_EQ(f.count("createSession"), 2) << "once more, never a loop";
    EXPECT_EQ(f.count(kSearch), 4);
  }
}

TEST(Bluesky, AWrongPasswordIsAuthFailedAndSearchesNothing) {
  FixtureFetcher f;
  f.on(kLogin, answer(401, fixture("bluesky/error_authentication_required.json")));
  TestEnv t(f, keyed());
  auto r = bsky().search(november(), t.env);
  EXPECT_EQ(r.state, SourceState::auth_failed);
  EXPECT_NE(r.reason.find("BSKY_APP_PASSWORD"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("Invalid identifier or password"), std::string::npos) << r.reason;
  EXPECT_EQ(f.urls().size(), 1u);
  // A server that echoes the password does not get it into the reason.
  FixtureFetcher g;
  g.on(kLogin,
       answer(401, json{{"error", "AuthenticationRequired"}, {"message", std::string("bad password ") + kPassword}}.dump()));
  TestEnv u(g, keyed());
  auto echoed = bsky().search(november(), u.env);
  EXPECT_EQ(echoed.state, SourceState::auth_failed);
  EXPECT_EQ(echoed.reason.find(kPassword), std::string::npos) << echoed.reason;
  // A taken-down account: 400 with its own code.
  FixtureFetcher h;
  h.on(kLogin, answer(400, R"({"error":"AccountTakedown","message":"Account has been taken down"})"));
  TestEnv v(h, keyed());
  auto takedown = bsky().search(november(), v.env);
  EXPECT_EQ(takedown.state, SourceState::auth_failed);
  EXPECT_NE(takedown.reason.find("AccountTakedown"), std::string::npos) << takedown.reason;
}

TEST(Bluesky, RateLimitedWithTheResetTime) {
  const std::vector<http::Header> limit = {
      {"ratelimit-limit", "3000"}, {"ratelimit-remaining", "0"}, {"ratelimit-reset", "1796041800"}};
  FixtureFetcher f;
  logged_in(f).on(kSearch, answer(429, fixture("bluesky/error_rate_limit.json"), limit));
  TestEnv t(f, keyed());
  auto r = bsky().search(november(), t.env);
  EXPECT_EQ(r.state, SourceState::rate_limited);
  EXPECT_NE(r.reason.find("Bluesky rate limit"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("resets at 2026-11-30T12:30:00Z"), std::string::npos) << r.reason;
  EXPECT_EQ(f.urls().size(), 2u) << "a 429 is not retried";

  FixtureFetcher g;
  g.on(kLogin, answer(429, fixture("bluesky/error_rate_limit.json"), limit));
  TestEnv u(g, keyed());
  auto login = bsky().search(november(), u.env);
  EXPECT_EQ(login.state, SourceState::rate_limited);
  EXPECT_EQ(login.reason.rfind("login: Bluesky rate limit", 0), 0u) << login.reason;
  EXPECT_NE(login.reason.find("resets at 2026-11-30T12:30:00Z"), std::string::npos) << login.reason;
  EXPECT_EQ(g.urls().size(), 1u);
}

TEST(Bluesky, ARateLimitEndsTheBatchLikeALoopsBreak) {
  Scripted f([](const http::Request& r, int) {
    if (r.url == kLogin) return answer(200, session_fixture());
    if (param(r.url, "q") == "rust") return answer(429, fixture("bluesky/error_rate_limit.json"));
    return answer(200, fixture("bluesky/search_posts_rust_2026-11.json"));
  });
  TestEnv t(f, keyed());
  auto q = november();
  q.sub_queries.push_back({"cargo", 0.5});
  auto r = bsky().search(q, t.env);
  EXPECT_EQ(r.state, SourceState::rate_limited) << "the answer after the 429 is not used: " << r.reason;
  EXPECT_TRUE(r.items.empty());
  EXPECT_EQ(f.count("createSession"), 1);
}

TEST(Bluesky, SessionTokensAreSecretsTheMomentTheyArrive) {
  FixtureFetcher f;
  logged_in(f).on_body(kSearch, fixture("bluesky/search_posts_empty.json"));
  TestEnv t(f, keyed());
  bsky().search(november(), t.env);
  EXPECT_EQ(core::redact::scrub("a " + access_jwt() + " b"), "a [redacted] b");
  EXPECT_EQ(core::redact::scrub(refresh_jwt()), "[redacted]");
  // Even a token the source refuses to send (it would break the header) is registered.
  auto bad = json::parse(session_fixture());
  bad["accessJwt"] = "eyJbad.token\r\nX-Injected: ZQ9bluesky";
  FixtureFetcher g;
  logged_in(g, bad.dump());
  TestEnv u(g, keyed());
  auto r = bsky().search(november(), u.env);
  EXPECT_EQ(r.state, SourceState::schema_drift) << r.reason;
  EXPECT_EQ(g.urls().size(), 1u) << "no search with a token that is not a token";
  EXPECT_EQ(core::redact::scrub("eyJbad.token\r\nX-Injected: ZQ9bluesky"), "[redacted]");
}

TEST(Bluesky, OneSessionPerHttpSession) {
  FixtureFetcher f;
  logged_in(f).on_body(kSearch, fixture("bluesky/search_posts_empty.json"));
  TestEnv t(f, keyed());
  bsky().search(november(), t.env);
  bsky().search(november("cargo"), t.env);
  EXPECT_EQ(f.urls().size(), 3u) << "the second search reuses the session";
  FixtureFetcher g;  // another run: its own session
  logged_in(g).on_body(kSearch, fixture("bluesky/search_posts_empty.json"));
  TestEnv u(g, keyed());
  bsky().search(november(), u.env);
  EXPECT_EQ(g.urls().size(), 2u);
  EXPECT_EQ(g.urls()[0], kLogin);
}

TEST(Bluesky, WithoutCredentialsItIsSkippedNamingWhatToSet) {
  EXPECT_EQ(bsky().unconfigured(core::Config()), "set BSKY_HANDLE and BSKY_APP_PASSWORD");
  EXPECT_EQ(bsky().unconfigured(core::Config({{"BSKY_HANDLE", kHandle}}, {})), "set BSKY_APP_PASSWORD");
  EXPECT_EQ(bsky().unconfigured(core::Config({{"BSKY_HANDLE", " "}, {"BSKY_APP_PASSWORD", kPassword}}, {})), "set BSKY_HANDLE");
  EXPECT_FALSE(bsky().unconfigured(keyed()).has_value());
  FixtureFetcher f;
  TestEnv t(f);
  auto r = bsky().search(november(), t.env);
  EXPECT_EQ(r.state, SourceState::skipped_unconfigured);
  EXPECT_NE(r.reason.find("BSKY_APP_PASSWORD"), std::string::npos);
  EXPECT_TRUE(f.urls().empty());
  EXPECT_FALSE(bsky().has_comments());
  const auto keys = bsky().config_keys();
  EXPECT_EQ(keys, (std::vector<std::string_view>{"BSKY_HANDLE", "BSKY_APP_PASSWORD"}));
  EXPECT_NE(bsky()
                .advice(SourceState::skipped_unconfigured, core::Config(), "~/.config/last30days/.env")
                .find("set BSKY_HANDLE and BSKY_APP_PASSWORD in ~/.config/last30days/.env"),
            std::string::npos);
  EXPECT_NE(bsky().advice(SourceState::auth_failed, keyed(), "x").find("app password"), std::string::npos);
  EXPECT_EQ(bsky().advice(SourceState::auth_failed, keyed(), "x").find(kPassword), std::string::npos);
}

TEST(Bluesky, AHandleWrittenWithAnAtSignIsTheHandle) {
  FixtureFetcher f;
  logged_in(f).on_body(kSearch, fixture("bluesky/search_posts_empty.json"));
  TestEnv t(f, core::Config({{"BSKY_HANDLE", " @l30tester.bsky.social "}, {"BSKY_APP_PASSWORD", kPassword}}, {}));
  bsky().search(november(), t.env);
  EXPECT_EQ(json::parse(f.requests().at(0).body)["identifier"], kHandle);
}

TEST(Bluesky, HostileSearchAnswersEndInAState) {
  auto post = [](std::size_t i) {
    return fmt::format(
        R"({{"uri":"at://did:plc:abc{}/app.bsky.feed.post/3m{}","author":{{"handle":"u{}.bsky.social"}},)"
        R"("record":{{"text":"rust {}","createdAt":"2026-11-20T10:00:00Z"}},"indexedAt":"2026-11-20T10:00:01Z","likeCount":{}}})",
        i, i, i, i, i);
  };
  HostileTable(bsky(), kSearch, Format::json)
      .config(keyed())
      .also("createSession", session_fixture())
      .secret(kPassword)
      .secret(access_jwt().substr(0, 40))
      .valid(fixture("bluesky/search_posts_rust_2026-11.json"))
      .huge(R"({"posts":[)", post, "]}")
      .row("expired for good", json_reply(fixture("bluesky/error_expired_token.json"), 400), SourceState::auth_failed,
           "ExpiredToken")
      .row("bad request", json_reply(R"({"error":"InvalidRequest","message":"Error: since must be a valid datetime"})", 400),
           SourceState::error, "InvalidRequest: Error: since must be a valid datetime")
      .row("hostile error text",
           json_reply("{\"error\":\"Bad\\u001b[2J\\r\\nCode\",\"message\":\"line\\nbreak \\u202e" + std::string(600, 'x') + "\"}",
                      400),
           SourceState::error, "line break")
      .row("rate limited", json_reply(fixture("bluesky/error_rate_limit.json"), 429), SourceState::rate_limited,
           "Bluesky rate limit")
      .row("posts is not a list", json_reply(R"({"posts":{"uri":"at://x"}})"), SourceState::schema_drift)
      .row("no posts", json_reply(fixture("bluesky/search_posts_empty.json")), SourceState::no_results)
      .row("unusable posts",
           json_reply(R"({"posts":[1,"x",null,{},{"uri":"https://bsky.app/x"},{"uri":"at://did:plc:a/app.bsky.feed.like/3k"},)"
                      R"({"uri":"at://did:plc:a/app.bsky.feed.post/../../x","record":{"text":"t"}},)"
                      R"({"uri":"at://evil.example\"/app.bsky.feed.post/3k","record":{"text":"t"}},)"
                      R"({"uri":"at://did:plc:a/app.bsky.feed.post/3k","record":{"text":""}}]})"),
           SourceState::no_results)
      .run();
}

TEST(Bluesky, HostileLoginAnswersEndInAState) {
  auto no_token = json::parse(session_fixture());
  no_token.erase("accessJwt");
  HostileTable(bsky(), "createSession", Format::json)
      .config(keyed())
      .also(kSearch, fixture("bluesky/search_posts_rust_2026-11.json"))
      .secret(kPassword)
      .valid(session_fixture())
      .expect("401", SourceState::auth_failed, "BSKY_APP_PASSWORD")
      .row("wrong password", json_reply(fixture("bluesky/error_authentication_required.json"), 401), SourceState::auth_failed,
           "Invalid identifier or password")
      .row("no accessJwt", json_reply(no_token.dump()), SourceState::schema_drift, "accessJwt")
      .row("accessJwt not a string", json_reply(R"({"accessJwt":{"a":1},"refreshJwt":7})"), SourceState::schema_drift,
           "accessJwt")
      .row("rate limited", json_reply(fixture("bluesky/error_rate_limit.json"), 429), SourceState::rate_limited, "login:")
      .row("echoes the password",
           json_reply(std::string(R"({"error":"AuthenticationRequired","message":")") + kPassword + "\"}", 401),
           SourceState::auth_failed)
      .run();
}

TEST(Bluesky, ListingReadsTheDiscoverFeedOrSearchesTheDomain) {
  ASSERT_TRUE(bsky().has_listing());
  FixtureFetcher f;
  logged_in(f).on_body("app.bsky.feed.getFeed", fixture("bluesky/get_feed_whats_hot.json"));
  TestEnv t(f, keyed());
  auto q = make_listing_query("2026-11-21", "2026-11-27");
  auto r = bsky().listing(q, t.env);
  EXPECT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(f.urls().size(), 2u);
  EXPECT_EQ(f.urls()[1].rfind(std::string(kPds) + "/xrpc/app.bsky.feed.getFeed?", 0), 0u) << f.urls()[1];
  EXPECT_EQ(param(f.urls()[1], "feed"), "at://did:plc:z72i7hdynmk6r22z27h6tvur/app.bsky.feed.generator/whats-hot");
  EXPECT_EQ(param(f.urls()[1], "limit"), "30");
  ASSERT_EQ(r.items.size(), 1u) << "the feed's post of the 20th is outside the listing's window";
  EXPECT_EQ(r.items[0].url, "https://jess.dev/posts/queue-workers-in-rust");

  q.domain = "rust";
  q.domain_terms = {"rustlang", "cargo"};
  FixtureFetcher g;
  logged_in(g).on_body(kSearch, fixture("bluesky/search_posts_empty.json"));
  TestEnv u(g, keyed());
  EXPECT_EQ(bsky().listing(q, u.env).state, SourceState::no_results);
  ASSERT_EQ(g.urls().size(), 2u);
  EXPECT_EQ(param(g.urls()[1], "q"), "rustlang");
  EXPECT_EQ(param(g.urls()[1], "since"), "2026-11-21T00:00:00Z");

  HostileTable(bsky(), "app.bsky.feed.getFeed", Format::json)
      .config(keyed())
      .also("createSession", session_fixture())
      .listing(make_listing_query("2026-11-01", "2026-11-29"))
      .valid(fixture("bluesky/get_feed_whats_hot.json"))
      .row("feed entries without posts", json_reply(R"({"feed":[{"reason":{}},{"post":7}]})"), SourceState::no_results)
      .run();
}

TEST(Bluesky, DoctorProbeIsOneLoginAndOneSmallSearch) {
  FixtureFetcher f;
  logged_in(f).on_body(kSearch, fixture("bluesky/search_posts_empty.json"));
  TestEnv t(f, keyed());
  auto r = bsky().probe(t.env, at("2026-11-29T12:00:00Z"));
  EXPECT_EQ(r.state, SourceState::no_results) << r.reason;
  ASSERT_EQ(f.urls().size(), 2u);
  EXPECT_EQ(param(f.urls()[1], "limit"), "1");
}

TEST(Bluesky, ATitleCutInsideASecretKeepsNoPrefixOfIt) {
  const std::string secret = "ZQ7cutSecretValue0123456789abcdef";
  core::redact::add_secret(secret);
  // No space to cut at: the 160-byte title would end inside the secret.
  const std::string text = std::string(140, 'x') + secret + " tail";
  json post = {{"uri", "at://did:plc:abc/app.bsky.feed.post/3mcut"},
               {"author", {{"handle", "cut.bsky.social"}}},
               {"record", {{"text", text}, {"createdAt", "2026-11-20T10:00:00Z"}}},
               {"indexedAt", "2026-11-20T10:00:01Z"}};
  FixtureFetcher f;
  logged_in(f).on_body(kSearch, json{{"posts", {post}}}.dump());
  TestEnv t(f, keyed());
  auto r = bsky().search(november(), t.env);
  ASSERT_EQ(r.items.size(), 1u) << r.reason;
  EXPECT_EQ(r.items[0].title.find(secret.substr(0, 8)), std::string::npos) << r.items[0].title;
  EXPECT_EQ(r.items[0].snippet.find(secret.substr(0, 8)), std::string::npos) << r.items[0].snippet;
}
