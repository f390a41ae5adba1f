// Relevance that knows which Kevin Rose: phrases, names, versions, folding, synonyms, context
// labels and context feedback, and the scoring around it (story freshness, projected votes,
// the why line). Each test names the mechanism it pins.
#include <gtest/gtest.h>

#include <map>

#include "core/text.hpp"
#include "pipeline/plan.hpp"
#include "pipeline/stages.hpp"

using namespace pipeline;

namespace {

const model::Window kWindow = model::Window::ending(*core::parse_date("2026-11-29"), 30);
const core::UnixSeconds kAsOf = *core::parse_date("2026-11-29") + 12 * 3600;
const core::UnixSeconds kDay = 86400;

struct Spec {
  std::string source = "reddit";
  std::string title = {};
  std::string snippet = {};
  std::optional<std::string> container = {};
  std::vector<std::string> tags = {};
  core::UnixSeconds at = kAsOf;
  double score = 100;
};

Corpus scored(const std::string& topic, const std::vector<Spec>& specs, const std::vector<model::Synonym>& synonyms = {}) {
  Corpus c;
  int n = 0;
  for (const auto& s : specs) {
    model::Item it;
    it.source = s.source;
    it.id = s.source + ":" + std::to_string(n++);
    it.title = s.title;
    it.snippet = s.snippet;
    it.container = s.container;
    it.tags = s.tags;
    it.url = "https://example.com/" + it.id;
    it.published_at = s.at;
    it.engagement = {{s.source == "hackernews" ? "points" : "score", s.score}};
    it.hits.push_back({0, 0, s.source});
    c.items.push_back(std::move(it));
  }
  c.topic = analyze_topic(topic, c.dict, synonyms);
  normalize(c);
  score_relevance(c);
  return c;
}

double rel(const Corpus& c, std::size_t i) { return c.items[i].scores.relevance; }

}  // namespace

TEST(Relevance, ANameIsAPhraseAndACorpusKnowsWhoElseIsCalledKevin) {
  auto c = scored("Kevin Rose", {{.title = "Kevin Rose relaunches Digg with paid moderators"},
                                 {.title = "Rose Byrne and Kevin Bacon to star in a new thriller"},
                                 {.title = "Treasury yields rose after Kevin Warsh signalled faster cuts"},
                                 {.title = "Senate confirms Kevin Warsh as the next Fed chair"},
                                 {.title = "Kevin Hart adds three more dates to the tour"},
                                 {.title = "What Rose said about the new community product"}});
  EXPECT_GE(rel(c, 0), 0.99);
  EXPECT_LT(rel(c, 1), kRelevanceFloor * 2.5) << "two names, neither of them his";
  EXPECT_LT(rel(c, 2), kRelevanceFloor) << "'rose' is a verb here and 'Kevin' is followed by someone else's surname";
  EXPECT_EQ(c.features[2].evidence.conflict, Evidence::Conflict::common_word);
  EXPECT_LT(rel(c, 3), kRelevanceFloor);
  EXPECT_EQ(c.features[3].evidence.conflict, Evidence::Conflict::other_name);
  EXPECT_GE(rel(c, 5), rel(c, 1)) << "a surname alone may still be him";
}

TEST(Relevance, AVersionBelongsToItsNameAndAnotherVersionIsAnotherRelease) {
  const auto synonyms = table_synonyms("PostgreSQL 19");
  auto c = scored("PostgreSQL 19",
                  {{.title = "PostgreSQL 19.1 released"},
                   {.title = "PostgreSQL 18 on ZFS: 19 tuning lessons"},
                   {.title = "Postgres 18 to 19 with pg_upgrade took 3 minutes"},
                   {.title = "PG19: async I/O is on by default"},
                   {.title = "PG 19 raid hour tonight, who is hosting?"},
                   {.title = "PG&E asks for a 19% rate increase"},
                   {.title = "PostgreSQL performance tips"}},
                  synonyms);
  EXPECT_GE(rel(c, 0), 0.99);
  EXPECT_LT(rel(c, 1), kRelevanceFloor);
  EXPECT_EQ(c.features[1].evidence.conflict, Evidence::Conflict::other_version);
  EXPECT_GT(rel(c, 2), 0.5) << "an upgrade from 18 to 19";
  EXPECT_GE(rel(c, 3), 0.99) << "the joined abbreviation";
  EXPECT_GT(rel(c, 4), 0.5) << "an abbreviation beside the version";
  EXPECT_LT(rel(c, 4), rel(c, 3)) << "but an abbreviation alone is less sure";
  EXPECT_LT(rel(c, 5), kRelevanceFloor) << "an abbreviation apart from the version is nothing";
  EXPECT_LT(rel(c, 6), 0.5) << "the name without the version is a partial match";
}

TEST(Relevance, AccentsEscapesAndSpellingsFoldTogether) {
  auto c = scored("Zürich", {{.title = "Zurich rents up 6%"},
                             {.title = "Zuerich: tram strike on Friday"},
                             {.source = "arxiv", .title = "A digital twin of Z\\\"urich's heating network"},
                             {.source = "stackexchange", .title = "Moving to Z&uuml;rich"},
                             {.title = "ZÜRICH HB: trains cancelled"},
                             {.title = "Geneva rents up 4%"}});
  for (std::size_t i = 0; i < 5; ++i) EXPECT_GE(rel(c, i), 0.99) << c.items[i].title;
  EXPECT_EQ(rel(c, 5), 0.0);
}

