// Discovery through the CLI: the one-shot brief, domain runs, nothing-solid, and the
// three legs of the host-judged protocol.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/text.hpp"
#include "core/time.hpp"
#include "scenario.hpp"
#include "shell_paste.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// Fast settings: no arXiv (its 3 s spacing is real) and a short budget.
const std::vector<std::string> kFast = {"--search", "hn,reddit,lobsters,github,polymarket", "--enrich-budget", "15"};
// For tests about what is printed, not about enrichment.
const std::vector<std::string> kNoWait = {"--search", "hn,reddit,lobsters,github,polymarket", "--enrich-budget", "2"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

json read_json(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}

}  // namespace

TEST(DiscoverCli, OneShotRanksCorroboratedTopicsAndFollowsTheContract) {
  Scenario s(nullptr, World::discovery);
  auto r = s.run(with({"--discover", "--emit", "json"}, kFast), 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["kind"], "discovery");
  EXPECT_EQ(j["domain"], "");
  EXPECT_EQ(j["enrichment"]["tier"], "one-shot");
  EXPECT_EQ(j["enrichment"]["depth"], "quick");
  EXPECT_EQ(j["enrichment"]["max_workers"], 3);
  EXPECT_EQ(j["enrichment"]["budget_seconds"], 15);
  EXPECT_EQ(j["outcome"], "ok");
  ASSERT_GE(j["results"].size(), 5u);
  EXPECT_LE(j["results"].size(), 10u);
  std::set<std::string> names;
  int rank = 0;
  for (const auto& t : j["results"]) {
    EXPECT_EQ(t["rank"], ++rank);
    for (const char* f :
         {"name", "velocity_score", "momentum", "sources", "engagement_by_source", "evidence_urls", "command", "enrichment"})
      EXPECT_TRUE(t.contains(f)) << f;
    EXPECT_EQ(t["command"], "last30days '" + t["name"].get<std::string>() + "'");  // single-quoted: shell-safe
    EXPECT_TRUE(names.insert(t["name"]).second);
    const auto momentum = t["momentum"].get<std::string>();
    EXPECT_TRUE(momentum == "new-this-week" || momentum == "building");
  }
  // The fastest story is the one three platforms carried.
  EXPECT_NE(j["results"][0]["name"].get<std::string>().find("GPT-6"), std::string::npos);
  EXPECT_EQ(j["results"][0]["enrichment"]["status"], "enriched");
  // One-like posts are not trends: 100 upvotes on one site, and a junk "Today", stay out.
  for (const auto& t : j["results"]) {
    EXPECT_EQ(core::casefold(t["name"].get<std::string>()).find("cat"), std::string::npos) << t["name"];
    EXPECT_NE(t["name"], "Today");
  }
  auto compact = s.run(with({"--discover"}, kFast), 60s);
  EXPECT_NE(compact.out.find("why:"), std::string::npos);
  EXPECT_NE(compact.out.find("next: last30days '"), std::string::npos);
}

TEST(DiscoverCli, DomainRunKeepsOnlyDomainItems) {
  Scenario s(nullptr, World::discovery);
  auto r = s.run(with({"--discover=ai", "--emit", "json"}, kFast), 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["domain"], "ai");
  ASSERT_FALSE(j["results"].empty());
  for (const auto& t : j["results"]) {
    const auto n = core::casefold(t["name"].get<std::string>());
    EXPECT_TRUE(n.find("gpt") != std::string::npos || n.find("ai") != std::string::npos) << n;
  }
}

namespace {
std::vector<std::string> names_of(const json& j) {
  std::vector<std::string> out;
  for (const auto& t : j["results"]) out.push_back(core::casefold(t["name"].get<std::string>()));
  return out;
}
bool any_contains(const std::vector<std::string>& v, const std::string& needle) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(needle) != std::string::npos; });
}
bool has_warning(const json& j, const std::string& text) {
  for (const auto& w : j["warnings"])
    if (w.get<std::string>() == text) return true;
  return false;
}
}  // namespace

