#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/time.hpp"
#include "fake_upstream.hpp"
#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "sources/source.hpp"

using namespace testing_support;
using model::SourceState;

namespace {

const sources::Source& pm() { return *sources::find("polymarket"); }

core::UnixSeconds at(const char* iso) { return *core::parse_iso8601(iso); }

const model::Item* by_id(const std::vector<model::Item>& items, const std::string& id) {
  for (const auto& i : items)
    if (i.id == id) return &i;
  return nullptr;
}

bool has_field(const model::Item& item, std::string_view field) {
  for (const auto& e : item.engagement)
    if (e.field == field) return true;
  return false;
}

sources::ListingQuery listing_query(std::vector<std::string> terms = {}) {
  sources::ListingQuery q;
  q.window = make_query("x", "2026-10-31", "2026-11-29").window;
  q.domain = terms.empty() ? "" : "domain";
  q.domain_terms = std::move(terms);
  q.limit = 20;
  return q;
}

constexpr const char* kListingUrl = "/events?active=true";

}  // namespace

TEST(Polymarket, ParsesPublicSearchEventsIntoItems) {
  FixtureFetcher f;
  f.on_body("/public-search?", fixture("polymarket/public_search_fed_2026-11.json"));
  TestEnv t(f);
  auto r = pm().search(make_query("fed rate", "2026-10-31", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  // Closed, archived and all-markets-skipped events are dropped.
  ASSERT_EQ(r.items.size(), 2u);

  const auto& a = r.items[0];
  EXPECT_EQ(a.id, "polymarket:41230");
  EXPECT_EQ(a.source, "polymarket");
  EXPECT_EQ(a.title, "Fed decision in December 2026?");
  EXPECT_EQ(a.url, "https://polymarket.com/event/fed-decision-in-december-2026");
  EXPECT_FALSE(a.discussion_url.has_value());
  EXPECT_FALSE(a.author.has_value());
  EXPECT_EQ(a.container, "Polymarket");
  EXPECT_EQ(a.published_at, at("2026-11-28T21:14:03Z"));        // updatedAt, fraction dropped
  EXPECT_DOUBLE_EQ(a.engagement_value("volume"), 48213377.31);  // numeric string
  EXPECT_DOUBLE_EQ(a.engagement_value("liquidity"), 3120450.8841);
  EXPECT_DOUBLE_EQ(a.engagement_value("volume24hr"), 1288304.102);
  EXPECT_DOUBLE_EQ(a.engagement_value("odds"), 0.61);  // the favourite among the kept markets
  // Top three kept markets by price; the closed (97%) and zero-liquidity (90%) markets are not shown.
  EXPECT_EQ(a.snippet.rfind("Fed decreases interest rates by 25 bps after December 2026 meeting?: Yes 61% \xC2\xB7 "
                            "No change in Fed interest rates after December 2026 meeting?: Yes 33% \xC2\xB7 "
                            "Fed decreases interest rates by 50+ bps after December 2026 meeting?: Yes 4% \xE2\x80\x94 "
                            "This event is about the FOMC meeting",
                            0),
            0u)
      << a.snippet;
  EXPECT_EQ(a.snippet.find("increases"), std::string::npos);
  EXPECT_EQ(a.snippet.find("emergency"), std::string::npos);
  EXPECT_LE(a.snippet.size(), 400u + 3u);

  const auto& b = r.items[1];
  EXPECT_EQ(b.id, "polymarket:40977");
  EXPECT_EQ(b.url, "https://polymarket.com/event/fed-emergency-rate-cut-in-2026");
  EXPECT_EQ(b.published_at, at("2026-11-02T16:00:00Z"));  // no updatedAt: startDate
  // Outcomes as real arrays; the description's entities are decoded.
  EXPECT_EQ(b.snippet.rfind("Yes 3% \xC2\xB7 No 97% \xE2\x80\x94 This market will resolve to \"Yes\" if the Federal", 0), 0u)
      << b.snippet;
  EXPECT_DOUBLE_EQ(b.engagement_value("volume"), 918230.55);
  EXPECT_DOUBLE_EQ(b.engagement_value("liquidity"), 48120.2);  // event has none: sum over kept markets
  EXPECT_DOUBLE_EQ(b.engagement_value("odds"), 0.969);         // leading outcome of the only market
  EXPECT_FALSE(has_field(b, "volume24hr"));                    // not reported: absent, not zero

  ASSERT_EQ(r.items[0].hits.size(), 1u);
  EXPECT_EQ(r.items[0].hits[0].rank, 0);
  EXPECT_EQ(r.items[1].hits[0].rank, 1);
}

TEST(Polymarket, BuildsThePublicSearchUrlPerSubQuery) {
  FixtureFetcher f;
  f.on_body("/public-search?", fixture("polymarket/public_search_fed_2026-11.json"));
  TestEnv t(f);
  auto q = make_query("fed rate cut", "2026-10-31", "2026-11-29");
  q.sub_queries.push_back({"FOMC december", 0.5});
  q.limit = 15;
  auto r = pm().search(q, t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  EXPECT_EQ(r.requests, 2);
  const auto urls = f.urls();
  ASSERT_EQ(urls.size(), 2u);
  EXPECT_EQ(urls[0], "https://gamma-api.polymarket.com/public-search?q=fed%20rate%20cut&events_status=active&limit_per_type=15");
  EXPECT_EQ(urls[1], "https://gamma-api.polymarket.com/public-search?q=FOMC%20december&events_status=active&limit_per_type=15");
  // The same events found by both sub-queries are one item with two hits.
  ASSERT_EQ(r.items.size(), 2u);
  ASSERT_EQ(r.items[0].hits.size(), 2u);
  EXPECT_EQ(r.items[0].hits[1].subquery, 1);
}

TEST(Polymarket, NothingMatchedIsNoResults) {
  for (const char* body : {R"({"events":[],"tags":[],"profiles":[],"pagination":{"hasMore":false,"totalResults":0}})",
                           R"({"tags":[],"profiles":[],"pagination":{"hasMore":false,"totalResults":0}})",
                           R"({"events":null,"pagination":{"hasMore":false,"totalResults":0}})"}) {
    FixtureFetcher f;
    f.on_body("/public-search?", body);
    TestEnv t(f);
    auto r = pm().search(make_query("zzzz", "2026-10-31", "2026-11-29"), t.env);
    EXPECT_EQ(r.state, SourceState::no_results) << body;
    EXPECT_FALSE(r.reason.empty());
  }
}

TEST(Polymarket, OddValuesAreToleratedNotInvented) {
  const char* body = R"({"events":[
    {"id":"1","slug":"a","title":"Odd market","active":"true","closed":0,"volume":"NaN","liquidity":-5,
     "updatedAt":"not a date","startDate":"2026-11-10T00:00:00Z","description":"<b>bold</b> &amp; more",
     "markets":[{"id":"9","question":"Odd?","outcomes":"[\"Yes\", \"No\"","outcomePrices":"[\"0.5\", \"0.5\"]",
                 "liquidity":"abc","volume":1e308}]},
    {"id":"2","slug":"b","title":"Bad prices","volume":12,
     "markets":[{"id":"8","question":"Bad?","outcomes":["Yes","No","Maybe"],"outcomePrices":["1.7","-0.2","0.4"],
                 "liquidityNum":"250.5"}]},
    {"id":"3","slug":"c","title":"No markets listed","liquidity":"100"},
    {"id":"4","title":"No slug","markets":[]},
    {"id":"5","slug":"e","title":"Empty markets","markets":[]},
    "junk", null, 42
  ]})";
  FixtureFetcher f;
  f.on_body("/public-search?", body);
  TestEnv t(f);
  auto r = pm().search(make_query("odd", "2026-10-31", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 3u);
  const auto* odd = by_id(r.items, "polymarket:1");
  ASSERT_NE(odd, nullptr);
  EXPECT_FALSE(has_field(*odd, "odds"));       // outcomes string is malformed: no odds at all
  EXPECT_FALSE(has_field(*odd, "liquidity"));  // negative event value rejected; market's is junk
  EXPECT_FALSE(has_field(*odd, "volume"));     // "NaN" rejected; the market sum, 1e308, is not a plausible volume
  EXPECT_EQ(odd->published_at, at("2026-11-10T00:00:00Z"));
  EXPECT_EQ(odd->snippet, "bold & more");
  const auto* bad = by_id(r.items, "polymarket:2");
  ASSERT_NE(bad, nullptr);
  EXPECT_DOUBLE_EQ(bad->engagement_value("odds"), 0.4);  // out-of-range prices dropped
  EXPECT_EQ(bad->snippet, "Maybe 40%");
  EXPECT_DOUBLE_EQ(bad->engagement_value("liquidity"), 250.5);
  EXPECT_FALSE(bad->published_at.has_value());
  // An event without a markets list stands on its own flags.
  EXPECT_NE(by_id(r.items, "polymarket:3"), nullptr);
}

TEST(Polymarket, HostileAnswersEndInAState) {
  const auto event = [](std::size_t i) {
    return fmt::format(R"({{"id":"{}","title":"Fed event {}","slug":"fed-{}","active":true,"closed":false,)"
                       R"("volume":"{}","updatedAt":"2026-11-20T10:00:00Z"}})",
                       i, i, i, i);
  };
  HostileTable(pm(), "/public-search?", Format::json)
      .call([](const sources::Source& s,
               sources::Env& env) { return s.search(make_query("fed", "2026-10-31", "2026-11-29"), env); },
            25)
      .valid(fixture("polymarket/public_search_fed_2026-11.json"))
      .huge(R"({"events":[)", event, "]}")
      .row("events not a list", json_reply(R"({"events":{"id":1}})"), SourceState::schema_drift)
      .row("error object", json_reply(R"({"error":"bad request"})"), SourceState::schema_drift)
      .row("events of the wrong type", json_reply(R"({"events":[1,"x",null]})"), SourceState::no_results)
      .run();
}

TEST(Polymarket, OneFailedSubQueryIsPartial) {
  FixtureFetcher f;
  f.on_body("q=fed", fixture("polymarket/public_search_fed_2026-11.json"));
  f.on_body("q=fomc", "{\"events\":[{\"id\":", "application/json", 200);
  TestEnv t(f);
  auto q = make_query("fed", "2026-10-31", "2026-11-29");
  q.sub_queries.push_back({"fomc", 0.5});
  auto r = pm().search(q, t.env);
  EXPECT_EQ(r.state, SourceState::partial);
  EXPECT_EQ(r.items.size(), 2u);
  EXPECT_NE(r.reason.find("malformed"), std::string::npos) << r.reason;
}

TEST(Polymarket, ListingReadsTopEventsBy24hVolume) {
  ASSERT_TRUE(pm().has_listing());
  FixtureFetcher f;
  f.on_body(kListingUrl, fixture("polymarket/events_top_volume24hr_2026-11.json"));
  TestEnv t(f);
  auto r = pm().listing(listing_query(), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(f.urls().size(), 1u);
  EXPECT_EQ(f.urls()[0],
            "https://gamma-api.polymarket.com/events?active=true&closed=false&order=volume24hr&ascending=false&limit=20");
  ASSERT_EQ(r.items.size(), 3u);
  EXPECT_EQ(r.items[0].id, "polymarket:42018");
  EXPECT_EQ(r.items[0].snippet.rfind("Will the price of Bitcoin be above $100,000 on December 31?: Yes 87% \xC2\xB7 "
                                     "Will the price of Bitcoin be above $120,000 on December 31?: Yes 42%",
                                     0),
            0u)
      << r.items[0].snippet;
  EXPECT_DOUBLE_EQ(r.items[0].engagement_value("odds"), 0.87);
  EXPECT_DOUBLE_EQ(r.items[1].engagement_value("volume24hr"), 1903221.04);  // numeric string
  EXPECT_DOUBLE_EQ(r.items[1].engagement_value("liquidity"), 22190332.5);
  EXPECT_EQ(r.items[2].title, "OpenAI announces GPT-6 in 2026?");
}

// Discovery selects a domain's events (discover::selects); the listing casts a wider net for it.
TEST(Polymarket, DomainListingCastsAWiderNet) {
  FixtureFetcher f;
  f.on_body(kListingUrl, fixture("polymarket/events_top_volume24hr_2026-11.json"));
  TestEnv t(f);
  auto global = pm().listing(listing_query(), t.env);
  auto r = pm().listing(listing_query({"curling"}), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(f.urls().size(), 2u);
  EXPECT_NE(f.urls()[1].find("&limit=100"), std::string::npos) << f.urls()[1];
  EXPECT_EQ(r.items.size(), global.items.size());
}

TEST(Polymarket, RealRecordedMarketsArrayParses) {
  FixtureFetcher f;
  f.on_body(kListingUrl, fixture("real/polymarket/markets_active_limit20_first5_2026-06.json"));
  TestEnv t(f);
  auto r = pm().listing(listing_query(), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 5u);
  const auto& a = r.items[0];
  EXPECT_EQ(a.id, "polymarket:market:540817");
  EXPECT_EQ(a.title, "New Rihanna Album before GTA VI?");
  EXPECT_EQ(a.url, "https://polymarket.com/event/what-will-happen-before-gta-vi/new-rhianna-album-before-gta-vi-926");
  EXPECT_EQ(a.container, "Polymarket");
  EXPECT_EQ(a.published_at, at("2026-06-21T18:26:26Z"));
  EXPECT_DOUBLE_EQ(a.engagement_value("volume"), 832995.125818007);
  EXPECT_DOUBLE_EQ(a.engagement_value("liquidity"), 13563.9726);
  EXPECT_DOUBLE_EQ(a.engagement_value("volume24hr"), 2502.2865490000004);
  EXPECT_DOUBLE_EQ(a.engagement_value("odds"), 0.51);
  EXPECT_EQ(a.snippet.rfind("Yes 51% \xC2\xB7 No 49% \xE2\x80\x94 This market will resolve to \"Yes\" if Rihanna", 0), 0u)
      << a.snippet;
  EXPECT_LE(a.snippet.size(), 403u);
  EXPECT_EQ(r.items[2].title, "Will Jesus Christ return before GTA VI?");
  EXPECT_DOUBLE_EQ(r.items[2].engagement_value("odds"), 0.505);
}

TEST(Polymarket, MarketsWithoutAnEventUseTheMarketSlug) {
  const char* body = R"([
    {"id":"700001","question":"Will it snow in Miami in 2026?","slug":"will-it-snow-in-miami-in-2026",
     "outcomes":"[\"Yes\", \"No\"]","outcomePrices":"[\"0.01\", \"0.99\"]","active":true,"closed":false,
     "liquidity":"5000","volume":"12000","updatedAt":"2026-11-20T10:00:00Z"},
    {"id":"700002","question":"Closed parent?","slug":"closed-parent","active":true,"closed":false,"liquidity":"10",
     "events":[{"id":"9","slug":"parent","closed":true}]},
    {"id":"700003","question":"No slug at all?","active":true,"liquidity":"10"}
  ])";
  FixtureFetcher f;
  f.on_body(kListingUrl, body);
  TestEnv t(f);
  auto r = pm().listing(listing_query(), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 1u);
  EXPECT_EQ(r.items[0].url, "https://polymarket.com/market/will-it-snow-in-miami-in-2026");
  EXPECT_EQ(r.items[0].snippet, "Yes 1% \xC2\xB7 No 99%");
  EXPECT_DOUBLE_EQ(r.items[0].engagement_value("odds"), 0.99);
}

TEST(Polymarket, HostileListingAnswersEndInAState) {
  HostileTable(pm(), kListingUrl, Format::json)
      .listing(listing_query())
      .valid(fixture("polymarket/events_top_volume24hr_2026-11.json"))
      .run();
}