TEST(Relevance, ScriptsWithoutSpacesMatchInsideRunsAndHostSynonymsTranslate) {
  const std::vector<model::Synonym> host{{"東京", {"Tokyo"}, true}, {"地震", {"earthquake", "quake"}, true}};
  auto c = scored("東京 地震",
                  {{.title = "東京湾で震度5強の地震、けが人なし"},
                   {.title = "M5.9 earthquake hits Tokyo Bay"},
                   {.title = "東京の新しいラーメン店"},
                   {.title = "Felt the Tokyo quake in Shinjuku"}},
                  host);
  EXPECT_GT(rel(c, 0), 0.8);
  EXPECT_GT(rel(c, 1), 0.8);
  EXPECT_LT(rel(c, 2), 0.5);
  EXPECT_GE(rel(c, 3), 0.99);
  EXPECT_GE(c.features[3].evidence.form, 0) << "the why line names the spelling that matched";
}

TEST(Relevance, ANameWrittenAsACommonWordIsNotTheName) {
  auto c = scored("Arc browser", {{.title = "The Arc browser is open source now"},
                                  {.title = "How do you plan a character arc? My browser has 40 tabs"},
                                  {.title = "thebrowsercompany/arc-browser-sidebar: spaces for the web"}});
  EXPECT_GE(rel(c, 0), 0.99);
  EXPECT_LE(rel(c, 1), 0.1) << "the entity word only as a common word: generic";
  EXPECT_GT(rel(c, 2), 0.5) << "identifiers are lower case by convention";
}

// A topic typed in Title Case or in capitals says little by its case of which words are names:
// a capital holds until the corpus writes the word in lower case ("force wipe" is, "Rust" is
// not), and the scores are then the ones the topic typed as written gets.
TEST(Relevance, ATopicTypedInTitleCaseOrCapitalsIsReadByTheCorpus) {
  const std::vector<Spec> items = {{.title = "Rust force wipe moved to Thursday this month"},
                                   {.title = "When is the next force wipe? Rust servers disagree"},
                                   {.title = "Our modded server does a force wipe every month"},
                                   {.title = "Admins dread the force wipe after patches"},
                                   {.title = "Rust 1.91 is out with faster builds"},
                                   {.title = "The Force Awakens gets a Rust port of its game engine"}};
  const auto as_written = scored("Rust force wipe", items);
  for (const std::string topic : {"Rust Force Wipe", "RUST FORCE WIPE"}) {
    const auto c = scored(topic, items);
    for (std::size_t i = 0; i < items.size(); ++i) EXPECT_DOUBLE_EQ(rel(c, i), rel(as_written, i)) << topic << " item " << i;
  }
  EXPECT_GT(rel(as_written, 0), 0.9);
  EXPECT_GT(rel(as_written, 1), 0.5) << "lower-case \"force wipe\" is the topic's own words";
  // An acronym among Title-Case words is still one; a name typed alone keeps its case.
  EXPECT_EQ(typed_case(written_words("UK Online Safety Act")), TypedCase::title);
  EXPECT_EQ(typed_case(written_words("SIGNAL APP")), TypedCase::capitals);
  EXPECT_EQ(typed_case(written_words("Signal app")), TypedCase::informative);
  EXPECT_EQ(typed_case(written_words("Helix")), TypedCase::informative);
  EXPECT_EQ(typed_case(written_words("How to Set Up Passkeys for Parents")), TypedCase::title) << "function words say nothing";
  auto acronym = scored("UK Online Safety Act", {{.title = "The uk online safety act, read in lower case"}});
  EXPECT_LT(rel(acronym, 0), 0.5) << "\"uk\" in lower case is not the acronym UK";
}

// A version is written with its prefix ("v1.38": release tags, changelogs) or hyphenated to its
// name ("PostgreSQL-19") as often as plainly; each way of typing it finds the others.
TEST(Relevance, AVersionWrittenWithItsPrefixOrAHyphenIsTheVersion) {
  const std::vector<Spec> items = {{.title = "Kubernetes v1.38 is out: sidecars go GA"},
                                   {.title = "kubernetes/kubernetes v1.38.0 release notes"},
                                   {.title = "Kubernetes 1.38 is out: sidecars go GA"},
                                   {.title = "Kubernetes v1.37 patch release fixes a kubelet leak"}};
  for (const std::string topic : {"Kubernetes 1.38", "Kubernetes v1.38", "Kubernetes-1.38"}) {
    const auto c = scored(topic, items);
    EXPECT_GE(rel(c, 0), 0.99) << topic;
    EXPECT_GT(rel(c, 1), 0.5) << topic;
    EXPECT_GE(rel(c, 2), 0.99) << topic;
    EXPECT_LT(rel(c, 3), 0.5) << topic << ": another release";
  }
  // "V8" is a name, not version 8.
  const auto engine = scored("V8 engine", {{.title = "V8 engine ships a faster JIT"}, {.title = "8 engine types explained"}});
  EXPECT_GE(rel(engine, 0), 0.99);
  EXPECT_LT(rel(engine, 1), 0.5);
  // The hyphenated topic gets the name's spellings, as the spaced one does.
  const auto plan = make_plan("PostgreSQL-19", model::Depth::standard);
  const auto c = scored("PostgreSQL-19", {{.title = "Postgres 19 beta 1: what changes for upgrades"}}, plan.synonyms);
  EXPECT_GT(rel(c, 0), 0.9);
}

