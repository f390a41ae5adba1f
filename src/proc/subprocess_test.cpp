// The child-process machinery with real /bin/sh children: streaming, the group kill at
// the deadline, on cancellation and on "enough", closed stdin, no leaked descriptors,
// and the exit path killing a group an abandoned thread still waits on.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "core/exit.hpp"
#include "proc/subprocess.hpp"
#include "proc_test_support.hpp"
#include "spawn.hpp"

using namespace std::chrono_literals;
using testing_support::TempDir;

namespace {

std::string write_script(const TempDir& dir, const std::string& name, const std::string& body) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0755);
  return path;
}

proc::Options opts(std::string program, core::Millis deadline = core::Millis(10000)) {
  proc::Options o;
  o.argv = {std::move(program)};
  o.env = {"PATH=/usr/bin:/bin"};
  o.deadline = core::Deadline::in(deadline);
  return o;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A script that records its process group and then prints `line` and sleeps forever
// in a grandchild, the shape of a hung yt-dlp.
std::string hanging_script(const TempDir& dir, const std::string& line = "{\"id\":\"a\"}") {
  return write_script(dir, "hang.sh",
                      "echo $$ > " + dir.path() +
                          "/pgid\n"
                          "echo '" +
                          line +
                          "'\n"
                          "sleep 1000 &\n"
                          "wait\n");
}

pid_t recorded_pgid(const TempDir& dir) { return static_cast<pid_t>(std::stol(slurp(dir.path() + "/pgid"))); }

}  // namespace

TEST(Subprocess, StreamsLinesAndReportsTheExit) {
  TempDir dir;
  const auto prog = write_script(dir, "ok.sh", "echo one\nprintf 'two\\r\\n'\necho oops >&2\nprintf 'tail'\nexit 3\n");
  std::vector<std::string> lines;
  auto r = proc::run_lines(opts(prog), [&](std::string_view l) {
    lines.emplace_back(l);
    return true;
  });
  EXPECT_EQ(r.end, proc::End::exited) << r.error;
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "tail"}));
  EXPECT_EQ(r.stderr_text, "oops\n");
  EXPECT_EQ(r.lines, 3);
}

TEST(Subprocess, DeadlineKillsTheWholeGroupAndDeliversWhatArrived) {
  TempDir dir;
  const auto prog = hanging_script(dir);
  std::vector<std::string> lines;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = proc::run_lines(opts(prog, core::Millis(600)), [&](std::string_view l) {
    lines.emplace_back(l);  // parsed as it streams, long before the end
    return true;
  });
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(r.end, proc::End::deadline);
  EXPECT_EQ(lines, std::vector<std::string>{"{\"id\":\"a\"}"});
  EXPECT_LT(took, 2s);
  const pid_t pgid = recorded_pgid(dir);
  EXPECT_TRUE(testing_support::group_gone_within(pgid)) << "the sleeping grandchild must be killed too";
}

