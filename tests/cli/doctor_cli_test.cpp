// `last30days doctor` end to end: every source probed with one cheap request, a table that
// says what to do, whether each credential is set (never its value), exit 0.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::vector<std::string> kAll = {"hackernews",    "reddit",  "polymarket", "github",  "arxiv", "lobsters",
                                       "stackexchange", "bluesky", "x",          "youtube", "web",   "wikipedia"};

// The line of the table that starts with this source id.
std::string row(const std::string& out, const std::string& id) {
  std::size_t pos = 0;
  while ((pos = out.find("\n" + id + " ", pos)) != std::string::npos) {
    const auto end = out.find('\n', pos + 1);
    std::string line = out.substr(pos + 1, end - pos - 1);
    // and its "fix:" continuation, if any
    if (end != std::string::npos && out.compare(end + 1, 10, std::string(10, ' ')) == 0)
      line += "\n" + out.substr(end + 1, out.find('\n', end + 1) - end - 1);
    return line;
  }
  return {};
}

void fake_ytdlp(const TempDir& home, const std::string& body) {
  std::filesystem::create_directories(home.path() + "/bin");
  const std::string path = home.path() + "/bin/yt-dlp";
  std::ofstream(path) << "#!/bin/sh\nPATH=/usr/bin:/bin\n" << body;
  ::chmod(path.c_str(), 0755);
}

}  // namespace

