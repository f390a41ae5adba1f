// `last30days completions bash|zsh|fish`: generated from the CLI definition, loaded into a
// real bash (its completion function driven with COMP_WORDS), checked by zsh -n and fish.
#include <gtest/gtest.h>

#include <algorithm>
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
  const std::string cmd = "source '" + script_path + "'; COMP_WORDS=(" + arr +
                          "); COMP_CWORD=" + std::to_string(words.size() - 1) +
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
  EXPECT_EQ(complete_bash(path, {"last30days", "completions", ""}), "bash\nzsh\nfish\n");
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

TEST(Completions, BashKeepsFileNamesWithSpacesWhole) {
  auto r = run_last30days({"completions", "bash"}, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  TempDir dir;
  const std::string path = dir.path() + "/last30days.bash";
  std::ofstream(path) << r.out;
  std::ofstream(dir.path() + "/my brief.html") << "x";
  std::ofstream(dir.path() + "/my notes.md") << "x";
  const std::string got = complete_bash(path, {"last30days", "x", "--output", dir.path() + "/my"});
  EXPECT_NE(got.find(dir.path() + "/my brief.html\n"), std::string::npos) << got;
  EXPECT_NE(got.find(dir.path() + "/my notes.md\n"), std::string::npos) << got;
  EXPECT_EQ(std::count(got.begin(), got.end(), '\n'), 2) << "one completion per file, never split at the space: " << got;
  EXPECT_EQ(complete_bash(path, {"last30days", "watch", ""}), "add\nlist\nremove\nrun\nnotify\nbudget\n");
  EXPECT_EQ(complete_bash(path, {"last30days", "help", "wa"}), "watch\n");
}

TEST(Completions, FishScriptParsesAndNamesEveryFlagAndCommand) {
  auto r = run_last30days({"completions", "fish"}, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  TempDir dir;
  const std::string path = dir.path() + "/last30days.fish";
  std::ofstream(path) << r.out;
  auto check = run_binary({"/usr/bin/fish", "--no-execute", path}, {}, 10s);
  EXPECT_EQ(check.exit_code, 0) << check.err;
  for (const auto& f : long_flags_in_help()) EXPECT_NE(r.out.find(" -l " + f.substr(2) + " "), std::string::npos) << f;
  for (const char* cmd : {"doctor", "library", "watch", "mcp", "completions", "help", "version"})
    EXPECT_NE(r.out.find(std::string("-a ") + cmd + " "), std::string::npos) << cmd;
  EXPECT_NE(r.out.find("-l emit -x -a 'compact md json html'"), std::string::npos);
  EXPECT_NE(r.out.find("-l output -r -F"), std::string::npos) << "file names for --output";
  // Completing in a real fish: the verbs of watch, the ids after --search.
  auto run_fish = [&](const std::string& line) {
    auto c = run_binary({"/usr/bin/fish", "--no-config", "-c", "source '" + path + "'; complete -C '" + line + "'"}, {}, 10s);
    EXPECT_EQ(c.exit_code, 0) << c.err;
    return c.out;
  };
  EXPECT_NE(run_fish("last30days watch ").find("add\t"), std::string::npos);
  EXPECT_NE(run_fish("last30days x --search hackernews,st").find("hackernews,stackexchange"), std::string::npos);
}

TEST(Completions, UnknownShellAndVersion) {
  auto tcsh = run_last30days({"completions", "tcsh"}, {});
  EXPECT_EQ(tcsh.exit_code, 2);
  EXPECT_NE(tcsh.err.find("bash, zsh or fish"), std::string::npos) << tcsh.err;
  EXPECT_EQ(tcsh.out, "");
  auto v = run_last30days({"--version"}, {});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out, std::string("last30days ") + L30_VERSION_STRING + "\n");
}
