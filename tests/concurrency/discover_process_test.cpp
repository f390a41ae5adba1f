// The enrichment budget contract at the process level: the real binary, a fake
// upstream on 127.0.0.1, and a stopwatch on the exit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <regex>

#include "core/text.hpp"
#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// Every search for the quantum story, on any platform, accepts and never answers.
std::optional<FakeReply> hang_quantum(const FakeRequest& r) {
  for (const char* p : {"query", "q", "search_query"})
    if (core::casefold(r.param(p)).find("quantum") != std::string::npos) return FakeReply::hang();
  return std::nullopt;
}

// The quantum story's topic, which must be reported from its nomination alone.
json exhausted_quantum_topic(const json& report) {
  json quantum;
  for (const auto& t : report["results"])
    if (core::casefold(t["name"].get<std::string>()).find("quantum") != std::string::npos) quantum = t;
  if (quantum.is_null()) return quantum;
  EXPECT_EQ(quantum["enrichment"]["status"], "nomination-only");
  EXPECT_EQ(quantum["enrichment"]["error"], "enrichment budget exhausted");
  return quantum;
}

bool is_topic_search(const FakeRequest& r) { return r.path == "/hn/api/v1/search" && !r.param("query").empty(); }

}  // namespace

TEST(DiscoverProcess, HungTopicCannotDelayTheExitPastTheBudget) {
  Scenario s(hang_quantum, World::discovery);
  constexpr long kBudgetMs = 3000;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = s.run({"--discover", "--enrich-budget", "3", "--emit", "json"}, 30s);
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  const long nomination_ms = j["nomination_ms"];
  EXPECT_LE(r.elapsed.count(), nomination_ms + kBudgetMs + 1000)
      << "exit must come within nomination time + budget + 1 s (nomination took " << nomination_ms << " ms)";
  std::cerr << "[measure] elapsed " << r.elapsed.count() << " ms, nomination " << nomination_ms << " ms, overrun "
            << r.elapsed.count() - nomination_ms - kBudgetMs << " ms past the budget\n";

  const json quantum = exhausted_quantum_topic(j);
  ASSERT_FALSE(quantum.is_null()) << r.out;
  EXPECT_NE(r.err.find("\"" + quantum["name"].get<std::string>() + "\""), std::string::npos)
      << "one stderr line names the topic: " << r.err;

  // Cancelled, not abandoned: the fake saw each hung connection closed at the deadline.
  int hung = 0;
  for (const auto& e : s.fake().log()) {
    if (!e.hung) continue;
    ++hung;
    EXPECT_TRUE(e.closed_by_client) << e.request.target;
    const long closed_at = static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(e.ended - t0).count());
    EXPECT_LE(closed_at, nomination_ms + kBudgetMs + 600) << e.request.target;
  }
  EXPECT_GT(hung, 0);
}