// A topic typed in lower case learns its names from how the items write them, the texts too:
// few titles write "Bun" mid-sentence (it opens most of them), the release notes do throughout.
// The texts only add a name; they never unmake one the titles show ("the double helix").
TEST(Relevance, TheTextsCanShowANameTheTitlesAreTooFewToShow) {
  const auto bun = scored(
      "bun 2.0", {{.title = "Bun 2.0 is out", .snippet = "The release makes Bun faster, and Bun now ships a test runner."},
                  {.title = "Benchmarks: Node vs Bun 2.0", .snippet = "We ran Bun against Node; then we ran Bun against Deno."},
                  {.title = "Migrating a monorepo to Bun 2.0", .snippet = "Moving to Bun took a week."},
                  {.title = "Messy bun 2.0: the claw clip method, step by step"},
                  {.title = "Brioche bun 2.0: I fixed my dense crumb"}});
  EXPECT_GE(rel(bun, 0), 0.99);
  EXPECT_GE(rel(bun, 1), 0.99);
  for (std::size_t i : {3u, 4u}) EXPECT_LT(rel(bun, i), kRelevanceFloor) << bun.items[i].title << ": the common word";
  const auto helix = scored(
      "helix", {{.title = "Why I switched from Neovim to Helix after ten years"},
                {.title = "How Helix embedded a Scheme for its plugins"},
                {.title = "Tried Helix for a month"},
                {.title = "Show HN: file marks for Helix"},
                {.title = "A Steel plugin for Helix"},
                {.title = "AlphaFold predicts helix-to-sheet transitions",
                 .snippet = "An alpha helix turns into a sheet; the helix breaks, the helix bends, a helix forms."},
                {.title = "Why is the DNA double helix right-handed?", .snippet = "The double helix and the helix axis."}});
  EXPECT_GE(rel(helix, 0), 0.99);
  for (std::size_t i : {5u, 6u}) EXPECT_LT(rel(helix, i), kRelevanceFloor) << helix.items[i].title << ": the common word";
}

// A year after a name that the items rarely write after it dates the question ("Steam Machine
// 2026"): it counts for nothing, neither missing nor elsewhere. One they write with it names an
// edition ("ACL 2026"): the name alone is not enough there.
TEST(Relevance, AYearTheItemsRarelyWriteDatesTheQuestion) {
  const std::vector<Spec> machine = {{.title = "Steam Machine review: the console-sized PC"},
                                     {.title = "One week with the Steam Machine"},
                                     {.title = "iFixit Steam Machine teardown"},
                                     {.title = "Valve's 2026 hardware: the Steam Machine ships"}};
  const auto dated = scored("Steam Machine 2026", machine);
  const auto plain = scored("Steam Machine", machine);
  EXPECT_GT(rel(dated, 0), 0.7) << "the year is not required";
  for (std::size_t i = 0; i < machine.size(); ++i) {
    EXPECT_DOUBLE_EQ(rel(dated, i), rel(plain, i)) << machine[i].title;
    EXPECT_EQ(dated.features[i].evidence.terms, plain.features[i].evidence.terms) << "the why counts the subject's words";
  }
  const auto in_year = scored("Steam Machine in 2026", machine);
  EXPECT_GT(rel(in_year, 0), 0.7) << "over a function word too";
  const auto edition = scored("ACL 2026", {{.title = "ACL 2026 best paper awards announced"},
                                           {.title = "Our three papers at ACL 2026"},
                                           {.title = "ACL 2026 in Vienna: travel grants"},
                                           {.title = "ACL tear recovery: six months in"}});
  EXPECT_GE(rel(edition, 0), 0.99);
  EXPECT_LT(rel(edition, 3), 0.7) << "an edition's year is part of its name";
  // After a version too: "Go 1.26 2026" is Go 1.26, and a "GO ... 2026" without it is not.
  const std::vector<Spec> go = {{.title = "Go 1.26 is released"},
                                {.title = "Go 1.26 interactive tour"},
                                {.title = "SIMD in Go 1.26: first benchmarks"},
                                {.title = "Pokemon GO Tour 2026 global event runs February 26 to March 1"}};
  const auto go_dated = scored("Go 1.26 2026", go);
  const auto go_plain = scored("Go 1.26", go);
  EXPECT_GE(rel(go_dated, 0), 0.99) << "the release holds the whole subject";
  EXPECT_DOUBLE_EQ(rel(go_dated, 3), rel(go_plain, 3)) << "the year gains the event nothing";
}

// A hyphen between plain words makes a compound of the prose around it, not an identifier:
// its case says what it says elsewhere. Identifiers ('/', '_', '.', digits) stay case-free.
TEST(Relevance, AHyphenatedCompoundInLowerCaseIsTheCommonWord) {
  auto c = scored("Quill", {{.title = "Quill 4.0 ships a plugin system"},
                            {.title = "Goose feathers: the quill-to-nib transition in calligraphy"},
                            {.title = "quill-editor/quill-delta: the document format"},
                            {.title = "Show HN: quill2-themes for the Quill editor"}});
  EXPECT_GE(rel(c, 0), 0.99);
  EXPECT_LE(rel(c, 1), 0.1) << "a lower-case compound in a sentence: the common word";
  EXPECT_GT(rel(c, 2), 0.5) << "a repository path is an identifier";
  EXPECT_GE(rel(c, 3), 0.99);
}

