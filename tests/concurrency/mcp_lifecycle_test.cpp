// `last30days mcp` as a process: stdin closing with calls in flight, cancellation
// reaching the transfers, and hostile input that must not kill the server.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "child.hpp"
#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

bool about(const FakeRequest& r, const char* word) {
  for (const char* p : {"q", "query", "search_query"})
    if (r.param(p).find(word) != std::string::npos) return true;
  return false;
}

std::optional<FakeReply> hang_everything_about_hangs(const FakeRequest& r) {
  if (about(r, "hangs")) return FakeReply::hang();
  return std::nullopt;
}

std::string line(const json& j) { return j.dump() + "\n"; }

json initialize(int id = 1, const char* version = "2025-06-18") {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", "initialize"},
          {"params", {{"protocolVersion", version}, {"capabilities", json::object()}, {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}};
}

json call(json id, const char* tool, json arguments) {
  return {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"method", "tools/call"},
          {"params", {{"name", tool}, {"arguments", std::move(arguments)}}}};
}

bool wait_for(const std::function<bool()>& cond, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

}  // namespace

TEST(McpLifecycle, StdinClosingWithCallsInFlightCancelsThemAndExits) {
  Scenario s(hang_everything_about_hangs);
  Child server({L30_BINARY, "mcp"}, s.env());
  server.write(line(initialize()));
  ASSERT_TRUE(server.read_line(10s));
  const json sources = {"hackernews", "github", "stackexchange", "polymarket"};
  server.write(line(call(2, "research", {{"topic", "hangs forever"}, {"sources", sources}})));
  server.write(line(call(3, "discover", {{"budget_seconds", 60}})));
  server.write(line(call("r4", "research", {{"topic", "hangs again"}, {"sources", sources}})));
  ASSERT_TRUE(wait_for([&] { return s.fake().open_hung() >= 8; }, 10s)) << "open hung: " << s.fake().open_hung();
  const auto t0 = std::chrono::steady_clock::now();
  server.close_stdin();
  const auto code = server.wait(5s);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  ASSERT_TRUE(code.has_value()) << "the server must exit when stdin closes\n" << server.err();
  EXPECT_EQ(*code, 0) << server.err();
  EXPECT_LT(took.count(), 1500) << "cancelled calls must not hold the exit";
  std::cerr << "[measure] exit " << took.count() << " ms after stdin closed with 3 calls in flight\n";
  EXPECT_EQ(server.out_rest(), "") << "no result for a call cancelled by the shutdown";
  // The process is gone, so its sockets are closed; the fake notices on its next poll.
  EXPECT_TRUE(wait_for([&] { return s.fake().open_hung() == 0; }, 1000ms)) << "open hung: " << s.fake().open_hung();
  for (const auto& e : s.fake().log())
    if (e.hung) {
      EXPECT_TRUE(e.closed_by_client) << e.request.target;
      EXPECT_LE(std::chrono::duration_cast<std::chrono::milliseconds>(e.ended - t0).count(), 1000) << e.request.target;
    }
}

TEST(McpLifecycle, CancelledNotificationAbortsTransfersAndSuppressesTheResult) {
  Scenario s(hang_everything_about_hangs);
  Child server({L30_BINARY, "mcp"}, s.env());
  server.write(line(initialize()));
  ASSERT_TRUE(server.read_line(10s));
  server.write(line(call(7, "research", {{"topic", "hangs forever"}, {"sources", {"hackernews", "github"}}})));
  ASSERT_TRUE(wait_for([&] { return s.fake().open_hung() >= 2; }, 10s));
  const auto t0 = std::chrono::steady_clock::now();
  server.write(line({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 7}, {"reason", "x"}}}}));
  ASSERT_TRUE(wait_for([&] { return s.fake().open_hung() == 0; }, 1000ms)) << "transfers must be aborted within a second";
  std::cerr << "[measure] sockets closed "
            << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count()
            << " ms after the cancel\n";
  // The next answer is the ping's: nothing was sent for id 7.
  server.write(line({{"jsonrpc", "2.0"}, {"id", 8}, {"method", "ping"}}));
  auto next = server.read_line(5s);
  ASSERT_TRUE(next);
  EXPECT_EQ(json::parse(*next)["id"], 8) << *next;
  server.close_stdin();
  EXPECT_EQ(server.wait(5s), 0);
  EXPECT_EQ(server.out_rest(), "");
}

TEST(McpLifecycle, HostileInputNeverKillsTheServer) {
  Scenario s;
  Child server({L30_BINARY, "mcp"}, s.env());
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  const std::vector<std::string> hostile = {
      "\xff\xfe\x00garbage", "{", "[]", "null", "42", "\"str\"", deep, std::string(9u << 20, 'x'),
      R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})", R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})",
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"research","arguments":{"topic":"x"}}})",  // before initialize
      R"({"jsonrpc":"2.0","id":3,"method":"initialize","params":{}})",
      R"({"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})",
      R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"research","arguments":[1,2]}})",
      R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"research","arguments":{"topic":"x","days":1e300}}})",
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"research","arguments":{"topic":"x","sources":"hn"}}})",
      R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"discover","arguments":{"budget_seconds":-1}}})",
      R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"research","arguments":{"topic":")" + std::string(301, 'a') + R"("}}})",
      R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"research","arguments":{"topic":"x\u0000y","as_of":"2026-02-30"}}})",
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":1}}})",
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":[]})",
      R"({"jsonrpc":"2.0","id":11,"result":{}})",
  };
  for (const auto& h : hostile) server.write(h + "\n");
  server.write(R"({"jsonrpc":"2.0","id":"last","method":"ping"})" "\n");
  std::vector<json> answers;
  for (;;) {
    auto l = server.read_line(10s);
    ASSERT_TRUE(l) << "the server stopped answering; stderr:\n" << server.err();
    auto j = json::parse(*l, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "stdout carries only JSON-RPC: " << *l;
    EXPECT_EQ(j["jsonrpc"], "2.0");
    answers.push_back(j);
    if (j["id"] == "last") break;
  }
  std::map<json, json> by_id;
  int anonymous = 0;
  for (const auto& a : answers) a["id"].is_null() ? ++anonymous : (by_id[a["id"]] = a, 0);
  EXPECT_GE(anonymous, 9) << "parse errors and invalid requests are answered with id null";
  EXPECT_EQ(by_id[2]["error"]["code"], -32600) << "tools/call before initialize";
  EXPECT_EQ(by_id[3]["error"]["code"], -32602);
  EXPECT_EQ(by_id[4]["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(by_id[5]["error"]["code"], -32602);
  for (int id : {6, 7, 8, 9, 10}) {
    EXPECT_EQ(by_id[id]["result"]["isError"], true) << id << ": " << by_id[id].dump();
    EXPECT_FALSE(by_id[id]["result"]["content"][0]["text"].get<std::string>().empty());
  }
  EXPECT_FALSE(by_id.count(11)) << "a response from the client is not answered";
  server.close_stdin();
  EXPECT_EQ(server.wait(5s), 0) << server.err();
}