TEST(DoctorCli, BareMachineSaysWhatWorksAndWhatToDoNext) {
  Scenario s;
  auto r = s.run({"doctor"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& id : kAll) EXPECT_FALSE(row(r.out, id).empty()) << id << " missing:\n" << r.out;
  EXPECT_NE(row(r.out, "hackernews").find("ok"), std::string::npos) << r.out;
  EXPECT_NE(row(r.out, "wikipedia").find("ok"), std::string::npos) << r.out;
  EXPECT_NE(row(r.out, "x").find("set X_BEARER_TOKEN in ~/config/last30days/.env"), std::string::npos) << r.out;
  EXPECT_NE(row(r.out, "bluesky").find("set BSKY_HANDLE and BSKY_APP_PASSWORD in ~/config/last30days/.env (an app password"),
            std::string::npos)
      << r.out;
  EXPECT_NE(row(r.out, "youtube").find("or install yt-dlp"), std::string::npos) << r.out;
  EXPECT_NE(row(r.out, "web").find("BRAVE_API_KEY"), std::string::npos) << r.out;
  EXPECT_NE(row(r.out, "github").find("GitHub unauthenticated: 10 searches/min — set GITHUB_TOKEN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("X_BEARER_TOKEN not set"), std::string::npos);
  EXPECT_NE(r.out.find("yt-dlp: not found on PATH"), std::string::npos);
  EXPECT_NE(r.out.find("8 of 12 sources work"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Not set up: bluesky, x, youtube, web"), std::string::npos) << r.out;
  // One cheap request each (Reddit's keyless path is its feed plus the score archive).
  for (const char* prefix : {"/hn", "/pm", "/gh", "/arxiv", "/lobsters", "/se", "/wm"})
    EXPECT_EQ(s.requests_under(prefix), 1) << prefix;
  EXPECT_LE(s.requests_under("/reddit") + s.requests_under("/arctic"), 2);
  EXPECT_EQ(s.requests_under("/wp"), 0);
}

TEST(DoctorCli, SomeCredentialsABadOneAndNeverAValue) {
  Scenario s;
  fake_ytdlp(s.home(), "echo '{\"id\":\"q8WgNs4Jx2k\",\"title\":\"Open source in 100 seconds\",\"view_count\":5}'\n");
  auto env = s.env();
  env["X_BEARER_TOKEN"] = kGoodXToken;
  env["BRAVE_API_KEY"] = "BSAwrongBraveKeyForTheDoctor";
  env["GITHUB_TOKEN"] = "ghp_doctorTestToken000000000000";
  env["BSKY_HANDLE"] = kGoodBskyHandle;
  env["BSKY_APP_PASSWORD"] = "wrong-doctor-app-password";
  auto r = run_last30days({"doctor"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(row(r.out, "x").find("ok"), std::string::npos) << r.out;
  const auto web = row(r.out, "web");
  EXPECT_NE(web.find("auth-failed"), std::string::npos) << r.out;
  EXPECT_NE(web.find("fix: BRAVE_API_KEY was rejected"), std::string::npos) << r.out;
  EXPECT_NE(row(r.out, "youtube").find("using yt-dlp"), std::string::npos) << r.out;
  const auto bluesky = row(r.out, "bluesky");
  EXPECT_NE(bluesky.find("auth-failed"), std::string::npos) << r.out;
  EXPECT_NE(bluesky.find("fix: BSKY_HANDLE / BSKY_APP_PASSWORD was rejected"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("BSKY_APP_PASSWORD set"), std::string::npos);
  EXPECT_EQ(row(r.out, "github").find("unauthenticated"), std::string::npos) << "a token is set:\n" << r.out;
  EXPECT_NE(r.out.find("X_BEARER_TOKEN set"), std::string::npos);
  EXPECT_NE(r.out.find("BRAVE_API_KEY set"), std::string::npos);
  EXPECT_NE(r.out.find("yt-dlp: " + s.home().path() + "/bin/yt-dlp"), std::string::npos) << r.out;
  for (const char* secret :
       {kGoodXToken, "BSAwrongBraveKeyForTheDoctor", "ghp_doctorTestToken000000000000", "wrong-doctor-app-password"})
    EXPECT_EQ((r.out + r.err).find(secret), std::string::npos) << secret;

  auto js = run_last30days({"doctor", "--emit", "json"}, env);
  ASSERT_EQ(js.exit_code, 0) << js.err;
  auto j = json::parse(js.out);
  EXPECT_EQ(j["kind"], "doctor");
  EXPECT_EQ(j["credentials"]["X_BEARER_TOKEN"], true);
  EXPECT_EQ(j["credentials"]["YOUTUBE_API_KEY"], false);
  EXPECT_EQ(j["credentials"]["BSKY_APP_PASSWORD"], true);
  EXPECT_EQ(j["tools"]["yt-dlp"], s.home().path() + "/bin/yt-dlp");
  ASSERT_EQ(j["sources"].size(), kAll.size());
  for (const auto& src : j["sources"]) {
    EXPECT_TRUE(src.contains("state") && src.contains("latency_ms") && src.contains("fix") && src.contains("reason")) << src;
    if (src["id"] == "web" || src["id"] == "bluesky") {
      EXPECT_EQ(src["state"], "auth-failed") << src;
    }
    if (src["id"] == "bluesky") {
      EXPECT_EQ(src["requests"], 1) << "a refused login searches nothing";
    }
    if (src["id"] == "x") {
      EXPECT_EQ(src["requests"], 1) << "one cheap request";
    }
  }
  for (const char* secret :
       {kGoodXToken, "BSAwrongBraveKeyForTheDoctor", "ghp_doctorTestToken000000000000", "wrong-doctor-app-password"})
    EXPECT_EQ(js.out.find(secret), std::string::npos) << secret;
}

TEST(DoctorCli, RateLimitedSourceGetsItsFixAndStrictExitsThree) {
  Scenario s([](const FakeRequest& r) -> std::optional<FakeReply> {
    if (r.path.rfind("/pm/", 0) == 0)
      return FakeReply::html("<html><body>Please verify you are human (captcha)</body></html>", 403);
    return std::nullopt;
  });
  auto r = s.run({"doctor"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto pm = row(r.out, "polymarket");
  EXPECT_NE(pm.find("rate-limited"), std::string::npos) << r.out;
  EXPECT_NE(pm.find("fix: wait"), std::string::npos) << r.out;
  EXPECT_EQ(s.run({"doctor", "--strict"}).exit_code, 3);
  auto md = s.run({"doctor", "--emit", "md"});
  EXPECT_NE(md.out.find("| polymarket | rate-limited |"), std::string::npos) << md.out;
}

TEST(DoctorCli, OfflineMachineIsToldSo) {
  TempDir home;
  auto r = run_last30days({"doctor"}, offline_env(home));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 of 12 sources work"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Nothing could be reached"), std::string::npos) << r.out;
  EXPECT_NE(row(r.out, "hackernews").find("fix: check the network"), std::string::npos) << r.out;
}

TEST(DoctorCli, BlueskyWithGoodCredentialsLogsInAndSearchesOnce) {
  Scenario s;
  auto env = s.env();
  env["BSKY_HANDLE"] = kGoodBskyHandle;
  env["BSKY_APP_PASSWORD"] = kGoodBskyPassword;
  auto js = run_last30days({"doctor", "--emit", "json"}, env);
  ASSERT_EQ(js.exit_code, 0) << js.err;
  for (const auto& src : json::parse(js.out)["sources"])
    if (src["id"] == "bluesky") {
      EXPECT_TRUE(src["state"] == "ok" || src["state"] == "no-results") << src;  // the fixture's dates are fixed
      EXPECT_EQ(src["requests"], 2) << "the login and one small search";
    }
  EXPECT_EQ(s.requests_under("/bsky"), 1);
  EXPECT_EQ(s.requests_under("/pds"), 1);
  EXPECT_EQ(js.out.find(kGoodBskyPassword), std::string::npos);
}
