#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "fake_upstream.hpp"
#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "sources/source.hpp"

using namespace testing_support;
using model::SourceState;

namespace {

const sources::Source& se() { return *sources::find("stackexchange"); }

sources::Query three_queries() {
  auto q = make_query("tokio", "2026-11-01", "2026-11-29");
  q.sub_queries.push_back({"async", 0.7});
  q.sub_queries.push_back({"rust", 0.5});
  return q;
}

std::string wrapper(const std::string& items, int quota_remaining) {
  return "{\"items\":[" + items +
         "],\"has_more\":false,\"quota_max\":300,\"quota_remaining\":" + std::to_string(quota_remaining) + "}";
}

const char* kOneQuestion =
    R"({"tags":["rust"],"owner":{"user_type":"registered","display_name":"kmdreko"},"is_answered":true,"view_count":90,
"answer_count":1,"score":3,"creation_date":1795633544,"question_id":79880555,"link":"https://stackoverflow.com/questions/79880555/x","title":"x"})";

}  // namespace

TEST(StackExchange, ParsesQuestionsIntoItems) {
  FixtureFetcher f;
  f.on_body("api.stackexchange.com/2.3/search/advanced", fixture("stackexchange/search_advanced_tokio_2026-11.json"));
  TestEnv t(f);
  auto r = se().search(make_query("tokio spawn", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 3u);  // the untitled question and the junk entry are skipped

  const auto& a = r.items[0];
  EXPECT_EQ(a.id, "stackexchange:79871104");
  EXPECT_EQ(a.source, "stackexchange");
  EXPECT_EQ(a.title, "Why does tokio::spawn require 'static when using \"async move\"?");  // entities decoded
  EXPECT_EQ(a.url,
            "https://stackoverflow.com/questions/79871104/"
            "why-does-tokiospawn-require-static-when-using-quot-async-move-quot");
  EXPECT_FALSE(a.discussion_url.has_value());
  EXPECT_EQ(a.author, "José Pereira");
  EXPECT_EQ(a.container, "stackoverflow");
  EXPECT_EQ(a.published_at, 1795258957);
  EXPECT_EQ(a.engagement_value("score"), 7);
  EXPECT_EQ(a.engagement_value("answer_count"), 2);
  EXPECT_EQ(a.engagement_value("view_count"), 412);
  EXPECT_EQ(
      a.snippet.rfind("[rust, async-await, rust-tokio] answered. I'm spawning a task with tokio::spawn(async move { ... })", 0),
      0u)
      << a.snippet;
  EXPECT_EQ(a.snippet.find("<p>"), std::string::npos);
  EXPECT_EQ(a.hits[0].subquery, 0);
  EXPECT_EQ(a.hits[0].rank, 0);

  const auto& b = r.items[1];
  EXPECT_EQ(b.author, "user24410077");  // deleted user keeps a display name
  EXPECT_EQ(b.engagement.size(), 3u);   // a downvoted question really scores -3
  EXPECT_EQ(b.engagement_value("score"), -3);
  EXPECT_EQ(b.engagement_value("view_count"), 38);
  EXPECT_EQ(b.snippet, "[rust, rust-tokio] unanswered. Calling block_on inside #[tokio::main] panics & I don't know why.");

  const auto& c = r.items[2];
  EXPECT_FALSE(c.author.has_value());               // no owner
  EXPECT_EQ(c.engagement_value("view_count"), 19);  // numeric string
  EXPECT_EQ(c.snippet, "unanswered.");
  EXPECT_EQ(c.hits[0].rank, 2);
}

TEST(StackExchange, BuildsTheRealQueryPerSubQuery) {
  FixtureFetcher f;
  f.on_body("api.stackexchange.com", wrapper("", 290));
  TestEnv t(f);
  auto q = make_query("tokio spawn", "2026-11-01", "2026-11-29");
  q.sub_queries.push_back({"rust async & await", 0.5});
  auto r = se().search(q, t.env);
  EXPECT_EQ(r.state, SourceState::no_results);
  auto urls = f.urls();  // sent together: in any order
  ASSERT_EQ(urls.size(), 2u);
  std::sort(urls.begin(), urls.end());
  EXPECT_NE(urls[0].find("&q=rust%20async%20%26%20await&"), std::string::npos) << urls[0];
  EXPECT_EQ(urls[1],
            "https://api.stackexchange.com/2.3/search/advanced?order=desc&sort=relevance&q=tokio%20spawn"
            "&fromdate=1793491200&todate=1795996799&site=stackoverflow&pagesize=25&filter=withbody");
}

TEST(StackExchange, AppendsTheKeyButNeverShowsIt) {
  const std::string key = "U4DMV*8nvpm3EOpvf69Rxw((";
  FixtureFetcher f;
  f.on_body("api.stackexchange.com", fixture("stackexchange/error_throttle_violation.json"), "application/json", 400);
  TestEnv t(f, core::Config({{"STACKEXCHANGE_KEY", key}}, {}));
  auto r = se().search(make_query("tokio", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(f.urls().size(), 1u);
  const std::string url = f.urls()[0];
  EXPECT_TRUE(url.ends_with("&filter=withbody&key=U4DMV%2A8nvpm3EOpvf69Rxw%28%28")) << url;
  EXPECT_EQ(r.state, SourceState::rate_limited);
  EXPECT_EQ(r.reason.find("U4DMV"), std::string::npos) << r.reason;
}

TEST(StackExchange, KeyEchoedByAnErrorIsRedacted) {
  const std::string key = "U4DMV*8nvpm3EOpvf69Rxw((";
  FixtureFetcher f;
  f.on_body("api.stackexchange.com",
            R"({"error_id":403,"error_message":"key U4DMV*8nvpm3EOpvf69Rxw(( is not valid","error_name":"access_denied"})",
            "application/json", 400);
  TestEnv t(f, core::Config({{"STACKEXCHANGE_KEY", key}}, {}));
  auto r = se().search(make_query("tokio", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(r.state, SourceState::auth_failed);
  EXPECT_EQ(r.reason, "access_denied: key *** is not valid");
}

TEST(StackExchange, RealRecordedAnswersParse) {
  {
    FixtureFetcher f;
    f.on_body("api.stackexchange.com", fixture("real/stackexchange/search_intitle_android_2016-07-11.json"));
    TestEnv t(f);
    auto q = make_query("android", "2016-06-01", "2016-07-11");
    q.limit = 30;  // what the recording was asked for
    auto r = se().search(q, t.env);
    ASSERT_EQ(r.state, SourceState::ok) << r.reason;
    ASSERT_EQ(r.items.size(), 30u);
    const auto& a = r.items[0];
    EXPECT_EQ(a.id, "stackexchange:37808626");
    EXPECT_EQ(a.title, "Is it possible to connect BLE sensor device to android watch without a phone nearby?");
    EXPECT_EQ(a.url,
              "http://stackoverflow.com/questions/37808626/"
              "is-it-possible-to-connect-ble-sensor-device-to-android-watch-without-a-phone-nea");
    EXPECT_EQ(a.author, "bkokot");
    EXPECT_EQ(a.published_at, 1465897880);
    EXPECT_EQ(a.engagement_value("view_count"), 11);
    EXPECT_EQ(a.engagement_value("answer_count"), 1);
    EXPECT_EQ(a.engagement.size(), 3u);                                                // score 0 is reported, so present
    EXPECT_EQ(a.snippet, "[android, bluetooth-lowenergy, android-wear] unanswered.");  // this filter had no body
  }
  {
    FixtureFetcher f;
    f.on_body("api.stackexchange.com", fixture("real/stackexchange/questions_ru_withbody_2017-11-09.json"));
    TestEnv t(f);
    auto q = make_query("массив", "2017-11-01", "2017-11-09");
    q.limit = 30;  // what the recording was asked for
    auto r = se().search(q, t.env);
    ASSERT_EQ(r.state, SourceState::ok) << r.reason;
    ASSERT_EQ(r.items.size(), 30u);
    const auto& a = r.items[0];
    EXPECT_EQ(a.id, "stackexchange:742388");
    EXPECT_EQ(a.title, "Создать ссылки из значений массива");
    EXPECT_EQ(a.author, "Денис");
    EXPECT_EQ(a.published_at, 1510230757);
    EXPECT_EQ(a.snippet.rfind("[jquery, массивы] unanswered. Добрый день! Имеется массив с произвольной длиной.", 0), 0u)
        << a.snippet;
    EXPECT_TRUE(a.snippet.ends_with("\xE2\x80\xA6")) << a.snippet;  // long Cyrillic body cut on a character boundary
    EXPECT_LE(a.snippet.size(), 403u);
    EXPECT_EQ(r.items[5].title, "Как отучить Windows создавать папку \"System Volume Information\" на съемных носителях?");
    EXPECT_EQ(r.items[11].title, "Запрос текущего местоположения без запуска Provider'ов");
  }
}

TEST(StackExchange, HonoursBackoff) {
  FixtureFetcher f;
  f.on_body("q=tokio", fixture("stackexchange/search_advanced_backoff_2026-11.json"));
  f.on_body("api.stackexchange.com", wrapper(kOneQuestion, 240));
  f.hold("q=async").hold("q=rust");  // still in flight when told to back off
  TestEnv t(f);
  auto r = se().search(three_queries(), t.env);
  EXPECT_EQ(f.answered(), 1);  // nothing more awaited once told to back off
  EXPECT_EQ(r.state, SourceState::partial);
  EXPECT_EQ(r.reason.rfind("asked to back off 10 s", 0), 0u) << r.reason;
  ASSERT_EQ(r.items.size(), 1u);
  EXPECT_EQ(r.items[0].title, "How to cancel a tokio task?");
}

TEST(StackExchange, BackoffOnTheLastRequestIsNotPartial) {
  FixtureFetcher f;
  f.on_body("q=tokio", fixture("stackexchange/search_advanced_backoff_2026-11.json"));
  TestEnv t(f);
  auto r = se().search(make_query("tokio", "2026-11-01", "2026-11-29"), t.env);
  EXPECT_EQ(r.state, SourceState::ok) << r.reason;
}

TEST(StackExchange, QuotaExhaustionSkipsTheRest) {
  {
    FixtureFetcher f;
    f.on_body("api.stackexchange.com", wrapper(kOneQuestion, 0));
    f.hold("q=async").hold("q=rust");
    TestEnv t(f);
    auto r = se().search(three_queries(), t.env);
    EXPECT_EQ(f.answered(), 1);
    EXPECT_EQ(r.state, SourceState::partial);
    EXPECT_NE(r.reason.find("quota"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("2 of 3 sub-queries left out"), std::string::npos) << r.reason;
  }
  {
    FixtureFetcher f;
    f.on_body("api.stackexchange.com", wrapper("", 0));
    f.hold("q=async").hold("q=rust");
    TestEnv t(f);
    auto r = se().search(three_queries(), t.env);
    EXPECT_EQ(f.answered(), 1);
    EXPECT_EQ(r.state, SourceState::rate_limited);  // nothing found and the rest could not be asked
    EXPECT_FALSE(r.reason.empty());
  }
}

TEST(StackExchange, ErrorWrapperDecidesTheState) {
  struct Case {
    std::string body;
    long status;
    SourceState want;
    std::string reason_has;
  };
  const std::vector<Case> cases = {
      {fixture("stackexchange/error_throttle_violation.json"), 400, SourceState::rate_limited,
       "too many requests from this IP, more requests available in 8 seconds"},
      {fixture("stackexchange/error_throttle_violation.json"), 502, SourceState::rate_limited, "throttle_violation"},
      {R"({"error_id":403,"error_message":"this key is not allowed on this site","error_name":"access_denied"})", 403,
       SourceState::auth_failed, "not allowed"},
      {R"({"error_id":400,"error_message":"fromdate","error_name":"bad_parameter"})", 400, SourceState::error,
       "bad_parameter: fromdate"},
      {R"({"error_id":503,"error_message":"The system is temporarily unavailable","error_name":"temporarily_unavailable"})", 503,
       SourceState::unreachable, "temporarily unavailable"},
      {R"({"error_id":500,"error_message":"An unexpected error occurred","error_name":"internal_error"})", 500,
       SourceState::error, "internal_error"},
  };
  for (const auto& c : cases) {
    // A throttle or a rejected key stops the run (the later sub-queries, in flight, are
    // cancelled); other errors do not stop later sub-queries.
    const bool stops = c.want == SourceState::rate_limited || c.want == SourceState::auth_failed;
    FixtureFetcher f;
    if (stops) f.hold("q=async").hold("q=rust");
    f.on_body("api.stackexchange.com", c.body, "application/json; charset=utf-8", c.status);
    TestEnv t(f);
    auto r = se().search(three_queries(), t.env);
    EXPECT_EQ(r.state, c.want) << c.body;
    EXPECT_NE(r.reason.find(c.reason_has), std::string::npos) << r.reason;
    EXPECT_EQ(f.answered(), stops ? 1 : 3) << c.body;
  }
}

TEST(StackExchange, ThrottleAfterASuccessIsPartial) {
  FixtureFetcher f;
  f.on_body("q=tokio", wrapper(kOneQuestion, 250));
  f.on_body("q=async", fixture("stackexchange/error_throttle_violation.json"), "application/json", 400);
  f.hold("q=rust");
  TestEnv t(f);
  auto r = se().search(three_queries(), t.env);
  EXPECT_EQ(f.answered(), 2);
  EXPECT_EQ(r.state, SourceState::partial);
  EXPECT_NE(r.reason.find("too many requests"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("1 of 3 sub-queries left out"), std::string::npos) << r.reason;
  EXPECT_EQ(r.items.size(), 1u);
}

TEST(StackExchange, HostileAnswersEndInAState) {
  const auto question = [](std::size_t i) {
    return fmt::format(R"({{"question_id":{},"title":"Tokio question {}","link":"https://stackoverflow.com/q/{}",)"
                       R"("creation_date":1795633544,"score":1}})",
                       i + 1, i, i + 1);
  };
  HostileTable(se(), "api.stackexchange.com", Format::json)
      .call([](const sources::Source& s,
               sources::Env& env) { return s.search(make_query("tokio", "2026-11-01", "2026-11-29"), env); },
            25)
      .valid(wrapper(kOneQuestion, 250))
      .huge(R"({"items":[)", question, R"(],"has_more":true,"quota_max":300,"quota_remaining":299})")
      .row("quota without items", json_reply(R"({"quota_max":300,"quota_remaining":200})"), SourceState::schema_drift)
      .row("array instead of object", json_reply("[]"), SourceState::schema_drift)
      .row("items not a list", json_reply(R"({"items":{}})"), SourceState::schema_drift)
      .row("no items", json_reply(R"({"items":[]})"), SourceState::no_results)
      .run();
}

TEST(StackExchange, OddValuesAreKeptButNothingIsMadeUp) {
  FixtureFetcher f;
  f.on_body("api.stackexchange.com", R"({"items":[{"question_id":"79","title":"Huge &amp; odd","score":"lots",)"
                                     R"("view_count":1e300,"answer_count":-2,"creation_date":1e40,"owner":"me","tags":"rust",)"
                                     R"("backoff":"x"}],"backoff":-5,"quota_remaining":"many"})");
  TestEnv t(f);
  auto r = se().search(make_query("tokio", "2026-11-01", "2026-11-29"), t.env);
  ASSERT_EQ(r.state, SourceState::ok) << r.reason;
  ASSERT_EQ(r.items.size(), 1u);
  EXPECT_EQ(r.items[0].title, "Huge & odd");
  EXPECT_TRUE(r.items[0].engagement.empty());
  EXPECT_FALSE(r.items[0].published_at.has_value());
  EXPECT_FALSE(r.items[0].author.has_value());
}

TEST(StackExchange, HasNoListingAndAnswersToSo) {
  EXPECT_FALSE(se().has_listing());
  EXPECT_EQ(sources::find("so"), &se());
}

// ---- comments: top answers ----

TEST(StackExchangeAnswers, OneRequestForEveryQuestionTopVotedFirst) {
  FixtureFetcher f;
  http::Response r;
  r.status = 200;
  r.content_type = "application/json";
  r.body = fixture("e2e/se_answers.json");
  f.on("/answers", r);
  TestEnv t(f);
  const auto& se = *sources::find("stackexchange");
  ASSERT_TRUE(se.has_comments());
  auto threads = se.comments({{"stackexchange:79990001", "stackexchange:79990005"}, 2}, t.env);
  ASSERT_EQ(f.urls().size(), 1u);
  EXPECT_EQ(f.urls()[0],
            "https://api.stackexchange.com/2.3/questions/79990001%3B79990005/answers?order=desc&sort=votes&site=stackoverflow"
            "&pagesize=100&filter=withbody");
  ASSERT_EQ(threads.size(), 2u);
  const auto& a = threads[0].comments;
  ASSERT_EQ(a.size(), 2u) << "per_item caps it";
  EXPECT_EQ(a[0].author, "Alice & Bob");
  EXPECT_EQ(a[0].score, 21);
  EXPECT_EQ(a[0].url, "https://stackoverflow.com/a/79990002");
  EXPECT_EQ(a[0].text,
            "You are calling Runtime::new() inside #[tokio::main]. Use Handle::current() instead, or move the blocking work into "
            "spawn_blocking.")
      << "code blocks are left out";
  EXPECT_FALSE(a[1].author.has_value()) << "user_type does_not_exist";
  EXPECT_FALSE(threads[1].failure);
  EXPECT_TRUE(threads[1].comments.empty()) << "a question nobody answered";
}

TEST(StackExchangeAnswers, ThrottledOrBrokenAnswersFailEveryThreadWithoutTheKey) {
  core::Config cfg({{"STACKEXCHANGE_KEY", "sekritkey123"}}, {});
  FixtureFetcher f;
  f.on_body(
      "/answers",
      R"({"error_id":502,"error_message":"too many requests from this IP, key sekritkey123","error_name":"throttle_violation"})",
      "application/json", 400);
  TestEnv t(f, cfg);
  auto threads = sources::find("stackexchange")->comments({{"stackexchange:1", "stackexchange:2", "stackexchange:x"}, 3}, t.env);
  ASSERT_EQ(threads.size(), 3u);
  for (const auto& th : threads) {
    ASSERT_TRUE(th.failure);
    EXPECT_EQ(th.failure->find("sekritkey123"), std::string::npos) << *th.failure;
  }
  EXPECT_NE(threads[0].failure->find("rate-limited"), std::string::npos) << *threads[0].failure;
  EXPECT_NE(threads[2].failure->find("not a Stack Exchange question id"), std::string::npos);
  FixtureFetcher g;
  g.on_body("/answers", R"({"items":"nope"})");
  TestEnv u(g);
  auto drift = sources::find("stackexchange")->comments({{"stackexchange:1"}, 3}, u.env);
  ASSERT_TRUE(drift[0].failure);
  EXPECT_NE(drift[0].failure->find("schema-drift"), std::string::npos);
}
