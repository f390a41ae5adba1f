// "A vs B [vs C ...]": the real binary end to end against the fake upstream.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <regex>

#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::string kBench = "https://bench.example.dev/rust-async-runtimes-2026";

// Hacker News answers per entity (both know the benchmark story); every other source
// answers from the research fixtures, which are about tokio.
std::optional<FakeReply> hn_per_entity(const FakeRequest& r) {
  if (r.path.rfind("/hn/api/v1/search", 0) != 0) return std::nullopt;
  const std::string q = r.param("query");
  if (q.find("async-std") != std::string::npos) return FakeReply::json(fixture("compare/hn_search_async_std.json"));
  return FakeReply::json(fixture("compare/hn_search_tokio.json"));
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Reddit and arXiv are left out where pacing is not the point: they space requests 1 s and 3 s apart.
const std::vector<std::string> kCompare = {
    "tokio vs async-std", "--as-of", "2026-11-29", "--days", "30", "--search", "hn,github,lobsters,stackexchange,polymarket"};

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(CompareCli, MalformedComparisonsExitTwoBeforeAnyRequest) {
  Scenario s;
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"tokio vs "}, "empty last side"},    {{" versus tokio"}, "empty first side"},
      {{"a vs  vs b"}, "empty middle side"}, {{"a vs b vs c vs d vs e vs f vs g"}, "7 things"},
      {{"Rust vs rust"}, "with itself"},     {{"tokio vs async-std", "--plan", R"({"sub_queries":["tokio"]})"}, "--plan"},
  };
  for (const auto& c : cases) {
    auto r = s.run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << "stderr should say '" << c.says << "': " << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  EXPECT_EQ(s.fake().connections(), 0) << "a malformed comparison is refused before any request";
  // Six entities is the most a comparison takes; "VS Code" is not a separator.
  auto six = s.run({"a vs b vs c vs d vs e vs f", "--search", "hn", "--as-of", "2026-11-29", "--emit", "json"});
  ASSERT_EQ(six.exit_code, 0) << six.err;
  EXPECT_EQ(json::parse(six.out)["entities"].size(), 6u);
  auto vscode = json::parse(s.run({"VS Code vs Vim", "--search", "hn", "--as-of", "2026-11-29", "--emit", "json"}).out);
  ASSERT_EQ(vscode["entities"].size(), 2u);
  EXPECT_EQ(vscode["entities"][0]["name"], "VS Code");
  EXPECT_EQ(vscode["entities"][1]["name"], "Vim");
}

