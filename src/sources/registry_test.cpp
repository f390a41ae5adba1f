// "A new source is one file, its fixtures and one registry line": for every registered
// source, checks that the rest is there — its test beside it, reading fixtures of its own
// and running the hostile-upstream table; its engagement declaration; its README row,
// whose engagement column says what it declares; its configuration keys documented; and
// that its intent weights, domains and container name what the planner and discovery know;
// and that the tests' fake internet answers it (the eval's: eval/eval_test.cpp).
// (Whether its items carry only declared fields is checked by the hostile table's valid row.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

#include "core/known_keys.hpp"
#include "core/time.hpp"
#include "discover/domains.hpp"
#include "pipeline/plan.hpp"
#include "scenario.hpp"
#include "source_run.hpp"
#include "sources/source.hpp"

namespace {

namespace fs = std::filesystem;
const fs::path kRoot = L30_SOURCE_ROOT;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.is_regular_file()) return true;
  return false;
}

// README.md's "## Sources" section.
std::string sources_section(const std::string& readme) {
  const auto from = readme.find("\n## Sources\n");
  if (from == std::string::npos) return "";
  return readme.substr(from, readme.find("\n## ", from + 1) - from);
}

// The table row of `id` in that section ("| `id` | asks | engagement |"), or "".
std::string row_of(const std::string& section, const std::string& id) {
  const auto at = section.find("\n| `" + id + "` |");
  if (at == std::string::npos) return "";
  return section.substr(at + 1, section.find('\n', at + 1) - at - 1);
}

std::string last_cell(std::string row) {
  while (!row.empty() && (row.back() == '|' || row.back() == ' ')) row.pop_back();
  const auto bar = row.rfind(" | ");
  return bar == std::string::npos ? "" : row.substr(bar + 3);
}

TEST(Registry, EverySourceIsOneFileItsFixturesAndARegistryLine) {
  const std::string readme = read(kRoot / "README.md");
  const std::string section = sources_section(readme);
  ASSERT_FALSE(section.empty()) << "README.md has no \"## Sources\" section";
  const fs::path fixtures = kRoot / "tests" / "fixtures";
  ASSERT_FALSE(sources::all().empty());
  std::set<std::string> names;
  for (const sources::Source* s : sources::all()) {
    const std::string id(s->id());
    SCOPED_TRACE("source " + id);

    // Found by its id and by each alias, and no name is taken twice.
    EXPECT_EQ(sources::by_id(id), s);
    EXPECT_EQ(sources::find(id), s);
    EXPECT_TRUE(names.insert(id).second) << "the id is taken";
    for (std::string_view alias : s->aliases()) {
      EXPECT_EQ(sources::find(alias), s) << alias;
      EXPECT_TRUE(names.insert(std::string(alias)).second) << "the alias " << alias << " is taken";
    }

    // Its test, beside it, reads fixtures of its own that exist, and runs the hostile table.
    const fs::path test_file = kRoot / "src" / "sources" / (id + "_test.cpp");
    const std::string test = read(test_file);
    EXPECT_FALSE(test.empty()) << test_file << " is missing";
    EXPECT_TRUE(has_files(fixtures / id) || has_files(fixtures / "real" / id))
        << "no fixtures under tests/fixtures/" << id << " or tests/fixtures/real/" << id;
    const std::regex read_fixture("fixture\\(\"([^\"]+)\"\\)");
    int own = 0;
    for (auto m = std::sregex_iterator(test.begin(), test.end(), read_fixture); m != std::sregex_iterator(); ++m) {
      const std::string path = (*m)[1];
      EXPECT_TRUE(fs::is_regular_file(fixtures / path)) << "the test reads a missing fixture: " << path;
      if (path.rfind(id + "/", 0) == 0 || path.rfind("real/" + id + "/", 0) == 0) ++own;
    }
    EXPECT_GT(own, 0) << "the test reads no fixture of its own";
    EXPECT_NE(test.find("HostileTable("), std::string::npos) << "the test runs no hostile-upstream table";
    EXPECT_NE(test.find(".run();"), std::string::npos) << "the test builds a hostile table but never runs it";

    // Its engagement declaration: each field once, named, with a weight the ranking can use.
    std::vector<std::string> declared;
    for (const auto& f : s->engagement()) {
      EXPECT_FALSE(f.field.empty());
      EXPECT_FALSE(f.label.empty()) << f.field;
      EXPECT_GE(f.weight, 0) << f.field;
      if (f.weight > 0) {
        EXPECT_GT(f.typical, 0) << f.field << ": a scored field needs a typical value";
      }
      EXPECT_EQ(std::count(declared.begin(), declared.end(), f.field), 0) << f.field << " declared twice";
      declared.emplace_back(f.field);
    }

    // Its README row, whose engagement column lists the declared fields ("none" without).
    const std::string row = row_of(section, id);
    EXPECT_FALSE(row.empty()) << "README.md's Sources table has no row for `" << id << "`";
    std::string want;
    for (const auto& f : declared) want += (want.empty() ? "`" : ", `") + f + "`";
    if (!row.empty()) {
      EXPECT_EQ(last_cell(row), want.empty() ? "none" : want) << "the README's engagement column";
    }

    // What the planner, the ranking, discovery and synthesis read of it: each says something
    // those know. (A source that declares none of it is weighed 1, has no context, and is
    // no domain's; synthesis then knows it by its name.)
    EXPECT_FALSE(s->spoken_names().empty()) << "no spoken names";
    EXPECT_FALSE(s->tag_word().empty()) << "no word for its tags";
    std::vector<std::string_view> intents;
    for (const auto& w : s->intent_weights()) {
      const auto known = pipeline::plan_intents();
      EXPECT_NE(std::find(known.begin(), known.end(), w.intent), known.end()) << "the planner has no intent " << w.intent;
      EXPECT_GT(w.weight, 0) << w.intent;
      EXPECT_EQ(std::count(intents.begin(), intents.end(), w.intent), 0) << w.intent << " weighed twice";
      intents.push_back(w.intent);
    }
    if (s->title_opens_with_container()) {
      EXPECT_TRUE(s->context_container()) << "its titles open with a container it does not declare";
    }
    std::vector<std::string_view> domains;
    for (const auto& d : s->domains()) {
      EXPECT_EQ(discover::resolve_domain(d.domain).key, d.domain) << "discovery has no domain " << d.domain;
      EXPECT_TRUE(s->has_listing()) << d.domain << ": a domain's source without a listing";
      EXPECT_NE(d.whole, !d.communities.empty()) << d.domain << ": a whole listing or communities, one of the two";
      if (!d.communities.empty()) {
        EXPECT_TRUE(s->context_container()) << d.domain << ": communities need a declared container to match";
      }
      EXPECT_EQ(std::count(domains.begin(), domains.end(), d.domain), 0) << d.domain << " declared twice";
      domains.push_back(d.domain);
    }

    // Its configuration keys: known to `config check`/--help and in the README's table.
    for (std::string_view key : s->config_keys()) {
      EXPECT_TRUE(core::is_known_key(key)) << key << " is not in core::known_keys()";
      EXPECT_NE(readme.find("`" + std::string(key) + "`"), std::string::npos) << key << " is not in README.md";
    }
  }
}