// Issue 22 item 0: the hung topic's sub-run ends at the budget's instant, the same instant
// the batch stops waiting; in 2 of 5 runs it used to be reported "enriched". Run the race
// again and again: the topic is nomination-only every time, and each exit is on time.
TEST(DiscoverProcess, AHungTopicIsNeverReportedEnrichedWhicheverThreadWinsTheRace) {
  Scenario s(hang_quantum, World::discovery);
  constexpr long kBudgetMs = 1500;
  constexpr int kRuns = 6;
  for (int run = 0; run < kRuns; ++run) {
    auto r = s.run({"--discover", "--enrich-budget", "1.5", "--emit", "json"}, 30s);
    ASSERT_FALSE(r.timed_out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = json::parse(r.out);
    const long nomination_ms = j["nomination_ms"];
    EXPECT_LE(r.elapsed.count(), nomination_ms + kBudgetMs + 1000) << "run " << run;
    const json quantum = exhausted_quantum_topic(j);
    ASSERT_FALSE(quantum.is_null()) << "run " << run << ": " << r.out;
    EXPECT_TRUE(quantum["enrichment"]["error"].is_string()) << "run " << run;
  }
}

TEST(DiscoverProcess, PeakConcurrentSubRunsAtTheFakeNeverExceedMaxWorkers) {
  Scenario s(nullptr, World::discovery);
  // Slow topic searches, so that sub-runs overlap whenever the cap allows it.
  s.set_shaper([](const FakeRequest& r, FakeReply& reply) {
    if (is_topic_search(r)) reply.delay = 300ms;
  });
  auto r = s.run({"--discover", "--search", "hn", "--enrich-workers", "2", "--enrich-budget", "30", "--emit", "json"}, 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["enrichment"]["max_workers"], 2);
  // With Hacker News only, a sub-run has one search in flight at a time, so open
  // searches at the fake are sub-runs in flight.
  std::vector<std::pair<std::chrono::steady_clock::time_point, int>> events;
  int searches = 0;
  for (const auto& e : s.fake().log()) {
    if (!is_topic_search(e.request)) continue;
    ++searches;
    events.emplace_back(e.received, +1);
    events.emplace_back(e.ended, -1);
  }
  std::sort(events.begin(), events.end());  // a close sorts before an open at the same instant
  int open = 0, peak = 0;
  for (const auto& [when, delta] : events) peak = std::max(peak, open += delta);
  EXPECT_GE(searches, 6) << "six topics were enriched";
  EXPECT_LE(peak, 2) << "never more than --enrich-workers sub-runs in flight";
  EXPECT_EQ(peak, 2) << "and the cap is reached when the work allows it";
}

TEST(DiscoverProcess, SubRunsWriteNothing) {
  Scenario s(nullptr, World::discovery);
  TempDir cwd, tmp, cassette;
  auto env = s.env();
  env["TMPDIR"] = tmp.path();
  SpawnOptions opts;
  opts.cwd = cwd.path();
  opts.watchdog = 60s;
  auto r = run_last30days(
      {"--discover", "--enrich-budget", "20", "--search", "hn,lobsters,github,polymarket", "--record", cassette.path()}, env,
      opts);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("enriched"), std::string::npos) << r.out;
  EXPECT_TRUE(s.home().files().empty()) << "HOME and XDG dirs must stay empty";
  EXPECT_TRUE(cwd.files().empty()) << "the working directory must stay empty";
  EXPECT_TRUE(tmp.files().empty()) << "TMPDIR must stay empty";
  // --record holds the recording and nothing else: run.json and one complete entry per
  // exchange (sub-runs' included), no temp files or anything a sub-run left behind.
  int entries = 0;
  for (const auto& f : cassette.files()) {
    if (f == "run.json") continue;
    ++entries;
    EXPECT_TRUE(std::regex_match(f, std::regex("[0-9a-f]{16}-[0-9]+\\.json"))) << f << " is not a cassette entry";
    std::ifstream in(cassette.path() + "/" + f);
    EXPECT_FALSE(json::parse(in, nullptr, false).is_discarded()) << f << " is a complete entry";
  }
  EXPECT_GT(entries, 6) << "listings and sub-runs were recorded";
  EXPECT_EQ(entries, static_cast<int>(s.fake().log().size())) << "one entry per exchange, nothing more";
}

// The abandonment path of the real program: the test build (program::TestSeams) makes the
// quantum topic's sub-run block inside the shared HTTP client on a request with no deadline
// and no stop token. The process must still answer within the budget, report the topic as
// nomination-only, say a sub-run was abandoned, and exit cleanly with the straggler alive
// (no crash, no hang, no sanitizer report under the sanitizer builds).
TEST(DiscoverProcess, ASubRunThatIgnoresCancellationIsAbandonedAndTheExitStaysClean) {
  Scenario s(
      [](const FakeRequest& r) -> std::optional<FakeReply> {
        if (r.param("query") == "stubborn-straggler") return FakeReply::hang();
        return std::nullopt;
      },
      World::discovery);
  constexpr long kBudgetMs = 2000;
  auto r = run_binary({L30_STUBBORN_BINARY, "--discover", "--search", "hn,reddit,lobsters,github,polymarket", "--enrich-budget",
                       "2", "--emit", "json"},
                      s.env(), 30s);
  ASSERT_FALSE(r.timed_out) << "a straggler must not hold the exit";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  const long nomination_ms = j["nomination_ms"];
  EXPECT_LE(r.elapsed.count(), nomination_ms + kBudgetMs + 1000) << "nomination + budget + 1 s";
  const json quantum = exhausted_quantum_topic(j);
  ASSERT_FALSE(quantum.is_null()) << r.out;
  bool said = false;
  for (const auto& w : j["warnings"]) said = said || w.get<std::string>().find("abandoned") != std::string::npos;
  EXPECT_TRUE(said) << "the brief says a sub-run was abandoned: " << j["warnings"].dump();
  bool stuck = false;
  for (const auto& e : s.fake().log()) stuck = stuck || (e.hung && e.request.param("query") == "stubborn-straggler");
  EXPECT_TRUE(stuck) << "the straggler really was blocked inside the HTTP client";
  // Other topics were enriched by the same process: the straggler blocked only itself.
  int enriched = 0;
  for (const auto& t : j["results"]) enriched += t["enrichment"]["status"] == "enriched" ? 1 : 0;
  EXPECT_GE(enriched, 1) << r.out;
}
