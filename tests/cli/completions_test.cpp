// `last30days completions bash|zsh`: generated from the CLI definition, loaded into a
// real bash (its completion function driven with COMP_WORDS) and checked by zsh -n.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;

namespace {

std::set<std::string> long_flags_in_help() {
  auto help = run_last30days({"--help"}, {});
  std::set<std::string> out;
  const std::regex flag("(--[a-z][a-z-]+)");
  for (std::sregex_iterator it(help.out.begin(), help.out.end(), flag), end; it != end; ++it) out.insert((*it)[1]);
  return out;
}

// Runs bash's completion for the words typed so far (the last one being completed).
std::string complete_bash(const std::string& script_path, const std::vector<std::string>& words) {
  std::string arr;
  for (const auto& w : words) arr += " '" + w + "'";
  const std::string cmd = "source '" + script_path + "'; COMP_WORDS=(" + arr + "); COMP_CWORD=" + std::to_string(words.size() - 1) +
                          "; _last30days; (( ${#COMPREPLY[@]} )) && printf '%s\\n' \"${COMPREPLY[@]}\"; true";
  auto r = run_binary({"/bin/bash", "--norc", "-c", cmd}, {}, 10s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

}  // namespace

TEST(Completions, BashCompletesEveryFlagAndTheirValues) {
  auto r = run_last30days({"completions", "bash"}, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  TempDir dir;
  const std::string path = dir.path() + "/last30days.bash";
  std::ofstream(path) << r.out;
  const std::string all = complete_bash(path, {"last30days", "--"});
  for (const auto& f : long_flags_in_help()) EXPECT_NE(all.find(f + "\n"), std::string::npos) << f << " is not completed";
  EXPECT_EQ(complete_bash(path, {"last30days", "--em"}), "--emit\n");
  EXPECT_EQ(complete_bash(path, {"last30days", "x", "--emit", ""}), "compact\nmd\njson\nhtml\n");
  EXPECT_EQ(complete_bash(path, {"last30days", "x", "--search", "hackernews,st"}), "hackernews,stackexchange\n");
  EXPECT_EQ(complete_bash(path, {"last30days", "m"}), "mcp\n");
  EXPECT_EQ(complete_bash(path, {"last30days", "completions", ""}), "bash\nzsh\n");
  EXPECT_EQ(complete_bash(path, {"last30days", "x", "--days", ""}), "") << "a number: nothing to offer";
}

TEST(Completions, ZshScriptParsesAndNamesEveryFlag) {
  auto r = run_last30days({"completions", "zsh"}, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("#compdef last30days", 0), 0u);
  TempDir dir;
  const std::string path = dir.path() + "/_last30days";
  std::ofstream(path) << r.out;
  auto check = run_binary({"/usr/bin/zsh", "-n", path}, {}, 10s);
  EXPECT_EQ(check.exit_code, 0) << check.err;
  for (const auto& f : long_flags_in_help()) EXPECT_NE(r.out.find(f), std::string::npos) << f;
  EXPECT_NE(r.out.find("(compact md json html)"), std::string::npos);
}

TEST(Completions, UnknownShellAndVersion) {
  auto fish = run_last30days({"completions", "fish"}, {});
  EXPECT_EQ(fish.exit_code, 2);
  EXPECT_NE(fish.err.find("bash or zsh"), std::string::npos);
  EXPECT_EQ(fish.out, "");
  auto v = run_last30days({"--version"}, {});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out, std::string("last30days ") + L30_VERSION_STRING + "\n");
}
