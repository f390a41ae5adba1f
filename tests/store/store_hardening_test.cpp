// The store against hostile conditions (issue 22): damaged values in its rows, a server
// that never answers the connection, server notices. The research itself must survive
// each: the brief is printed, and the store's trouble is said in the product's words.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "mcp_child.hpp"
#include "pg_cluster.hpp"
#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::vector<std::string> kResearch = {"tokio runtime", "--as-of",  "2026-11-29", "--emit",
                                            "json",          "--search", "hn",         "--store"};

void sqlite_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

bool has_items(const std::string& out) {
  const auto j = json::parse(out, nullptr, false);
  return !j.is_discarded() && j.value("kind", "") == "research" && !j["items"].empty();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

}  // namespace

// Item 13: a hand-edited or damaged row ("internal error: stoll" before) is left out with
// a warning; the research is printed and recorded.
TEST(StoreHardening, DamagedValuesCostTheirRowNotTheBrief) {
  Scenario s;
  TempDir data;
  auto env = s.env();
  const std::string db = data.path() + "/research.db";
  env["LAST30DAYS_STORE_PATH"] = db;
  ASSERT_EQ(run_last30days(kResearch, env).exit_code, 0);
  ASSERT_EQ(run_last30days(kResearch, env).exit_code, 0);
  sqlite_exec(db,
              "UPDATE runs SET finished_at = 'garbage' WHERE id = 1; UPDATE sightings SET engagement = 'NaNx' WHERE run_id = 2;");
  auto r = run_last30days(kResearch, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has_items(r.out)) << r.out.substr(0, 300);
  EXPECT_NE(r.err.find("a damaged value in the research store: 'garbage' is not an integer"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["history"]["runs_before"], 1) << "the damaged run is left out, the other counted";
}

// Item 22: a PostgreSQL "server" that accepts the connection and never answers. The store
// gets its share (kStoreOpenShare, 5 s), then the research runs and prints; the run ends
// with the store's error, unrecorded.
TEST(StoreHardening, AFrozenServerCostsTheStoreShareNotTheBrief) {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 16), 0);  // never accepted: the kernel completes the handshake, nobody answers
  socklen_t len = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  Scenario s;
  auto env = s.env();
  env["LAST30DAYS_STORE_URL"] = "postgresql://l30:pw@127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/research";
  auto args = kResearch;
  args.insert(args.end(), {"--timeout", "20"});
  auto r = run_last30days(args, env, 40s);
  ::close(listener);
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has_items(r.out)) << "the brief is printed: " << r.out.substr(0, 300) << r.err;
  EXPECT_NE(r.err.find("did not answer before the deadline (connecting)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not recorded"), std::string::npos) << r.err;
  EXPECT_LT(r.elapsed, 12s) << "the store took its share, not the 20 s run budget";
  EXPECT_EQ(r.err.find("pw"), std::string::npos) << "the URL's password is never printed";

  // Request budgets count in the same store. One that cannot be read spends no budgeted
  // request (that source is refused, with the reason) but costs neither the brief nor a
  // second share: with --store the store is asked once.
  env["LAST30DAYS_BUDGET_GITHUB"] = "100";
  const int listener2 = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener2, 0);
  addr.sin_port = 0;
  ASSERT_EQ(::bind(listener2, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener2, 16), 0);
  len = sizeof addr;
  ::getsockname(listener2, reinterpret_cast<sockaddr*>(&addr), &len);
  env["LAST30DAYS_STORE_URL"] = "postgresql://l30:pw@127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/research";
  for (const bool keep : {true, false}) {
    std::vector<std::string> budgeted = {"tokio runtime", "--as-of",   "2026-11-29", "--emit", "json",
                                         "--search",      "hn,github", "--timeout",  "20"};
    if (keep) budgeted.push_back("--store");
    auto b = run_last30days(budgeted, env, 40s);
    ASSERT_FALSE(b.timed_out);
    EXPECT_TRUE(has_items(b.out)) << (keep ? "--store: " : "budget only: ") << b.out.substr(0, 300) << b.err;
    EXPECT_EQ(b.exit_code, keep ? 1 : 0) << b.err;
    EXPECT_LT(b.elapsed, 12s) << "one share of the store, not two";
    const auto j = nlohmann::json::parse(b.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << b.out.substr(0, 300);
    EXPECT_EQ(j["source_status"]["github"]["state"], "rate-limited") << j["source_status"].dump();
    EXPECT_NE(j["source_status"]["github"]["reason"].get<std::string>().find("budget"), std::string::npos);
    EXPECT_EQ(j["source_status"]["hackernews"]["state"], "ok") << "an unbudgeted source runs";
    EXPECT_EQ(b.err.find("pw"), std::string::npos);
  }

  // An agent host's research with store: true is the same: the store's share, then the
  // research answers (not a tool error), saying it was not recorded.
  {
    env.erase("LAST30DAYS_BUDGET_GITHUB");
    McpChild mcp(env);
    ASSERT_TRUE(mcp.initialize()) << mcp.err();
    const auto asked = std::chrono::steady_clock::now();
    mcp.call("research",
             R"({"topic":"tokio runtime","as_of":"2026-11-29","sources":["hackernews"],"store":true,"timeout_seconds":20})");
    const auto line = mcp.reply(40s);
    ASSERT_TRUE(line) << mcp.err();
    const auto reply = nlohmann::json::parse(*line, nullptr, false);
    ASSERT_FALSE(reply.is_discarded()) << *line;
    EXPECT_LT(std::chrono::steady_clock::now() - asked, 12s) << "the store's share, not the 20 s call";
    EXPECT_EQ(reply["result"]["isError"], false) << line->substr(0, 400);
    const auto& sc = reply["result"]["structuredContent"];
    EXPECT_GT(sc["items"].size(), 0u) << "the research is the answer";
    EXPECT_NE(sc["warnings"].dump().find("not recorded"), std::string::npos) << sc["warnings"].dump();
    EXPECT_EQ(line->find("pw@"), std::string::npos) << "the URL's password is never sent to the host";
    mcp.close_stdin();
    EXPECT_EQ(mcp.wait(5s), 0);
  }
  ::close(listener2);
}

// Item 23: what the server says on the side (a WARNING raised by a trigger here) reaches
// stderr as the product's own warning line, never libpq's bare "WARNING:  ...".
TEST(StoreHardening, ServerNoticesAreTheProductsWarnings) {
  auto& pg = PgCluster::shared();
  const auto name = pg.fresh_database();
  Scenario s;
  auto env = s.env();
  env["LAST30DAYS_STORE_URL"] = pg.url(name);
  ASSERT_EQ(run_last30days({"watch", "list"}, env).exit_code, 0);  // the schema
  pg.query(name,
           "CREATE FUNCTION last30days.shout() RETURNS trigger LANGUAGE plpgsql AS "
           "$$ BEGIN RAISE WARNING 'disk quota nearly reached'; RETURN NEW; END $$; "
           "CREATE TRIGGER shout BEFORE INSERT ON last30days.runs FOR EACH ROW EXECUTE FUNCTION last30days.shout()");
  auto r = run_last30days(kResearch, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  bool said = false;
  for (const auto& line : lines_of(r.err)) {
    EXPECT_EQ(line.rfind("last30days", 0), 0u) << "an unprefixed line on stderr: " << line;
    said = said || line.find("disk quota nearly reached") != std::string::npos;
  }
  EXPECT_TRUE(said) << r.err;
  EXPECT_EQ(r.err.find(pg.password()), std::string::npos);
}
