// No wasted wall time: a source's independent requests go together, politeness still holds.
// Loose by design (speed goals live in bench/latency_bench.cpp): the bounds below are what
// one-after-another sending cannot reach at all, with hundreds of milliseconds to spare.
#include <gtest/gtest.h>

#include <algorithm>

#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;

namespace {

const std::string kThreeSubQueries = R"({"sub_queries":["tokio","tokio runtime","async rust"]})";

std::vector<std::chrono::steady_clock::time_point> received_under(Scenario& s, const std::string& prefix) {
  std::vector<std::chrono::steady_clock::time_point> at;
  for (const auto& e : s.fake().log())
    if (e.request.path.rfind(prefix, 0) == 0) at.push_back(e.received);
  std::sort(at.begin(), at.end());
  return at;
}

}  // namespace

TEST(LatencyCli, ASourcesSearchesGoTogetherNotOneAfterAnother) {
  Scenario s;
  s.set_shaper([](const FakeRequest&, FakeReply& reply) { reply.delay = 300ms; });
  auto r =
      s.run({"tokio", "--as-of", "2026-11-29", "--search", "github,stackexchange", "--emit", "json", "--plan", kThreeSubQueries});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto gh = received_under(s, "/gh/search/");
  const auto se = received_under(s, "/se/2.3/search/");
  ASSERT_EQ(gh.size(), 4u) << "keyless: repositories for each sub-query, issues for the main one";
  ASSERT_EQ(se.size(), 3u);
  // Each source's searches reached the fake before its first answer (300 ms) could have come back.
  EXPECT_LT(gh.back() - gh.front(), 300ms);
  EXPECT_LT(se.back() - se.front(), 300ms);
  // One after another, GitHub alone takes 4 x 300 ms, and the answers (comments) one more.
  EXPECT_LT(r.elapsed, 5 * 300ms) << "took " << r.elapsed.count() << " ms";
}

// The three sub-queries travel in one reddit.com search (reddit's own OR), so there is no
// second paced request to wait for. (One request a second: CompareCli.RedditPacingIsSharedByTheEntities.)
TEST(LatencyCli, RedditsSubQueriesTravelInOneSearch) {
  Scenario s;
  auto r = s.run({"tokio", "--as-of", "2026-11-29", "--search", "reddit", "--emit", "json", "--plan", kThreeSubQueries});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> asked;
  for (const auto& e : s.fake().log())
    if (e.request.path.rfind("/reddit/", 0) == 0) asked.push_back(e.request.param("q"));
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], "tokio OR (tokio runtime) OR (async rust)");
}
