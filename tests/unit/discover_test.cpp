// Discovery formulas: velocity, names, the floor, the fold, tiers and the protocol files.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/text.hpp"
#include "discover/domains.hpp"
#include "discover/enrich.hpp"
#include "discover/protocol.hpp"
#include "discover/topics.hpp"
#include "fake_upstream.hpp"
#include "sources/source.hpp"

using namespace discover;

namespace {

const core::UnixSeconds kNow = *core::parse_date("2026-11-29") + 12 * 3600;

model::Item seed(std::string source, std::string title, double engagement, double age_days = 1, std::string url = "") {
  model::Item it;
  it.source = source;
  it.id = source + ":" + title;
  it.title = std::move(title);
  it.url = url.empty() ? "https://example.com/" + std::to_string(std::hash<std::string>{}(it.title)) : url;
  it.published_at = kNow - static_cast<core::UnixSeconds>(age_days * 86400);
  it.engagement.push_back({source == "github" ? "stars" : "score", engagement});
  return it;
}

model::Topic topic(std::string name, std::map<std::string, double> by_source, bool junk = false) {
  model::Topic t;
  t.name = std::move(name);
  t.junk = junk;
  for (auto& [s, e] : by_source) {
    t.sources.push_back(s);
    t.engagement += e;
  }
  t.engagement_by_source = std::move(by_source);
  t.velocity = t.engagement;
  return t;
}

}  // namespace

TEST(Velocity, FormulaFromTheIssue) {
  auto fresh = seed("hackernews", "x", 100, 3);
  EXPECT_NEAR(item_velocity(fresh, kNow), 100 / std::sqrt(4.0) * 1.5, 1e-9);
  auto old = seed("hackernews", "x", 100, 8);
  EXPECT_NEAR(item_velocity(old, kNow), 100 / std::sqrt(9.0), 1e-9);
  EXPECT_NEAR(topic_velocity(200, 3), 200 * 1.3, 1e-9);
  EXPECT_NEAR(topic_velocity(200, 1), 200, 1e-9);
  model::Item market;
  market.source = "polymarket";
  market.engagement = {{"volume", 5e6}, {"volume24hr", 850000}, {"liquidity", 3e5}, {"odds", 0.8}};
  EXPECT_NEAR(sources::comparable_engagement(market.source, market.engagement), 850, 1e-9)
      << "$1000 of 24 h volume counts as one";
}

TEST(Floor, TheFourCasesFromTheIssue) {
  EXPECT_TRUE(floor_verdict(topic("Tokio 2.0", {{"hackernews", 15}, {"lobsters", 15}})).pass) << "2 sources, 30";
  auto one_hundred = floor_verdict(topic("Cat fridge", {{"reddit", 100}}));
  EXPECT_FALSE(one_hundred.pass) << "1 source, 100";
  EXPECT_NE(one_hundred.reason.find("second source"), std::string::npos);
  EXPECT_TRUE(floor_verdict(topic("Octopus dreams", {{"reddit", 1600}})).pass) << "1 source, 1600";
  EXPECT_FALSE(floor_verdict(topic("Tiny", {{"reddit", 10}, {"hackernews", 10}})).pass) << "under 25 in total";
  EXPECT_FALSE(floor_verdict(topic("Today", {{"reddit", 5000}}, true)).pass) << "junk needs 2 sources";
  EXPECT_TRUE(floor_verdict(topic("Today", {{"reddit", 50}, {"hackernews", 50}}, true)).pass);
}

TEST(Floor, JunkOnlyCorpusIsNothingSolidWithAWeakSignal) {
  std::vector<model::Topic> junk{topic("Today", {{"reddit", 900}}, true), topic("New", {{"hackernews", 300}}, true),
                                 topic("Cat fridge", {{"reddit", 40}})};
  std::vector<double> score{900, 300, 40};
  auto sel = select_topics(junk, score);
  EXPECT_TRUE(sel.survivors.empty());
  ASSERT_TRUE(sel.weak_signal);
  EXPECT_EQ(sel.weak_signal->name, "Today");
  EXPECT_FALSE(sel.weak_signal->reason.empty());
}

