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

// "latest", "news", "this week" ask for what the run does anyway: the platforms are asked for
// the subject (their searches hold every word, so "news" would empty them), the items are
// scored by it, and the brief keeps the topic as typed.
TEST(RankingCli, WordsThatAskForNewsAreNotPartOfTheSubject) {
  Scenario plain_run, news_run;
  const auto plain = run_json(plain_run, kArgs);
  auto args = kArgs;
  args[0] = "latest tokio runtime news this week";
  const auto news = run_json(news_run, args);
  EXPECT_EQ(news["topic"], "latest tokio runtime news this week");
  ASSERT_FALSE(news["plan"]["sub_queries"].empty());
  EXPECT_EQ(news["plan"]["sub_queries"][0]["query"], "tokio runtime");
  EXPECT_EQ(news["plan"]["sub_queries"], plain["plan"]["sub_queries"]);
  ASSERT_EQ(news["items"].size(), plain["items"].size());
  for (std::size_t i = 0; i < plain["items"].size(); ++i) {
    EXPECT_EQ(news["items"][i]["id"], plain["items"][i]["id"]);
    EXPECT_EQ(news["items"][i]["scores"], plain["items"][i]["scores"]);
  }
  EXPECT_EQ(news_run.requests_starting("/hn/api/v1/search"), plain_run.requests_starting("/hn/api/v1/search"));
}
