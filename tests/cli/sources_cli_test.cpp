// Bluesky, X, YouTube, web search and Wikipedia through the real binary, against the fake
// upstream (LAST30DAYS_HOST_MAP): credentials set, unset and wrong; cross-posts folded.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <set>

#include "core/text.hpp"
#include "core/time.hpp"
#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::vector<std::string> kArgs = {"tokio runtime", "--as-of", "2026-11-29", "--days", "30", "--emit", "json"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

json parse_stdout(const ProcessResult& r) {
  auto j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "stdout must be the JSON document:\n" << r.out << "\nstderr:\n" << r.err;
  return j;
}

std::map<std::string, std::string> good(std::map<std::string, std::string> env) {
  env["BSKY_HANDLE"] = kGoodBskyHandle;
  env["BSKY_APP_PASSWORD"] = kGoodBskyPassword;
  env["X_BEARER_TOKEN"] = kGoodXToken;
  env["YOUTUBE_API_KEY"] = kGoodYouTubeKey;
  env["BRAVE_API_KEY"] = kGoodBraveKey;
  return env;
}

const std::vector<std::pair<std::string, std::string>> kWrong = {{"BSKY_HANDLE", "l30tester.bsky.social"},
                                                                 {"BSKY_APP_PASSWORD", "wrong-wrong-wrong-wrong"},
                                                                 {"X_BEARER_TOKEN", "AAAAAAAAAAAAAAAAAAAAAWrongXBearerToken"},
                                                                 {"YOUTUBE_API_KEY", "AIzaSyWrongYouTubeKey000000000000000"},
                                                                 {"BRAVE_API_KEY", "BSAwrongBraveSubscriptionToken"}};

const json* item_with_url(const json& report, std::string_view url_part) {
  for (const auto& it : report["items"])
    if (it["url"].get<std::string>().find(url_part) != std::string::npos) return &it;
  return nullptr;
}

}  // namespace

TEST(SourcesCli, WithoutCredentialsEachIsSkippedNamingWhatToSet) {
  Scenario s;
  auto r = s.run(kArgs);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse_stdout(r);
  const auto& st = j["source_status"];
  const std::map<std::string, std::string> want = {{"bluesky", "set BSKY_HANDLE and BSKY_APP_PASSWORD"},
                                                   {"x", "X_BEARER_TOKEN"},
                                                   {"youtube", "YOUTUBE_API_KEY or install yt-dlp"},
                                                   {"web", "BRAVE_API_KEY or SEARXNG_URL"}};
  for (const auto& [id, says] : want) {
    ASSERT_TRUE(st.contains(id)) << id;
    EXPECT_EQ(st[id]["state"], "skipped-unconfigured") << id;
    EXPECT_NE(st[id]["reason"].get<std::string>().find(says), std::string::npos) << id << ": " << st[id]["reason"];
  }
  for (const char* prefix : {"/bsky", "/pds", "/x", "/yt", "/brave", "/searx"}) EXPECT_EQ(s.requests_under(prefix), 0) << prefix;
  // Wikipedia is keyless: asked, and honest that there is no article of that name.
  EXPECT_EQ(st["wikipedia"]["state"], "no-results");
  EXPECT_NE(st["wikipedia"]["reason"].get<std::string>().find("Tokio runtime"), std::string::npos) << st["wikipedia"];
  EXPECT_EQ(st["hackernews"]["state"], "ok");
}

