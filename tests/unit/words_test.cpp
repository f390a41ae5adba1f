// The small words the briefs and the help are made of: plurals, the "more" line, the
// "not set up" line, what a state means, and how near a typo must be to be suggested.
#include <gtest/gtest.h>

#include "cli/help.hpp"
#include "render/render.hpp"

using model::SourceState;

TEST(Words, OneItemInOneStoryAndManyInMany) {
  EXPECT_EQ(render::count_phrase(1, 1), "1 item in 1 story");
  EXPECT_EQ(render::count_phrase(0, 0), "0 items in 0 stories");
  EXPECT_EQ(render::count_phrase(12, 3), "12 items in 3 stories");
  EXPECT_EQ(render::more_line(12, 12), "");
  EXPECT_EQ(render::more_line(13, 12), "1 more story (--limit 13 shows them all)");
  EXPECT_EQ(render::more_line(21, 12), "9 more stories (--limit 21 shows them all)");
}

TEST(Words, SourcesNotSetUpAreOneLineAndTheRestSayWhy) {
  std::map<std::string, model::SourceStatus> st;
  st["hackernews"].state = SourceState::ok;
  st["x"].state = SourceState::skipped_unconfigured;
  st["bluesky"].state = SourceState::skipped_unconfigured;
  st["github"].state = SourceState::timeout;
  st["polymarket"].state = SourceState::no_results;
  EXPECT_EQ(render::not_set_up_line(st), "not set up: bluesky, x \u2014 see `last30days doctor`");
  EXPECT_FALSE(render::needs_reason(st["hackernews"]));
  EXPECT_FALSE(render::needs_reason(st["x"]));
  EXPECT_TRUE(render::needs_reason(st["github"]));
  EXPECT_FALSE(render::needs_reason(st["polymarket"])) << "nothing found and nothing to say";
  st["polymarket"].reason = "X covers only the last 7 days";
  EXPECT_TRUE(render::needs_reason(st["polymarket"])) << "no-results with a reason says it";
  EXPECT_EQ(render::no_answer_line(st), "") << "hackernews answered";
  st["hackernews"].state = SourceState::rate_limited;
  st["polymarket"].state = SourceState::unreachable;
  EXPECT_EQ(render::no_answer_line(st),
            "No source answered: github timed out, hackernews refused (rate-limited), polymarket unreachable.");
  std::map<std::string, model::SourceStatus> none;
  none["x"].state = SourceState::skipped_unconfigured;
  EXPECT_NE(render::no_answer_line(none).find("none of the sources searched is set up"), std::string::npos);
}

TEST(Words, DidYouMeanOnlyForNearMisses) {
  const std::vector<std::string> flags = {"--days", "--deep", "--search", "--save", "--save-dir", "--emit"};
  EXPECT_EQ(cli::nearest("--dasy", flags), "--days") << "a transposition is one edit";
  EXPECT_EQ(cli::nearest("--serach", flags), "--search");
  EXPECT_EQ(cli::nearest("--DAYS", flags), "--days") << "case does not matter";
  EXPECT_EQ(cli::nearest("--save-d", flags), "--save-dir") << "a unique prefix";
  EXPECT_EQ(cli::nearest("--sa", flags), std::nullopt) << "too short to guess";
  EXPECT_EQ(cli::nearest("--zzzzzz", flags), std::nullopt);
  EXPECT_EQ(cli::nearest("GITHUB_TOKN", {"GITHUB_TOKEN", "X_BEARER_TOKEN"}), "GITHUB_TOKEN");
  // strict: a word meant as a topic is only flagged one edit away.
  EXPECT_EQ(cli::nearest("docker", {"doctor"}, true), std::nullopt);
  EXPECT_EQ(cli::nearest("doctr", {"doctor"}, true), "doctor");
}