// A first name the corpus writes before the topic's surname again and again, and once before
// another, is that other person there; a title's period does not hide it ("Sen. Adam Schiff").
TEST(Relevance, AFirstNameBeforeAnotherSurnameIsSomeoneElse) {
  auto c = scored("Rep. Adam Smith", {{.title = "Rep. Adam Smith and Rep. Mike Rogers unveil the NDAA compromise"},
                                      {.title = "Golden Dome cost estimates are fantasy, says Rep. Adam Smith"},
                                      {.title = "House passes the NDAA as Adam Smith urges the Senate to act"},
                                      {.title = "Adam Smith holds a town hall in Renton"},
                                      {.title = "Rep. Jason Smith and Sen. Adam Schiff trade jabs over tariffs"}});
  EXPECT_GE(rel(c, 0), 0.99) << "the title's period keeps the name whole";
  EXPECT_GE(rel(c, 1), 0.99);
  EXPECT_LT(rel(c, 4), 0.4) << "Adam Schiff and Jason Smith are two other people";
  EXPECT_LT(rel(c, 4), rel(c, 3));
}

// The topic as another subject's reference point is an aside, in the languages folded
// ("like the X", "nach dem X", "faster than X"); "before the X" is how a preview is titled.
TEST(Relevance, TheTopicNamedAsAReferencePointIsAnAside) {
  auto c = scored("UK Online Safety Act", {{.title = "The UK Online Safety Act created Europe's biggest ID honeypot"},
                                           {.title = "EU chat control position: like the UK Online Safety Act, for messages"},
                                           {.title = "Before the UK Online Safety Act review, Ofcom publishes its data"}});
  EXPECT_GE(rel(c, 0), 0.99);
  EXPECT_LT(rel(c, 1), 0.7) << "a comparison's reference point";
  EXPECT_GE(rel(c, 2), 0.99);
  auto de = scored("GDL Streik", {{.title = "GDL-Streik ab Mittwoch: DB erwartet massive Ausfälle"},
                                  {.title = "Nach dem GDL-Streik jetzt ver.di-Warnstreik an sieben Flughäfen"}});
  EXPECT_GE(rel(de, 0), 0.99);
  EXPECT_LT(rel(de, 1), 0.7) << "what came after it is the subject";
  // A time reference: what happened during it is the subject.
  auto during = scored("Hetzner outage", {{.title = "Hetzner outage: a faulty switch in Falkenstein"},
                                          {.title = "Our deploys stalled during the Hetzner outage"},
                                          {.title = "Ein Nachmittag während des Hetzner outage"}});
  EXPECT_GE(rel(during, 0), 0.99);
  EXPECT_LT(rel(during, 1), 0.7) << "the deploys are the subject";
  EXPECT_LT(rel(during, 2), 0.7) << "also in German, accents folded";
}

TEST(Relevance, TheTopicOnlyInBracketsIsATag) {
  auto c = scored("ACL 2026", {{.title = "ACL 2026 accepted papers"},
                               {.title = "Code and models for tokenizer-free machine translation (ACL 2026)"},
                               {.title = "[ACL 2026] Camera-ready deadline moved"},
                               {.title = "Reviewing at ACL 2026 (a thread)"}});
  EXPECT_GE(rel(c, 0), 0.99);
  EXPECT_LT(rel(c, 1), 0.95) << "a venue tag after the title's own subject";
  EXPECT_GT(rel(c, 1), 0.8) << "still on topic, only less than its subject";
  EXPECT_GE(rel(c, 2), 0.99) << "a label opening the title names the subject";
  EXPECT_GE(rel(c, 3), 0.99) << "the topic outside the brackets";
}

TEST(Relevance, ANameWithGenericWordsIsThePhraseAlone) {
  // "app" is a generic word: "Signal drops ..." has the whole phrase the one name can give.
  auto c = scored("Signal app", {{.title = "Signal app no longer needs a phone number"},
                                 {.title = "Signal drops the phone number requirement"},
                                 {.title = "Phone numbers: what Signal and WhatsApp ask for"}});
  EXPECT_GE(rel(c, 0), 0.99);
  EXPECT_GT(rel(c, 1), 0.7) << "the name, the generic word missing";
  EXPECT_LT(rel(c, 1), rel(c, 0));
  // Two specific words: one of them alone is no phrase.
  auto two = scored("Rust force wipe", {{.title = "Rust force wipe day: what changed"}, {.title = "Rust wipe day tonight"}});
  EXPECT_LT(rel(two, 1), 0.7);
}

TEST(Relevance, GenericWordsAloneStayUnderTheFloor) {
  auto c =
      scored("llama.cpp server performance tuning", {{.title = "llama.cpp server performance tuning guide"},
                                                     {.title = "PostgreSQL performance tuning checklist"},
                                                     {.title = "SQL Server performance tuning: index on a computed column"}});
  EXPECT_GE(rel(c, 0), 0.99);
  EXPECT_LT(rel(c, 1), kRelevanceFloor);
  EXPECT_LT(rel(c, 2), kRelevanceFloor);
  EXPECT_TRUE(c.features[2].evidence.generic_only);
}

TEST(Relevance, NearCountsInMeaningfulWordsAndStopsAtAClause) {
  auto c = scored("Cloudflare outage", {{.title = "Massive outage at Cloudflare takes sites down"},
                                        {.title = "Verizon outage leaves millions offline; Cloudflare not to blame"},
                                        {.title = "Cloudflare raises prices for the enterprise plans, customers see an outage"}});
  EXPECT_GT(rel(c, 0), 0.85);
  EXPECT_LT(rel(c, 1), 0.7);
  EXPECT_LT(rel(c, 2), rel(c, 0));
}

