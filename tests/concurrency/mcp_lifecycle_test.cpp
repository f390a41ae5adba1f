// `last30days mcp` as a process: stdin closing with calls in flight, cancellation
// reaching the transfers, and hostile input that must not kill the server.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "child.hpp"
#include "scenario.hpp"
#include "spawn.hpp"

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
  return {{"jsonrpc", "2.0"},
          {"id", id},
          {"method", "initialize"},
          {"params",
           {{"protocolVersion", version}, {"capabilities", json::object()}, {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}};
}

json call(json id, const char* tool, json arguments) {
  return {{"jsonrpc", "2.0"},
          {"id", std::move(id)},
          {"method", "tools/call"},
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
  server.write(
      line({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 7}, {"reason", "x"}}}}));
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
      "\xff\xfe\x00garbage",
      "{",
      "[]",
      "null",
      "42",
      "\"str\"",
      deep,
      std::string(9u << 20, 'x'),
      R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})",
      R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})",
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"research","arguments":{"topic":"x"}}})",  // before
                                                                                                                   // initialize
      R"({"jsonrpc":"2.0","id":3,"method":"initialize","params":{}})",
      R"({"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})",
      R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"research","arguments":[1,2]}})",
      R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"research","arguments":{"topic":"x","days":1e300}}})",
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"research","arguments":{"topic":"x","sources":"hn"}}})",
      R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"discover","arguments":{"budget_seconds":-1}}})",
      R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"research","arguments":{"topic":")" +
          std::string(301, 'a') + R"("}}})",
      R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"research","arguments":{"topic":"x\u0000y","as_of":"2026-02-30"}}})",
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":1}}})",
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":[]})",
      R"({"jsonrpc":"2.0","id":11,"result":{}})",
  };
  for (const auto& h : hostile) server.write(h + "\n");
  server.write(R"({"jsonrpc":"2.0","id":"last","method":"ping"})"
               "\n");
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

namespace {

// A "PostgreSQL server" that never answers: the kernel completes the TCP handshake on
// the listening socket's backlog, so libpq connects and then waits for a reply forever.
class FrozenServer {
 public:
  FrozenServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("cannot listen on 127.0.0.1");
    port_ = ntohs(a.sin_port);
  }
  ~FrozenServer() { ::close(fd_); }
  std::string url() const { return "postgresql://l30@127.0.0.1:" + std::to_string(port_) + "/frozen?sslmode=disable"; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

std::vector<json> answers(const std::string& text) {
  std::vector<json> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    auto j = json::parse(text.substr(start, nl - start), nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
    start = nl + 1;
  }
  return out;
}

int threads_of(int pid) {
  const auto status = read_file("/proc/" + std::to_string(pid) + "/status");
  const auto at = status.find("Threads:");
  return at == std::string::npos ? -1 : std::stoi(status.substr(at + 8));
}

}  // namespace

// Issue 22 item 7: library_search ran on the stdin reader thread, so a store that does not
// answer stopped the whole server, and a cancelled call still got its result.
TEST(McpLifecycle, LibrarySearchOnAFrozenStoreNeitherBlocksTheServerNorAnswersOnceCancelled) {
  Scenario s;
  FrozenServer pg;
  auto env = s.env();
  env["LAST30DAYS_STORE_URL"] = pg.url();
  Child server({L30_BINARY, "mcp"}, env);
  server.write(line(initialize()));
  ASSERT_TRUE(server.read_line(10s));
  server.write(line(call(2, "library_search", {{"query", "tokio"}})));
  const auto t0 = std::chrono::steady_clock::now();
  server.write(line({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "ping"}}));
  auto pong = server.read_line(3s);
  ASSERT_TRUE(pong) << "a ping must be answered while library_search waits for the store";
  EXPECT_EQ(json::parse(*pong)["id"], 3) << *pong;
  std::cerr << "[measure] ping answered "
            << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count()
            << " ms after a library_search on a frozen store\n";
  server.write(line({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 2}}}}));
  server.write(line({{"jsonrpc", "2.0"}, {"id", 4}, {"method", "ping"}}));
  auto next = server.read_line(3s);
  ASSERT_TRUE(next);
  EXPECT_EQ(json::parse(*next)["id"], 4) << *next;
  server.close_stdin();
  const auto code = server.wait(6s);
  ASSERT_TRUE(code.has_value()) << "the server exits on stdin close, abandoning the stuck call\n" << server.err();
  for (const auto& a : answers(server.out_rest())) EXPECT_NE(a["id"], 2) << "a cancelled call gets no result: " << a.dump();
}

