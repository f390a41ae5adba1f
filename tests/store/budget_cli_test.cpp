// Issue 19 item 4: daily request budgets kept in the store (`watch budget SOURCE N|off`),
// through the real binary on a real SQLite file and a real PostgreSQL server: which runs they
// bind, which of two budgets holds (the stricter), what watch list and doctor show, and what
// one YouTube request costs in YouTube's own quota.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>

#include "child.hpp"
#include "core/time.hpp"
#include "hn_world.hpp"
#include "persist/writer.hpp"
#include "pg_cluster.hpp"
#include "store/store.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::vector<Story> kA = {{"301", "Zig comptime explained", "https://zig.example/comptime", 120, 5}};
const std::vector<std::string> kResearch = {"zig comptime", "--search", "hn", "--emit", "json", "--quiet"};

enum class Backend { sqlite, postgres };

class BudgetCli : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    w_.set(kA);
    if (GetParam() == Backend::postgres) {
      db_ = PgCluster::shared().fresh_database();
      store_env_ = {{"LAST30DAYS_STORE_URL", PgCluster::shared().url(db_)}};
    }
  }
  ProcessResult run(std::vector<std::string> args, std::map<std::string, std::string> extra = {}) {
    for (const auto& [k, v] : store_env_) extra.emplace(k, v);
    return w_.run(std::move(args), extra);
  }
  // One value from the store the binary used.
  std::string value(const std::string& sql) {
    if (GetParam() == Backend::postgres) {
      const auto rows = PgCluster::shared().query(db_, "SET search_path TO last30days; " + sql);
      return rows.empty() || rows[0].empty() ? "" : rows[0][0];
    }
    return sqlite_value(w_.default_db(), sql);
  }
  long spent() {
    const auto v = value("SELECT COALESCE(SUM(spent), 0) FROM budget_spend WHERE source = 'hackernews'");
    return v.empty() || v == "<error>" ? -1 : std::stol(v);
  }
  json hn_status(const ProcessResult& r) {
    const auto j = parse(r);
    return j.contains("runs") ? j["runs"][0]["source_status"]["hackernews"] : j["source_status"]["hackernews"];
  }
  // MCP's research tool with store: true, over the official protocol on stdio.
  json mcp_hn_status() {
    auto env = w_.env();
    for (const auto& [k, v] : store_env_) env[k] = v;
    const char* other = std::getenv("L30_BINARY_UNDER_TEST");  // as run_last30days does
    Child mcp({other != nullptr && *other != '\0' ? other : L30_BINARY, "mcp"}, env);
    mcp.write(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},)"
              R"("clientInfo":{"name":"t","version":"1"}}})"
              "\n");
    EXPECT_TRUE(mcp.read_line(10s)) << mcp.err();
    mcp.write(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"research","arguments":)"
              R"({"topic":"zig comptime","sources":["hackernews"],"store":true}}})"
              "\n");
    json out;
    for (;;) {
      const auto line = mcp.read_line(30s);
      if (!line) {
        ADD_FAILURE() << "no answer: " << mcp.err();
        break;
      }
      const auto reply = json::parse(*line, nullptr, false);
      if (reply.is_discarded() || reply.contains("method")) continue;  // progress
      out = reply["result"]["structuredContent"]["source_status"]["hackernews"];
      break;
    }
    mcp.close_stdin();
    EXPECT_EQ(mcp.wait(5s), 0);
    return out;
  }

  HnWorld w_;
  std::string db_;
  std::map<std::string, std::string> store_env_;
};

std::string reason(const json& status) {
  return status.is_object() && status.contains("reason") && status["reason"].is_string() ? status["reason"].get<std::string>()
                                                                                         : "";
}

}  // namespace