// "tech" and "news" are generic words; the domains still select their stories.
TEST(DiscoverCli, GenericDomainsTechAndNewsSelectTheirStories) {
  Scenario s(nullptr, World::discovery);
  auto tech = s.run(with({"--discover=tech", "--emit", "json"}, kNoWait), 60s);
  ASSERT_EQ(tech.exit_code, 0) << tech.err;
  auto j = json::parse(tech.out);
  EXPECT_EQ(j["domain"], "tech");
  EXPECT_EQ(j["outcome"], "ok") << tech.out;
  auto names = names_of(j);
  ASSERT_GE(names.size(), 3u) << tech.out;
  EXPECT_TRUE(any_contains(names, "gpt-6")) << tech.out;
  EXPECT_TRUE(any_contains(names, "tokio")) << tech.out;
  EXPECT_FALSE(any_contains(names, "cat")) << tech.out;
  EXPECT_FALSE(any_contains(names, "fed decision")) << tech.out;
  EXPECT_EQ(j["source_status"]["hackernews"]["state"], "ok");
  // Reddit reads the domain's subreddits (one multireddit), not r/all.
  EXPECT_GE(s.requests_starting("/reddit/r/technology+"), 1);

  auto news = s.run(with({"--discover=news", "--emit", "json"}, kNoWait), 60s);
  ASSERT_EQ(news.exit_code, 0) << news.err;
  j = json::parse(news.out);
  EXPECT_EQ(j["outcome"], "ok") << news.out;
  names = names_of(j);
  EXPECT_TRUE(any_contains(names, "gpt-6")) << news.out;
  EXPECT_TRUE(any_contains(names, "quantum teleportation")) << news.out;
  EXPECT_FALSE(any_contains(names, "cat")) << news.out;
  // GitHub's rising repositories are not news: it answered, kept nothing, and says so with counts.
  EXPECT_EQ(j["source_status"]["github"]["state"], "no-results");
  EXPECT_EQ(j["source_status"]["github"]["reason"], "2 items, none about 'news'");
  EXPECT_TRUE(has_warning(j, "github listing: 2 items, none about 'news'")) << j["warnings"];
}

// A domain nothing matches: every listing answered, none kept anything, and each says how many it read.
TEST(DiscoverCli, ADomainThatMatchesNothingReportsTheCounts) {
  Scenario s(nullptr, World::discovery);
  auto r = s.run({"--discover=knitting", "--search", "hn,github,polymarket", "--enrich-budget", "2", "--emit", "json"}, 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["outcome"], "nothing-solid");
  EXPECT_TRUE(j["results"].empty());
  const std::map<std::string, int> answered = {{"hackernews", 8}, {"github", 2}, {"polymarket", 2}};
  for (const auto& [id, n] : answered) {
    const std::string reason = std::to_string(n) + " items, none about 'knitting'";
    EXPECT_EQ(j["source_status"][id]["state"], "no-results") << id;
    EXPECT_EQ(j["source_status"][id]["reason"], reason) << id;
    EXPECT_TRUE(has_warning(j, id + " listing: " + reason)) << j["warnings"];
  }
  auto compact = s.run({"--discover=knitting", "--search", "hn", "--enrich-budget", "2"}, 60s);
  EXPECT_NE(compact.out.find("hackernews listing: 8 items, none about 'knitting'"), std::string::npos) << compact.out;
}

// A domain of generic words only, outside the table: a global run that says so.
TEST(DiscoverCli, AGenericUnknownDomainIsAGlobalRunWithAWarning) {
  Scenario s(nullptr, World::discovery);
  auto r = s.run(with({"--discover=latest", "--emit", "json"}, kNoWait), 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["outcome"], "ok");
  EXPECT_TRUE(any_contains(names_of(j), "gpt-6"));
  EXPECT_TRUE(has_warning(j, "domain 'latest' has no distinctive words (try tech, news, ai, science...): this is a global run"))
      << j["warnings"];
  EXPECT_GE(s.requests_starting("/reddit/r/all/"), 1);
}

TEST(DiscoverCli, NothingSolidNamesTheClosestWeakSignal) {
  // Reddit's front page holds only a cat and a "Today": one-source, weak, junk.
  Scenario s(
      [](const FakeRequest& r) -> std::optional<FakeReply> {
        if (r.path != "/reddit/r/all/top.rss" && r.path != "/reddit/r/all/rising.rss") return std::nullopt;
        std::string feed = fill_time_templates(fixture("discover/reddit_all_top.rss.xml"));
        for (const char* drop : {"1r0gpt6", "1r0qtel", "1r0octo"}) {
          const auto id = feed.find(std::string("t3_") + drop);
          const auto start = feed.rfind("<entry>", id);
          feed.erase(start, feed.find("</entry>", id) + 8 - start);
        }
        return FakeReply::xml(r.path == "/reddit/r/all/top.rss" ? feed : "<feed xmlns=\"http://www.w3.org/2005/Atom\"></feed>");
      },
      World::discovery);
  auto r = s.run({"--discover", "--search", "reddit", "--enrich-budget", "10", "--emit", "json"}, 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["outcome"], "nothing-solid");
  EXPECT_TRUE(j["results"].empty());
  ASSERT_TRUE(j["weak_signal"].is_object());
  EXPECT_FALSE(j["weak_signal"]["reason"].get<std::string>().empty());
}

