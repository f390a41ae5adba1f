// The program teaches itself: bare usage, grouped --help, every command's own help, `help`
// and `version`, did-you-mean for flags, commands and source ids, errors in its own words,
// case-insensitive values, the format from --output's extension, --limit, exit code 4
// and the one "not set up" line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

int count_of(const std::string& text, const std::string& part) {
  int n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

const std::vector<std::string> kResearch = {"tokio runtime", "--as-of", "2026-11-29"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

TEST(HelpCli, BareCommandPrintsUsageWithExamplesAndExitsTwo) {
  TempDir home;
  auto r = run_last30days({}, offline_env(home));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << "usage goes to stderr: " << r.out;
  EXPECT_TRUE(has(r.err, "Usage: last30days TOPIC")) << r.err;
  EXPECT_TRUE(has(r.err, "Examples:")) << r.err;
  EXPECT_GE(count_of(r.err, "\n  last30days "), 4) << "a handful of examples: " << r.err;
}

TEST(HelpCli, GlobalHelpGroupsFlagsAndListsSourcesEnvironmentAndExitCodes) {
  TempDir home;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--help"}, {"-h"}, {"help"}, {"tokio", "--help"}}) {
    auto r = run_last30days(args, offline_env(home));
    ASSERT_EQ(r.exit_code, 0) << args[0] << r.err;
    for (const char* group :
         {"Research options:", "Output options:", "Discovery options:", "Library and watch options:", "Recording options:",
          "General options:", "Commands:", "Sources", "Environment", "Exit codes:", "Examples:"})
      EXPECT_TRUE(has(r.out, group)) << group << " missing from " << args[0];
    for (const char* id : {"hackernews", "reddit", "polymarket", "github", "arxiv", "lobsters", "stackexchange", "bluesky", "x",
                           "youtube", "web", "wikipedia"})
      EXPECT_TRUE(has(r.out, std::string("\n  ") + id + " ")) << id;
    for (const char* key : {"GITHUB_TOKEN", "BSKY_APP_PASSWORD", "LAST30DAYS_STORE_URL", "LAST30DAYS_HOST_MAP"})
      EXPECT_TRUE(has(r.out, key)) << key;
    EXPECT_TRUE(has(r.out, "\n  4  no source answered")) << r.out;
    EXPECT_TRUE(has(r.out, "--days N ")) << "values are named by what they are: " << r.out;
    EXPECT_FALSE(has(r.out, "TEXT")) << "no CLI11 placeholders: " << r.out;
  }
}

TEST(HelpCli, EveryCommandHasItsOwnHelp) {
  TempDir home;
  const auto env = offline_env(home);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"doctor", "--help"}, "Usage: last30days doctor"},
      {{"watch", "--help"}, "Usage: last30days watch"},
      {{"watch", "add", "--help"}, "Usage: last30days watch add TOPIC"},
      {{"watch", "run", "-h"}, "Usage: last30days watch run"},
      {{"library", "--help"}, "Usage: last30days library"},
      {{"library", "search", "--help"}, "Usage: last30days library search QUERY"},
      {{"mcp", "--help"}, "Usage: last30days mcp"},
      {{"completions", "--help"}, "Usage: last30days completions bash|zsh|fish"},
      {{"--discover", "--help"}, "Usage: last30days --discover[=DOMAIN]"},
      {{"help", "doctor"}, "Usage: last30days doctor"},
      {{"help", "watch", "add"}, "Usage: last30days watch add TOPIC"},
      {{"help", "discover"}, "Usage: last30days --discover[=DOMAIN]"},
      {{"help", "version"}, "Usage: last30days version"},
  };
  for (const auto& [args, starts] : cases) {
    auto r = run_last30days(args, env);
    EXPECT_EQ(r.exit_code, 0) << args[0] << " " << r.err;
    EXPECT_EQ(r.out.rfind(starts, 0), 0u) << args[0] << (args.size() > 1 ? " " + args[1] : "") << ":\n" << r.out;
    EXPECT_TRUE(has(r.out, "Examples:")) << r.out;
  }
  EXPECT_EQ(run_last30days({"help", "watch", "add"}, env).out, run_last30days({"watch", "add", "--help"}, env).out);
  auto watch = run_last30days({"watch", "--help"}, env).out;
  for (const char* verb : {"watch add", "watch list", "watch remove", "watch run"}) EXPECT_TRUE(has(watch, verb)) << verb;
  auto add = run_last30days({"watch", "add", "--help"}, env).out;
  EXPECT_TRUE(has(add, "--every HOURS")) << add;
  EXPECT_FALSE(has(add, "--discover")) << "only the flags it takes: " << add;
}

