#include <gtest/gtest.h>

#include <fmt/format.h>

#include "fake_upstream.hpp"
#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "sources/source.hpp"

using namespace testing_support;
using model::SourceState;

namespace {

const sources::Source& hn() { return *sources::find("hackernews"); }

const char* kSearch = R"({"hits":[
 {"created_at":"2026-11-20T10:00:00.000Z","title":"Rust 2.0 announced","url":"https://blog.rust-lang.org/2026/11/20/rust-2.html",
  "author":"steveklabnik","points":812,"story_text":null,"num_comments":411,"created_at_i":1763632800,"objectID":"46000001",
  "_tags":["story","author_steveklabnik","story_46000001"]},
 {"created_at":"2026-11-21T10:00:00.000Z","title":"Ask HN: Is Rust 2.0 worth it?","url":null,"author":"jdoe",
  "points":"17","story_text":"<p>Thinking about &quot;migrating&quot;</p>","num_comments":null,"created_at_i":1763719200,"objectID":"46000002"},
 {"title":null,"objectID":"46000003"}
],"nbHits":2,"page":0,"nbPages":1,"hitsPerPage":25,"query":"rust 2.0","params":"query=rust+2.0"})";

}  // namespace

TEST(HackerNews, ParsesSearchHitsIntoItems) {
  FixtureFetcher f;
  f.on_body("/api/v1/search?", kSearch);
  TestEnv t(f);
  auto r = hn().search(make_query("rust 2.0", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 2u);  // the untitled hit is skipped
  const auto& a = r.items[0];
  EXPECT_EQ(a.id, "hackernews:46000001");
  EXPECT_EQ(a.url, "https://blog.rust-lang.org/2026/11/20/rust-2.html");
  EXPECT_EQ(a.discussion_url, "https://news.ycombinator.com/item?id=46000001");
  EXPECT_EQ(a.published_at, 1763632800);
  EXPECT_EQ(a.engagement_value("points"), 812);
  EXPECT_EQ(a.engagement_value("num_comments"), 411);
  const auto& b = r.items[1];
  EXPECT_EQ(b.url, "https://news.ycombinator.com/item?id=46000002");  // Ask HN: the thread is the item
  EXPECT_EQ(b.engagement_value("points"), 17);                           // numeric string
  EXPECT_EQ(b.engagement.size(), 1u);                                     // null comments are absent, not zero
  EXPECT_EQ(b.snippet, "Thinking about \"migrating\"");                 // self-post HTML decoded to text
}

TEST(HackerNews, BuildsTheRealQueryWithWindowFilters) {
  FixtureFetcher f;
  f.on_body("/api/v1/search?", kSearch);
  TestEnv t(f);
  hn().search(make_query("rust 2.0", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(f.urls().size(), 1u);
  const std::string url = f.urls()[0];
  EXPECT_NE(url.find("https://hn.algolia.com/api/v1/search?query=rust%202.0"), std::string::npos) << url;
  EXPECT_NE(url.find("tags=story"), std::string::npos);
  EXPECT_NE(url.find("numericFilters=created_at_i%3E"), std::string::npos);
}

TEST(HackerNews, RealRecordedSearchParses) {
  FixtureFetcher f;
  f.on_body("/search", fixture("real/hackernews/search_url_medium_shazow_ssh_2020.json"));
  TestEnv t(f);
  auto r = hn().search(make_query("ssh", "2015-01-01", "2015-01-31"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_FALSE(r.items.empty());
  EXPECT_EQ(r.items[0].title, "Why aren’t we using SSH for everything?");
  EXPECT_EQ(r.items[0].engagement_value("points"), 270);
  EXPECT_EQ(r.items[0].engagement_value("num_comments"), 103);
}

TEST(HackerNews, HostileAnswersEndInAState) {
  const auto hit = [](std::size_t i) {
    return fmt::format(R"({{"objectID":"{}","title":"Rust story {}","created_at_i":1763632800,"points":{}}})", i, i, i);
  };
  HostileTable(hn(), "/search", Format::json)
      .valid(kSearch)
      .huge(R"({"hits":[)", hit, "]}")
      .row("no hits array", json_reply(R"({"results":[]})"), SourceState::schema_drift, "hits")
      .row("no hits", json_reply(R"({"hits":[]})"), SourceState::no_results)
      .row("array instead of object", json_reply("[1,2,3]"), SourceState::schema_drift)
      .row("hits of the wrong type", json_reply(R"({"hits":[1,"x",null,{"objectID":5}]})"), SourceState::no_results)
      .run();
}

TEST(HackerNews, HostileListingAnswersEndInAState) {
  HostileTable(hn(), "/search", Format::json)
      .listing(make_listing_query("2026-11-01", "2026-11-29"))
      .valid(kSearch)
      .run();
}
