#include <gtest/gtest.h>

#include <fmt/format.h>

#include "fake_upstream.hpp"
#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "sources/source.hpp"

using namespace testing_support;
using model::SourceState;

namespace {

const sources::Source& arxiv() { return *sources::find("arxiv"); }

constexpr const char* kAtom = "application/atom+xml; charset=utf-8";

sources::Query two_queries() {
  auto q = make_query("rust borrow checker", "2026-11-01", "2026-11-29");
  q.sub_queries.push_back({"memory safety", 0.8});
  return q;
}

// One feed entry of that window with this title.
std::string entry(std::string_view id, std::string_view title) {
  return fmt::format(
      "<entry><id>http://arxiv.org/abs/{0}v1</id><title>{1}</title><summary>s</summary>"
      "<published>2026-11-20T10:00:00Z</published><author><name>A</name></author></entry>",
      id, title);
}

}  // namespace

TEST(Arxiv, ParsesEntriesIntoItems) {
  FixtureFetcher f;
  f.on_body("export.arxiv.org/api/query", fixture("arxiv/query_rust_memory_safety_2026-11.xml"), kAtom);
  TestEnv t(f);
  auto r = arxiv().search(two_queries(), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 3u);  // the untitled entry is skipped

  const auto& a = r.items[0];
  EXPECT_EQ(a.id, "arxiv:2611.04217");  // version stripped
  EXPECT_EQ(a.source, "arxiv");
  EXPECT_EQ(a.title,
            "Polonius in Practice: Deploying a Location-Sensitive Borrow Checker for Rust");  // newline collapsed
  EXPECT_EQ(a.url, "https://arxiv.org/abs/2611.04217");
  EXPECT_FALSE(a.discussion_url.has_value());
  EXPECT_EQ(a.author, "Ana Costa et al.");
  EXPECT_EQ(a.container, "cs.PL");
  EXPECT_EQ(a.published_at, 1795542128);  // 2026-11-24T17:42:08Z
  EXPECT_TRUE(a.engagement.empty());      // arXiv has no engagement
  EXPECT_EQ(a.snippet.rfind("We report on two years of deploying a location-sensitive borrow checker in the Rust compiler.", 0),
            0u)
      << a.snippet;
  EXPECT_NE(a.snippet.find("within 3% & without"), std::string::npos);  // entity decoded
  ASSERT_EQ(a.hits.size(), 1u);
  EXPECT_EQ(a.hits[0].subquery, 0);
  EXPECT_EQ(a.hits[0].rank, 0);

  const auto& b = r.items[1];
  EXPECT_EQ(b.id, "arxiv:2611.03125");
  EXPECT_EQ(b.author, "Priya Raman");  // a single author has no "et al."
  EXPECT_EQ(b.container, "cs.SE");
  EXPECT_EQ(b.published_at, 1794992401);
  ASSERT_EQ(b.hits.size(), 1u);
  EXPECT_EQ(b.hits[0].subquery, 1);  // its words are those of the second sub-query
  EXPECT_EQ(b.hits[0].rank, 0);      // ranks count within each sub-query, as if asked alone

  const auto& c = r.items[2];
  EXPECT_EQ(c.url, "https://arxiv.org/abs/2611.00388");  // no alternate link: built from the id
  EXPECT_EQ(c.container, "cs.CR");                       // no primary_category: first category
  EXPECT_EQ(c.author, "Lena Vogt et al.");
  EXPECT_EQ(c.hits[0].subquery, 0);  // matches no sub-query: attributed to the main one
  EXPECT_EQ(c.hits[0].rank, 1);
}

// One OR query stands for every sub-query: a paper carrying the words of several is credited
// to each (fusion counts a story that several spellings find, as for sources asked once per
// sub-query), ranked in arXiv's order within each.
TEST(Arxiv, AnEntryIsCreditedToEverySubQueryWhoseWordsItCarries) {
  const std::string feed = "<?xml version='1.0' encoding='UTF-8'?><feed xmlns=\"http://www.w3.org/2005/Atom\">" +
                           entry("2611.00001", "Memory safety of the Rust borrow checker") +
                           entry("2611.00002", "Memory safety in C") + "</feed>";
  FixtureFetcher f;
  f.on_body("export.arxiv.org/api/query", feed, kAtom);
  TestEnv t(f);
  auto r = arxiv().search(two_queries(), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 2u);
  const auto& both = r.items[0];
  ASSERT_EQ(both.hits.size(), 2u) << "both sub-queries' words: credited to both";
  EXPECT_EQ(both.hits[0].subquery, 0);
  EXPECT_EQ(both.hits[0].rank, 0);
  EXPECT_EQ(both.hits[1].subquery, 1);
  EXPECT_EQ(both.hits[1].rank, 0);
  const auto& one = r.items[1];
  ASSERT_EQ(one.hits.size(), 1u);
  EXPECT_EQ(one.hits[0].subquery, 1);
  EXPECT_EQ(one.hits[0].rank, 1) << "second in the second sub-query's own order";
  EXPECT_EQ(f.requests().size(), 1u) << "still one request";
}

