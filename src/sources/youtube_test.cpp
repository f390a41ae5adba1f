#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "core/time.hpp"
#include "fake_upstream.hpp"
#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "proc_test_support.hpp"
#include "sources/source.hpp"
#include "spawn.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using model::SourceState;

namespace {

const sources::Source& yt() { return *sources::find("youtube"); }

constexpr const char* kKey = "AIzaSyL30-test-key-0000000000000000000";
constexpr const char* kSearch = "googleapis.com/youtube/v3/search?";
constexpr const char* kVideos = "googleapis.com/youtube/v3/videos?";

core::UnixSeconds at(const char* iso) { return *core::parse_iso8601(iso); }
core::Config keyed() { return core::Config({{"YOUTUBE_API_KEY", kKey}}, {}); }

const model::Item* find(const sources::SourceResult& r, const std::string& id) {
  for (const auto& i : r.items)
    if (i.id == id) return &i;
  return nullptr;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A fake yt-dlp on a private PATH: records its arguments, environment and stdin, then runs `body`.
struct FakeYtDlp {
  TempDir dir;
  explicit FakeYtDlp(const std::string& body) {
    const std::string path = dir.path() + "/yt-dlp";
    std::ofstream(path) << "#!/bin/sh\n"
                        << "PATH=/usr/bin:/bin; export PATH\n"  // it sees only the PATH we give it
                        << "echo $$ > " << dir.path() << "/pgid\n"
                        << "printf '%s\\n' \"$@\" > " << dir.path() << "/argv\n"
                        << "env > " << dir.path() << "/env\n"
                        << "if read line; then echo data > " << dir.path() << "/stdin; else echo eof > " << dir.path()
                        << "/stdin; fi\n"
                        << body;
    ::chmod(path.c_str(), 0755);
  }
  core::Config config(std::map<std::string, std::string> extra = {}) const {
    extra["PATH"] = dir.path();
    return core::Config(std::move(extra), {});
  }
  std::string file(const std::string& name) const { return slurp(dir.path() + "/" + name); }
  pid_t pgid() const { return static_cast<pid_t>(std::stol(file("pgid"))); }
};

}  // namespace

TEST(YouTube, ApiSearchThenStatisticsWithNumbersFromStrings) {
  FixtureFetcher f;
  f.on_body(kSearch, fixture("youtube/search_list_rust_2026-11.json"));
  f.on_body(kVideos, fixture("youtube/videos_list_rust_2026-11.json"));
  TestEnv t(f, keyed());
  auto r = yt().search(make_query("rust 1.92", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 2u) << "the channel result and the September video are not items";
  EXPECT_EQ(r.requests, 2);

  const auto& a = r.items[0];
  EXPECT_EQ(a.id, "youtube:q8WgNs4Jx2k");
  EXPECT_EQ(a.source, "youtube");
  EXPECT_EQ(a.url, "https://www.youtube.com/watch?v=q8WgNs4Jx2k");
  EXPECT_EQ(a.title, "Rust 1.92 in 100 Seconds");
  EXPECT_EQ(a.author, "Fireship & Friends");
  EXPECT_EQ(a.published_at, at("2026-11-21T14:00:05Z"));
  EXPECT_EQ(a.engagement_value("views"), 1284533);
  EXPECT_EQ(a.engagement_value("likes"), 61204);
  EXPECT_EQ(a.engagement_value("comments"), 3120);
  EXPECT_EQ(a.snippet, "Async closures, a faster borrow checker & more in Rust 1.92. #rust #programming");

  const auto& b = r.items[1];
  EXPECT_EQ(b.title, "Rust's new borrow checker, explained");
  EXPECT_EQ(b.engagement_value("views"), 88210);
  EXPECT_EQ(b.engagement.size(), 2u) << "a hidden like count stays absent";

  const auto urls = f.urls();
  ASSERT_EQ(urls.size(), 2u);
  EXPECT_EQ(urls[0],
            std::string("https://www.googleapis.com/youtube/v3/search?part=snippet&type=video&order=relevance&maxResults=25&"
                        "publishedAfter=2026-11-01T00:00:00Z&publishedBefore=2026-11-30T00:00:00Z&q=rust%201.92&key=") +
                kKey);
  EXPECT_EQ(
      urls[1],
      std::string("https://www.googleapis.com/youtube/v3/videos?part=statistics,snippet&id=q8WgNs4Jx2k,Zx1-_bR9mQe&key=") + kKey);
}

TEST(YouTube, FewSearchesBecauseEachCostsAHundredUnits) {
  for (auto [depth, want] : {std::pair{model::Depth::quick, 1}, {model::Depth::standard, 2}, {model::Depth::deep, 3}}) {
    FixtureFetcher f;
    f.on_body(kSearch, fixture("youtube/search_list_rust_2026-11.json"));
    f.on_body(kVideos, fixture("youtube/videos_list_rust_2026-11.json"));
    TestEnv t(f, keyed());
    auto q = make_query("rust 1.92", "2026-11-01", "2026-11-29");
    q.depth = depth;
    for (const char* s : {"a", "b", "c", "d"}) q.sub_queries.push_back({s, 0.5});
    yt().search(q, t.env);
    int searches = 0;
    for (const auto& u : f.urls()) searches += u.find("/search?") != std::string::npos ? 1 : 0;
    EXPECT_EQ(searches, want);
  }
}

TEST(YouTube, ApiErrorsAreTheirOwnStates) {
  struct Case {
    long status;
    std::string body;
    SourceState want;
    std::string says;
  };
  const std::vector<Case> cases = {
      {400, fixture("youtube/error_400_api_key_invalid.json"), SourceState::auth_failed, "API key not valid"},
      {403, fixture("youtube/error_403_quota_exceeded.json"), SourceState::rate_limited, "quota"},
      {403, fixture("youtube/error_403_service_disabled.json"), SourceState::auth_failed, "YouTube Data API v3"},
      {400,
       R"({"error":{"code":400,"message":"Invalid value for publishedAfter","errors":[{"reason":"invalidPublishedAfter"}]}})",
       SourceState::error, "publishedAfter"},
  };
  for (const auto& c : cases) {
    FixtureFetcher f;
    const bool stops = c.want != SourceState::error;
    if (stops) f.hold("q=cargo");
    f.on(kSearch, reply(c.status, c.body));
    TestEnv t(f, keyed());
    auto q = make_query("rust", "2026-11-01", "2026-11-29");
    q.sub_queries.push_back({"cargo", 0.5});
    auto r = yt().search(q, t.env);
    EXPECT_EQ(r.state, c.want) << r.reason;
    EXPECT_NE(r.reason.find(c.says), std::string::npos) << r.reason;
    EXPECT_EQ(r.reason.find(kKey), std::string::npos) << r.reason;
    EXPECT_EQ(f.answered(), stops ? 1 : 2) << "a rejected key or spent quota stops the searches";
  }
}

TEST(YouTube, StatisticsFailureKeepsTheVideosAsPartial) {
  FixtureFetcher f;
  f.on_body(kSearch, fixture("youtube/search_list_rust_2026-11.json"));
  f.on(kVideos, reply(403, fixture("youtube/error_403_quota_exceeded.json")));
  TestEnv t(f, keyed());
  auto r = yt().search(make_query("rust 1.92", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(r.state, SourceState::partial);
  EXPECT_NE(r.reason.find("statistics unavailable"), std::string::npos) << r.reason;
  ASSERT_EQ(r.items.size(), 2u);
  EXPECT_EQ(r.items[1].title, "Rust's new borrow checker, explained") << "search.list titles are unescaped";
  EXPECT_EQ(r.items[0].author, "Fireship & Friends");
  EXPECT_TRUE(r.items[0].engagement.empty());
}

TEST(YouTube, HostileAnswersEndInAState) {
  const auto video = [](std::size_t i) {
    return fmt::format(
        R"({{"id":{{"videoId":"v{:010}"}},"snippet":{{"title":"rust video {}","publishedAt":"2026-11-20T10:00:00Z","channelTitle":"c"}}}})",
        i, i);
  };
  HostileTable(yt(), kSearch, Format::json)
      .config(keyed())
      .secret(kKey)
      .also(kVideos, fixture("youtube/videos_list_rust_2026-11.json"))
      .valid(fixture("youtube/search_list_rust_2026-11.json"))
      .huge(R"({"kind":"youtube#searchListResponse","items":[)", video, "]}")
      .row("no items", json_reply(R"({"kind":"youtube#searchListResponse"})"), SourceState::schema_drift)
      .row(
          "items of the wrong type",
          json_reply(
              R"({"items":[1,null,{"id":"notanobject"},{"id":{"videoId":"../../etc"},"snippet":{"title":"x"}},{"id":{"videoId":"abcdefghijk"}}]})"),
          SourceState::no_results)
      .row("a key refused with a body that is not JSON", reply(401, "not even close"), SourceState::auth_failed)
      .run();
}

TEST(YouTube, WithoutKeyOrYtDlpItIsSkippedNamingBoth) {
  TempDir empty;
  const core::Config bare({{"PATH", empty.path()}}, {});
  EXPECT_EQ(yt().unconfigured(bare), "set YOUTUBE_API_KEY or install yt-dlp");
  EXPECT_FALSE(yt().unconfigured(keyed()).has_value());
  FakeYtDlp fake("exit 0\n");
  EXPECT_FALSE(yt().unconfigured(fake.config()).has_value());
}

TEST(YouTube, YtDlpLinesAreParsedAndFilteredLocally) {
  FakeYtDlp fake("cat " + std::string(L30_FIXTURE_DIR) + "/youtube/ytdlp_flat_search_rust.jsonl\n");
  FixtureFetcher f;
  TestEnv t(f, fake.config({{"HOME", "/home/someone"}, {"X_BEARER_TOKEN", "must-not-reach-the-child"}, {"LANG", "C.UTF-8"}}));
  auto q = make_query("rust 1.92", "2026-11-01", "2026-11-29");
  q.limit = 15;
  auto r = yt().search(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  EXPECT_TRUE(f.urls().empty()) << "no HTTP without a key";
  ASSERT_EQ(r.items.size(), 2u) << "the September stream is outside the window";
  const auto* a = find(r, "youtube:q8WgNs4Jx2k");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->title, "Rust 1.92 in 100 Seconds");
  EXPECT_EQ(a->author, "Fireship");
  EXPECT_EQ(a->published_at, at("2026-11-21T14:00:05Z"));
  EXPECT_EQ(a->engagement_value("views"), 1284533);
  const auto* b = find(r, "youtube:Zx1-_bR9mQe");
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->published_at.has_value()) << "no date: kept as undated context";
  EXPECT_EQ(b->hits.at(0).rank, 1);

  EXPECT_EQ(fake.file("argv"),
            "--dump-json\n--flat-playlist\n--extractor-args\nyoutubetab:approximate_date\nytsearch15:rust 1.92\n");
  EXPECT_EQ(fake.file("stdin"), "eof\n") << "stdin is closed";
  const std::string env = fake.file("env");
  EXPECT_EQ(env.find("must-not-reach-the-child"), std::string::npos) << "no credentials in the child's environment";
  EXPECT_NE(env.find("HOME=/home/someone"), std::string::npos);
  EXPECT_NE(env.find("LANG=C.UTF-8"), std::string::npos);
}

TEST(YouTube, HungYtDlpIsKilledWithItsGroupAtTheDeadline) {
  FakeYtDlp fake("head -n 1 " + std::string(L30_FIXTURE_DIR) + "/youtube/ytdlp_flat_search_rust.jsonl\nsleep 1000 &\nwait\n");
  FixtureFetcher f;
  const core::Config cfg = fake.config();
  sources::Env env{cfg, f, core::Deadline::in(core::Millis(1500)), {}};
  const auto t0 = std::chrono::steady_clock::now();
  auto r = yt().search(make_query("rust 1.92", "2026-11-01", "2026-11-29"), env);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_EQ(r.state, SourceState::partial) << r.reason;
  EXPECT_NE(r.reason.find("deadline"), std::string::npos) << r.reason;
  ASSERT_EQ(r.items.size(), 1u) << "the line that arrived before the kill is kept";
  EXPECT_TRUE(testing_support::group_gone_within(fake.pgid())) << "no process of the group survives";
}

TEST(YouTube, CancellationKillsYtDlpAtOnce) {
  FakeYtDlp fake("sleep 1000 &\nwait\n");
  FixtureFetcher f;
  const core::Config cfg = fake.config();
  std::stop_source stop;
  sources::Env env{cfg, f, core::Deadline::in(core::Millis(60000)), stop.get_token()};
  std::thread canceller([&] {
    std::this_thread::sleep_for(400ms);
    stop.request_stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto r = yt().search(make_query("rust", "2026-11-01", "2026-11-29"), env);
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_EQ(r.state, SourceState::timeout);
  EXPECT_NE(r.reason.find("cancelled"), std::string::npos) << r.reason;
  EXPECT_TRUE(testing_support::group_gone_within(fake.pgid()));
}

TEST(YouTube, YtDlpFailuresEndInAState) {
  struct Case {
    std::string body;
    SourceState want;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"echo 'ERROR: [youtube:search] Unable to download API page: <urlopen error [Errno -3] Temporary failure in name "
       "resolution>' >&2\nexit 1\n",
       SourceState::unreachable, "Unable to download"},
      {"echo 'ERROR: [youtube] HTTP Error 429: Too Many Requests' >&2\nexit 1\n", SourceState::rate_limited, "429"},
      {"echo 'yt-dlp: error: no such option: --flat-playlist' >&2\nexit 2\n", SourceState::error, "status 2"},
      {"echo 'WARNING: something'\necho '{not json'\nexit 0\n", SourceState::schema_drift, "JSON"},
      {"exit 0\n", SourceState::no_results, "nothing"},
      {"kill -9 $$\n", SourceState::error, "signal 9"},
  };
  for (const auto& c : cases) {
    FakeYtDlp fake(c.body);
    FixtureFetcher f;
    TestEnv t(f, fake.config());
    auto r = yt().search(make_query("rust", "2026-11-01", "2026-11-29"), t.env);
    EXPECT_EQ(r.state, c.want) << c.body << " -> " << r.reason;
    EXPECT_NE(r.reason.find(c.says), std::string::npos) << r.reason;
  }
}

TEST(YouTube, ReplayNeverRunsYtDlp) {
  struct ReplayFetcher : FixtureFetcher {
    bool replaying() const override { return true; }
  } f;
  FakeYtDlp fake("exit 0\n");
  TestEnv t(f, fake.config());
  auto r = yt().search(make_query("rust", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(r.state, SourceState::skipped_unconfigured);
  EXPECT_NE(r.reason.find("--replay"), std::string::npos);
  EXPECT_EQ(fake.file("argv"), "") << "yt-dlp never started";
}

TEST(YouTube, ProbeWithAKeyCostsOneUnit) {
  FixtureFetcher f;
  f.on_body(kVideos, R"({"kind":"youtube#videoListResponse","items":[{"kind":"youtube#video","id":"abcdefghijk"}]})");
  TestEnv t(f, keyed());
  auto r = yt().probe(t.env, at("2026-11-29T12:00:00Z"));
  EXPECT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(f.urls().size(), 1u);
  EXPECT_EQ(f.urls()[0],
            std::string("https://www.googleapis.com/youtube/v3/videos?part=id&chart=mostPopular&maxResults=1&key=") + kKey);
}