TEST(CompareCli, NoCompareResearchesTheTitleAsOnePhrase) {
  Scenario s;
  auto r = s.run({"Kramer vs. Kramer", "--no-compare", "--search", "hn", "--as-of", "2026-11-29", "--emit", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["kind"], "research");
  EXPECT_EQ(j["topic"], "Kramer vs. Kramer");
  bool asked_whole = false;
  for (const auto& e : s.fake().log()) asked_whole = asked_whole || e.request.param("query") == "Kramer vs. Kramer";
  EXPECT_TRUE(asked_whole) << "the whole title is the query";
}

TEST(CompareCli, JsonHasEachEntitysReportAndTheSharedStoryOnce) {
  Scenario s(hn_per_entity);
  auto r = s.run(with(kCompare, {"--emit", "json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["kind"], "comparison");
  EXPECT_EQ(j["topic"], "tokio vs async-std");
  EXPECT_EQ(j["depth"], "default");
  EXPECT_EQ(j["window"]["from"], "2026-10-30");
  EXPECT_EQ(j["window"]["to"], "2026-11-29");
  EXPECT_TRUE(j.contains("generated_at") && j["warnings"].is_array());
  EXPECT_EQ(j["outcome"], "ok");
  ASSERT_EQ(j["entities"].size(), 2u);
  EXPECT_EQ(j["entities"][0]["name"], "tokio");
  EXPECT_EQ(j["entities"][1]["name"], "async-std");
  std::map<std::string, std::vector<std::string>> urls;
  for (const auto& e : j["entities"]) {
    const auto& rep = e["report"];
    EXPECT_EQ(rep["kind"], "research");
    EXPECT_EQ(rep["topic"], e["name"]);
    EXPECT_TRUE(rep.contains("source_status") && rep.contains("items") && rep.contains("clusters"));
    for (const auto& it : rep["items"]) urls[e["name"]].push_back(it["url"]);
    EXPECT_GT(e["summary"]["engagement"].get<double>(), 0);
  }
  auto has = [&](const std::string& who, const std::string& url) {
    return std::find(urls[who].begin(), urls[who].end(), url) != urls[who].end();
  };
  EXPECT_TRUE(has("tokio", "https://tokio.rs/blog/2026-11-tokio-2-0"));
  EXPECT_TRUE(has("async-std", "https://async.rs/blog/async-std-discontinued"));
  EXPECT_FALSE(has("async-std", "https://tokio.rs/blog/2026-11-tokio-2-0")) << "each entity is researched on its own";
  ASSERT_EQ(j["shared_stories"].size(), 1u) << j["shared_stories"].dump();
  const auto& shared = j["shared_stories"][0];
  EXPECT_EQ(shared["url"], kBench);
  EXPECT_EQ(shared["entities"], (json{"tokio", "async-std"}));
  EXPECT_NE(std::string(shared["title"]).find("Benchmarks"), std::string::npos);
}

TEST(CompareCli, BriefsShowTheEntitiesSideBySide) {
  Scenario s(hn_per_entity);
  auto compact = s.run(kCompare);
  ASSERT_EQ(compact.exit_code, 0) << compact.err;
  const std::string& out = compact.out;
  EXPECT_NE(out.find("compare \"tokio vs async-std\""), std::string::npos) << out;
  // A header row with the names, then one row per figure, the columns aligned under them.
  std::vector<std::string> lines;
  for (std::size_t p = 0, nl; (nl = out.find('\n', p)) != std::string::npos; p = nl + 1) lines.push_back(out.substr(p, nl - p));
  ASSERT_GT(lines.size(), 6u);
  const std::string& header = lines[2];
  const auto col1 = header.find("tokio"), col2 = header.find("async-std");
  ASSERT_NE(col1, std::string::npos) << out;
  ASSERT_NE(col2, std::string::npos) << out;
  for (const std::string label : {"stories ", "engagement ", "hackernews "}) {
    auto row = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(label, 0) == 0; });
    ASSERT_NE(row, lines.end()) << label << " row missing:\n" << out;
    ASSERT_GT(row->size(), col2) << *row;
    EXPECT_TRUE((*row)[col1 - 1] == ' ' && (*row)[col1] != ' ' && (*row)[col2 - 1] == ' ' && (*row)[col2] != ' ')
        << "cells sit under their names:\n"
        << header << "\n"
        << *row;
  }
  EXPECT_NE(out.find("Tokio 2.0"), std::string::npos);
  EXPECT_NE(out.find("async-std is discontinued"), std::string::npos);
  EXPECT_EQ(count(out, "Benchmarks: Tokio vs async-std"), 1u) << "a shared story is listed once:\n" << out;
  EXPECT_NE(out.find("[tokio + async-std]"), std::string::npos) << out;
  EXPECT_LT(out.find("async-std is discontinued"), out.find("shared stories")) << out;

  auto md = s.run(with(kCompare, {"--emit", "md"}));
  ASSERT_EQ(md.exit_code, 0);
  EXPECT_NE(md.out.find("| | tokio | async-std |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("## Shared stories"), std::string::npos);
  EXPECT_NE(md.out.find("](" + kBench + ")"), std::string::npos);
  EXPECT_EQ(count(md.out, "Benchmarks: Tokio vs async-std"), 1u) << md.out;

  auto html = s.run({"<b>tokio</b> vs async-std", "--as-of", "2026-11-29", "--search", "hn", "--emit", "html"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_EQ(html.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.out.find("<b>tokio</b>"), std::string::npos) << "an entity name is text, not markup";
  EXPECT_NE(html.out.find("&lt;b&gt;tokio&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html.out.find("<th>async-std</th>"), std::string::npos);
  EXPECT_EQ(html.out.find("<script"), std::string::npos);
}

TEST(CompareCli, OutputSaveAndStrictTakeTheComparisonAsAWhole) {
  Scenario s([](const FakeRequest& r) -> std::optional<FakeReply> {
    if (r.path.rfind("/gh/", 0) == 0 && r.param("q").find("async-std") != std::string::npos)
      return FakeReply::json(R"({"message":"API rate limit exceeded"})", 429);
    return hn_per_entity(r);
  });
  TempDir out;
  auto r = s.run(with(kCompare, {"--output", out.path() + "/cmp.json", "--emit", "json", "--save-dir", out.path() + "/saved"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  std::ifstream f(out.path() + "/cmp.json");
  const auto j = json::parse(f);
  EXPECT_EQ(j["kind"], "comparison");
  EXPECT_EQ(j["entities"][1]["report"]["source_status"]["github"]["state"], "rate-limited");
  EXPECT_EQ(j["entities"][0]["report"]["source_status"]["github"]["state"], "ok");
  auto files = out.files();
  std::sort(files.begin(), files.end());
  // "async-std" is not spelled by its words alone, so the topic's hash follows them.
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0], "cmp.json");
  EXPECT_TRUE(std::regex_match(files[1], std::regex("saved/tokio-vs-async-std-[0-9a-f]{10}-raw\\.json"))) << files[1];
  EXPECT_EQ(files[2], files[1].substr(0, files[1].size() - 5) + ".md");
  std::ifstream saved(out.path() + "/" + files[1]);
  EXPECT_EQ(json::parse(saved)["kind"], "comparison");
  EXPECT_EQ(s.run(with(kCompare, {"--strict"})).exit_code, 3) << "one entity's degraded source makes --strict exit 3";
}

TEST(CompareCli, EntitiesRunInParallelNotOneAfterAnother) {
  // Every answer takes 400 ms: a research is a few round trips, three of them in a row would be three times that.
  Scenario s;
  s.set_shaper([](const FakeRequest&, FakeReply& reply) { reply.delay = 400ms; });
  const std::vector<std::string> common = {"--as-of", "2026-11-29", "--search", "hn,github,lobsters,stackexchange,polymarket",
                                           "--emit",  "json"};
  auto one = s.run(with({"tokio"}, common));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto three = s.run(with({"tokio vs async-std vs smol"}, common));
  ASSERT_EQ(three.exit_code, 0) << three.err;
  EXPECT_GE(one.elapsed, 400ms) << "the fake's latency is in effect";
  EXPECT_LT(three.elapsed.count(), one.elapsed.count() * 3 / 2)
      << "three entities took " << three.elapsed.count() << " ms, one took " << one.elapsed.count() << " ms";
  for (const auto& e : json::parse(three.out)["entities"])
    for (const auto& [id, st] : e["report"]["source_status"].items())
      EXPECT_TRUE(st["state"] == "ok" || st["state"] == "no-results") << e["name"] << " " << id << ": " << st.dump();
}

TEST(CompareCli, RedditPacingIsSharedByTheEntities) {
  Scenario s;
  auto r = s.run({"tokio vs async-std vs smol", "--search", "reddit", "--quick", "--as-of", "2026-11-29", "--emit", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::chrono::steady_clock::time_point> at;
  for (const auto& e : s.fake().log())
    if (e.request.path.rfind("/reddit/", 0) == 0) at.push_back(e.received);
  ASSERT_EQ(at.size(), 3u) << "one search per entity at depth quick";
  std::sort(at.begin(), at.end());
  for (std::size_t k = 1; k < at.size(); ++k)
    EXPECT_GE(at[k] - at[k - 1], 950ms) << "reddit.com sees one request a second from the whole process";
}