TEST(HelpCli, HelpAndVersionAreCommandsNotTopics) {
  Scenario s;
  auto v = s.run({"version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out, std::string("last30days ") + L30_VERSION_STRING + "\n");
  auto v2 = s.run({"version", "control"});
  EXPECT_EQ(v2.exit_code, 2);
  EXPECT_TRUE(has(v2.err, "last30days \"version control\"")) << "how to research the words: " << v2.err;
  auto h = s.run({"help", "desk", "software"});
  EXPECT_EQ(h.exit_code, 2);
  EXPECT_TRUE(has(h.err, "quote")) << h.err;
  // Quoted, the words are a topic like any other.
  auto topic = s.run({"help desk software", "--as-of", "2026-11-29", "--search", "hn", "--emit", "json"});
  EXPECT_EQ(topic.exit_code, 0) << topic.err;
  EXPECT_EQ(json::parse(topic.out)["topic"], "help desk software");
  EXPECT_EQ(s.fake().log().size() > 0, true);
}

TEST(HelpCli, DidYouMeanForFlagsCommandsAndSourceIds) {
  Scenario s;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"tokio", "--dasy", "7"}, "unknown flag --dasy (did you mean --days?)"},
      {{"tokio", "--serch", "hn"}, "(did you mean --search?)"},
      {{"tokio", "--emti=json"}, "unknown flag --emti (did you mean --emit?)"},
      {{"tokio", "--search", "hn,redit"}, "unknown source 'redit' (did you mean reddit?)"},
      {{"tokio", "--emit", "jsno"}, "(did you mean json?)"},
      {{"watch", "ad", "tokio"}, "watch has no command 'ad' (did you mean add?)"},
      {{"watch", "rnu"}, "(did you mean run?)"},
      {{"library", "serch", "tokio"}, "library has no command 'serch' (did you mean search?)"},
      {{"help", "doctr"}, "no command 'doctr' (did you mean doctor?)"},
      {{"help", "watch", "ad"}, "watch has no command 'ad' (did you mean add?)"},
      {{"completions", "fsh"}, "(did you mean fish?)"},
  };
  for (const auto& [args, says] : cases) {
    auto r = s.run(args, 20s);
    EXPECT_EQ(r.exit_code, 2) << args[1] << r.err;
    EXPECT_TRUE(has(r.err, says)) << "should say '" << says << "': " << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  // Nothing near: no wild guess.
  auto far = s.run({"tokio", "--zzzzzz"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_TRUE(has(far.err, "unknown flag --zzzzzz")) << far.err;
  EXPECT_FALSE(has(far.err, "did you mean")) << far.err;
  EXPECT_EQ(s.fake().log().size(), 0u) << "every usage error comes before any request";
}

TEST(HelpCli, ALoneWordNearACommandIsResearchedWithANote) {
  Scenario s;
  auto r = s.run({"doctr", "--as-of", "2026-11-29", "--search", "hn", "--emit", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["topic"], "doctr");
  EXPECT_TRUE(has(r.err, "for the command, type: last30days doctor")) << r.err;
}

TEST(HelpCli, ErrorsAreInTheProductsOwnWords) {
  Scenario s;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"tokio", "--days", "abc"}, "--days 'abc' is not a whole number"},
      {{"tokio", "--timeout", "soon"}, "--timeout 'soon' is not a decimal number"},
      {{"tokio", "--days", "7", "--days", "8"}, "--days is given 2 times: give it once"},
      {{"tokio", "--quick=maybe"}, "--quick takes no value"},
      {{"tokio", "--days"}, "--days needs a value"},
      {{"tokio", "--limit", "0"}, "--limit must be between 1 and 100"},
      {{"--discover", "--limit", "3"}, "--limit applies to research and library search"},
      {{"doctor", "--limit", "3"}, "--limit applies to research and library search"},
  };
  for (const auto& [args, says] : cases) {
    auto r = s.run(args, 20s);
    EXPECT_EQ(r.exit_code, 2) << args[1] << r.err;
    EXPECT_TRUE(has(r.err, says)) << "should say '" << says << "': " << r.err;
    for (const char* library :
         {"not expected", "Could not convert", "At Most", "required but received", "Expected exactly", "Should be true/false"})
      EXPECT_FALSE(has(r.err, library)) << "CLI11's words leaked: " << r.err;
  }
  EXPECT_EQ(s.fake().log().size(), 0u);
}

