// A yt-dlp that prints one result and then hangs forever must never outlive the run: not
// at the research deadline, not under --discover's enrichment budget, not on SIGTERM.
// The fake records every process group it starts; after the run none may have a member.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <thread>

#include "child.hpp"
#include "proc_test_support.hpp"
#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// home/bin/yt-dlp: records its group id in home/groups/, prints one result, sleeps forever
// in a grandchild (so killing the leader alone would not be enough).
void install_hanging_ytdlp(const TempDir& home) {
  std::filesystem::create_directories(home.path() + "/groups");
  std::filesystem::create_directories(home.path() + "/bin");
  const std::string path = home.path() + "/bin/yt-dlp";
  std::ofstream(path)
      << "#!/bin/sh\n"
      << "PATH=/usr/bin:/bin\n"
      << "echo $$ > " << home.path() << "/groups/$$\n"
      << "echo '{\"_type\":\"url\",\"ie_key\":\"Youtube\",\"id\":\"q8WgNs4Jx2k\",\"title\":\"Quantum teleportation explained\","
         "\"channel\":\"Physics Girl\",\"view_count\":51234}'\n"
      << "sleep 1000 &\n"
      << "wait\n";
  ::chmod(path.c_str(), 0755);
}

std::vector<pid_t> groups_started(const TempDir& home) {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator(home.path() + "/groups"))
    out.push_back(static_cast<pid_t>(std::stol(e.path().filename().string())));
  return out;
}

void expect_all_dead(const TempDir& home) {
  const auto groups = groups_started(home);
  ASSERT_FALSE(groups.empty()) << "the fake yt-dlp never ran";
  for (pid_t g : groups) {
    EXPECT_TRUE(group_gone_within(g)) << "process group " << g << " outlived the run";
  }
}

}  // namespace

TEST(YtDlpProcess, HungYtDlpIsKilledAtTheRunDeadline) {
  Scenario s;
  install_hanging_ytdlp(s.home());
  auto r = s.run({"quantum teleportation", "--search", "youtube,hn", "--timeout", "3", "--emit", "json"}, 30s);
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.elapsed, 4500ms) << "the run ends at its 3 s deadline";
  auto j = json::parse(r.out);
  EXPECT_EQ(j["source_status"]["youtube"]["state"], "partial") << j["source_status"]["youtube"];
  EXPECT_EQ(j["source_status"]["youtube"]["items"], 1) << "the line that arrived is kept";
  expect_all_dead(s.home());
}

TEST(YtDlpProcess, DiscoveryBudgetKillsEverySubRunsYtDlp) {
  Scenario s(nullptr, World::discovery);
  install_hanging_ytdlp(s.home());
  constexpr long kBudgetMs = 3000;
  auto r = s.run({"--discover", "--search", "hn,youtube", "--enrich-budget", "3", "--emit", "json"}, 60s);
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  const long nomination_ms = j["nomination_ms"];
  EXPECT_LE(r.elapsed.count(), nomination_ms + kBudgetMs + 1000) << "exit within nomination + budget + 1 s";
  EXPECT_GE(groups_started(s.home()).size(), 2u) << "several sub-runs each started yt-dlp";
  expect_all_dead(s.home());
}

TEST(YtDlpProcess, SigtermKillsTheChildGroupToo) {
  Scenario s;
  install_hanging_ytdlp(s.home());
  Child run({L30_BINARY, "quantum teleportation", "--search", "youtube", "--timeout", "60"}, s.env());
  for (int i = 0; i < 500 && std::filesystem::is_empty(s.home().path() + "/groups"); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_FALSE(std::filesystem::is_empty(s.home().path() + "/groups")) << "yt-dlp never started";
  std::this_thread::sleep_for(100ms);  // let it print and settle into its sleep
  ASSERT_EQ(::kill(run.pid(), SIGTERM), 0);
  EXPECT_EQ(run.wait(10s), 128 + SIGTERM) << "the process still dies of SIGTERM, as it would have";
  expect_all_dead(s.home());
}
