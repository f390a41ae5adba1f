// The real binary, end to end, against the fake upstream on 127.0.0.1.
#include <gtest/gtest.h>

#include <thread>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>

#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::vector<std::string> kArgs = {"tokio runtime", "--as-of", "2026-11-29", "--days", "30", "--emit", "json"};

json parse_stdout(const ProcessResult& r) {
  auto j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "stdout must be exactly the JSON document:\n" << r.out << "\nstderr:\n" << r.err;
  return j;
}

std::vector<std::string> urls(const json& report) {
  std::vector<std::string> out;
  for (const auto& it : report["items"]) out.push_back(it["url"]);
  return out;
}

}  // namespace

TEST(ResearchCli, ReachesAllSevenSourcesAndHonoursTheContract) {
  Scenario s;
  auto r = s.run(kArgs);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse_stdout(r);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["kind"], "research");
  EXPECT_EQ(j["window"]["from"], "2026-10-30");
  EXPECT_EQ(j["window"]["to"], "2026-11-29");
  for (const char* id : {"hackernews", "reddit", "polymarket", "github", "arxiv", "lobsters", "stackexchange"}) {
    ASSERT_TRUE(j["source_status"].contains(id)) << id;
    const auto& st = j["source_status"][id];
    EXPECT_TRUE(st["state"] == "ok" || st["state"] == "no-results") << id << ": " << st.dump();
    EXPECT_TRUE(st.contains("elapsed_ms") && st.contains("reason") && st.contains("items"));
  }
  EXPECT_EQ(j["source_status"]["polymarket"]["state"], "no-results");
  for (const char* prefix : {"/hn", "/reddit", "/arctic", "/pm", "/gh", "/arxiv", "/lobsters", "/se"})
    EXPECT_GT(s.requests_under(prefix), 0) << prefix << " was never asked";
  EXPECT_EQ(j["outcome"], "ok");
  for (const auto& it : j["items"]) {
    for (const char* field :
         {"id", "source", "title", "url", "author", "container", "published_at", "engagement", "snippet", "scores", "cluster"})
      EXPECT_TRUE(it.contains(field)) << field;
    const double f = it["scores"]["final"];
    EXPECT_TRUE(f >= 0 && f <= 100);
  }
  std::set<std::string> cluster_items;
  for (const auto& c : j["clusters"])
    for (const auto& id : c["items"]) cluster_items.insert(id);
  EXPECT_EQ(cluster_items.size(), j["items"].size()) << "every item sits in exactly one cluster";
}

TEST(ResearchCli, KeepsOnlyTheWindow) {
  Scenario s;
  auto j = parse_stdout(s.run(kArgs));
  for (const auto& u : urls(j)) EXPECT_NE(u, "https://example.dev/tokio-retro") << "a September story is outside the window";
  for (const auto& it : j["items"]) {
    if (it["published_at"].is_null()) continue;
    const std::string d = it["published_at"];
    EXPECT_GE(d.substr(0, 10), "2026-10-30");
    EXPECT_LE(d.substr(0, 10), "2026-11-29");
  }
  // The same story seen from an earlier as-of is in the window again.
  auto earlier = parse_stdout(s.run({"tokio runtime", "--as-of", "2026-09-15", "--days", "30", "--emit", "json"}));
  auto u = urls(earlier);
  EXPECT_NE(std::find(u.begin(), u.end(), "https://example.dev/tokio-retro"), u.end());
}

TEST(ResearchCli, FoldsCrossPostsIntoOneStory) {
  Scenario s;
  auto j = parse_stdout(s.run(kArgs));
  int copies = 0;
  json folded;
  for (const auto& it : j["items"])
    if (std::string(it["url"]).find("tokio.rs/blog/2026-11-tokio-2-0") != std::string::npos) ++copies, folded = it;
  ASSERT_EQ(copies, 1) << "HN, Reddit and Lobsters posted the same URL";
  std::set<std::string> seen{folded["source"]};
  for (const auto& s2 : folded["also_seen"]) seen.insert(s2["source"]);
  EXPECT_EQ(seen, (std::set<std::string>{"hackernews", "reddit", "lobsters"}));
  const auto& top = j["clusters"][0];
  EXPECT_GE(top["sources"].size(), 3u);
  EXPECT_TRUE(top["uncertainty"].is_null());
}

TEST(ResearchCli, OffTopicViralItemDoesNotReachTheTop) {
  Scenario s;
  auto j = parse_stdout(s.run(kArgs));
  ASSERT_FALSE(j["items"].empty());
  EXPECT_EQ(std::string(j["items"][0]["title"]).find("cat videos"), std::string::npos);
  for (const auto& it : j["items"])
    EXPECT_EQ(it["url"], it["url"] == "https://cats.example.com/" ? "" : it["url"]) << "5400 points, zero relevance: pruned";
}