TEST(Floor, TopicsSharingTwoEvidenceUrlsFoldIntoTheFasterOne) {
  auto a = topic("GPT-6", {{"hackernews", 900}, {"reddit", 900}});
  a.evidence_urls = {"https://openai.com/index/gpt-6", "https://news.example.com/gpt6"};
  auto b = topic("OpenAI GPT-6 launch", {{"reddit", 700}, {"polymarket", 100}});
  b.evidence_urls = {"https://www.openai.com/index/gpt-6/", "https://news.example.com/gpt6?utm_source=x"};
  auto c = topic("Tokio 2.0", {{"hackernews", 300}, {"lobsters", 50}});
  c.evidence_urls = {"https://openai.com/index/gpt-6", "https://tokio.rs/x"};  // only one shared: stays
  auto sel = select_topics({b, a, c}, {800, 1800, 350});
  ASSERT_EQ(sel.survivors.size(), 2u);
  EXPECT_EQ(sel.survivors[0].name, "GPT-6");
  EXPECT_EQ(sel.survivors[1].name, "Tokio 2.0");
}

TEST(Floor, AtMostTenSurvivorsRankedByScore) {
  std::vector<model::Topic> many;
  std::vector<double> score;
  for (int i = 0; i < 14; ++i) {
    many.push_back(topic("topic " + std::string(1, static_cast<char>('a' + i)), {{"reddit", 300.0 + i}}));
    score.push_back(300.0 + i);
  }
  auto sel = select_topics(many, score);
  ASSERT_EQ(sel.survivors.size(), kMaxResults);
  EXPECT_EQ(sel.survivors.front().name, "topic n");
}

TEST(Names, DistilledNotVerbatimAndJunkFlagged) {
  auto a = seed("hackernews", "Tokio 2.0: a new runtime scheduler", 900);
  auto b = seed("lobsters", "Tokio 2.0: a new runtime scheduler", 48);
  EXPECT_EQ(distill_name({&a, &b}), "Tokio 2.0");
  auto s = seed("hackernews", "Show HN: A tiny Lisp in 200 lines of Zig", 180);
  EXPECT_EQ(distill_name({&s}), "tiny Lisp in 200 lines of Zig");
  auto long_title =
      seed("reddit", "Physicists teleport quantum states across 100 km of deployed city fiber for the first time ever", 3000);
  const auto name = distill_name({&long_title});
  EXPECT_LE(name.size(), 60u);
  EXPECT_NE(name, long_title.title);
  EXPECT_EQ(name, "Physicists teleport quantum states across 100 km");  // cut at a phrase boundary
  auto no_boundary = seed("hackernews", "Rust Tokio Axum Hyper Tower Tonic Prost Serde Rayon crates compared", 300);
  EXPECT_EQ(distill_name({&no_boundary}), "Rust Tokio Axum Hyper Tower Tonic");
  EXPECT_TRUE(junk_shaped("Today"));
  EXPECT_TRUE(junk_shaped("2026"));
  EXPECT_TRUE(junk_shaped("https://example.com/x"));
  EXPECT_TRUE(junk_shaped("The new best"));
  EXPECT_FALSE(junk_shaped("Tokio 2.0"));
}