TEST(DiscoverCli, HostJudgedProtocolAllThreeLegs) {
  Scenario s(nullptr, World::discovery);
  TempDir dir;
  // Leg 1: nominations.
  auto nom = s.run(with({"--discover", "--nominate-only", "--save-dir", dir.path(), "--emit", "json"}, kFast), 60s);
  ASSERT_EQ(nom.exit_code, 0) << nom.err;
  const auto bundle = read_json(dir.path() + "/discover-nominations.json");
  EXPECT_EQ(json::parse(nom.out)["bundle_id"], bundle["bundle_id"]);
  EXPECT_EQ(bundle["tier"], "deep");
  EXPECT_TRUE(bundle["window"].contains("from"));
  EXPECT_TRUE(bundle["source_status"].contains("hackernews"));
  ASSERT_GE(bundle["nominations"].size(), 6u);
  EXPECT_LE(bundle["nominations"].size(), 15u);
  EXPECT_EQ(bundle["nominations"][0]["id"], "n1");
  EXPECT_FALSE(bundle["nominations"][0]["seed_items"].empty());
  const std::string id = bundle["bundle_id"];
  const int before_judging = static_cast<int>(s.fake().log().size());

  // Leg 2: judgments.
  const std::string judged = dir.path() + "/judgments.json";
  json jd = {{"bundle_id", id},
             {"judgments",
              {{{"id", "n2"}, {"name", "Quantum teleportation over city fiber"}, {"junk", false}, {"worthiness", 100}},
               {{"id", "n1"}, {"worthiness", 0}}}}};
  write_file(judged, jd.dump());
  auto res = s.run(with({"--discover", "--judgments", judged, "--save-dir", dir.path(), "--emit", "json"}, kFast), 60s);
  ASSERT_EQ(res.exit_code, 0) << res.err;
  auto j = json::parse(res.out);
  EXPECT_EQ(j["enrichment"]["tier"], "deep");
  EXPECT_EQ(j["enrichment"]["depth"], "default");
  EXPECT_EQ(j["enrichment"]["max_workers"], 4);
  json renamed;
  for (const auto& t : j["results"])
    if (t["id"] == "n2") renamed = t;
  ASSERT_FALSE(renamed.is_null()) << res.out;
  EXPECT_EQ(renamed["name"], "Quantum teleportation over city fiber");
  EXPECT_EQ(renamed["worthiness"], 100);
  // Ranked by velocity × (0.5 + worthiness/100); unjudged topics count as 50.
  double previous = 1e300;
  for (const auto& t : j["results"]) {
    const double w = t["worthiness"].is_null() ? 50.0 : t["worthiness"].get<double>();
    const double blended = t["velocity_score"].get<double>() * (0.5 + w / 100.0);
    EXPECT_LE(blended, previous * 1.001) << t["name"];
    previous = blended;
  }
  EXPECT_GT(static_cast<int>(s.fake().log().size()), before_judging) << "the judgments leg enriches";
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/discover-pending.json"));

  // Leg 3: finalize, offline.
  const std::string angles = dir.path() + "/angles.json";
  write_file(
      angles,
      json{{"bundle_id", id},
           {"angles",
            {{{"id", "n2"}, {"podcast", "Why 100 km matters for a quantum internet"}, {"x_article", std::string(500, 'x')}}}}}
          .dump());
  const auto before_final = s.fake().log().size();
  auto fin = s.run({"--discover", "--finalize", "--angles", angles, "--save-dir", dir.path(), "--emit", "json"}, 30s);
  ASSERT_EQ(fin.exit_code, 0) << fin.err;
  EXPECT_EQ(s.fake().log().size(), before_final) << "finalize is offline";
  auto f = json::parse(fin.out);
  json with_angles;
  for (const auto& t : f["results"])
    if (t["id"] == "n2") with_angles = t;
  ASSERT_FALSE(with_angles.is_null());
  EXPECT_EQ(with_angles["angles"]["podcast"], "Why 100 km matters for a quantum internet");
  EXPECT_LE(with_angles["angles"]["x_article"].get<std::string>().size(), 200u);

  // A judgments file for another bundle is a contract error.
  jd["bundle_id"] = "b-000000000000";
  write_file(judged, jd.dump());
  auto bad = s.run(with({"--discover", "--judgments", judged, "--save-dir", dir.path()}, kFast), 30s);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("b-000000000000"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("--nominate-only"), std::string::npos) << "and says how to fix it";
  EXPECT_TRUE(bad.out.empty());
}