TEST(ResearchCli, HungSourceTimesOutAtTheDeadlineWithItsTransferAborted) {
  Scenario s([](const FakeRequest& r) -> std::optional<FakeReply> {
    if (r.path.rfind("/se/", 0) == 0) return FakeReply::hang();
    return std::nullopt;
  });
  auto args = kArgs;
  args.insert(args.end(), {"--timeout", "3"});
  const auto t0 = std::chrono::steady_clock::now();
  auto r = s.run(args, 20s);
  ASSERT_FALSE(r.timed_out) << "the process must finish by its deadline";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.elapsed, 4000ms) << "deadline 3 s";
  auto j = parse_stdout(r);
  EXPECT_EQ(j["source_status"]["stackexchange"]["state"], "timeout");
  EXPECT_FALSE(j["source_status"]["stackexchange"]["reason"].is_null());
  EXPECT_EQ(j["source_status"]["hackernews"]["state"], "ok") << "the others are unaffected";
  // The hung exchange was closed by the client at the deadline, not left open until exit.
  // The fake's loop notices a close on its next poll: on a loaded machine give it a moment
  // (the time it noticed is still checked against the deadline below).
  for (int i = 0; i < 200 && s.fake().open_hung() > 0; ++i) std::this_thread::sleep_for(5ms);
  bool saw = false;
  for (const auto& e : s.fake().log()) {
    if (!e.hung) continue;
    saw = true;
    EXPECT_TRUE(e.closed_by_client);
    const auto at = std::chrono::duration_cast<std::chrono::milliseconds>(e.ended - t0);
    EXPECT_LT(at, 3800ms);
  }
  EXPECT_TRUE(saw);
}

TEST(ResearchCli, RateLimitedSourceSaysSoAndStrictExitsThree) {
  Scenario s([](const FakeRequest& r) -> std::optional<FakeReply> {
    if (r.path.rfind("/gh/", 0) != 0) return std::nullopt;
    FakeReply limited = FakeReply::json(
        R"({"message":"API rate limit exceeded for 203.0.113.7.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"})",
        429);
    limited.headers = {{"Retry-After", "3600"}, {"X-RateLimit-Remaining", "0"}};
    return limited;
  });
  auto r = s.run(kArgs);
  EXPECT_EQ(r.exit_code, 0);
  auto j = parse_stdout(r);
  EXPECT_EQ(j["source_status"]["github"]["state"], "rate-limited");
  EXPECT_FALSE(j["source_status"]["github"]["reason"].is_null());
  auto strict = kArgs;
  strict.push_back("--strict");
  EXPECT_EQ(s.run(strict).exit_code, 3);
}

TEST(ResearchCli, ReplayReproducesTheRecordedJsonWithoutNetwork) {
  TempDir cassette;
  std::string recorded;
  {
    Scenario s;
    auto args = kArgs;
    args.insert(args.end(), {"--record", cassette.path()});
    auto r = s.run(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    recorded = r.out;
  }
  // The fake is gone: only the cassette can answer. The host map still points every host
  // at a dead port, so a replay that fell through to the network fails here instead of
  // reaching the real services.
  TempDir home;
  auto env = offline_env(home);
  auto args = kArgs;
  args.insert(args.end(), {"--replay", cassette.path()});
  auto r = run_last30days(args, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto strip = [](json j) {
    for (auto& [id, st] : j["source_status"].items()) st.erase("elapsed_ms");
    return j;
  };
  EXPECT_EQ(strip(json::parse(r.out)), strip(json::parse(recorded)));
}

TEST(ResearchCli, OfflineEveryoneUnreachableAndTheBriefSaysSo) {
  TempDir home;
  auto r = run_last30days({"tokio runtime"}, offline_env(home));
  EXPECT_EQ(r.exit_code, 4) << "no source answered: the exit code says so " << r.err;
  EXPECT_FALSE(r.out.empty());
  EXPECT_NE(r.out.find("unreachable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no source answered"), std::string::npos) << r.out;
  auto j = parse_stdout(run_last30days({"tokio runtime", "--emit", "json"}, offline_env(home)));
  for (const auto& [id, st] : j["source_status"].items()) {
    const bool credentialed = id == "bluesky" || id == "x" || id == "youtube" || id == "web";
    EXPECT_EQ(st["state"], credentialed ? "skipped-unconfigured" : "unreachable") << id;
  }
  EXPECT_EQ(j["outcome"], "nothing-solid");
}

TEST(ResearchCli, CompactAndMarkdownBriefsCiteTheirItems) {
  Scenario s;
  auto compact = s.run({"tokio runtime", "--as-of", "2026-11-29"});
  ASSERT_EQ(compact.exit_code, 0);
  EXPECT_NE(compact.out.find("hackernews"), std::string::npos);
  EXPECT_NE(compact.out.find("https://tokio.rs/blog/2026-11-tokio-2-0"), std::string::npos);
  EXPECT_NE(compact.out.find("Tokio 2.0"), std::string::npos);
  auto md = s.run({"tokio runtime", "--as-of", "2026-11-29", "--emit", "md"});
  EXPECT_NE(md.out.find("](https://tokio.rs/blog/2026-11-tokio-2-0)"), std::string::npos);
  auto html = s.run({"tokio runtime", "--as-of", "2026-11-29", "--emit", "html"});
  EXPECT_EQ(html.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.out.find("<script"), std::string::npos);
}

TEST(ResearchCli, SavesOnlyWhenAskedAndNeverItsSecrets) {
  Scenario s;
  TempDir out;
  auto env = s.env();
  env["GITHUB_TOKEN"] = "ghp_supersecrettoken123";
  auto args = kArgs;
  args.insert(args.end(), {"--save-dir", out.path()});
  auto r = run_last30days(args, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto files = out.files();
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"tokio-runtime-raw.json", "tokio-runtime-raw.md"}));
  std::string all = r.out + r.err;
  for (const auto& f : files) all += read_file(out.path() + "/" + f);
  EXPECT_EQ(all.find("ghp_supersecrettoken123"), std::string::npos);
}