TEST(Topics, SameStoryAcrossSourcesIsOneTopicWithUniqueNames) {
  const auto window = model::Window::ending(kNow, 7);
  std::vector<model::Item> items{
      seed("hackernews", "OpenAI announces GPT-6", 1500, 1, "https://openai.com/index/gpt-6"),
      seed("reddit", "GPT-6 is here and it is wild", 25000, 1, "https://openai.com/index/gpt-6?utm_source=reddit"),
      seed("hackernews", "Tokio 2.0: a new runtime scheduler", 900, 2, "https://tokio.rs/blog/tokio-2"),
      seed("lobsters", "Tokio 2.0: a new runtime scheduler", 48, 2, "https://tokio.rs/blog/tokio-2"),
      seed("reddit", "Today", 500, 1),
      seed("reddit", "Today", 300, 1, "https://example.com/other-today"),
      seed("hackernews", "An old story", 900, 20),  // outside the 7-day window
  };
  auto topics = group_topics(items, kNow, window);
  ASSERT_GE(topics.size(), 3u);
  EXPECT_EQ(topics[0].sources, (std::vector<std::string>{"hackernews", "reddit"}));
  EXPECT_EQ(topics[0].id, "n1");
  EXPECT_NEAR(topics[0].velocity, (item_velocity(items[0], kNow) + item_velocity(items[1], kNow)) * 1.15, 1e-6);
  EXPECT_EQ(topics[0].momentum, "new-this-week");
  std::set<std::string> names;
  for (const auto& t : topics) {
    EXPECT_TRUE(names.insert(core::casefold(t.name)).second) << "duplicate name " << t.name;
    EXPECT_NE(t.name, "An old story");
  }
}

TEST(Tiers, ConstantsAndTheBudgetKnob) {
  auto one = one_shot_tier();
  EXPECT_EQ(one.name, "one-shot");
  EXPECT_EQ(one.depth, model::Depth::quick);
  EXPECT_EQ(one.max_workers, 3);
  EXPECT_EQ(one.budget_seconds, 240);
  auto shallow = shallow_tier();
  EXPECT_EQ(shallow.depth, model::Depth::quick);
  EXPECT_EQ(shallow.max_workers, 3);
  EXPECT_EQ(shallow.budget_seconds, 240);
  auto deep = deep_tier(std::nullopt);
  EXPECT_EQ(deep.name, "deep");
  EXPECT_EQ(deep.depth, model::Depth::standard);
  EXPECT_EQ(deep.max_workers, 4);
  EXPECT_EQ(deep.budget_seconds, 450);
  EXPECT_EQ(deep_tier("120").budget_seconds, 120);
  EXPECT_EQ(deep_tier(" 90.5 ").budget_seconds, 90.5);
  for (const char* garbage : {"", "   ", "abc", "0", "-5", "nan", "inf", "12abc", "1e999"})
    EXPECT_EQ(deep_tier(garbage).budget_seconds, 450) << "'" << garbage << "' falls back";
}

TEST(Protocol, JudgmentsAreCappedClampedAndTyped) {
  std::string err;
  auto j = parse_judgments(R"({"bundle_id":"b-1","judgments":[
      {"id":"n1","name":")" + std::string(200, 'x') +
                               R"(","junk":false,"worthiness":140},
      {"id":"n2","worthiness":-3},{"id":"n3","name":"Say \"hi\""}]})",
                           &err);
  ASSERT_TRUE(j) << err;
  EXPECT_LE(j->items[0].name->size(), kMaxJudgedName);
  EXPECT_EQ(j->items[0].worthiness, 100);
  EXPECT_EQ(j->items[1].worthiness, 0);
  EXPECT_EQ(j->items[2].name, "Say \"hi\"");  // kept as judged: the follow-up command quotes it safely
  EXPECT_FALSE(parse_judgments(R"({"bundle_id":"b-1","judgments":[{"id":"n1","junk":"no"}]})", &err));
  EXPECT_NE(err.find("junk"), std::string::npos);
  EXPECT_FALSE(parse_judgments(R"({"bundle_id":"b-1","judgments":[{"id":"n1","worthiness":"high"}]})", &err));
  EXPECT_FALSE(parse_judgments(R"({"judgments":[]})", &err));
  EXPECT_NEAR(blended_score(100, 100), 150, 1e-9);
  EXPECT_NEAR(blended_score(100, 0), 50, 1e-9);
  EXPECT_NEAR(blended_score(100, std::nullopt), 100, 1e-9);
}

Bundle sample_bundle() {
  Bundle b;
  b.bundle_id = "b-abc";
  b.tier = "deep";
  b.window = model::Window::ending(kNow, 7);
  b.now = kNow;
  b.created_wall = kNow;
  b.sources = {"hackernews"};
  b.source_status["hackernews"] = {model::SourceState::ok, 3, "", 12, 1};
  auto t = topic("Tokio 2.0", {{"hackernews", 900}});
  t.id = "n1";
  t.seeds.push_back(seed("hackernews", "Tokio 2.0: a new runtime scheduler", 900));
  t.seeds.back().tags = {"rust", "async"};
  b.nominations.push_back(t);
  return b;
}