TEST(SourcesCli, CredentialedSourcesAnswerInTheirRealFormats) {
  Scenario s;
  auto r = run_last30days(with(kArgs, {"--search", "bluesky,youtube,web,hn"}), good(s.env()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse_stdout(r);
  for (const char* id : {"bluesky", "youtube", "web", "hackernews"})
    EXPECT_EQ(j["source_status"][id]["state"], "ok") << id << ": " << j["source_status"][id];

  const json* video = item_with_url(j, "youtube.com/watch?v=tok2runtime");
  ASSERT_NE(video, nullptr) << r.out;
  EXPECT_TRUE(video->at("engagement")["views"].is_number()) << "YouTube's string counts become numbers";
  EXPECT_EQ(video->at("engagement")["views"], 48211);
  EXPECT_EQ(video->at("engagement")["comments"], 188);

  // Bluesky: one login on bsky.social, the search on the PDS its DID document names.
  EXPECT_EQ(s.requests_starting("/bsky/xrpc/com.atproto.server.createSession"), 1);
  EXPECT_EQ(s.requests_starting("/pds/xrpc/app.bsky.feed.searchPosts"), s.requests_under("/pds"));
  EXPECT_GE(s.requests_under("/pds"), 1);
  const json* post = item_with_url(j, "bsky.app/profile/jess.dev/post/3m6btokioq2f");
  ASSERT_NE(post, nullptr) << r.out;
  EXPECT_TRUE(post->at("engagement")["likeCount"].is_number());
  EXPECT_EQ(post->at("author"), "jess.dev");

  // The Tokio announcement: Hacker News, the Bluesky post sharing it and the web result are one story.
  const json* tokio = item_with_url(j, "tokio.rs/blog/2026-11-tokio-2-0");
  ASSERT_NE(tokio, nullptr);
  std::set<std::string> seen{tokio->at("source").get<std::string>()};
  for (const auto& s2 : tokio->at("also_seen")) seen.insert(s2["source"]);
  EXPECT_TRUE(seen.count("hackernews") && seen.count("web") && seen.count("bluesky")) << tokio->dump();
  int copies = 0;
  for (const auto& it : j["items"])
    copies += it["url"].get<std::string>().find("tokio.rs/blog/2026-11-tokio-2-0") != std::string::npos;
  EXPECT_EQ(copies, 1);
}

TEST(SourcesCli, WrongCredentialsAreAuthFailedOthersUnharmedNothingLeaks) {
  Scenario s;
  auto env = s.env();
  for (const auto& [k, v] : kWrong) env[k] = v;
  auto r = run_last30days({"jepsen raft", "--emit", "json", "--search", "bluesky,x,youtube,web,hn"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse_stdout(r);
  for (const char* id : {"bluesky", "x", "youtube", "web"}) {
    EXPECT_EQ(j["source_status"][id]["state"], "auth-failed") << id << ": " << j["source_status"][id];
    EXPECT_FALSE(j["source_status"][id]["reason"].is_null());
  }
  EXPECT_NE(j["source_status"]["web"]["reason"].get<std::string>().find("SUBSCRIPTION_TOKEN_INVALID"), std::string::npos);
  EXPECT_NE(j["source_status"]["youtube"]["reason"].get<std::string>().find("API key not valid"), std::string::npos);
  EXPECT_NE(j["source_status"]["bluesky"]["reason"].get<std::string>().find("Invalid identifier or password"), std::string::npos);
  EXPECT_EQ(s.requests_under("/bsky"), 1) << "a refused login is not retried";
  EXPECT_EQ(s.requests_under("/pds"), 0) << "nothing is searched without a session";
  EXPECT_NE(j["source_status"]["hackernews"]["state"], "auth-failed");
  for (const auto& [k, v] : kWrong)
    if (k != "BSKY_HANDLE") {
      EXPECT_EQ((r.out + r.err).find(v), std::string::npos) << k << " leaked";
    }
  auto strict = run_last30days({"jepsen raft", "--strict", "--search", "x,hn"}, env);
  EXPECT_EQ(strict.exit_code, 3);
  // The only source asked refused: no source answered, whatever --strict says.
  EXPECT_EQ(run_last30days({"jepsen raft", "--strict", "--search", "x"}, env).exit_code, 4);
}

TEST(SourcesCli, SearxngIsTheKeylessWebSearch) {
  Scenario s;
  auto env = s.env();
  env["SEARXNG_URL"] = kSearxngUrl;
  auto j = parse_stdout(run_last30days(with(kArgs, {"--search", "web"}), env));
  EXPECT_EQ(j["source_status"]["web"]["state"], "ok") << j["source_status"]["web"];
  EXPECT_EQ(s.requests_under("/searx"), 1);
  EXPECT_EQ(s.requests_under("/brave"), 0);
  ASSERT_NE(item_with_url(j, "tokio.rs/blog/2026-11-tokio-2-0"), nullptr);
}

TEST(SourcesCli, XSearchesOnlyTheLastSevenDays) {
  Scenario s;
  auto env = good(s.env());
  auto j = parse_stdout(run_last30days({"jepsen raft", "--search", "x", "--emit", "json"}, env));
  EXPECT_EQ(j["source_status"]["x"]["state"], "ok") << j["source_status"]["x"];
  EXPECT_NE(j["source_status"]["x"]["reason"].get<std::string>().find("X covers only the last 7 days"), std::string::npos);
  ASSERT_EQ(s.requests_under("/x"), 1);
  for (const auto& e : s.fake().log()) {
    if (e.request.path.rfind("/x/", 0) != 0) continue;
    const auto start = core::parse_iso8601(e.request.param("start_time"));
    ASSERT_TRUE(start.has_value()) << e.request.target;
    EXPECT_GE(*start, core::now_unix() - 7 * 86400) << "never a start_time older than 7 days";
    EXPECT_EQ(e.request.headers.at("authorization"), std::string("Bearer ") + kGoodXToken);
  }
  // A window wholly older than a week asks nothing.
  const std::string old_day = core::format_date(core::now_unix() - 40 * 86400);
  auto old =
      parse_stdout(run_last30days({"jepsen raft", "--search", "x", "--as-of", old_day, "--days", "7", "--emit", "json"}, env));
  EXPECT_EQ(old["source_status"]["x"]["state"], "no-results");
  EXPECT_NE(old["source_status"]["x"]["reason"].get<std::string>().find("X covers only the last 7 days"), std::string::npos);
  EXPECT_EQ(s.requests_under("/x"), 1) << "no request for the old window";
}

TEST(SourcesCli, WikipediaMeasuresTheTopicsOwnArticle) {
  Scenario s([](const FakeRequest& r) -> std::optional<FakeReply> {
    if (r.path.rfind("/wp/api/rest_v1/page/summary/", 0) == 0)
      return FakeReply::json(fixture("wikipedia/summary_rust_programming_language.json"));
    if (r.path.rfind("/wm/api/rest_v1/metrics/pageviews/per-article/", 0) == 0)
      return FakeReply::json(fixture("wikipedia/per_article_rust_2026-10-03_2026-11-29.json"));
    return std::nullopt;
  });
  auto r =
      s.run({"rust programming language", "--as-of", "2026-11-29", "--days", "28", "--search", "wikipedia", "--emit", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse_stdout(r);
  EXPECT_EQ(j["source_status"]["wikipedia"]["state"], "ok") << j["source_status"]["wikipedia"];
  ASSERT_EQ(j["items"].size(), 1u);
  EXPECT_EQ(j["items"][0]["url"], "https://en.wikipedia.org/wiki/Rust_(programming_language)");
  EXPECT_TRUE(j["items"][0]["engagement"]["views"].is_number());
  EXPECT_EQ(s.requests_under("/wp"), 1);
  EXPECT_EQ(s.requests_under("/wm"), 1);
}

TEST(SourcesCli, DiscoveryNominatesFromWikipediaWithoutItsNamespaces) {
  Scenario s(nullptr, World::discovery);
  auto r = s.run({"--discover", "--search", "wikipedia,hn", "--enrich-budget", "15", "--emit", "json"}, 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse_stdout(r);
  EXPECT_EQ(j["source_status"]["wikipedia"]["state"], "ok") << j["source_status"]["wikipedia"];
  EXPECT_GT(j["source_status"]["wikipedia"]["items"].get<int>(), 0);
  bool gpt_from_wikipedia = false;
  for (const auto& t : j["results"]) {
    const std::string name = t["name"];
    for (const char* junk : {"Main Page", "Special:", "File:", "Wikipedia:", "Template:", "User talk"})
      EXPECT_EQ(name.find(junk), std::string::npos) << name;
    EXPECT_EQ(core::casefold(name).find("deaths in 2026"), std::string::npos) << "a flat, perennial article is not spiking";
    for (const auto& src : t["sources"])
      if (src == "wikipedia" && core::casefold(name).find("gpt") != std::string::npos) gpt_from_wikipedia = true;
  }
  EXPECT_TRUE(gpt_from_wikipedia) << r.out;
  EXPECT_GT(s.requests_under("/wm"), 7) << "daily top lists, then the leaders' own daily views";
}

TEST(SourcesCli, ACrossPostOnXBlueskyAndHackerNewsIsOneStoryWithEverySighting) {
  Scenario s;
  auto r = run_last30days({"jepsen raft", "--search", "x,bluesky,hn", "--emit", "json"}, good(s.env()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse_stdout(r);
  for (const char* id : {"x", "bluesky", "hackernews"})
    EXPECT_EQ(j["source_status"][id]["state"], "ok") << id << ": " << j["source_status"][id];
  int copies = 0;
  const json* story = nullptr;
  for (const auto& it : j["items"])
    if (it["url"].get<std::string>().find("jepsen.example/analyses/raft-2026") != std::string::npos) ++copies, story = &it;
  ASSERT_EQ(copies, 1) << "X's ?utm_source copy, the Bluesky card and the HN story fold into one:\n" << r.out;
  std::set<std::string> seen{story->at("source").get<std::string>()};
  for (const auto& s2 : story->at("also_seen")) seen.insert(s2["source"]);
  EXPECT_EQ(seen, (std::set<std::string>{"x", "bluesky", "hackernews"})) << story->dump();
  EXPECT_EQ(story->at("url"), "https://jepsen.example/analyses/raft-2026") << "the cited URL carries no tracking";
  // Every sighting keeps its own discussion.
  const std::string all = story->dump();
  EXPECT_NE(all.find("https://bsky.app/profile/aphyr.com/post/3m7jepsenra2"), std::string::npos) << all;
  EXPECT_NE(all.find("https://x.com/aphyr/status/2126000000000000001"), std::string::npos) << all;
  EXPECT_NE(all.find("news.ycombinator.com/item?id=46100001"), std::string::npos) << all;
}

TEST(SourcesCli, BlueskyLogsInAgainOnceWhenItsTokenExpires) {
  std::atomic<int> searches{0};
  Scenario s([&](const FakeRequest& r) -> std::optional<FakeReply> {
    // The first search finds the token expired, as a PDS says it: 400 ExpiredToken.
    if (r.path.rfind("/pds/xrpc/app.bsky.feed.searchPosts", 0) == 0 && ++searches == 1)
      return FakeReply::json(fixture("bluesky/error_expired_token.json"), 400);
    return std::nullopt;
  });
  auto r = run_last30days(with(kArgs, {"--search", "bluesky"}), good(s.env()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse_stdout(r);
  EXPECT_EQ(j["source_status"]["bluesky"]["state"], "ok") << j["source_status"]["bluesky"];
  EXPECT_EQ(s.requests_under("/bsky"), 2) << "one login, one renewal";
  EXPECT_GT(j["source_status"]["bluesky"]["items"].get<int>(), 0);

  // A token that stays expired: auth-failed after one renewal, never a loop.
  Scenario always([](const FakeRequest& req) -> std::optional<FakeReply> {
    if (req.path.rfind("/pds/", 0) == 0) return FakeReply::json(fixture("bluesky/error_expired_token.json"), 400);
    return std::nullopt;
  });
  auto j2 = parse_stdout(run_last30days(with(kArgs, {"--search", "bluesky"}), good(always.env())));
  EXPECT_EQ(j2["source_status"]["bluesky"]["state"], "auth-failed") << j2["source_status"]["bluesky"];
  EXPECT_EQ(always.requests_under("/bsky"), 2);
}

TEST(SourcesCli, ADidDocNamingAnHttpPdsNeverGetsTheToken) {
  // The session names a plain-http PDS on a host the fake also serves: the token must not go there.
  Scenario s([](const FakeRequest& r) -> std::optional<FakeReply> {
    if (r.path == "/bsky/xrpc/com.atproto.server.createSession") {
      auto session = json::parse(fixture("e2e/bluesky_session.json"));
      session["didDoc"]["service"][0]["serviceEndpoint"] = "http://morel.us-east.host.bsky.network";
      return FakeReply::json(session.dump());
    }
    return std::nullopt;
  });
  auto r = run_last30days(with(kArgs, {"--search", "bluesky"}), good(s.env()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse_stdout(r);
  EXPECT_EQ(j["source_status"]["bluesky"]["state"], "ok") << j["source_status"]["bluesky"];
  EXPECT_NE(j["source_status"]["bluesky"]["reason"].get<std::string>().find("searched through bsky.social"), std::string::npos);
  EXPECT_EQ(s.requests_under("/pds"), 0);
  EXPECT_GE(s.requests_starting("/bsky/xrpc/app.bsky.feed.searchPosts"), 1);
}

TEST(SourcesCli, DiscoveryNominatesFromBlueskysDiscoverFeedWhenConfigured) {
  Scenario s(nullptr, World::discovery);
  auto r =
      run_last30days({"--discover", "--search", "bluesky,hn", "--enrich-budget", "15", "--emit", "json"}, good(s.env()), 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse_stdout(r);
  EXPECT_EQ(j["source_status"]["bluesky"]["state"], "ok") << j["source_status"]["bluesky"];
  EXPECT_GE(s.requests_starting("/pds/xrpc/app.bsky.feed.getFeed"), 1);
  EXPECT_EQ(s.requests_under("/bsky"), 1) << "the listing and every sub-run share one session";
}