TEST(Relevance, ContextLabelsAreEvidence) {
  auto c = scored("Rust force wipe",
                  {{.title = "Servers are down after the force wipe", .container = "r/playrust"},
                   {.title = "Servers are down after the force wipe"},
                   {.source = "stackexchange", .title = "Actor isolation warnings everywhere", .tags = {"swift-concurrency"}}});
  EXPECT_GT(rel(c, 0), rel(c, 1) + 0.2) << "the subreddit says which Rust";
  EXPECT_GE(c.features[0].evidence.context, 0);
  auto s = scored("Swift 6 concurrency", {{.source = "stackexchange",
                                           .title = "Sending self risks data races after enabling strict checking",
                                           .snippet = "Since switching to the Swift 6 language mode",
                                           .tags = {"swift", "swift-concurrency"}}});
  EXPECT_GT(rel(s, 0), 0.6);
}

TEST(Relevance, ContextFeedbackFollowsWhereTheStrongMatchesLive) {
  std::vector<Spec> specs;
  for (const char* t : {"Rust force wipe patch notes", "Rust force wipe tonight: what to build",
                        "Rust force wipe brings a new monument", "Rust force wipe server list"})
    specs.push_back({.title = t, .container = "r/playrust"});
  specs.push_back({.title = "Blueprint reset on the next force wipe?", .container = "r/playrust"});
  specs.push_back({.title = "Is there a way to force-wipe a Vec before drop?", .container = "r/rust"});
  auto c = scored("Rust force wipe", specs);
  EXPECT_EQ(c.features[4].evidence.support, 2) << "filed where the strong matches are";
  EXPECT_EQ(c.features[5].evidence.support, 0) << "filed where none of them are";
  EXPECT_GT(rel(c, 4), rel(c, 5) + 0.2);

  // Strong matches spread over many places say nothing: no feedback.
  std::vector<Spec> spread;
  for (const char* sub : {"r/a", "r/b", "r/c", "r/d", "r/e"})
    spread.push_back({.title = "Rust force wipe patch notes", .container = sub});
  spread.push_back({.title = "Is there a way to force-wipe a Vec before drop?", .container = "r/rust"});
  auto d = scored("Rust force wipe", spread);
  EXPECT_EQ(d.features[5].evidence.support, -1);
}

TEST(Freshness, ItemsFromBeforeAStorysMomentAreBackground) {
  std::vector<Spec> specs;
  for (int d : {4, 3, 3, 2, 2, 1}) specs.push_back({.title = "Zig 1.0 released", .at = kAsOf - d * kDay});
  specs.push_back({.title = "Zig 1.0 will ship this month", .at = kAsOf - 27 * kDay});
  auto c = scored("Zig 1.0", specs);
  score_freshness(c, kWindow);
  EXPECT_TRUE(c.features[6].before_story);
  EXPECT_LT(c.items[6].scores.freshness, 0.1 * freshness(kWindow, c.items[6]));
  EXPECT_FALSE(c.features[0].before_story) << "the day before the coverage is the event's own";

  std::vector<Spec> spread;
  for (int d : {25, 20, 15, 10, 5, 1}) spread.push_back({.title = "Zig 1.0 released", .at = kAsOf - d * kDay});
  auto e = scored("Zig 1.0", spread);
  score_freshness(e, kWindow);
  for (std::size_t i = 0; i < e.items.size(); ++i) EXPECT_FALSE(e.features[i].before_story) << "no story, no background";
}

TEST(Engagement, YoungSocialItemsHaveTheirVotesProjected) {
  EXPECT_DOUBLE_EQ(maturity(-1), 1.0);
  EXPECT_DOUBLE_EQ(maturity(2), 1.0);
  EXPECT_NEAR(maturity(0.25), 9.0 / 36.0, 1e-12);
  EXPECT_DOUBLE_EQ(maturity(0), 0.1) << "never more than tenfold";
  auto c = scored("zig", {{.source = "hackernews", .title = "Zig", .at = kAsOf - 3 * 3600, .score = 100},
                          {.source = "hackernews", .title = "Zig", .at = kAsOf - 5 * kDay, .score = 100},
                          {.source = "stackexchange", .title = "Zig", .at = kAsOf - 3 * 3600, .score = 5},
                          {.source = "stackexchange", .title = "Zig", .at = kAsOf - 5 * kDay, .score = 5}});
  score_freshness(c, kWindow);
  score_engagement(c);
  EXPECT_GT(c.items[0].scores.engagement, c.items[1].scores.engagement);
  EXPECT_DOUBLE_EQ(c.items[2].scores.engagement, c.items[3].scores.engagement) << "answers and views keep coming: no projection";
}

TEST(Rerank, EveryItemSaysWhy) {
  auto c = scored("Rust force wipe",
                  {{.title = "Rust force wipe patch notes",
                    .snippet = "Monthly update: new monument",
                    .container = "r/playrust",
                    .at = kAsOf - 2 * kDay},
                   {.title = "Servers are down after the force wipe", .container = "r/playrust", .at = kAsOf - 30 * kDay},
                   {.source = "hackernews", .title = "Rust: how to force a secure wipe of memory"}});
  score_freshness(c, kWindow);
  score_engagement(c);
  score_base(c, {});
  assign_stream_ranks(c);
  fuse(c, {{"Rust force wipe", 1.0}}, {});
  rerank(c);
  std::map<std::string, std::string> why;
  for (const auto& it : c.items) why[it.title] = it.why;
  EXPECT_EQ(why["Rust force wipe patch notes"], "phrase match in title; r/playrust context; 2 days old");
  EXPECT_NE(why["Servers are down after the force wipe"].find("r/playrust context; 30 days old"), std::string::npos);
  EXPECT_EQ(why["Rust: how to force a secure wipe of memory"],
            "all 3 words in title, not as a phrase; under a day old; only a title");
}