TEST(Protocol, BundleRoundTripAndChecks) {
  const Bundle b = sample_bundle();
  std::string err;
  auto back = bundle_from_json(bundle_to_json(b), &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->bundle_id, "b-abc");
  EXPECT_EQ(back->window.from, b.window.from);
  EXPECT_EQ(back->window.to, b.window.to);
  EXPECT_EQ(back->nominations.at(0).seeds.at(0).title, "Tokio 2.0: a new runtime scheduler");
  // Tags are evidence the finalize leg's relevance reads (context labels): they travel too.
  EXPECT_EQ(back->nominations.at(0).seeds.at(0).tags, (std::vector<std::string>{"rust", "async"}));
  EXPECT_FALSE(check_bundle(b, "b-abc", kNow + 3600, false, "x"));
  EXPECT_NE(check_bundle(b, "b-other", kNow, false, "x")->find("b-other"), std::string::npos);
  EXPECT_NE(check_bundle(b, "b-abc", kNow + 3601, false, "x")->find("expired"), std::string::npos);
  EXPECT_NE(check_bundle(b, "b-abc", kNow, true, "x")->find("--replay"), std::string::npos);
  // Dated in the future: its clock cannot be trusted and it would never expire.
  EXPECT_FALSE(check_bundle(b, "b-abc", kNow - 60, false, "x")) << "a little clock skew is fine";
  EXPECT_NE(check_bundle(b, "b-abc", kNow - 86400, false, "x")->find("future"), std::string::npos);
}

TEST(Protocol, TheFuzzSeedsAreValidDocuments) {
  std::string err;
  auto b = bundle_from_json(testing_support::fixture("protocol/discover-nominations.json"), &err);
  ASSERT_TRUE(b) << err;
  EXPECT_EQ(b->nominations.at(0).seeds.size(), 1u);
  auto p = pending_from_json(testing_support::fixture("protocol/discover-pending.json"), &err);
  ASSERT_TRUE(p) << err;
  EXPECT_EQ(p->second.results.size(), 2u);
}

TEST(Protocol, AMalformedBundleOrPendingFileNamesTheField) {
  Bundle b = sample_bundle();
  const auto t = b.nominations.front();
  b.nominations.push_back(t);
  const auto good = nlohmann::json::parse(bundle_to_json(b));
  struct Case {
    const char* pointer;
    nlohmann::json value;
    const char* named;
  };
  // Each used to throw a library exception (exit 1) or pass silently with a default.
  const std::vector<Case> cases = {
      {"/nominations/1/velocity_score", "fast", "'nominations[1].velocity_score' must be a number"},
      {"/nominations/0/seed_items/0/engagement", nlohmann::json::array({1}), "'nominations[0].seed_items[0].engagement'"},
      {"/nominations/0/enrichment/status", "maybe", "'nominations[0].enrichment.status' must be one of"},
      {"/nominations/1/junk", "no", "'nominations[1].junk' must be true or false"},
      {"/window/days", 0, "'window.days' must be an integer from 1 to 365"},
      {"/created_unix", "yesterday", "'created_unix'"},
      {"/source_status/hackernews/state", "fine", "'source_status.hackernews.state'"},
      {"/nominations", nlohmann::json::object(), "'nominations' must be an array"},
      {"/kind", "discovery-pending", "'kind' must be \"discovery-nominations\""},
      {"/nominations/0/name", nullptr, "'nominations[0].name' must be a string (it is required)"},
  };
  for (const auto& c : cases) {
    auto doc = good;
    doc[nlohmann::json::json_pointer(c.pointer)] = c.value;
    std::string err;
    EXPECT_FALSE(bundle_from_json(doc.dump(), &err)) << c.pointer;
    EXPECT_NE(err.find(c.named), std::string::npos) << c.pointer << ": " << err;
  }
  std::string err;
  EXPECT_FALSE(bundle_from_json("[1,2]", &err));
  EXPECT_NE(err.find("must be an object"), std::string::npos) << err;

  model::DiscoveryReport r;
  r.enrichment.tier = "deep";
  r.results = {t};
  auto pending = nlohmann::json::parse(pending_to_json(b, r));
  ASSERT_TRUE(pending_from_json(pending.dump(), &err)) << err;
  pending["results"][0]["enrichment"]["items"] = -4;
  EXPECT_FALSE(pending_from_json(pending.dump(), &err));
  EXPECT_NE(err.find("'results[0].enrichment.items'"), std::string::npos) << err;
}