TEST(HelpCli, EnumeratedValuesAreCaseInsensitiveAndSearchAddsUp) {
  Scenario s;
  auto r = s.run(with(kResearch, {"--emit", "JSON", "--search", "HN", "--search", "Reddit"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["source_status"].size(), 2u) << j["source_status"].dump();
  EXPECT_TRUE(j["source_status"].contains("hackernews"));
  EXPECT_TRUE(j["source_status"].contains("reddit"));
  auto md = s.run(with(kResearch, {"--emit", "Markdown", "--search", "hn"}));
  EXPECT_EQ(md.out.rfind("# last30days", 0), 0u) << md.err;
  EXPECT_EQ(s.run({"completions", "BASH"}).exit_code, 0);
}

TEST(HelpCli, OutputFormatFollowsTheExtensionUnlessEmitSaysOtherwise) {
  Scenario s;
  TempDir dir;
  const auto run_to = [&](const std::string& name, std::vector<std::string> more = {}) {
    auto r = s.run(with(with(kResearch, {"--search", "hn", "--output", dir.path() + "/" + name}), more));
    EXPECT_EQ(r.exit_code, 0) << name << r.err;
    EXPECT_TRUE(r.out.empty());
    return read_file(dir.path() + "/" + name);
  };
  EXPECT_EQ(run_to("brief.html").rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(run_to("brief.HTM").rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(json::parse(run_to("brief.json"))["kind"], "research");
  EXPECT_EQ(run_to("brief.md").rfind("# last30days: tokio runtime", 0), 0u);
  EXPECT_EQ(run_to("brief.txt").rfind("last30days · ", 0), 0u);
  EXPECT_EQ(run_to("brief").rfind("last30days · ", 0), 0u) << "no extension: compact";
  EXPECT_EQ(run_to("forced.html", {"--emit", "compact"}).rfind("last30days · ", 0), 0u) << "--emit wins";
  auto disc = s.run({"--discover", "--output", dir.path() + "/d.html"}, 20s);
  EXPECT_EQ(disc.exit_code, 2);
  EXPECT_TRUE(has(disc.err, "HTML")) << disc.err;
}

TEST(HelpCli, LimitShowsTheSameStoriesInEveryFormatAndCountsTheRest) {
  Scenario s;
  const auto j = json::parse(s.run(with(kResearch, {"--emit", "json"})).out);
  const std::size_t total = j["clusters"].size();
  ASSERT_GE(total, 3u) << "the fixture world has several stories";
  const std::string first = j["clusters"][0]["title"], second = j["clusters"][1]["title"];
  const std::string more = std::to_string(total - 1) + " more stor";
  const std::string all = "--limit " + std::to_string(total) + " shows them all";
  for (const char* emit : {"compact", "md", "html"}) {
    auto r = s.run(with(kResearch, {"--limit", "1", "--emit", emit}));
    ASSERT_EQ(r.exit_code, 0) << emit << r.err;
    EXPECT_TRUE(has(r.out, more)) << emit << ": " << r.out;
    EXPECT_TRUE(has(r.out, all)) << emit;
  }
  auto md1 = s.run(with(kResearch, {"--limit", "1", "--emit", "md"})).out;
  EXPECT_TRUE(has(md1, "## 1. ")) << md1;
  EXPECT_FALSE(has(md1, "## 2. ")) << md1;
  auto c1 = s.run(with(kResearch, {"--limit", "1"})).out;
  EXPECT_TRUE(has(c1, " 1. ")) << c1;
  EXPECT_FALSE(has(c1, " 2. ")) << c1;
  auto h1 = s.run(with(kResearch, {"--limit", "1", "--emit", "html"})).out;
  EXPECT_EQ(count_of(h1, "<article>"), 1) << "html shows the same one story";
  // Every story: no "more" line.
  auto every = s.run(with(kResearch, {"--limit", std::to_string(total), "--emit", "md"})).out;
  EXPECT_FALSE(has(every, "more stor")) << every;
  EXPECT_TRUE(has(every, "## " + std::to_string(total) + ". "));
  // JSON is the data: all of it, whatever the limit.
  EXPECT_EQ(json::parse(s.run(with(kResearch, {"--limit", "1", "--emit", "json"})).out)["clusters"].size(), total);
}

TEST(HelpCli, NoSourceAnsweredIsExitFourAndTheBriefNamesWhatHappened) {
  // Every keyless upstream answers 503 (refusing to serve): asked, and none answered.
  Scenario s([](const FakeRequest&) -> std::optional<FakeReply> {
    FakeReply r;
    r.status = 503;
    r.body = "down";
    return r;
  });
  for (const char* emit : {"compact", "md", "html"}) {
    auto r = s.run(with(kResearch, {"--emit", emit}), 60s);
    EXPECT_EQ(r.exit_code, 4) << emit << r.err;
    EXPECT_TRUE(has(r.out, "No source answered: ")) << emit << ": " << r.out;
    EXPECT_TRUE(has(r.out, "hackernews unreachable")) << emit << ": " << r.out;
    EXPECT_FALSE(has(r.out, "could be asked")) << "they were asked: " << r.out;
  }
  auto j = s.run(with(kResearch, {"--emit", "json"}), 60s);
  EXPECT_EQ(j.exit_code, 4);
  EXPECT_EQ(json::parse(j.out)["kind"], "research") << "the brief is still printed";
  // One source answering is enough for 0.
  Scenario ok;
  EXPECT_EQ(ok.run(with(kResearch, {"--search", "hn"})).exit_code, 0);
}

TEST(HelpCli, UnconfiguredSourcesAreOneLineInEveryFormat) {
  Scenario s;
  const std::string line = "bluesky, web, x, youtube";
  auto compact = s.run(kResearch);
  ASSERT_EQ(compact.exit_code, 0) << compact.err;
  EXPECT_TRUE(has(compact.out, "not set up: " + line + " \u2014 see `last30days doctor`")) << compact.out;
  EXPECT_FALSE(has(compact.out, "skipped-unconfigured")) << compact.out;
  std::cerr << "compact brief:\n" << compact.out.substr(0, 400) << "\n";  // the README's example
  auto md = s.run(with(kResearch, {"--emit", "md"}));
  EXPECT_TRUE(has(md.out, "Not set up: " + line)) << md.out;
  EXPECT_FALSE(has(md.out, "skipped-unconfigured")) << md.out;
  auto html = s.run(with(kResearch, {"--emit", "html"}));
  EXPECT_TRUE(has(html.out, "not set up: " + line)) << html.out;
  EXPECT_FALSE(has(html.out, "skipped-unconfigured")) << html.out;
  // JSON keeps every state: it is the contract.
  auto j = json::parse(s.run(with(kResearch, {"--emit", "json"})).out);
  EXPECT_EQ(j["source_status"]["x"]["state"], "skipped-unconfigured");
  auto cmp = s.run({"tokio vs rayon", "--as-of", "2026-11-29"});
  EXPECT_TRUE(has(cmp.out, "not set up: " + line)) << cmp.out;
  EXPECT_FALSE(has(cmp.out, "\nx ")) << "no table row for a source set up for nobody: " << cmp.out;
}

TEST(HelpCli, ConfigFileMistakesAreWarnedAbout) {
  Scenario s;
  auto env = s.env();
  const std::string dir = env["XDG_CONFIG_HOME"] + "/last30days";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/.env";
  std::ofstream(path) << "GITHUB_TOKN=ghp_abcdefghijklmnop\nLAST30DAYS_BUDGET_YOUTUBE=20\nSTACKEXCHANGE_KEY=abcd1234\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                         std::filesystem::perms::group_read | std::filesystem::perms::others_read);
  auto r = run_last30days(with(kResearch, {"--search", "hn", "--emit", "json"}), env);
  EXPECT_EQ(r.exit_code, 0) << "warned, not refused: " << r.err;
  EXPECT_TRUE(has(r.err, "unknown key GITHUB_TOKN, did you mean GITHUB_TOKEN?")) << r.err;
  EXPECT_FALSE(has(r.err, "LAST30DAYS_BUDGET_YOUTUBE")) << "a per-source budget key is known: " << r.err;
  EXPECT_TRUE(has(r.err, "holds secrets (STACKEXCHANGE_KEY) and others can read it (mode 644): chmod 600")) << r.err;
  EXPECT_FALSE(has(r.err, "abcd1234")) << "never the secret itself";
  EXPECT_FALSE(has(r.err, "ghp_abcdefghijklmnop"));
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  auto quiet = run_last30days(with(kResearch, {"--search", "hn", "--emit", "json"}), env);
  EXPECT_FALSE(has(quiet.err, "others can read it")) << "mode 600 is private: " << quiet.err;
  EXPECT_TRUE(has(quiet.err, "GITHUB_TOKN")) << quiet.err;
}

TEST(HelpCli, DiscoveryProtocolStateLivesUnderTheStateDir) {
  Scenario s(nullptr, World::discovery);
  auto env = s.env();
  env["XDG_STATE_HOME"] = "";
  const std::vector<std::string> nominate = {"--discover", "--nominate-only", "--search", "hn", "--emit", "json"};
  auto r = run_last30days(nominate, env, 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(env["HOME"] + "/.local/state/last30days/discover-nominations.json")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(env["XDG_CONFIG_HOME"] + "/last30days/discover-nominations.json"));
  TempDir state;
  env["XDG_STATE_HOME"] = state.path();
  ASSERT_EQ(run_last30days(nominate, env, 60s).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(state.path() + "/last30days/discover-nominations.json"));
}
