// "A new source is one file, its fixtures and one registry line": for every registered
// source, checks that the rest is there — its test beside it, reading fixtures of its own
// and running the hostile-upstream table; its engagement declaration; its README row,
// whose engagement column says what it declares; its configuration keys documented.
// (Whether its items carry only declared fields is checked by the hostile table's valid row.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/known_keys.hpp"
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

    // Its configuration keys: known to `config check`/--help and in the README's table.
    for (std::string_view key : s->config_keys()) {
      EXPECT_TRUE(core::is_known_key(key)) << key << " is not in core::known_keys()";
      EXPECT_NE(readme.find("`" + std::string(key) + "`"), std::string::npos) << key << " is not in README.md";
    }
  }
}

}  // namespace
