// Flags and numbers at the command line: decimal only, presence not truthiness, positional
// words are topics, doctor takes nothing it would ignore, and numbers from the environment
// are capped like the flags they stand for.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>

#include "core/time.hpp"
#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

TEST(FlagsCli, UsageErrorsBeforeAnyRequest) {
  Scenario s;
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      // Decimal only: 010 was 8 days (octal), 0x10 was 16.
      {{"x", "--days", "010"}, "--days"},
      {{"x", "--days", "0x10"}, "--days"},
      {{"x", "--days", "0b11"}, "--days"},
      {{"x", "--days", "+5"}, "--days"},
      {{"x", "--days", "1e1"}, "--days"},
      {{"--discover", "--enrich-workers", "03"}, "--enrich-workers"},
      {{"--discover", "--enrich-workers", "0x3"}, "--enrich-workers"},
      {{"x", "--timeout", "0x10"}, "--timeout"},
      {{"x", "--timeout", "inf"}, "--timeout"},
      {{"x", "--timeout", "nan"}, "--timeout"},
      {{"x", "--timeout", "1e300"}, "--timeout"},
      {{"--discover", "--enrich-budget", "0x10"}, "--enrich-budget"},
      // Presence, not truthiness: an empty value is a mistake, not the default.
      {{"x", "--emit", ""}, "--emit"},
      {{"x", "--search", ""}, "--search"},
      {{"x", "--output", ""}, "--output"},
      {{"x", "--save-dir", ""}, "--save-dir"},
      {{"--discover="}, "--discover="},
      // A word after a bare --discover is a topic, never the domain.
      {{"--discover", "rust"}, "--discover=DOMAIN"},
      {{"--discover", "some", "topic"}, "--discover=DOMAIN"},
      // doctor probes every source: it takes no words and nothing it would ignore.
      {{"doctor", "now"}, "doctor takes no arguments"},
      {{"doctor", "--discover"}, "--discover"},
      {{"doctor", "--discover=ai"}, "--discover"},
      {{"doctor", "--nominate-only"}, "--nominate-only"},
      {{"doctor", "--enrich-budget", "5"}, "--enrich-budget"},
      {{"doctor", "--plan", "{}"}, "--plan"},
      {{"doctor", "--days", "7"}, "--days"},
      // The topic limit counts characters.
      {{std::string(301, 'a')}, "300 characters"},
  };
  for (const auto& c : cases) {
    auto r = s.run(c.args, 20s);
    std::string line;
    for (const auto& a : c.args) line += "'" + a.substr(0, 20) + "' ";
    EXPECT_EQ(r.exit_code, 2) << line << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << line << "should say '" << c.says << "': " << r.err;
    EXPECT_TRUE(r.out.empty()) << line;
  }
  EXPECT_EQ(s.fake().log().size(), 0u) << "every usage error comes before any request";
}

TEST(FlagsCli, DecimalsAndLongCharacterTopicsStillWork) {
  Scenario s;
  auto r =
      s.run({"tokio runtime", "--as-of", "2026-11-29", "--days", "10", "--timeout", "20.5", "--search", "hn", "--emit", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["window"]["days"], 10);
  // 300 characters of two bytes each: within the limit, though 600 bytes.
  std::string wide;
  for (int i = 0; i < 300; ++i) wide += "é";
  auto w = s.run({wide, "--as-of", "2026-11-29", "--search", "hn", "--emit", "json"});
  EXPECT_EQ(w.exit_code, 0) << w.err;
}

TEST(FlagsCli, TheEnrichmentBudgetKnobIsCappedLikeTheFlag) {
  Scenario s;
  TempDir dir;
  const auto now = core::now_unix();
  const json bundle = {{"kind", "discovery-nominations"},
                       {"bundle_id", "b-knob"},
                       {"tier", "deep"},
                       {"window", {{"from", core::format_date(now - 7 * 86400)}, {"to", core::format_date(now)}, {"days", 7}}},
                       {"scoring_clock", now},
                       {"created_unix", now},
                       {"sources", {"hackernews"}},
                       {"nominations", json::array()}};
  std::ofstream(dir.path() + "/discover-nominations.json") << bundle.dump();
  std::ofstream(dir.path() + "/j.json") << R"({"bundle_id":"b-knob","judgments":[]})";
  for (const char* huge : {"1e10", "1e300"}) {
    auto env = s.env();
    env["LAST30DAYS_ENRICH_BUDGET_SECONDS"] = huge;
    auto r = run_last30days({"--discover", "--judgments", dir.path() + "/j.json", "--save-dir", dir.path(), "--emit", "json"},
                            env, 20s);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["enrichment"]["budget_seconds"], 3600) << huge;
    EXPECT_NE(r.err.find("LAST30DAYS_ENRICH_BUDGET_SECONDS"), std::string::npos) << "and says so: " << r.err;
  }
}
