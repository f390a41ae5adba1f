// The MCP server's protocol surface, line by line against the real binary: version
// negotiation, batches (2025-03-26 only), what each protocol version's results carry.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "child.hpp"
#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

class Session {
 public:
  explicit Session(Scenario& s) : child_({L30_BINARY, "mcp"}, s.env()) {}
  json ask(const json& message) {
    child_.write(message.dump() + "\n");
    return next();
  }
  json next() {
    auto l = child_.read_line(30s);
    EXPECT_TRUE(l) << child_.err();
    return l ? json::parse(*l) : json();
  }
  void send(const json& message) { child_.write(message.dump() + "\n"); }
  Child& child() { return child_; }

 private:
  Child child_;
};

json init(const std::string& version) {
  return {{"jsonrpc", "2.0"},
          {"id", 1},
          {"method", "initialize"},
          {"params",
           {{"protocolVersion", version}, {"capabilities", json::object()}, {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}};
}

json request(json id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"method", method}, {"params", std::move(params)}};
}

}  // namespace

TEST(McpProtocol, NegotiatesTheVersionAndShapesToolsForIt) {
  Scenario s;
  for (const auto& [asked, answered] : std::vector<std::pair<std::string, std::string>>{{"2025-06-18", "2025-06-18"},
                                                                                        {"2025-03-26", "2025-03-26"},
                                                                                        {"2024-11-05", "2025-06-18"},
                                                                                        {"2099-01-01", "2025-06-18"}}) {
    Session m(s);
    auto r = m.ask(init(asked));
    EXPECT_EQ(r["result"]["protocolVersion"], answered) << asked;
    EXPECT_EQ(r["result"]["serverInfo"]["name"], "last30days");
    EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
    m.send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    auto tools = m.ask(request(2, "tools/list"))["result"]["tools"];
    ASSERT_EQ(tools.size(), 5u);
    for (const auto& t : tools) EXPECT_EQ(t.contains("outputSchema"), answered == "2025-06-18") << t["name"];
    EXPECT_EQ(m.ask(init(asked))["error"]["code"], -32600) << "a second initialize is refused";
  }
}

TEST(McpProtocol, BatchesOnlyIn20250326) {
  Scenario s;
  {
    Session m(s);
    m.ask(init("2025-06-18"));
    auto r = m.ask(json::array({request(2, "ping"), request(3, "tools/list")}));
    EXPECT_EQ(r["error"]["code"], -32600);
  }
  Session m(s);
  m.ask(init("2025-03-26"));
  auto r = m.ask(json::array({request(2, "ping"),
                              {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                              request(3, "nope"),
                              request(4, "tools/call", {{"name", "research"}, {"arguments", {{"days", 3}}}})}));
  ASSERT_TRUE(r.is_array()) << r;
  ASSERT_EQ(r.size(), 3u) << "one answer per request, none for the notification: " << r;
  std::map<int, json> by_id;
  for (const auto& a : r) by_id[a["id"].get<int>()] = a;
  EXPECT_EQ(by_id[2]["result"], json::object());
  EXPECT_EQ(by_id[3]["error"]["code"], -32601);
  EXPECT_EQ(by_id[4]["result"]["isError"], true);
  // A batch with a tool run is answered when the run is done, as one array.
  auto slow = m.ask(
      json::array({request(5, "ping"),
                   request(6, "tools/call",
                           {{"name", "research"},
                            {"arguments", {{"topic", "tokio runtime"}, {"as_of", "2026-11-29"}, {"sources", {"github"}}}}})}));
  ASSERT_TRUE(slow.is_array() && slow.size() == 2u) << slow;
  for (const auto& a : slow)
    if (a["id"] == 6) {
      // 2025-03-26 has no structuredContent: the JSON also comes as a second text block.
      ASSERT_EQ(a["result"]["content"].size(), 2u);
      EXPECT_EQ(json::parse(a["result"]["content"][1]["text"].get<std::string>())["kind"], "research");
      EXPECT_EQ(a["result"]["structuredContent"]["kind"], "research");
    }
}

TEST(McpProtocol, StdoutCarriesOnlyProtocolAndSecretsAreRedacted) {
  Scenario s;
  auto env = s.env();
  env["GITHUB_TOKEN"] = "ghp_supersecretvalue123";
  Child child({L30_BINARY, "mcp"}, env);
  child.write(init("2025-06-18").dump() + "\n");
  ASSERT_TRUE(child.read_line(10s));
  child.write(
      request(2, "tools/call",
              {{"name", "research"},
               {"arguments",
                {{"topic", "ghp_supersecretvalue123 tokio"}, {"as_of", "2026-11-29"}, {"sources", {"github", "hackernews"}}}},
               {"_meta", {{"progressToken", "tok"}}}})
          .dump() +
      "\n");
  int progress = 0;
  for (;;) {
    auto l = child.read_line(30s);
    ASSERT_TRUE(l) << child.err();
    EXPECT_EQ(l->find("ghp_supersecretvalue123"), std::string::npos) << "a secret reached stdout: " << *l;
    auto j = json::parse(*l);
    if (j.contains("method")) {
      EXPECT_EQ(j["method"], "notifications/progress");
      EXPECT_EQ(j["params"]["progressToken"], "tok");
      EXPECT_EQ(j["params"]["total"], 2);
      ++progress;
      continue;
    }
    EXPECT_EQ(j["id"], 2);
    EXPECT_EQ(j["result"]["isError"], false);
    break;
  }
  EXPECT_EQ(progress, 2);
  child.close_stdin();
  EXPECT_EQ(child.wait(5s), 0);
}

// Issue 22 item 18: tool errors speak the tool's terms. `days: -3` was "not a decimal
// number", `as_of: 1969-12-31` "not a date", and a malformed comparison advised
// "--no-compare", a flag MCP does not have.
TEST(McpProtocol, ToolErrorsNameTheArgumentsNotTheFlags) {
  Scenario s;
  Session m(s);
  ASSERT_EQ(m.ask(init("2025-06-18"))["result"]["protocolVersion"], "2025-06-18");
  const auto error_of = [&](int id, const json& arguments) {
    const auto a = m.ask(request(id, "tools/call", {{"name", "research"}, {"arguments", arguments}}));
    EXPECT_EQ(a["result"]["isError"], true) << a;
    return a["result"]["content"][0]["text"].get<std::string>();
  };
  const auto days = error_of(2, {{"topic", "tokio"}, {"days", -3}});
  EXPECT_NE(days.find("\"days\" must be between 1 and 365"), std::string::npos) << days;
  EXPECT_EQ(days.find("decimal"), std::string::npos) << days;
  const auto as_of = error_of(3, {{"topic", "tokio"}, {"as_of", "1969-12-31"}});
  EXPECT_NE(as_of.find("from 1970-01-01"), std::string::npos) << as_of;
  EXPECT_EQ(as_of.find("is not a date"), std::string::npos) << as_of;
  for (const char* topic : {"Kramer vs. Kramer", "tokio vs ", "a vs b vs c vs d vs e vs f vs g"}) {
    const auto compare = error_of(4, {{"topic", topic}});
    EXPECT_EQ(compare.find("--"), std::string::npos) << "no CLI flag in a tool error: " << compare;
    EXPECT_NE(compare.find("\"no_compare\""), std::string::npos) << compare;
  }
  const auto plan = error_of(5, {{"topic", "tokio vs rayon"}, {"plan", {{"sub_queries", {{{"text", "tokio"}}}}}}});
  EXPECT_EQ(plan.find("--"), std::string::npos) << plan;
  EXPECT_NE(plan.find("plan describes one topic"), std::string::npos) << plan;
}