// The fakes that stand in for the platforms in the CLI, MCP and discovery tests
// (tests/support/scenario.cpp): each host a source declares is mapped to them, its search
// (with the credentials the fake accepts) is answered in the research world (ok, or no
// results), its listing in the discovery world, and no request gets the fake's no-answer.
TEST(Registry, EverySourceHasAFakeInTheTestsInternet) {
  using namespace testing_support;
  const core::Config config({{"BSKY_HANDLE", kGoodBskyHandle},
                             {"BSKY_APP_PASSWORD", kGoodBskyPassword},
                             {"X_BEARER_TOKEN", kGoodXToken},
                             {"YOUTUBE_API_KEY", kGoodYouTubeKey},
                             {"BRAVE_API_KEY", kGoodBraveKey}},
                            {});
  std::mutex mu;
  std::vector<std::string> no_answer;
  auto watch = [&](Scenario& world) {
    world.set_shaper([&](const FakeRequest& r, FakeReply& reply) {
      std::lock_guard lock(mu);
      if (reply.body == kNoAnswer) no_answer.push_back(r.path);
    });
  };
  Scenario research;
  Scenario discovery(nullptr, World::discovery);
  watch(research);
  watch(discovery);
  const auto as_of = *core::parse_date("2026-11-29");  // the research fixtures' day
  sources::Query search;
  search.sub_queries = {{"tokio runtime", 1.0}};
  search.window = model::Window::ending(as_of, 30);
  search.now = as_of + 43200;
  sources::ListingQuery listing;
  listing.now = core::now_unix();  // the discovery fixtures' dates are relative to now
  listing.window = model::Window::ending(listing.now, 7);

  for (const sources::Source* s : sources::all()) {
    SCOPED_TRACE("source " + std::string(s->id()));
    EXPECT_FALSE(s->hosts().empty()) << "it declares no hosts";
    const auto unmapped = unmapped_hosts(*s);
    for (const auto& host : unmapped) ADD_FAILURE() << "tests/support/scenario.cpp's host_prefixes() maps no fake to " << host;
    if (!unmapped.empty()) continue;  // its requests would leave for the real host
    {
      std::lock_guard lock(mu);
      no_answer.clear();
    }
    const auto found = search_via(*s, research.env().at("LAST30DAYS_HOST_MAP"), config, search);
    EXPECT_EQ(testing_support::unanswered(found), "") << "its search";
    if (s->has_listing()) {
      const auto listed = listing_via(*s, discovery.env().at("LAST30DAYS_HOST_MAP"), config, listing);
      EXPECT_EQ(testing_support::unanswered(listed), "") << "its listing";
    }
    std::lock_guard lock(mu);
    for (const auto& path : no_answer) ADD_FAILURE() << "the fake has no answer for " << path;
  }
}

}  // namespace