TEST(Plan, SynonymsAndAbbreviationsBecomeSubQueries) {
  const auto p = make_plan("PostgreSQL 19", model::Depth::standard);
  std::vector<std::string> q;
  for (const auto& s : p.sub_queries) q.push_back(s.text);
  EXPECT_EQ(q, (std::vector<std::string>{"PostgreSQL 19", "Postgres 19", "PG19"}));
  ASSERT_EQ(p.synonyms.size(), 1u);
  EXPECT_EQ(p.synonyms[0].term, "PostgreSQL");
  EXPECT_EQ(p.synonyms[0].alternatives, (std::vector<std::string>{"Postgres", "PG"}));
  const auto deep = make_plan("PostgreSQL 19", model::Depth::deep);
  EXPECT_NE(std::find_if(deep.sub_queries.begin(), deep.sub_queries.end(), [](auto& s) { return s.text == "PG 19"; }),
            deep.sub_queries.end());
  EXPECT_EQ(make_plan("JavaScript", model::Depth::deep).sub_queries.size(), 1u) << "an abbreviation alone is never asked";
}

TEST(Plan, TheSpellingTableIgnoresPlurals) {
  // "large language model" is in "large language models": the table's entries are singular.
  const auto p = make_plan("large language models", model::Depth::standard);
  const auto llm = std::find_if(p.synonyms.begin(), p.synonyms.end(), [](auto& s) { return s.term == "large language models"; });
  ASSERT_NE(llm, p.synonyms.end());
  EXPECT_EQ(llm->alternatives, (std::vector<std::string>{"LLM"}));
  // "language models" in "diffusion language model", and written so, the spelling is asked for.
  const auto d = make_plan("diffusion language model", model::Depth::standard);
  EXPECT_NE(std::find_if(d.sub_queries.begin(), d.sub_queries.end(), [](auto& s) { return s.text == "diffusion LLMs"; }),
            d.sub_queries.end());
}

TEST(Plan, NeverBroadensToGenericWordsOrALoneName) {
  for (auto d : {model::Depth::standard, model::Depth::deep}) {
    const auto p = make_plan("llama.cpp server performance tuning", d);
    for (const auto& s : p.sub_queries) {
      EXPECT_NE(s.text, "performance tuning");
      EXPECT_NE(s.text, "server performance");
      EXPECT_NE(s.text.find("llama.cpp"), std::string::npos) << s.text;
    }
    EXPECT_TRUE(std::any_of(p.sub_queries.begin(), p.sub_queries.end(), [](auto& s) { return s.text == "llama.cpp tuning"; }));
  }
  EXPECT_EQ(make_plan("Vision Pro 2 review", model::Depth::standard).sub_queries[1].text, "Vision Pro 2");
  // The head entity alone is asked (issue 16: qualifiers are hints, not filters); generic words
  // alone never are.
  for (const auto& s : make_plan("Mistral new model", model::Depth::standard).sub_queries) {
    EXPECT_NE(s.text, "new model");
    EXPECT_NE(s.text.find("Mistral"), std::string::npos) << s.text;
  }
  EXPECT_EQ(make_plan("Kubernetes 1.38", model::Depth::standard).sub_queries[1].text, "K8s 1.38");
}

TEST(Plan, HostSynonymsAreValidatedAndMayStandAlone) {
  std::string err;
  auto p = parse_host_plan(R"({"synonyms":{"東京":["Tokyo"],"地震":["earthquake","quake"]}})", &err);
  ASSERT_TRUE(p) << err;
  EXPECT_TRUE(p->sub_queries.empty());
  const auto plan = plan_for("東京 地震", model::Depth::standard, p);
  EXPECT_TRUE(plan.from_host);
  ASSERT_GE(plan.sub_queries.size(), 2u);
  EXPECT_EQ(plan.sub_queries[0].text, "東京 地震");
  EXPECT_EQ(plan.sub_queries[1].text, "Tokyo earthquake") << "every word in its other spelling at once";
  EXPECT_EQ(plan.synonyms.size(), 2u);
  // With sub-queries the host decides what is asked; the table still helps relevance.
  auto q = parse_host_plan(R"({"sub_queries":["pg 19 news"],"synonyms":{"PostgreSQL":["Postgres"]}})", &err);
  ASSERT_TRUE(q) << err;
  const auto merged = plan_for("PostgreSQL 19", model::Depth::standard, q);
  ASSERT_EQ(merged.sub_queries.size(), 1u);
  ASSERT_EQ(merged.synonyms.size(), 1u) << "the host's entry wins over the table's for the same term";
  EXPECT_EQ(merged.synonyms[0].alternatives, (std::vector<std::string>{"Postgres"}));
  for (const char* bad :
       {R"({"synonyms":[]})", R"({"synonyms":{"x":"y"}})", R"({"synonyms":{"x":[]}})", R"({"synonyms":{"x":[1]}})",
        R"({"synonyms":{"":["y"]}})", R"({"synonyms":{"x":[""]}})", R"({"intent":"news"})"}) {
    EXPECT_FALSE(parse_host_plan(bad, &err)) << bad;
    EXPECT_NE(err.find("--plan"), std::string::npos);
  }
  std::string many = R"({"synonyms":{)";
  for (int i = 0; i < 21; ++i) many += (i ? "," : "") + std::string("\"t") + std::to_string(i) + "\":[\"x\"]";
  EXPECT_FALSE(parse_host_plan(many + "}}", &err));
  EXPECT_FALSE(parse_host_plan(R"({"synonyms":{"x":[")" + std::string(101, 'a') + R"("]}})", &err));
}

