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
  EXPECT_EQ(b.engagement_value("points"), 17);                        // numeric string
  EXPECT_EQ(b.engagement.size(), 1u);                                 // null comments are absent, not zero
  EXPECT_EQ(b.snippet, "Thinking about \"migrating\"");               // self-post HTML decoded to text
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
  HostileTable(hn(), "/search", Format::json).listing(make_listing_query("2026-11-01", "2026-11-29")).valid(kSearch).run();
}

// ---- comments ----

namespace {

sources::CommentQuery thread_query(std::vector<std::string> ids, int per_item = 3) { return {std::move(ids), per_item}; }

}  // namespace

TEST(HackerNewsComments, RealThreadGivesTheMostDiscussedTopLevelCommentsAsPlainText) {
  FixtureFetcher f;
  f.on_body("/api/v1/items/8828543", fixture("real/hackernews/items_8828543_2020.json"));
  TestEnv t(f);
  auto threads = hn().comments(thread_query({"hackernews:8828543"}), t.env);
  ASSERT_EQ(f.urls(), (std::vector<std::string>{"https://hn.algolia.com/api/v1/items/8828543"}));
  ASSERT_EQ(threads.size(), 1u);
  ASSERT_FALSE(threads[0].failure) << *threads[0].failure;
  const auto& c = threads[0].comments;
  ASSERT_EQ(c.size(), 3u);
  // Algolia hides comment points: the most replied-to top-level comments lead.
  EXPECT_EQ(c[0].author, "higherpurpose");
  EXPECT_EQ(c[0].replies, 13);
  EXPECT_EQ(c[1].author, "forfengeligfaen");
  EXPECT_EQ(c[1].replies, 10);
  EXPECT_EQ(c[2].author, "josephg");
  EXPECT_FALSE(c[0].score.has_value());
  EXPECT_EQ(c[0].url, "https://news.ycombinator.com/item?id=8828749");
  for (const auto& x : c) {
    EXPECT_EQ(x.text.find('<'), std::string::npos) << x.text;
    EXPECT_EQ(x.text.find("&#x"), std::string::npos) << x.text;
    EXPECT_EQ(x.text.find("&quot;"), std::string::npos) << x.text;
  }
  EXPECT_NE(c[0].text.find("MITM'ed"), std::string::npos) << "&#x27; decoded: " << c[0].text;
}

TEST(HackerNewsComments, SkipsDeletedEmptyFlaggedAndBotCommentsAndDecodesMarkup) {
  FixtureFetcher f;
  f.on_body("/items/1", R"({"id":1,"type":"story","children":[
    {"id":2,"type":"comment","author":null,"text":null,"children":[{"id":9,"type":"comment","author":"x","text":"<p>reply</p>","children":[]}]},
    {"id":3,"type":"comment","author":"a","text":"","children":[]},
    {"id":4,"type":"comment","author":"b","text":"[flagged]","children":[]},
    {"id":5,"type":"comment","author":"HNStatusBot","text":"<p>up</p>","children":[]},
    {"id":6,"type":"comment","author":"c","text":"<p>Use <i>Arc&lt;Mutex&lt;T&gt;&gt;</i> &amp; <a href=\"https://x.example\">docs</a>.</p><pre><code>fn main() {}</code></pre><p>Done.</p>","children":[]},
    {"id":7,"type":"pollopt","author":"d","text":"yes","children":[]},
    "not an object"
  ]})");
  TestEnv t(f);
  auto threads = hn().comments(thread_query({"hackernews:1"}), t.env);
  ASSERT_EQ(threads[0].comments.size(), 1u);
  EXPECT_EQ(threads[0].comments[0].author, "c");
  EXPECT_EQ(threads[0].comments[0].text, "Use Arc<Mutex<T>> & docs. Done.");
}

TEST(HackerNewsComments, AFailedThreadSaysWhyAndTheOthersStillArrive) {
  FixtureFetcher f;
  f.on_body("/items/1", R"({"id":1,"children":[{"id":2,"type":"comment","author":"a","text":"<p>fine</p>","children":[]}]})");
  f.on_body("/items/2", "<html><body>Service Unavailable</body></html>", "text/html", 503);
  f.on_body("/items/3", R"({"id":3,"children":)");
  f.on_body("/items/4", R"({"id":4,"children":{"not":"an array"}})");
  f.on_error("/items/5", http::NetError::timeout);
  TestEnv t(f);
  auto threads = hn().comments(
      thread_query({"hackernews:1", "hackernews:2", "hackernews:3", "hackernews:4", "hackernews:5", "hackernews:../../etc"}),
      t.env);
  ASSERT_EQ(threads.size(), 6u);
  EXPECT_EQ(threads[0].comments.size(), 1u);
  ASSERT_TRUE(threads[1].failure);
  EXPECT_NE(threads[1].failure->find("HTTP 503"), std::string::npos) << *threads[1].failure;
  ASSERT_TRUE(threads[2].failure);
  EXPECT_NE(threads[2].failure->find("schema-drift"), std::string::npos) << *threads[2].failure;
  ASSERT_TRUE(threads[3].failure);
  EXPECT_NE(threads[3].failure->find("children"), std::string::npos);
  ASSERT_TRUE(threads[4].failure);
  EXPECT_NE(threads[4].failure->find("timeout"), std::string::npos);
  ASSERT_TRUE(threads[5].failure) << "a foreign id never reaches a URL";
  EXPECT_EQ(f.urls().size(), 5u);
}

// Two JSON levels per reply: 250 replies deep is within the parser's 512-level limit and
// counted without recursion; 20,000 deep is refused by the parser with its message (issue 22).
TEST(HackerNewsComments, ADeeplyNestedThreadIsCountedWithoutRecursion) {
  for (const int depth : {250, 20000}) {
    std::string nested = R"({"id":1,"children":[{"id":2,"type":"comment","author":"a","text":"<p>top</p>","children":[)";
    for (int i = 0; i < depth; ++i) nested += R"({"id":3,"author":"r","text":"x","children":[)";
    for (int i = 0; i < depth; ++i) nested += "]}";
    nested += "]}]}";
    FixtureFetcher f;
    f.on_body("/items/1", nested);
    TestEnv t(f);
    auto threads = hn().comments(thread_query({"hackernews:1"}), t.env);
    if (depth == 250) {
      ASSERT_EQ(threads[0].comments.size(), 1u) << (threads[0].failure ? *threads[0].failure : "");
      EXPECT_EQ(threads[0].comments[0].replies, depth);
    } else {
      EXPECT_TRUE(threads[0].comments.empty());
      ASSERT_TRUE(threads[0].failure);
      EXPECT_NE(threads[0].failure->find("JSON nested deeper than 512 levels"), std::string::npos) << *threads[0].failure;
    }
  }
}