namespace {
model::Item listed(std::string source, std::string title, std::optional<std::string> container = std::nullopt,
                   std::vector<std::string> tags = {}) {
  model::Item it = seed(std::move(source), std::move(title), 100);
  it.container = std::move(container);
  it.tags = std::move(tags);
  return it;
}
}  // namespace

// The domains people type are generic words; each selects its stories all the same.
TEST(Domains, GenericDomainsHaveAVocabularyThatSelects) {
  for (const char* typed : {"tech", "Technology", "  software ", "news", "programming", "ai", "science", "business", "finance",
                            "crypto", "gaming", "sports", "politics", "security", "world news"}) {
    const Domain d = resolve_domain(typed);
    EXPECT_FALSE(d.global) << typed;
    EXPECT_FALSE(d.terms.empty()) << typed;
    EXPECT_FALSE(communities(d, "reddit").empty()) << typed;
  }
  const Domain tech = resolve_domain("tech");
  EXPECT_EQ(resolve_domain("TECHNOLOGY").terms, tech.terms);  // an alias, any case
  EXPECT_EQ(tech.name, "tech");
  // Hacker News and Lobsters are technology as a whole: every item of theirs counts.
  EXPECT_TRUE(selects(tech, listed("hackernews", "Why SQLite uses bytecode")));
  EXPECT_TRUE(selects(tech, listed("lobsters", "A retrospective", "databases", {"databases"})));
  EXPECT_TRUE(whole_listing(tech, "hackernews"));
  EXPECT_FALSE(whole_listing(tech, "reddit"));
  // Elsewhere it takes a term or one of the domain's subreddits.
  EXPECT_TRUE(selects(tech, listed("reddit", "Nvidia's new GPU doubles inference speed", "r/pcmasterrace")));
  EXPECT_TRUE(selects(tech, listed("reddit", "This thing is everywhere now", "r/technology")));
  EXPECT_TRUE(selects(tech, listed("polymarket", "Will OpenAI release GPT-6 before 2027?", "Polymarket")));
  EXPECT_FALSE(selects(tech, listed("reddit", "My cat learned to open the fridge", "r/cats")));
  EXPECT_FALSE(selects(tech, listed("polymarket", "Fed decision in December?", "Polymarket")));

  const Domain news = resolve_domain("news");
  EXPECT_TRUE(selects(news, listed("reddit", "Storm closes schools", "r/worldnews")));
  EXPECT_TRUE(selects(news, listed("reddit", "Earthquake hits the coast", "r/pics")));
  EXPECT_TRUE(selects(news, listed("hackernews", "Show HN: A tiny Lisp")));
  EXPECT_TRUE(selects(news, listed("polymarket", "Fed decision in December?", "Polymarket")));
  EXPECT_FALSE(selects(news, listed("reddit", "My cat learned to open the fridge", "r/cats")));
  EXPECT_FALSE(selects(news, listed("github", "someone/zlisp: A tiny Lisp in 200 lines of Zig", "someone/zlisp")));

  const Domain software = resolve_domain("software");
  EXPECT_TRUE(selects(software, listed("reddit", "Tokio 2.0: a new runtime scheduler", "r/rust")));
  EXPECT_TRUE(selects(software, listed("github", "someone/zlisp: A tiny Lisp in 200 lines of Zig", "someone/zlisp")));
  EXPECT_FALSE(selects(software, listed("reddit", "TIL octopuses appear to dream", "r/todayilearned")));
  EXPECT_FALSE(selects(software, listed("polymarket", "Fed decision in December?", "Polymarket")));

  // Phrases and hyphenated terms match as written; a term inside another word does not.
  const Domain ai = resolve_domain("machine learning");
  EXPECT_TRUE(selects(ai, listed("reddit", "A gentle intro to Machine Learning on GPUs", "r/learnprogramming")));
  EXPECT_FALSE(selects(ai, listed("reddit", "Said the captain", "r/boats")));  // "ai" inside words
  EXPECT_TRUE(selects(resolve_domain("security"), listed("reddit", "A zero-day in the wild", "r/linux")));
}

