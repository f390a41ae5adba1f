// Numbers from outside: seconds that become deadlines, the budget knob, character counts,
// and out-of-range numbers in an upstream answer.
#include <gtest/gtest.h>

#include <limits>

#include "core/deadline.hpp"
#include "core/text.hpp"
#include "discover/enrich.hpp"
#include "fixture_fetcher.hpp"
#include "sources/source.hpp"

using namespace testing_support;

TEST(Numbers, SecondsSaturateInsteadOfOverflowing) {
  EXPECT_EQ(core::millis_from_seconds(1.5), core::Millis(1500));
  EXPECT_EQ(core::millis_from_seconds(1e10), core::kMaxSpan);
  EXPECT_EQ(core::millis_from_seconds(1e300), core::kMaxSpan);  // the cast used to be undefined
  EXPECT_EQ(core::millis_from_seconds(std::numeric_limits<double>::infinity()), core::kMaxSpan);
  EXPECT_EQ(core::millis_from_seconds(std::numeric_limits<double>::quiet_NaN()), core::Millis(0));
  EXPECT_EQ(core::millis_from_seconds(-5), core::Millis(0));
  // A deadline too far to add to the clock is never, not a wrapped instant in the past.
  EXPECT_TRUE(core::Deadline::in(core::Millis::max()).is_never());
  EXPECT_FALSE(core::Deadline::in(core::Millis::max()).expired());
  EXPECT_FALSE(core::Deadline::in(core::kMaxSpan).expired());
  EXPECT_TRUE(core::Deadline::in(core::Millis(-10)).expired());
}

TEST(Numbers, TheBudgetKnobIsCappedLikeTheFlag) {
  EXPECT_EQ(discover::deep_tier("1e10").budget_seconds, discover::kMaxBudgetSeconds);
  EXPECT_EQ(discover::deep_tier("1e300").budget_seconds, discover::kMaxBudgetSeconds);
  EXPECT_EQ(discover::deep_tier("3600").budget_seconds, 3600);
  EXPECT_EQ(discover::deep_tier("600").budget_seconds, 600);
}

TEST(Numbers, LengthsCountCharactersNotBytes) {
  EXPECT_EQ(core::utf8_length("tokio"), 5u);
  EXPECT_EQ(core::utf8_length("héllo wörld"), 11u);
  EXPECT_EQ(core::utf8_length("日本語"), 3u);
}

// One out-of-range number drops its field, not the answer: through the real parsers.
TEST(Numbers, AnOverflowingNumberCostsOnlyItsField) {
  const char* hn = R"({"hits":[
   {"created_at":"2026-11-20T10:00:00.000Z","title":"Rust 2.0 announced","url":"https://blog.rust-lang.org/r2",
    "author":"a","points":1e400,"num_comments":411,"created_at_i":1795132800,"objectID":"46000001"},
   {"created_at":"2026-11-21T10:00:00.000Z","title":"Rust 2.0 \"1e400\" reactions","url":"https://example.org/r",
    "author":"b","points":12,"num_comments":-1e999,"created_at_i":1795219200,"objectID":"46000002"}
  ],"nbHits":99999999999999999999999999999999999999,"page":0})";
  FixtureFetcher f;
  f.on_body("/api/v1/search?", hn);
  TestEnv t(f);
  auto r = sources::find("hackernews")->search(make_query("rust 2.0", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, model::SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 2u);
  EXPECT_EQ(r.items[0].engagement_value("num_comments"), 411);
  EXPECT_EQ(r.items[0].engagement.size(), 1u) << "points dropped, the rest kept";
  EXPECT_EQ(r.items[1].title, "Rust 2.0 \"1e400\" reactions") << "text that looks like a number is untouched";
  EXPECT_EQ(r.items[1].engagement_value("points"), 12);

  const char* se = R"({"items":[{"tags":["rust"],"owner":{"display_name":"x"},"is_answered":true,
    "view_count":1E+400,"answer_count":2,"score":5,"creation_date":1795333500,"question_id":79990001,
    "link":"https://stackoverflow.com/questions/79990001/x","title":"Rust 2.0 migration"}],
    "has_more":false,"quota_max":300,"quota_remaining":299})";
  FixtureFetcher g;
  g.on_body("/2.3/search/advanced", se);
  TestEnv u(g);
  auto s = sources::find("stackexchange")->search(make_query("rust 2.0", "2026-11-01", "2026-11-29"), u.env);
  ASSERT_EQ(s.state, model::SourceState::ok) << s.reason;
  ASSERT_EQ(s.items.size(), 1u);
  EXPECT_EQ(s.items[0].engagement_value("view_count"), 0) << "the view count is absent";
  EXPECT_EQ(s.items[0].engagement_value("score"), 5);
}