// A question typed in Title Case or capitals is still a question: its frame and task verb are
// left out of the parts as they are when it is typed in lower case. A Title-Case name is a name.
TEST(Plan, AQuestionTypedInTitleCaseOrCapitalsIsPlannedAsTyped) {
  const auto texts = [](const model::Plan& p) {
    std::vector<std::string> out;
    for (const auto& s : p.sub_queries) out.push_back(core::lower_ascii(s.text));
    return out;
  };
  const auto lower = texts(make_plan("how to set up passkeys for elderly parents", model::Depth::standard));
  ASSERT_GE(lower.size(), 2u);
  EXPECT_EQ(lower[0], "passkeys elderly parents");
  EXPECT_EQ(texts(make_plan("How To Set Up Passkeys For Elderly Parents", model::Depth::standard)), lower);
  EXPECT_EQ(texts(make_plan("HOW TO SET UP PASSKEYS FOR ELDERLY PARENTS", model::Depth::standard)), lower);
  // A title that opens like a question but is no how-to frame is read as typed.
  EXPECT_EQ(make_plan("How I Met Your Mother", model::Depth::standard).sub_queries[0].text, "How I Met Your Mother");
  // Title-Case names keep their reading: the head without its title is asked.
  const auto rep = texts(make_plan("Rep. Adam Smith", model::Depth::standard));
  EXPECT_NE(std::find(rep.begin(), rep.end(), "adam smith"), rep.end());
}

// "PostgreSQL-19" is planned as "PostgreSQL 19" (the platforms' tokenisers split it the same
// way); "Kubernetes v1.38" is asked as typed and then as "Kubernetes 1.38", a different search.
TEST(Plan, AVersionWrittenWithItsPrefixOrAHyphenIsPlannedAsTheVersion) {
  const auto texts = [](const model::Plan& p) {
    std::vector<std::string> out;
    for (const auto& s : p.sub_queries) out.push_back(s.text);
    return out;
  };
  EXPECT_EQ(texts(make_plan("PostgreSQL-19", model::Depth::standard)), texts(make_plan("PostgreSQL 19", model::Depth::standard)));
  const auto v = texts(make_plan("Kubernetes v1.38", model::Depth::standard));
  ASSERT_GE(v.size(), 3u);
  EXPECT_EQ(v[0], "Kubernetes v1.38");
  EXPECT_EQ(v[1], "Kubernetes 1.38");
  EXPECT_EQ(v[2], "K8s 1.38") << "the spellings are made from the version";
  // Not a version: an engine's name, an identifier with several dashes, a word with a hyphen.
  for (const std::string topic : {"V8 engine flags", "Chrome V8", "v8 engine"})
    for (const auto& s : make_plan(topic, model::Depth::standard).sub_queries)
      EXPECT_NE(s.text.find_first_of("vV"), std::string::npos) << topic << ": " << s.text;
  EXPECT_EQ(make_plan("CVE-2026-31790", model::Depth::standard).sub_queries[0].text, "CVE-2026-31790");
  EXPECT_EQ(make_plan("Wi-Fi 7 routers", model::Depth::standard).sub_queries[0].text, "Wi-Fi 7 routers");
}

// A possessive is asked without its 's too ("cook's" is not "Cook" to a literal search);
// a contraction is no possessive.
TEST(Plan, APossessiveIsAlsoAskedWithoutIt) {
  const auto p = make_plan("Tim Cook's", model::Depth::standard);
  ASSERT_GE(p.sub_queries.size(), 2u);
  EXPECT_EQ(p.sub_queries[0].text, "Tim Cook's");
  EXPECT_EQ(p.sub_queries[1].text, "Tim Cook");
  EXPECT_EQ(make_plan("Apple\u2019s M5", model::Depth::standard).sub_queries[1].text, "Apple M5");
  for (const auto& s : make_plan("Let's Encrypt outage", model::Depth::standard).sub_queries)
    EXPECT_EQ(s.text.find("Let "), std::string::npos) << s.text;
}

TEST(Plan, EveryHostSpellingIsAskedUpToADeepRunsCount) {
  // A host names the ways a topic is written because stories use them: at a default depth all
  // of them are asked (up to a deep run's five), not only the first two the depth would allow.
  std::string err;
  const auto host = parse_host_plan(
      R"({"synonyms":{"leap second bug":["leap second crash","Leapocalypse","leap smear outage","leap-second hang","leap panic"]}})",
      &err);
  ASSERT_TRUE(host) << err;
  std::vector<std::string> q;
  for (const auto& s : plan_for("leap second bug", model::Depth::standard, host).sub_queries) q.push_back(s.text);
  EXPECT_EQ(q, (std::vector<std::string>{"leap second bug", "leap second crash", "Leapocalypse", "leap smear outage",
                                         "leap-second hang"}));
  EXPECT_EQ(static_cast<int>(plan_for("leap second bug", model::Depth::deep, host).sub_queries.size()),
            max_sub_queries(model::Depth::deep));
  EXPECT_EQ(static_cast<int>(plan_for("leap second bug", model::Depth::quick, host).sub_queries.size()),
            max_sub_queries(model::Depth::quick))
      << "a quick run stays quick";
  // The built-in table's spellings keep the depth's count.
  EXPECT_EQ(static_cast<int>(make_plan("PostgreSQL 19", model::Depth::standard).sub_queries.size()),
            max_sub_queries(model::Depth::standard));
}