// A budget set with `watch budget` binds every run that uses the store (watch run, research
// with --store, MCP store: true) and counts their requests; research without the store and
// without a budget in the environment does not read it.
TEST_P(BudgetCli, AStoreBudgetBindsEveryRunThatUsesTheStore) {
  auto set = run({"watch", "budget", "hn", "1"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_NE(set.out.find("budget for hackernews: 1 requests a day (UTC)"), std::string::npos) << set.out;
  EXPECT_EQ(value("SELECT requests FROM budget_limit WHERE source = 'hackernews'"), "1");

  ASSERT_EQ(run({"watch", "add", "zig comptime", "--search", "hn"}).exit_code, 0);
  auto first = run({"watch", "run", "--all", "--emit", "json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(hn_status(first)["state"], "ok") << "within its budget";
  const long after_first = spent();
  EXPECT_GE(after_first, 1) << "a store budget alone counts the requests";

  const auto log_before = w_.fake().log().size();
  auto second = run({"watch", "run", "--all", "--emit", "json"});
  EXPECT_EQ(hn_status(second)["state"], "rate-limited") << second.out;
  EXPECT_NE(reason(hn_status(second)).find("local request budget is spent"), std::string::npos) << second.out;
  EXPECT_NE(reason(hn_status(second)).find("watch budget hackernews 1"), std::string::npos) << second.out;
  auto stored = run({"zig comptime", "--search", "hn", "--emit", "json", "--quiet", "--store"});
  EXPECT_EQ(hn_status(stored)["state"], "rate-limited") << stored.out;
  const auto over_mcp = mcp_hn_status();
  EXPECT_EQ(over_mcp["state"], "rate-limited") << over_mcp.dump();
  EXPECT_NE(reason(over_mcp).find("watch budget hackernews 1"), std::string::npos) << over_mcp.dump();
  EXPECT_EQ(w_.fake().log().size(), log_before) << "no request was made by a refused source";
  EXPECT_EQ(spent(), after_first);

  auto plain = run(kResearch);
  EXPECT_EQ(hn_status(plain)["state"], "ok") << "research without the store does not read the store's budgets";
  EXPECT_EQ(spent(), after_first) << "nor count against them";

  auto list = run({"watch", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find(fmt::format("hackernews: {} of 1 requests spent (watch budget hackernews 1) · spent", after_first)),
            std::string::npos)
      << list.out;
  const auto listed = parse(run({"watch", "list", "--emit", "json"}))["budgets"]["sources"];
  ASSERT_EQ(listed.size(), 1u) << listed.dump();
  EXPECT_EQ(listed[0]["source"], "hackernews");
  EXPECT_EQ(listed[0]["set_by"], "store");
  EXPECT_EQ(listed[0]["store_limit"], 1);
  EXPECT_TRUE(listed[0]["env_limit"].is_null());
  EXPECT_EQ(listed[0]["spent_today"], after_first);
  auto doctor = run({"doctor", "--search", "hn"});
  EXPECT_NE(doctor.out.find(fmt::format("hackernews: {} of 1 requests spent (watch budget hackernews 1)", after_first)),
            std::string::npos)
      << doctor.out;
  EXPECT_EQ(parse(run({"doctor", "--search", "hn", "--emit", "json"}))["budgets"]["sources"][0]["limit"], 1);

  auto off = run({"watch", "budget", "hackernews", "OFF"});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_NE(off.out.find("no budget for hackernews in the store"), std::string::npos) << off.out;
  EXPECT_EQ(hn_status(run({"zig comptime", "--search", "hn", "--emit", "json", "--quiet", "--store"}))["state"], "ok");
  EXPECT_EQ(run({"watch", "list"}).out.find("request budgets"), std::string::npos) << "no budget left to show";
  EXPECT_NE(run({"watch", "budget", "hn", "off"}).out.find("(it had none)"), std::string::npos);
}

// Both set: the stricter holds, whichever place it is in, and the reason names that one.
TEST_P(BudgetCli, WithBothBudgetsTheStricterHolds) {
  ASSERT_EQ(run({"zig comptime", "--search", "hn", "--emit", "json", "--quiet", "--store"}).exit_code, 0);
  ASSERT_EQ(spent(), 0) << "nothing is counted with no budget anywhere";
  ASSERT_EQ(run({"watch", "budget", "hn", "1"}).exit_code, 0);
  ASSERT_EQ(hn_status(run({"zig comptime", "--search", "hn", "--emit", "json", "--quiet", "--store"}))["state"], "ok");
  const long now = spent();
  ASSERT_GE(now, 1);

  // The environment's is looser: the store's holds.
  const std::map<std::string, std::string> loose{{"LAST30DAYS_BUDGET_HACKERNEWS", "500"}};
  auto a = run(kResearch, loose);  // a budget in the environment opens the store even without --store
  EXPECT_EQ(hn_status(a)["state"], "rate-limited") << a.out;
  EXPECT_NE(reason(hn_status(a)).find("watch budget hackernews 1"), std::string::npos) << a.out;
  auto listed = parse(run({"watch", "list", "--emit", "json"}, loose))["budgets"]["sources"][0];
  EXPECT_EQ(listed["set_by"], "store") << listed.dump();
  EXPECT_EQ(listed["env_limit"], 500);
  EXPECT_NE(run({"watch", "list"}, loose).out.find("(watch budget hackernews 1; LAST30DAYS_BUDGET_HACKERNEWS=500 is looser)"),
            std::string::npos);

  // The store's is looser: the environment's holds.
  auto raised = run({"watch", "budget", "hn", "500"}, {{"LAST30DAYS_BUDGET_HACKERNEWS", std::to_string(now)}});
  ASSERT_EQ(raised.exit_code, 0) << raised.err;
  EXPECT_NE(raised.out.find(fmt::format("LAST30DAYS_BUDGET_HACKERNEWS={} is stricter and holds", now)), std::string::npos)
      << raised.out;
  const std::map<std::string, std::string> strict{{"LAST30DAYS_BUDGET_HACKERNEWS", std::to_string(now)}};
  auto b = run({"watch", "add", "zig comptime", "--search", "hn"});
  ASSERT_EQ(b.exit_code, 0);
  auto c = run({"watch", "run", "--all", "--emit", "json"}, strict);
  EXPECT_EQ(hn_status(c)["state"], "rate-limited") << c.out;
  EXPECT_NE(reason(hn_status(c)).find(fmt::format("LAST30DAYS_BUDGET_HACKERNEWS={} requests a day", now)), std::string::npos)
      << c.out;
  EXPECT_EQ(parse(run({"watch", "list", "--emit", "json"}, strict))["budgets"]["sources"][0]["set_by"], "environment");
  // Only the store's, now looser than today's spend: it runs.
  EXPECT_EQ(hn_status(run({"zig comptime", "--search", "hn", "--emit", "json", "--quiet", "--store"}))["state"], "ok");
}

// Bad words are a usage error in the product's words (exit 2, nothing printed, nothing kept).
TEST_P(BudgetCli, ABadBudgetCommandIsExit2AndChangesNothing) {
  const std::vector<std::vector<std::string>> bad = {{"watch", "budget", "hn"},
                                                     {"watch", "budget", "hn", "ten"},
                                                     {"watch", "budget", "hn", "1.5"},
                                                     {"watch", "budget", "hn", "5", "6"},
                                                     {"watch", "budget", "hn", "9999999999"},
                                                     {"watch", "budget", "hakernews", "5"},
                                                     {"watch", "budget", "hn", "5", "--all"},
                                                     {"watch", "budget", "hn", "-3"},
                                                     {"watch", "budget", "hn", ""},
                                                     {"watch", "budget", "hn", "+5"},
                                                     {"watch", "budget", "hn", "5", "--emit", "md"}};
  for (const auto& args : bad) {
    auto r = run(args);
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(args) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.rfind("last30days: ", 0), 0u) << ::testing::PrintToString(args) << r.err;
  }
  auto typo = run({"watch", "budget", "hakernews", "5"});
  EXPECT_NE(typo.err.find("watch budget: unknown source 'hakernews' (did you mean hackernews?)"), std::string::npos) << typo.err;
  auto unknown = run({"watch", "budget", "myspace", "5"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("watch budget: unknown source 'myspace' (known: "), std::string::npos) << unknown.err;
  auto garbage = run({"watch", "budget", "hn", "ten"});
  EXPECT_NE(garbage.err.find("watch budget: 'ten' is not a number of requests a day (a whole number, 0 or more, or off)"),
            std::string::npos)
      << garbage.err;
  auto negative = run({"watch", "budget", "hn", "-3"});
  EXPECT_NE(negative.err.find("'-3' is not a number of requests a day"), std::string::npos) << negative.err;
  auto env_bad = run({"watch", "budget", "hn", "5"}, {{"LAST30DAYS_BUDGET_GITHUB", "off"}});
  EXPECT_EQ(env_bad.exit_code, 2) << "off is for the store's budget; the key takes a number";
  EXPECT_NE(env_bad.err.find("LAST30DAYS_BUDGET_GITHUB must be a whole number"), std::string::npos) << env_bad.err;
  ASSERT_EQ(run({"watch", "list"}).exit_code, 0);
  EXPECT_EQ(value("SELECT COUNT(*) FROM budget_limit"), "0");
}

// `watch budget` alone lists the budgets in force, from both places, with today's spend.
TEST_P(BudgetCli, WatchBudgetAloneListsTheBudgets) {
  auto none = run({"watch", "budget"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("no request budgets set (last30days watch budget SOURCE N keeps one in the store; "
                          "LAST30DAYS_BUDGET_<SOURCE>=N sets one in the environment)"),
            std::string::npos)
      << none.out;
  ASSERT_EQ(run({"watch", "budget", "gh", "40"}).exit_code, 0);
  ASSERT_EQ(run({"watch", "budget", "hn", "7"}).exit_code, 0);
  const std::map<std::string, std::string> env{{"LAST30DAYS_BUDGET_HACKERNEWS", "3"}, {"LAST30DAYS_BUDGET_REDDIT", "9"}};
  auto list = run({"watch", "budget"}, env);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("request budgets (today, UTC):\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("  github: 0 of 40 requests spent (watch budget github 40)\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("  hackernews: 0 of 3 requests spent (LAST30DAYS_BUDGET_HACKERNEWS=3; the store's 7 is looser)\n"),
            std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("  reddit: 0 of 9 requests spent (LAST30DAYS_BUDGET_REDDIT=9)\n"), std::string::npos) << list.out;
  const auto j = parse(run({"watch", "budget", "--emit", "json"}, env));
  EXPECT_EQ(j["kind"], "budgets");
  ASSERT_EQ(j["sources"].size(), 3u) << j.dump();
  EXPECT_EQ(j["sources"][1]["source"], "hackernews");
  EXPECT_EQ(j["sources"][1]["limit"], 3);
  EXPECT_EQ(j["sources"][1]["set_by"], "environment");
  EXPECT_EQ(j["sources"][1]["store_limit"], 7);
  EXPECT_EQ(j["day"], core::format_date(core::now_unix()));
}

// A store made before budgets were kept in it (schema 3) is upgraded in place by the first
// command that opens it: its spend, its watchlist and its history stay, and the new budget binds.
TEST_P(BudgetCli, AVersion3StoreIsUpgradedInPlace) {
  const store::Location where =
      GetParam() == Backend::postgres
          ? store::Location{store::Location::Kind::postgres, store_env_.at("LAST30DAYS_STORE_URL"), "test"}
          : store::Location{store::Location::Kind::sqlite, w_.default_db(), "test"};
  {
    auto v3 = store::Store::open(where, persist::testing::writer(), core::Deadline::in(30s), {3});
    v3->budget_add("hackernews", core::format_date(core::now_unix()), 2);
    model::WatchEntry e;
    e.topic = "zig comptime";
    e.sources = {"hackernews"};
    v3->watch_add(e, core::now_unix());
  }
  ASSERT_EQ(value("SELECT MAX(version) FROM schema_migrations"), "3");
  ASSERT_EQ(value("SELECT COUNT(*) FROM budget_spend"), "1");

  auto set = run({"watch", "budget", "hn", "2"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_NE(
      set.out.find("budget for hackernews: 2 requests a day (UTC), kept in the store for every run that uses it · 2 spent today"),
      std::string::npos)
      << set.out;
  EXPECT_EQ(value("SELECT MAX(version) FROM schema_migrations"), "4");
  EXPECT_EQ(value("SELECT requests FROM budget_limit WHERE source = 'hackernews'"), "2");
  auto list = run({"watch", "list"});
  EXPECT_NE(list.out.find("zig comptime · every 24 h"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("hackernews: 2 of 2 requests spent (watch budget hackernews 2) · spent"), std::string::npos)
      << list.out;
  const auto log_before = w_.fake().log().size();
  auto research = run({"watch", "run", "--all", "--emit", "json"});
  EXPECT_EQ(hn_status(research)["state"], "rate-limited") << research.out << research.err;
  EXPECT_EQ(w_.fake().log().size(), log_before) << "the spend kept from before the upgrade counts";
}

// Item 2: the unit stays a request; doctor and watch list say what one costs in YouTube's
// quota units (search.list 100, videos.list 1), with or without a budget set.
TEST_P(BudgetCli, DoctorSaysWhatAYouTubeRequestCostsInQuotaUnits) {
  const std::map<std::string, std::string> key{{"YOUTUBE_API_KEY", "yt-test-key-0000"}};
  auto none = run({"doctor", "--search", "hn"}, key);
  EXPECT_NE(none.out.find("youtube (no budget): one request is one YouTube Data API call: a search.list costs 100"),
            std::string::npos)
      << none.out;
  EXPECT_NE(none.out.find("a videos.list 1"), std::string::npos) << none.out;
  auto none_json = parse(run({"doctor", "--search", "hn", "--emit", "json"}, key));
  EXPECT_NE(none_json["budgets"]["request_costs"]["youtube"].get<std::string>().find("100 x N units"), std::string::npos);
  ASSERT_EQ(run({"watch", "budget", "yt", "90"}, key).exit_code, 0);
  auto list = run({"watch", "list"}, key);
  EXPECT_NE(
      list.out.find("youtube: 0 of 90 requests spent (watch budget youtube 90)\n    one request is one YouTube Data API call"),
      std::string::npos)
      << list.out;
  auto doctor = run({"doctor", "--search", "hn"}, key);
  EXPECT_EQ(doctor.out.find("youtube (no budget)"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("youtube: 0 of 90 requests spent"), std::string::npos) << doctor.out;
  for (const auto* r : {&none, &list, &doctor}) EXPECT_EQ(r->out.find("yt-test-key-0000"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Backends, BudgetCli, ::testing::Values(Backend::sqlite, Backend::postgres),
                         [](const auto& p) { return p.param == Backend::sqlite ? "SQLite" : "PostgreSQL"; });