TEST(Domains, OtherDomainsAreTheirOwnWordsAndGenericOnesAreGlobal) {
  const Domain rust = resolve_domain("rust lang");
  EXPECT_FALSE(rust.global);
  EXPECT_TRUE(communities(rust, "reddit").empty());
  EXPECT_TRUE(selects(rust, listed("reddit", "Tokio 2.0: a new runtime scheduler", "r/rust")));
  EXPECT_FALSE(selects(rust, listed("hackernews", "Why SQLite uses bytecode")));
  // Nothing distinctive to select on: a global run, said in a warning.
  const Domain latest = resolve_domain("the latest");
  EXPECT_TRUE(latest.global);
  EXPECT_TRUE(selects(latest, listed("reddit", "My cat learned to open the fridge", "r/cats")));
  EXPECT_NE(global_fallback_warning(latest).find("global run"), std::string::npos);
  EXPECT_NE(global_fallback_warning(latest).find("'the latest'"), std::string::npos);
  EXPECT_TRUE(global_fallback_warning(resolve_domain("")).empty());
  EXPECT_TRUE(global_fallback_warning(resolve_domain("tech")).empty());
}

// Issue 16's promise for discovery: corroboration outranks one loud voice of similar size, and
// a story cross-posted with hundreds of points on two sources is never "nothing solid".
TEST(Topics, ACorroboratedStoryOutranksASingleSourceViralPostOfSimilarEngagement) {
  const auto window = model::Window::ending(kNow, 7);
  std::vector<model::Item> items{
      seed("hackernews", "Valkey 9 adds multi-tenant keyspaces", 420, 2, "https://valkey.io/blog/valkey-9"),
      seed("lobsters", "Valkey 9 adds multi-tenant keyspaces", 45, 2, "https://valkey.io/blog/valkey-9"),
      seed("reddit", "Valkey 9 is out with keyspaces", 380, 2, "https://valkey.io/blog/valkey-9?ref=reddit"),
      seed("github", "valkey-io/valkey: Valkey 9.0.0", 150, 2, "https://github.com/valkey-io/valkey/releases/tag/9.0.0"),
      seed("reddit", "My cat learned to open the fridge", 1100, 2),
  };
  items[3].title = "valkey-io/valkey: Valkey 9 adds multi-tenant keyspaces";
  auto topics = group_topics(items, kNow, window);
  ASSERT_GE(topics.size(), 2u);
  EXPECT_GE(topics[0].sources.size(), 3u) << topics[0].name;
  EXPECT_NE(topics[0].name.find("Valkey"), std::string::npos) << "the corroborated story first, not the viral post";
  std::vector<double> score;
  for (const auto& t : topics) score.push_back(t.velocity);
  auto sel = select_topics(topics, score);
  ASSERT_FALSE(sel.survivors.empty());
  EXPECT_NE(sel.survivors[0].name.find("Valkey"), std::string::npos);

  // Two sources, hundreds of points each: solid, whatever its name looks like.
  std::vector<model::Item> pair{seed("hackernews", "Today", 300, 1, "https://example.org/today-story"),
                                seed("reddit", "Today", 450, 1, "https://example.org/today-story")};
  auto two = group_topics(pair, kNow, window);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_TRUE(floor_verdict(two[0]).pass) << floor_verdict(two[0]).reason;
  EXPECT_FALSE(select_topics(two, {two[0].velocity}).survivors.empty());
}