TEST(Relevance, TheStrongMatchesWordsSayWhichSenseIsMeant) {
  // Strong matches about the messenger share "encrypted", "messenger", "privacy"; an item that
  // names only "Signal" is lifted by those words, one that shares none of them is not.
  auto c = scored("Signal app",
                  {{.title = "Signal app drops the phone number requirement",
                    .snippet = "The encrypted messenger now lets you sign up with a username"},
                   {.title = "Signal app adds usernames for privacy", .snippet = "The encrypted messenger hides your number"},
                   {.title = "Signal app: encrypted backups arrive", .snippet = "The messenger keeps its privacy promise"},
                   {.title = "Signal app tops the charts in Europe", .snippet = "An encrypted messenger with privacy first"},
                   {.title = "Signal fights the EU over chat control",
                    .snippet = "The encrypted messenger would rather leave than weaken privacy"},
                   {.title = "Why does my Django Signal fire twice on save",
                    .snippet = "My post_save receiver runs two times for every model instance I create in the admin view"}});
  EXPECT_EQ(c.features[4].evidence.sense, 2);
  EXPECT_EQ(c.features[5].evidence.sense, 0);
  EXPECT_GT(rel(c, 4), 0.6) << "the messenger without 'app', lifted by the strong matches' words";
  EXPECT_GT(rel(c, 4), rel(c, 5) + 0.25) << "over a code signal that shares none of them";
  // Too few strong matches to learn a sense from: nothing changes.
  auto d = scored("Signal app", {{.title = "Signal app adds usernames for privacy"},
                                 {.title = "Signal fights the EU over chat control", .snippet = "privacy"},
                                 {.title = "Django signal fires twice on save"}});
  EXPECT_EQ(d.features[1].evidence.sense, -1);
}

// ... but a name typed as one has no other forms: "Cooking with Tim" is not about Tim Cook.
TEST(Relevance, ANameHasNoOtherForms) {
  auto c = scored("Tim Cook", {{.title = "Tim Cook says Apple will not raise prices"},
                               {.title = "Cooking with Tim: five weeknight recipes"},
                               {.title = "Tim Cook's memo on the AI roadmap"}});
  EXPECT_GE(rel(c, 0), 0.99);
  EXPECT_LT(rel(c, 1), 0.5) << "\"cooking\" shares the stem of \"cook\", not the name";
  EXPECT_GE(rel(c, 2), 0.99) << "the possessive is the name";
  auto lower = scored("reduce docker image size", {{.title = "Reducing image size with multi-stage builds in docker"}});
  EXPECT_GT(rel(lower, 0), 0.5) << "a common word keeps its forms";
}

TEST(Relevance, AWordsOtherFormsCountAsTheWord) {
  auto c = scored("migrate Postgres", {{.title = "Migrating Postgres to a new cluster"},
                                       {.title = "We migrated Postgres in an afternoon"},
                                       {.title = "Postgres migration checklist"},
                                       {.title = "Postgres vacuum tuning"}});
  for (std::size_t i = 0; i < 3; ++i) EXPECT_GT(rel(c, i), rel(c, 3) + 0.2) << c.items[i].title;
}

// Subject or mention: a title that names another release (or another holder of the name)
// before the topic is about that other one.
TEST(Relevance, ATitleThatNamesAnotherReleaseFirstMentionsTheTopicInPassing) {
  auto c = scored("Deno 3.2", {{.title = "Deno 3.2 ships a faster module resolver"},
                               {.title = "Deno 3.3 planning starts: the ideas that missed Deno 3.2"},
                               {.title = "Benchmarks after upgrading to Deno 3.2 from 3.1"}});
  EXPECT_GE(rel(c, 0), 0.99);
  EXPECT_TRUE(c.features[1].evidence.mention);
  EXPECT_FALSE(c.features[0].evidence.mention);
  EXPECT_FALSE(c.features[2].evidence.mention) << "'from 3.1' comes after the topic: still its subject";
  EXPECT_LT(rel(c, 1), 0.7 * rel(c, 0)) << "the other release is the subject";
  EXPECT_GE(rel(c, 2), 0.99);
}

// A host synonym that swaps one word of the topic ("Tarif strike" for "Tarif Streik") gives
// that word a form, so the two words still count apart, and a synonym the host wrote in lower
// case is not "a name used as a common word".
TEST(Relevance, ASynonymThatSwapsOneWordTranslatesThatWordWhereverItStands) {
  const std::vector<model::Synonym> host{{"Tarif Streik", {"Tarif strike"}, true}};
  auto c = scored("Tarif Streik",
                  {{.title = "Tarif calls a 48-hour strike at the port"},
                   {.title = "Tarif strike: what closes on Monday"},
                   {.title = "Dockers strike in Rotterdam"}},
                  host);
  auto plain =
      scored("Tarif Streik", {{.title = "Tarif calls a 48-hour strike at the port"}, {.title = "Dockers Streik in Rotterdam"}});
  EXPECT_GE(rel(c, 1), 0.99);
  EXPECT_GE(rel(c, 0), 0.5) << "both words, apart";
  EXPECT_LT(rel(plain, 0), 0.5) << "without the synonym only one word is there";
  EXPECT_DOUBLE_EQ(rel(c, 2), rel(plain, 1)) << "the translation alone counts as the word alone, no more";
  EXPECT_LT(rel(c, 2), 0.5);
}