// An entry the OR query returned but whose words match no sub-query whole (arXiv also
// searches fields and stems the feed does not show) goes to the sub-query it shares most
// words with, as reddit's packed answers do; sharing none, to the main one.
TEST(Arxiv, AnEntryMatchingNoSubQueryWhollyGoesToTheOneItSharesMostWordsWith) {
  const std::string feed = "<?xml version='1.0' encoding='UTF-8'?><feed xmlns=\"http://www.w3.org/2005/Atom\">" +
                           entry("2611.00003", "Safety cases for medical devices") +
                           entry("2611.00004", "Graph coloring bounds") + "</feed>";
  FixtureFetcher f;
  f.on_body("export.arxiv.org/api/query", feed, kAtom);
  TestEnv t(f);
  auto r = arxiv().search(two_queries(), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 2u);
  ASSERT_EQ(r.items[0].hits.size(), 1u);
  EXPECT_EQ(r.items[0].hits[0].subquery, 1) << "'safety' is the second sub-query's word, none is the first's";
  ASSERT_EQ(r.items[1].hits.size(), 1u);
  EXPECT_EQ(r.items[1].hits[0].subquery, 0) << "no word shared: the main sub-query";
}

TEST(Arxiv, OneRequestCombinesSubQueriesWithTheWindow) {
  FixtureFetcher f;
  f.on_body("export.arxiv.org/api/query", fixture("arxiv/empty_2026-11.xml"), kAtom);
  TestEnv t(f);
  arxiv().search(two_queries(), t.env);
  ASSERT_EQ(f.urls().size(), 1u);
  EXPECT_EQ(f.urls()[0],
            "https://export.arxiv.org/api/query?search_query="
            "%28%28all:rust+AND+all:borrow+AND+all:checker%29+OR+%28all:memory+AND+all:safety%29%29"
            "+AND+submittedDate:[202611010000+TO+202611292359]"
            "&sortBy=submittedDate&sortOrder=descending&start=0&max_results=50");
}

TEST(Arxiv, QueryDropsStopwordsKeepsPhrasesAndCapsResults) {
  FixtureFetcher f;
  f.on_body("export.arxiv.org/api/query", fixture("arxiv/empty_2026-11.xml"), kAtom);
  TestEnv t(f);
  auto q = make_query("the future of \"large language models\" for proofs", "2026-11-10", "2026-11-16");
  q.limit = 40;
  for (const char* extra : {"lean 4", "coq", "isabelle"}) q.sub_queries.push_back({extra, 0.5});
  arxiv().search(q, t.env);
  ASSERT_EQ(f.urls().size(), 1u);
  const std::string url = f.urls()[0];
  EXPECT_NE(url.find("search_query=%28%28all:%22large+language+models%22+AND+all:future+AND+all:proofs%29+OR+"
                     "%28all:lean+AND+all:4%29+OR+all:coq+OR+all:isabelle%29"),
            std::string::npos)
      << url;
  EXPECT_NE(url.find("submittedDate:[202611100000+TO+202611162359]"), std::string::npos) << url;
  EXPECT_NE(url.find("&max_results=100"), std::string::npos) << url;  // 40 x 4 capped
  EXPECT_EQ(url.find("all:the"), std::string::npos);
}