TEST(DiscoverCli, ProtocolRejectsBadJudgmentsStaleAndMixedBundles) {
  Scenario s(nullptr, World::discovery);
  TempDir dir;
  ASSERT_EQ(s.run(with({"--discover", "--nominate-only", "--save-dir", dir.path()}, kFast), 60s).exit_code, 0);
  auto bundle = read_json(dir.path() + "/discover-nominations.json");
  const std::string id = bundle["bundle_id"];
  const std::string judged = dir.path() + "/j.json";

  write_file(judged, json{{"bundle_id", id}, {"judgments", {{{"id", "n1"}, {"junk", "maybe"}}}}}.dump());
  auto junk = s.run({"--discover", "--judgments", judged, "--save-dir", dir.path()}, 30s);
  EXPECT_EQ(junk.exit_code, 2);
  EXPECT_NE(junk.err.find("junk"), std::string::npos);

  write_file(judged, json{{"bundle_id", id}, {"judgments", json::array()}}.dump());
  TempDir cassette;
  write_file(cassette.path() + "/run.json", json{{"now", core::now_unix()}}.dump());
  auto mixed = s.run({"--discover", "--judgments", judged, "--save-dir", dir.path(), "--replay", cassette.path()}, 30s);
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("live"), std::string::npos) << mixed.err;

  bundle["created_unix"] = bundle["created_unix"].get<long>() - 4000;
  std::ofstream(dir.path() + "/discover-nominations.json") << bundle.dump();
  auto stale = s.run({"--discover", "--judgments", judged, "--save-dir", dir.path()}, 30s);
  EXPECT_EQ(stale.exit_code, 2);
  EXPECT_NE(stale.err.find("expired"), std::string::npos) << stale.err;

  auto missing = s.run({"--discover", "--finalize", "--angles", judged, "--save-dir", dir.path() + "/nowhere"}, 30s);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--judgments"), std::string::npos) << missing.err;
}

TEST(DiscoverCli, SaveWritesTheDiscoveryBriefAndABrokenStoreIsRefusedUpFront) {
  Scenario s(nullptr, World::discovery);
  TempDir dir;
  auto r = s.run(with({"--discover=ai", "--save-dir", dir.path()}, kFast), 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto files = dir.files();
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"discover-ai-raw.json", "discover-ai-raw.md"}));
  EXPECT_EQ(read_json(dir.path() + "/discover-ai-raw.json")["kind"], "discovery");

  const auto before = s.fake().log().size();
  const std::string junk = dir.path() + "/junk.db";
  std::ofstream(junk) << std::string(4096, 'x');
  auto env = s.env();
  env["LAST30DAYS_STORE_PATH"] = junk;
  auto store = run_last30days({"--discover", "--store"}, env, 30s);
  EXPECT_EQ(store.exit_code, 1) << store.err;
  EXPECT_NE(store.err.find("research store"), std::string::npos) << store.err;
  EXPECT_EQ(s.fake().log().size(), before) << "refused before any request";
}