TEST(Subprocess, StopTokenKillsTheGroupAtOnce) {
  TempDir dir;
  const auto prog = hanging_script(dir);
  std::stop_source stop;
  auto o = opts(prog, core::Millis(60000));
  o.stop = stop.get_token();
  std::thread canceller([&] {
    std::this_thread::sleep_for(300ms);
    stop.request_stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto r = proc::run_lines(o, [](std::string_view) { return true; });
  canceller.join();
  EXPECT_EQ(r.end, proc::End::cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  EXPECT_TRUE(testing_support::group_gone_within(recorded_pgid(dir)));
}

TEST(Subprocess, EnoughStopsTheChild) {
  TempDir dir;
  const auto prog = hanging_script(dir);
  auto r = proc::run_lines(opts(prog), [](std::string_view) { return false; });
  EXPECT_EQ(r.end, proc::End::enough);
  EXPECT_TRUE(testing_support::group_gone_within(recorded_pgid(dir)));
}

TEST(Subprocess, LeftoverGroupMembersDieWhenTheLeaderExits) {
  TempDir dir;
  // The leader exits at once, leaving a background sleeper with stdout closed.
  const auto prog = write_script(dir, "bg.sh", "echo $$ > " + dir.path() + "/pgid\n(sleep 1000 >/dev/null 2>&1 &)\necho done\n");
  auto r = proc::run_lines(opts(prog), [](std::string_view) { return true; });
  EXPECT_EQ(r.end, proc::End::exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(testing_support::group_gone_within(recorded_pgid(dir)));
}

TEST(Subprocess, StdinIsAtEofAndNoDescriptorLeaks) {
  TempDir dir;
  // A descriptor this process holds without close-on-exec, as a library might.
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  // ls lists what it inherited through the shell: whatever the child got from us that
  // is not close-on-exec (the shell's own descriptors are).
  const auto prog = write_script(dir, "fds.sh",
                                 "if read line; then echo stdin:data; else echo stdin:eof; fi\n"
                                 "ls -l /proc/self/fd/\n");
  std::vector<std::string> lines;
  auto r = proc::run_lines(opts(prog), [&](std::string_view l) {
    lines.emplace_back(l);
    return true;
  });
  ::close(sv[0]);
  ::close(sv[1]);
  ASSERT_EQ(r.end, proc::End::exited);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "stdin:eof");
  int listed = 0;
  std::vector<std::pair<int, std::string>> fds;
  for (const auto& l : lines) {
    const auto arrow = l.find(" -> ");
    if (arrow == std::string::npos) continue;
    const auto space = l.rfind(' ', arrow - 1);
    fds.emplace_back(std::stoi(l.substr(space + 1, arrow - space - 1)), l.substr(arrow + 4));
  }
  std::set<std::string> std_targets;
  for (const auto& [fd, target] : fds)
    if (fd <= 2) std_targets.insert(target), ++listed;
  for (const auto& [fd, target] : fds) {
    if (fd <= 2 || std_targets.count(target)) continue;
    // ls's own directory handle is fine; nothing else (sockets, pipes) may be inherited.
    EXPECT_EQ(target.find("socket:"), std::string::npos) << fd << " -> " << target;
    EXPECT_EQ(target.find("pipe:"), std::string::npos) << fd << " -> " << target;
  }
  EXPECT_GE(listed, 3);
}

TEST(Subprocess, OnlyTheGivenEnvironment) {
  TempDir dir;
  ::setenv("L30_TEST_SECRET_TOKEN", "s3cr3t", 1);
  const auto prog = write_script(dir, "env.sh", "env\n");
  std::string all;
  auto o = opts(prog);
  o.env.push_back("ONLY_THIS=1");
  proc::run_lines(o, [&](std::string_view l) {
    all += std::string(l) + "\n";
    return true;
  });
  ::unsetenv("L30_TEST_SECRET_TOKEN");
  EXPECT_NE(all.find("ONLY_THIS=1"), std::string::npos);
  EXPECT_EQ(all.find("s3cr3t"), std::string::npos);
}

TEST(Subprocess, HugeLineIsCutOff) {
  TempDir dir;
  const auto prog =
      write_script(dir, "big.sh", "echo $$ > " + dir.path() + "/pgid\nhead -c 3000000 /dev/zero | tr '\\0' x\nsleep 1000\n");
  auto o = opts(prog);
  o.max_line_bytes = 1u << 20;
  int lines = 0;
  auto r = proc::run_lines(o, [&](std::string_view) { return ++lines, true; });
  EXPECT_EQ(r.end, proc::End::too_large);
  EXPECT_EQ(lines, 0);
  EXPECT_TRUE(testing_support::group_gone_within(recorded_pgid(dir)));
}

TEST(Subprocess, MissingProgramFailsToSpawn) {
  auto r = proc::run_lines(opts("/nonexistent/yt-dlp"), [](std::string_view) { return true; });
  EXPECT_EQ(r.end, proc::End::spawn_failed);
  EXPECT_FALSE(r.error.empty());
}

TEST(Subprocess, FindInPathSkipsRelativeEntriesAndNonExecutables) {
  TempDir a, b;
  write_script(b, "yt-dlp", "exit 0\n");
  std::ofstream(a.path() + "/yt-dlp") << "not executable";
  EXPECT_EQ(proc::find_in_path("yt-dlp", a.path() + ":" + b.path()), b.path() + "/yt-dlp");
  EXPECT_EQ(proc::find_in_path("yt-dlp", ".:relative/bin:" + a.path()), std::nullopt);
  EXPECT_EQ(proc::find_in_path("yt-dlp", ""), std::nullopt);
  EXPECT_EQ(proc::find_in_path("../yt-dlp", b.path()), std::nullopt);
}

// The exit path with an abandoned thread still blocked on its child: core::exit_process
// (its std::_Exit branch) must kill the group. Runs in a forked child (death test).
TEST(SubprocessDeathTest, ExitPathKillsGroupsOfAbandonedThreads) {
  TempDir dir;
  const auto prog = hanging_script(dir);
  EXPECT_EXIT(
      {
        std::atomic<bool> started{false};
        std::thread([&] {
          proc::run_lines(opts(prog, core::Millis(600000)), [&](std::string_view) {
            started = true;
            return true;
          });
        }).detach();
        while (!started) std::this_thread::sleep_for(5ms);
        core::live_stragglers().fetch_add(1);  // as discovery does when it abandons a worker
        core::exit_process(7);
      },
      testing::ExitedWithCode(7), "");
  const pid_t pgid = recorded_pgid(dir);
  EXPECT_TRUE(testing_support::group_gone_within(pgid));
}
