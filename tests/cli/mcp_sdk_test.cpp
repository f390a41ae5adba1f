// `last30days mcp` driven by a client nobody here wrote: the official MCP TypeScript
// SDK (tests/mcp/e2e.mjs, `npm ci` by scripts/deps.sh). This driver runs the fake
// upstreams, hands node a host config pointing at them, and checks afterwards what
// the fake saw of the cancelled call.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::string kNodeDir = std::string(L30_FIXTURE_DIR) + "/../mcp";

bool about(const FakeRequest& r, const char* word) {
  for (const char* p : {"q", "query", "search_query"})
    if (r.param(p).find(word) != std::string::npos) return true;
  return false;
}

json server_entry(const std::map<std::string, std::string>& env) {
  json e = json::object();
  for (const auto& [k, v] : env)
    if (!v.empty()) e[k] = v;
  return {{"command", L30_BINARY}, {"args", {"mcp"}}, {"env", e}};
}

}  // namespace

TEST(McpSdk, OfficialClientListsCallsCancelsAndValidates) {
  ASSERT_TRUE(std::filesystem::exists(kNodeDir + "/node_modules/@modelcontextprotocol/sdk/package.json"))
      << "the MCP SDK is not installed: run scripts/deps.sh (npm ci in tests/mcp)";
  Scenario* self = nullptr;
  // Answers about "slow" are held until node releases them (after the fast call's answer
  // arrived), so "two calls at once" proves concurrency without a timing margin.
  auto release_slow = std::make_shared<std::atomic<bool>>(false);
  Scenario research([&self, release_slow](const FakeRequest& r) -> std::optional<FakeReply> {
    if (r.path == "/__release") {
      release_slow->store(true);
      return FakeReply::json("{}");
    }
    if (r.path == "/__control") {
      int slow_held = 0;  // slow answers held, their connection still open
      for (const auto& e : self->fake().log())
        slow_held += about(e.request, "slow") && !e.answered && !e.closed_by_client ? 1 : 0;
      return FakeReply::json(
          json{{"open_hung", self->fake().open_hung()}, {"closed_hung", self->fake().closed_hung()}, {"slow_held", slow_held}}
              .dump());
    }
    if (about(r, "hangs")) return FakeReply::hang();
    return std::nullopt;
  });
  self = &research;
  research.set_shaper([release_slow](const FakeRequest& r, FakeReply& reply) {
    if (about(r, "slow")) reply.release = release_slow;
  });
  Scenario discovery(nullptr, World::discovery);
  // Every search hangs, so each enrichment sub-run lasts as long as the budget allows:
  // under the old default budget (240 s) this discovery outlived the SDK's 60 s.
  Scenario slow_discovery(
      [](const FakeRequest& r) -> std::optional<FakeReply> {
        for (const char* p : {"q", "query", "search_query"})
          if (!r.param(p).empty()) return FakeReply::hang();
        return std::nullopt;
      },
      World::discovery);

  TempDir dir;
  auto research_env = research.env();
  research_env["LAST30DAYS_STORE_PATH"] = dir.path() + "/research.db";  // store: true, then library_search
  const std::string config_path = dir.path() + "/claude_desktop_config.json";
  std::ofstream(config_path) << json{{"mcpServers",
                                      {{"last30days", server_entry(research_env)},
                                       {"last30days-discovery", server_entry(discovery.env())},
                                       {"last30days-slow-discovery", server_entry(slow_discovery.env())}}}}
                                    .dump(2);
  const auto t0 = std::chrono::steady_clock::now();
  auto r =
      run_binary({"/usr/bin/env", "node", kNodeDir + "/e2e.mjs"},
                 {{"L30_MCP_CONFIG", config_path}, {"L30_FAKE_BASE", research.fake().base()}, {"L30_BIN", L30_BINARY}}, 240s);
  std::cerr << "---- transcript (" << r.elapsed.count() << " ms)\n" << r.out << "---- node stderr\n" << r.err << "----\n";
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("ALL OK"), std::string::npos);

  // The cancel reached the transfers: every hung connection was closed by the client
  // within a second of the cancel (node's wall clock -> our steady clock).
  long long cancel_at = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("EVENT ", 0) == 0 && json::parse(line.substr(6)).contains("cancel_at"))
      cancel_at = json::parse(line.substr(6)).value("cancel_at", 0LL);
  ASSERT_GT(cancel_at, 0);
  const auto wall_now = std::chrono::system_clock::now();
  const auto steady_now = std::chrono::steady_clock::now();
  const auto cancel_steady =
      steady_now - (wall_now - std::chrono::system_clock::time_point(std::chrono::milliseconds(cancel_at)));
  int hung = 0;
  for (const auto& e : research.fake().log()) {
    if (!e.hung) continue;
    ++hung;
    EXPECT_TRUE(e.closed_by_client) << e.request.target;
    const auto after = std::chrono::duration_cast<std::chrono::milliseconds>(e.ended - cancel_steady).count();
    EXPECT_LE(after, 1000) << e.request.target << " closed " << after << " ms after the cancel";
    std::cerr << "[measure] hung " << e.request.path << " closed " << after << " ms after the cancel\n";
  }
  EXPECT_GE(hung, 4);
  (void)t0;
}