// Issue 7 item 2: every command we print is pasted into sh in an empty directory against a
// stub last30days: it must create nothing and pass the (judged) name as one argument.
TEST(DiscoverCli, FollowUpCommandsWithHostileJudgedNamesRunNoShellCode) {
  Scenario s(nullptr, World::discovery);
  TempDir dir;
  ASSERT_EQ(s.run(with({"--discover", "--nominate-only", "--save-dir", dir.path()}, kNoWait), 60s).exit_code, 0);
  const auto bundle = read_json(dir.path() + "/discover-nominations.json");
  const std::vector<std::string> names = {"$(touch pwned)",   "`touch pwned`", "it's \"quoted\"",   "x'; touch pwned; echo '",
                                          "a && touch pwned", "* ? [a-z] ~",   "line\ntouch pwned", "$HOME; rm -rf pwned"};
  json judgments = json::array();
  std::map<std::string, std::string> judged;  // id -> the name as the brief shows it
  for (std::size_t i = 0; i < bundle["nominations"].size(); ++i) {
    const std::string id = bundle["nominations"][i]["id"];
    const std::string name = names[i % names.size()] + " " + std::to_string(i);
    judgments.push_back({{"id", id}, {"name", name}, {"worthiness", 80}});
    judged[id] = core::printable_line(name);
  }
  const std::string file = dir.path() + "/judged.json";
  write_file(file, json{{"bundle_id", bundle["bundle_id"]}, {"judgments", judgments}}.dump());
  auto res = s.run(with({"--discover", "--judgments", file, "--save-dir", dir.path(), "--emit", "json"}, kNoWait), 60s);
  ASSERT_EQ(res.exit_code, 0) << res.err;
  const auto j = json::parse(res.out);
  ASSERT_FALSE(j["results"].empty());

  std::vector<std::pair<std::string, std::string>> commands;  // command, expected argument
  for (const auto& t : j["results"]) commands.emplace_back(t["command"], judged.at(t["id"]));
  // The finalize leg re-renders the same results offline: the compact and md `next:` lines.
  const std::string angles = dir.path() + "/angles.json";
  write_file(angles, json{{"bundle_id", bundle["bundle_id"]}, {"angles", json::array()}}.dump());
  for (const char* emit : {"compact", "md"}) {
    auto fin = s.run({"--discover", "--finalize", "--angles", angles, "--save-dir", dir.path(), "--emit", emit}, 30s);
    ASSERT_EQ(fin.exit_code, 0) << fin.err;
    std::size_t k = 0;
    std::istringstream in(fin.out);
    for (std::string line; std::getline(in, line);) {
      const std::string prefix = std::string(emit) == "md" ? "- next: " : "    next: ";
      if (line.rfind(prefix, 0) != 0) continue;
      std::string cmd = line.substr(prefix.size());
      if (std::string(emit) == "md") {  // a code span: strip its fence and padding
        const auto fence = cmd.find_first_not_of('`');
        cmd = cmd.substr(fence, cmd.size() - 2 * fence);
        if (cmd.size() >= 2 && cmd.front() == ' ' && cmd.back() == ' ') cmd = cmd.substr(1, cmd.size() - 2);
      }
      ASSERT_LT(k, j["results"].size()) << fin.out;
      commands.emplace_back(cmd, judged.at(j["results"][k++]["id"]));
    }
    EXPECT_EQ(k, j["results"].size()) << emit << ":\n" << fin.out;
  }
  for (const auto& [cmd, want] : commands) {
    SCOPED_TRACE(cmd);
    const auto pasted = paste_into_shell(cmd);
    EXPECT_EQ(pasted.exit_code, 0) << pasted.err;
    EXPECT_TRUE(pasted.created.empty()) << "created " << pasted.created.front();
    ASSERT_EQ(pasted.args.size(), 1u);
    EXPECT_EQ(pasted.args[0], want);
  }
}

TEST(DiscoverCli, HostAnglesArePrintedEscaped) {
  Scenario s(nullptr, World::discovery);
  TempDir dir;
  ASSERT_EQ(s.run(with({"--discover", "--nominate-only", "--save-dir", dir.path()}, kNoWait), 60s).exit_code, 0);
  const auto bundle = read_json(dir.path() + "/discover-nominations.json");
  const std::string judged = dir.path() + "/j.json";
  write_file(judged, json{{"bundle_id", bundle["bundle_id"]}, {"judgments", json::array()}}.dump());
  auto res = s.run(with({"--discover", "--judgments", judged, "--save-dir", dir.path(), "--emit", "json"}, kNoWait), 60s);
  ASSERT_EQ(res.exit_code, 0) << res.err;
  const auto j = json::parse(res.out);
  ASSERT_FALSE(j["results"].empty());
  const std::string angles = dir.path() + "/angles.json";
  write_file(angles, json{{"bundle_id", bundle["bundle_id"]},
                          {"angles",
                           {{{"id", j["results"][0]["id"]},
                             {"podcast", "<script>alert(1)</script> [click](javascript:alert(2))"},
                             {"x_article", "one\n## forged heading\x1b[2J"}}}}}
                         .dump());
  auto md = s.run({"--discover", "--finalize", "--angles", angles, "--save-dir", dir.path(), "--emit", "md"}, 30s);
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.find("<script>"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("\\<script\\>"), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find("[click](javascript"), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find("\n## forged"), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find('\x1b'), std::string::npos);
  auto compact = s.run({"--discover", "--finalize", "--angles", angles, "--save-dir", dir.path()}, 30s);
  ASSERT_EQ(compact.exit_code, 0) << compact.err;
  EXPECT_EQ(compact.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(compact.out.find("\n## forged"), std::string::npos) << compact.out;
}
