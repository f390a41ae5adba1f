// Ranking, end to end: the why line and the context labels in --emit json, and host-supplied
// synonyms in --plan (the labelled quality checks are eval/, the gate is eval.gate).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "scenario.hpp"

using namespace testing_support;
using nlohmann::json;

namespace {

const std::vector<std::string> kArgs = {"tokio runtime", "--as-of", "2026-11-29", "--days", "30", "--emit", "json"};

json run_json(Scenario& s, std::vector<std::string> args) {
  const auto r = s.run(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

}  // namespace

TEST(RankingCli, EveryItemSaysWhyAndCarriesItsLabels) {
  Scenario s;
  auto j = run_json(s, kArgs);
  ASSERT_FALSE(j["items"].empty());
  for (const auto& it : j["items"]) {
    ASSERT_TRUE(it.contains("why") && it["why"].is_string()) << it.dump();
    const std::string why = it["why"];
    EXPECT_FALSE(why.empty());
    EXPECT_TRUE(why.find("old") != std::string::npos || why.find("undated") != std::string::npos) << why;
    EXPECT_TRUE(it["scores"].contains("relevance") && it["scores"].contains("final")) << "scores stay";
    ASSERT_TRUE(it["tags"].is_array());
  }
  const auto se =
      std::find_if(j["items"].begin(), j["items"].end(), [](const json& it) { return it["source"] == "stackexchange"; });
  ASSERT_NE(se, j["items"].end());
  EXPECT_EQ((*se)["tags"], json::array({"rust", "rust-tokio"}));
  EXPECT_NE((*se)["why"].get<std::string>().find("phrase match in title"), std::string::npos) << (*se)["why"];
  EXPECT_TRUE(j["plan"]["synonyms"].is_object());
}

TEST(RankingCli, HostSynonymsAloneLetTheBuiltInPlannerAskWithThem) {
  Scenario s;
  auto args = kArgs;
  args.insert(args.end(), {"--plan", R"({"synonyms":{"tokio":["tokio-rs"]}})", "--search", "hn"});
  auto j = run_json(s, args);
  EXPECT_EQ(j["plan"]["from_host"], true);
  EXPECT_EQ(j["plan"]["synonyms"]["tokio"], json::array({"tokio-rs"}));
  std::vector<std::string> asked;
  for (const auto& q : j["plan"]["sub_queries"]) asked.push_back(q["query"]);
  ASSERT_GE(asked.size(), 2u);
  EXPECT_EQ(asked[0], "tokio runtime");
  EXPECT_EQ(asked[1], "tokio-rs runtime");
  EXPECT_EQ(s.requests_starting("/hn/api/v1/search"), static_cast<int>(asked.size()));
}

TEST(RankingCli, MalformedSynonymsExitTwoNamingThem) {
  Scenario s;
  for (const char* plan : {R"({"synonyms":{"tokio":[]}})", R"({"synonyms":["tokio"]})", R"({"synonyms":{"tokio":[7]}})"}) {
    auto args = kArgs;
    args.insert(args.end(), {"--plan", plan});
    const auto r = s.run(args);
    EXPECT_EQ(r.exit_code, 2) << plan;
    EXPECT_NE(r.err.find("synonyms"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  EXPECT_EQ(s.fake().log().size(), 0u) << "a bad plan stops the run before any request";
}
