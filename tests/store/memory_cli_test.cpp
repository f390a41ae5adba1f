// library list|forget|search --emit md, request budgets, and the watchlist's hardening
// (issue 22 items 11, 12, 14) through the real binary.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>

#include "core/time.hpp"
#include "hn_world.hpp"
#include "mcp_child.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::vector<Story> kA = {{"201", "Zig comptime explained", "https://zig.example/comptime", 120, 5},
                               {"202", "Zig comptime generics in practice", "https://blog.example/zig-generics", 40, 8}};
const std::vector<Story> kB = {{"203", "Zig allocators, a field guide", "https://zig.example/allocators", 75, 3}};

void sql(const HnWorld& w, const std::string& statement) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(w.default_db().c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

}  // namespace

TEST(MemoryCli, LibraryListsAndForgetsTopics) {
  HnWorld w;
  w.set(kA);
  ASSERT_EQ(w.run({"zig comptime", "--search", "hn", "--store", "--quiet"}).exit_code, 0);
  ASSERT_EQ(w.run({"zig comptime", "--search", "hn", "--store", "--quiet"}).exit_code, 0);
  w.set(kB);
  ASSERT_EQ(w.run({"zig allocators", "--search", "hn", "--store", "--quiet"}).exit_code, 0);

  auto list = w.run({"library", "list", "--emit", "json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  auto j = parse(list);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["kind"], "library-topics");
  ASSERT_EQ(j["topics"].size(), 2u);
  std::map<std::string, int> runs;
  for (const auto& t : j["topics"]) {
    runs[t["topic"]] = t["runs"];
    EXPECT_EQ(t["last_run_at"].get<std::string>().size(), 20u);
  }
  EXPECT_EQ(runs, (std::map<std::string, int>{{"zig allocators", 1}, {"zig comptime", 2}}));
  auto compact = w.run({"library", "list"});
  EXPECT_NE(compact.out.find("zig comptime · 2 runs · last run "), std::string::npos) << compact.out;
  auto md = w.run({"library", "list", "--emit", "md"});
  EXPECT_NE(md.out.find("| zig comptime | research | 2 |"), std::string::npos) << md.out;

  auto unknown = w.run({"library", "forget", "zig async"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("not in the library"), std::string::npos) << unknown.err;
  auto forget = w.run({"library", "forget", "ZIG  Comptime"});
  ASSERT_EQ(forget.exit_code, 0) << forget.err;
  EXPECT_EQ(parse(w.run({"library", "list", "--emit", "json"}))["topics"].size(), 1u);
  EXPECT_TRUE(parse(w.run({"library", "search", "generics", "--emit", "json"}))["results"].empty())
      << "the findings only it held are gone";
  EXPECT_EQ(parse(w.run({"library", "search", "allocators", "--emit", "json"}))["results"].size(), 1u);
  EXPECT_EQ(sqlite_value(w.default_db(), "SELECT count(*) FROM runs"), "1");
  EXPECT_EQ(sqlite_value(w.default_db(), "PRAGMA integrity_check"), "ok");
  for (const auto& bad : std::vector<std::vector<std::string>>{{"library", "forget"},
                                                               {"library", "list", "x"},
                                                               {"library", "list", "--limit", "2"},
                                                               {"library", "search", "x", "--emit", "html"}})
    EXPECT_EQ(w.run(bad).exit_code, 2) << ::testing::PrintToString(bad);
}

// Issue 19 item 5 and issue 22 item 14: the item's date, source and engagement; a saved
// brief's location, its snippet without Markdown escapes.
TEST(MemoryCli, LibrarySearchShowsWhatTheItemIsAndWhereABriefLives) {
  HnWorld w;
  w.set({{"211", "Zig_comptime [explained] *fast*", "https://zig.example/fast", 120, 30}});
  ASSERT_EQ(w.run({"zig comptime", "--search", "hn", "--store", "--save", "--quiet"}).exit_code, 0);
  auto j = parse(w.run({"library", "search", "zig comptime", "--emit", "json"}));
  bool finding = false, brief = false;
  for (const auto& h : j["results"]) {
    if (h["kind"] == "finding") {
      finding = true;
      EXPECT_EQ(h["source"], "hackernews");
      EXPECT_TRUE(h["published_at"].is_string()) << h.dump();
      EXPECT_EQ(h["engagement"], 120) << h.dump();
    } else {
      brief = true;
      EXPECT_TRUE(h["location"].get<std::string>().rfind(w.home().path() + "/memory/", 0) == 0) << h.dump();
    }
  }
  EXPECT_TRUE(finding && brief) << j.dump(1);
  auto compact = w.run({"library", "search", "zig comptime"});
  ASSERT_EQ(compact.exit_code, 0) << compact.err;
  EXPECT_NE(compact.out.find("hackernews · " + core::format_date(core::now_unix() - 30 * 3600) + " · engagement 120"),
            std::string::npos)
      << compact.out;
  EXPECT_NE(compact.out.find(w.home().path() + "/memory/zig-comptime-raw.md"), std::string::npos) << compact.out;
  EXPECT_EQ(compact.out.find("\\["), std::string::npos) << "no raw Markdown escapes: " << compact.out;
  EXPECT_EQ(compact.out.find("\\*"), std::string::npos) << compact.out;
  EXPECT_EQ(compact.out.find("\\_"), std::string::npos) << compact.out;
  auto md = w.run({"library", "search", "zig comptime", "--emit", "md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("# Library: zig comptime", 0), 0u) << md.out;
  EXPECT_NE(md.out.find("](https://zig.example/fast)"), std::string::npos) << md.out;
}

// Issue 22 item 11.
TEST(MemoryCli, WatchAddValidatesTopicsLikeResearchAndEchoesNoEscapes) {
  HnWorld w;
  auto esc = w.run({"watch", "add", "zig\x1b]0;pwned\x07\x1b[2J comptime"});
  EXPECT_EQ(esc.out.find('\x1b'), std::string::npos) << "no escape byte reaches the terminal";
  auto rm = w.run({"watch", "remove", "zig\x1b]0;pwned\x07\x1b[2J comptime"});
  EXPECT_EQ(rm.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(rm.err.find('\x1b'), std::string::npos);
  auto gone = w.run({"watch", "remove", "never\x1b[2J watched"});
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_EQ(gone.err.find('\x1b'), std::string::npos);

  std::string cjk;
  for (int i = 0; i < 150; ++i) cjk += "\xe6\xbc\xa2";  // 150 characters, 450 bytes
  EXPECT_EQ(w.run({"watch", "add", cjk}).exit_code, 0) << "the limit counts characters, as research does";
  std::string long_cjk = cjk + cjk + cjk;
  EXPECT_EQ(w.run({"watch", "add", long_cjk}).exit_code, 2);
  EXPECT_EQ(w.run({"watch", "add", "tokio vs "}).exit_code, 2) << "research rejects it";
  EXPECT_EQ(w.run({"watch", "add", "a vs b vs c vs d vs e vs f vs g"}).exit_code, 2) << "7 entities";
  EXPECT_EQ(w.run({"tokio vs "}).exit_code, 2);
}

// Issue 22 item 12: a killed `watch run` leaves its claim until the lease ends; watch list says so.
TEST(MemoryCli, WatchListSaysAClaimedTopicIsClaimedAndUntilWhen) {
  HnWorld w;
  ASSERT_EQ(w.run({"watch", "add", "zig comptime", "--search", "hn"}).exit_code, 0);
  const auto until = core::now_unix() + 90;
  sql(w, "UPDATE watchlist SET claimed_by = 'host:4242:deadbeef', claim_expires_at = " + std::to_string(until));
  auto list = w.run({"watch", "list"});
  EXPECT_NE(list.out.find("claimed by a watch run until " + core::format_iso8601(until)), std::string::npos) << list.out;
  EXPECT_EQ(list.out.find("due now"), std::string::npos) << list.out;
  auto j = parse(w.run({"watch", "list", "--emit", "json"}));
  EXPECT_EQ(j["topics"][0]["claimed_until"], core::format_iso8601(until));
  sql(w, "UPDATE watchlist SET claim_expires_at = " + std::to_string(core::now_unix() - 1));
  EXPECT_NE(w.run({"watch", "list"}).out.find("due now"), std::string::npos) << "an expired claim is no claim";
}

// Issue 19 item 4: a spent daily budget skips the source as rate-limited, in research and watch run.
TEST(MemoryCli, ASpentRequestBudgetSkipsTheSourceAsRateLimited) {
  HnWorld w;
  w.set(kA);
  const std::map<std::string, std::string> budget{{"LAST30DAYS_BUDGET_HACKERNEWS", "1"}};
  auto first = w.run({"zig comptime", "--search", "hn", "--emit", "json", "--quiet"}, budget);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(parse(first)["source_status"]["hackernews"]["state"], "ok") << "within its budget, without --store";
  const int spent = std::stoi(sqlite_value(w.default_db(), "SELECT spent FROM budget_spend WHERE source = 'hackernews'"));
  EXPECT_GE(spent, 1);
  const auto log_before = w.fake().log().size();
  auto second = w.run({"zig comptime", "--search", "hn", "--emit", "json", "--quiet"}, budget);
  const auto j = parse(second);
  const auto& hn = j["source_status"]["hackernews"];
  EXPECT_EQ(hn["state"], "rate-limited") << j.dump(1);
  EXPECT_NE(hn["reason"].get<std::string>().find("LAST30DAYS_BUDGET_HACKERNEWS=1"), std::string::npos) << hn.dump();
  EXPECT_NE(hn["reason"].get<std::string>().find("local request budget"), std::string::npos) << hn.dump();
  EXPECT_EQ(w.fake().log().size(), log_before) << "no request was made";

  ASSERT_EQ(w.run({"watch", "add", "zig comptime", "--search", "hn"}).exit_code, 0);
  auto watch = parse(w.run({"watch", "run", "--all", "--emit", "json"}, budget));
  EXPECT_EQ(watch["runs"][0]["source_status"]["hackernews"]["state"], "rate-limited") << watch.dump(1);

  auto doctor = w.run({"doctor", "--search", "hn"}, budget);
  EXPECT_NE(doctor.out.find(fmt::format("hackernews: {} of 1 requests spent (LAST30DAYS_BUDGET_HACKERNEWS=1)", spent)),
            std::string::npos)
      << doctor.out;
  // An agent host's research is held to the same budget (spec section 3): no request made.
  {
    const auto log_before_mcp = w.fake().log().size();
    auto env = w.env();
    for (const auto& [k, v] : budget) env[k] = v;
    McpChild mcp(env);
    ASSERT_TRUE(mcp.initialize()) << mcp.err();
    mcp.call("research", R"({"topic":"zig comptime","sources":["hackernews"]})");
    const auto line = mcp.reply(30s);
    ASSERT_TRUE(line) << mcp.err();
    const auto reply = nlohmann::json::parse(*line, nullptr, false);
    ASSERT_FALSE(reply.is_discarded()) << *line;
    const auto& st = reply["result"]["structuredContent"]["source_status"]["hackernews"];
    EXPECT_EQ(st["state"], "rate-limited") << *line;
    EXPECT_NE(st["reason"].get<std::string>().find("LAST30DAYS_BUDGET_HACKERNEWS=1"), std::string::npos) << *line;
    mcp.close_stdin();
    EXPECT_EQ(mcp.wait(5s), 0);
    EXPECT_EQ(w.fake().log().size(), log_before_mcp) << "no request was made over MCP either";
  }

  auto more = w.run({"zig comptime", "--search", "hn", "--emit", "json", "--quiet"}, {{"LAST30DAYS_BUDGET_HACKERNEWS", "50"}});
  EXPECT_EQ(parse(more)["source_status"]["hackernews"]["state"], "ok") << "a raised budget lets it run again";
  EXPECT_EQ(w.run({"zig comptime", "--search", "hn"}, {{"LAST30DAYS_BUDGET_HACKERNEWS", "ten"}}).exit_code, 2);
}