TEST(Arxiv, RealRecordedFeedsParse) {
  {
    FixtureFetcher f;
    f.on_body("export.arxiv.org", fixture("real/arxiv/query_au_del_maestro_2016-10-09.xml"), kAtom);
    TestEnv t(f);
    auto r = arxiv().search(make_query("luttinger liquid", "2000-01-01", "2016-10-09"), t.env);
    ASSERT_EQ(r.state, SourceState::ok) << r.reason;
    ASSERT_EQ(r.items.size(), 10u);
    const auto& a = r.items[0];
    EXPECT_EQ(a.id, "arxiv:1201.4869");
    EXPECT_EQ(a.title, "A Luttinger Liquid Core Inside Helium-4 Filled Nanopores");
    EXPECT_EQ(a.url, "https://arxiv.org/abs/1201.4869");
    EXPECT_EQ(a.author, "Adrian Del Maestro");
    EXPECT_EQ(a.container, "cond-mat.mes-hall");  // primary_category with xmlns on the element
    EXPECT_EQ(a.published_at, 1327353302);
    EXPECT_EQ(a.snippet.rfind("As helium-4 is cooled below 2.17 K", 0), 0u) << a.snippet;
    EXPECT_LE(a.snippet.size(), 400u + 3);
    const auto& b = r.items[1];
    EXPECT_EQ(b.id, "arxiv:cond-mat/0412498");  // old-style id keeps its archive
    EXPECT_EQ(b.url, "https://arxiv.org/abs/cond-mat/0412498");
    EXPECT_EQ(b.author, "Adrian Del Maestro et al.");
    EXPECT_EQ(b.container, "cond-mat.str-el");
  }
  {
    FixtureFetcher f;
    f.on_body("export.arxiv.org", fixture("real/arxiv/query_id_list_0808.05394_1707.08567_2026.xml"), kAtom);
    TestEnv t(f);
    auto r = arxiv().search(make_query("information theory", "2017-07-01", "2017-07-31"), t.env);
    ASSERT_EQ(r.state, SourceState::ok) << r.reason;
    ASSERT_EQ(r.items.size(), 1u);
    EXPECT_EQ(r.items[0].id, "arxiv:1707.08567");
    EXPECT_EQ(r.items[0].author, "Kees A. Schouhamer Immink et al.");
    EXPECT_EQ(r.items[0].container, "cs.IT");
    EXPECT_EQ(r.items[0].published_at, 1501143513);
    EXPECT_EQ(r.items[0].hits[0].subquery, 0);
  }
}

TEST(Arxiv, ErrorFeedIsAStateNotAnItem) {
  for (long status : {200L, 400L}) {
    FixtureFetcher f;
    f.on_body("export.arxiv.org", fixture("arxiv/error_malformed_query_2026-11.xml"), kAtom, status);
    TestEnv t(f);
    auto r = arxiv().search(make_query("rust", "2026-11-01", "2026-11-29"), t.env);
    EXPECT_EQ(r.state, SourceState::error) << status;
    EXPECT_TRUE(r.items.empty());
    EXPECT_NE(r.reason.find("malformed query: unbalanced parentheses"), std::string::npos) << r.reason;
  }
}

TEST(Arxiv, EmptyFeedIsNoResults) {
  FixtureFetcher f;
  f.on_body("export.arxiv.org", fixture("arxiv/empty_2026-11.xml"), kAtom);
  TestEnv t(f);
  auto r = arxiv().search(make_query("zzyzx", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(r.state, SourceState::no_results);
  EXPECT_FALSE(r.reason.empty());
}

TEST(Arxiv, NoSearchableWordsMakesNoRequest) {
  FixtureFetcher f;
  TestEnv t(f);
  auto r = arxiv().search(make_query("?? !!", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(r.state, SourceState::no_results);
  EXPECT_FALSE(r.reason.empty());
  EXPECT_TRUE(f.urls().empty());
}

TEST(Arxiv, HostileAnswersEndInAState) {
  const auto entry = [](std::size_t i) {
    return fmt::format(
        "<entry><id>http://arxiv.org/abs/2611.{:05}v1</id><title>Rust paper {}</title>"
        "<published>2026-11-20T00:00:00Z</published><summary>rust</summary></entry>",
        i % 100000, i);
  };
  HostileTable(arxiv(), "export.arxiv.org", Format::xml)
      .valid(fixture("arxiv/query_rust_memory_safety_2026-11.xml"))
      .huge(R"(<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom">)", entry, "</feed>")
      .row("arXiv down",
           reply(200, "<!DOCTYPE html><html><body><h1>arXiv is down for maintenance</h1></body></html>", "text/html"),
           SourceState::schema_drift)
      .row("entries without usable ids or titles",
           xml_reply("<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>junk</id><title>x</title></entry>"
                     "<entry><id>http://arxiv.org/abs/2611.1v1</id></entry></feed>"),
           SourceState::no_results)
      .row("broken error page", xml_reply("<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry>", 400), SourceState::error)
      .run();
}

TEST(Arxiv, HasNoListing) { EXPECT_FALSE(arxiv().has_listing()); }