// Issue 22 item 8: every queued call was an OS thread (one 1.4 MB batch made 10,006).
// Calls now wait as data for a pool of kMaxConcurrentCalls threads; past kMaxQueuedCalls
// waiting, a call is refused at once with code -32000.
TEST(McpLifecycle, QueuedCallsAreDataOnABoundedPoolAndPastTheBoundAreRefused) {
  Scenario s(hang_everything_about_hangs);
  Child server({L30_BINARY, "mcp"}, s.env());
  server.write(line(initialize(1, "2025-03-26")));
  ASSERT_TRUE(server.read_line(10s));
  json batch = json::array();
  for (int i = 0; i < 10000; ++i) batch.push_back(call(100 + i, "research", {{"topic", "hangs"}, {"sources", {"hackernews"}}}));
  const std::string text = line(batch);
  ASSERT_GT(text.size(), 1000000u);
  server.write(text);
  ASSERT_TRUE(wait_for([&] { return s.fake().open_hung() >= 4; }, 10s)) << "open hung: " << s.fake().open_hung();
  std::this_thread::sleep_for(1s);  // the whole line has been read by now
  const int threads = threads_of(server.pid());
  std::cerr << "[measure] " << threads << " threads with a batch of 10000 calls in flight\n";
  EXPECT_GT(threads, 0);
  EXPECT_LT(threads, 40) << "a queued call is data, not a thread";
  EXPECT_EQ(s.fake().open_hung(), 4) << "at most 4 calls run at once";
  // Single calls past the bound are refused at once; a ping is still answered.
  server.write(line(call("over", "research", {{"topic", "hangs"}, {"sources", {"hackernews"}}})));
  auto refused = server.read_line(3s);
  ASSERT_TRUE(refused) << "a call past the queue bound is refused at once";
  const auto r = json::parse(*refused);
  EXPECT_EQ(r["id"], "over") << *refused;
  EXPECT_EQ(r["error"]["code"], -32000) << *refused;
  EXPECT_NE(r["error"]["message"].get<std::string>().find("busy"), std::string::npos) << *refused;
  server.write(line({{"jsonrpc", "2.0"}, {"id", "p"}, {"method", "ping"}}));
  auto pong = server.read_line(3s);
  ASSERT_TRUE(pong);
  EXPECT_EQ(json::parse(*pong)["id"], "p");
  server.close_stdin();
  EXPECT_EQ(server.wait(6s), 0) << server.err();
}

// Issue 22 item 18: a request reusing the id of a call in flight got its own answer, so
// the client saw two responses for one id. It is refused with id null.
TEST(McpLifecycle, ARequestReusingAnInFlightIdIsRefusedWithoutASecondResponseForIt) {
  Scenario s(hang_everything_about_hangs);
  Child server({L30_BINARY, "mcp"}, s.env());
  server.write(line(initialize()));
  ASSERT_TRUE(server.read_line(10s));
  server.write(line(call(5, "research", {{"topic", "hangs forever"}, {"sources", {"hackernews"}}})));
  ASSERT_TRUE(wait_for([&] { return s.fake().open_hung() >= 1; }, 10s));
  for (const char* method : {"ping", "tools/list"}) {
    server.write(line({{"jsonrpc", "2.0"}, {"id", 5}, {"method", method}}));
    auto l = server.read_line(3s);
    ASSERT_TRUE(l) << method;
    const auto j = json::parse(*l);
    EXPECT_TRUE(j["id"].is_null()) << "refused without answering id 5: " << *l;
    EXPECT_EQ(j["error"]["code"], -32600) << *l;
    EXPECT_NE(j["error"]["message"].get<std::string>().find("already in use"), std::string::npos) << *l;
  }
  server.write(line(call(5, "research", {{"topic", "x"}})));
  auto dup = server.read_line(3s);
  ASSERT_TRUE(dup);
  EXPECT_TRUE(json::parse(*dup)["id"].is_null()) << *dup;
  server.write(line({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 5}}}}));
  server.close_stdin();
  EXPECT_EQ(server.wait(6s), 0);
  for (const auto& a : answers(server.out_rest())) EXPECT_NE(a["id"], 5) << a.dump();
}