// Topics that differ only in what a file name's words leave out must not share a file
// (issue 22 item 19): "tokio/runtime" and "tokio  runtime!" are not "tokio runtime".
TEST(ResearchCli, SavedBriefsOfDifferentTopicsNeverShareAFile) {
  Scenario s;
  TempDir out;
  const std::string long_a = std::string(70, 'x') + " alpha", long_b = std::string(70, 'x') + " beta";
  for (const std::string& topic :
       std::vector<std::string>{"tokio runtime", "Tokio Runtime", "tokio/runtime", "tokio-runtime", long_a, long_b}) {
    auto r = s.run({topic, "--as-of", "2026-11-29", "--emit", "json", "--search", "hn", "--save-dir", out.path()});
    ASSERT_EQ(r.exit_code, 0) << topic << ": " << r.err;
  }
  auto files = out.files();
  std::sort(files.begin(), files.end());
  // "Tokio Runtime" is "tokio runtime" up to case: one brief. The others are five topics.
  ASSERT_EQ(files.size(), 10u) << ::testing::PrintToString(files);
  EXPECT_NE(std::find(files.begin(), files.end(), "tokio-runtime-raw.md"), files.end()) << "the plain name is kept";
  for (const auto& f : files) EXPECT_LE(f.size(), 60u + 1 + 10 + 7) << f;
}

TEST(ResearchCli, UsageErrorsExitTwoWithAMessage) {
  TempDir home;
  auto env = offline_env(home);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{}, "TOPIC"},
      {{"x", "--search", "myspace"}, "myspace"},
      {{"x", "--as-of", "2026-13-01"}, "--as-of"},
      {{"x", "--as-of", "2999-01-01"}, "future"},
      {{"x", "--days", "0"}, "--days"},
      {{"x", "--quick", "--deep"}, "mutually exclusive"},
      {{"x", "--emit", "pdf"}, "--emit"},
      {{"x", "--nominate-only"}, "requires --discover"},
      {{"x", "--enrich-budget", "10"}, "requires --discover"},
      {{"--discover", "--angles", "a.json"}, "requires --finalize"},
      {{"--discover", "--as-of", "2026-11-01"}, "--as-of"},
      {{"--discover", "--emit", "html"}, "html"},
      {{"--discover=ai", "rust"}, "no topic"},
      {{"x", "--plan", "{\"sub_queries\":[]}"}, "sub_queries"},
      {{"x", "--plan", "/nonexistent/plan.json"}, "cannot read"},
      {{"x", "--timeout", "-1"}, "--timeout"},
      {{"x", "--bogus-flag"}, "bogus"},
  };
  for (const auto& c : cases) {
    auto r = run_last30days(c.args, env);
    EXPECT_EQ(r.exit_code, 2) << c.args.size() << " " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << "stderr should mention '" << c.says << "': " << r.err;
    EXPECT_TRUE(r.out.empty()) << "usage errors print nothing on stdout";
  }
}

TEST(ResearchCli, HostPlanDrivesTheSubQueries) {
  Scenario s;
  auto args = kArgs;
  args.insert(
      args.end(),
      {"--plan",
       R"({"intent":"howto","sub_queries":["tokio runtime","spawn_blocking starvation"],"source_weights":{"stackexchange":2}})",
       "--search", "hn"});
  auto j = parse_stdout(s.run(args));
  EXPECT_EQ(j["plan"]["from_host"], true);
  EXPECT_EQ(j["plan"]["sub_queries"].size(), 2u);
  int searches = 0;
  for (const auto& e : s.fake().log()) searches += e.request.path == "/hn/api/v1/search" ? 1 : 0;
  EXPECT_EQ(searches, 2) << "one search per sub-query";
  EXPECT_EQ(j["source_status"].size(), 1u) << "--search hn limits the run to Hacker News";
}

TEST(ResearchCli, OutputFileGetsTheBriefAndStdoutStaysEmpty) {
  Scenario s;
  TempDir out;
  auto args = kArgs;
  args.insert(args.end(), {"--output", out.path() + "/brief.json"});
  auto r = s.run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  std::ifstream f(out.path() + "/brief.json");
  auto j = json::parse(f);
  EXPECT_EQ(j["kind"], "research");
  auto bad = s.run({"tokio runtime", "--output", out.path() + "/missing-dir/brief.txt"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--output"), std::string::npos);
}
