// --output and stdout: the destination is never destroyed, an impossible one fails before
// any request, and a failed write is never a silent success. Devices only as /dev/full
// opened here and handed over as a descriptor; FIFOs and symlinks live in temp dirs.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::vector<std::string> kArgs = {"tokio runtime", "--as-of", "2026-11-29", "--emit", "json", "--search", "hn,so"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string read(const std::string& path) { return read_file(path); }

mode_t mode_of(const std::string& path) {
  struct stat st {};
  ::lstat(path.c_str(), &st);
  return st.st_mode;
}

bool is_brief(const std::string& text) {
  auto j = json::parse(text, nullptr, false);
  return !j.is_discarded() && j.value("kind", "") == "research";
}

}  // namespace

TEST(OutputCli, ARegularFileIsReplacedAtomicallyKeepingItsMode) {
  Scenario s;
  TempDir dir;
  const std::string path = dir.path() + "/brief.json";
  std::ofstream(path) << "old content";
  ::chmod(path.c_str(), 0640);
  auto r = s.run(with(kArgs, {"--output", path}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(is_brief(read(path)));
  EXPECT_EQ(mode_of(path) & 07777, 0640u) << "the old file's mode is kept";
  EXPECT_EQ(dir.files(), std::vector<std::string>{"brief.json"}) << "no temp file is left behind";
  // A new file gets the usual mode from the umask, and "-" is stdout, not a file named "-".
  SpawnOptions opts;
  opts.cwd = dir.path();
  auto dash = run_last30days(with(kArgs, {"--output", "-"}), s.env(), opts);
  ASSERT_EQ(dash.exit_code, 0) << dash.err;
  EXPECT_TRUE(is_brief(dash.out));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/-"));
}

TEST(OutputCli, ARunKilledBeforeTheWriteLeavesNothingBehind) {
  Scenario s([](const FakeRequest&) -> std::optional<FakeReply> { return FakeReply::hang(); });
  TempDir dir;
  auto r = s.run(with(kArgs, {"--output", dir.path() + "/brief.json", "--timeout", "30"}), 1500ms);  // SIGKILL mid-run
  EXPECT_TRUE(r.timed_out);
  EXPECT_TRUE(dir.files().empty()) << "no temp file is kept open through the run";
}

TEST(OutputCli, ASymlinkIsFollowedAndKept) {
  Scenario s;
  TempDir dir;
  const std::string target = dir.path() + "/target.json", link = dir.path() + "/link.json";
  std::ofstream(target) << "old";
  ::chmod(target.c_str(), 0600);
  std::filesystem::create_symlink(target, link);
  auto r = s.run(with(kArgs, {"--output", link}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(S_ISLNK(mode_of(link))) << "the symlink itself is not replaced";
  EXPECT_TRUE(is_brief(read(target)));
  EXPECT_EQ(mode_of(target) & 07777, 0600u);
}

TEST(OutputCli, AFifoIsWrittenThroughNotReplaced) {
  Scenario s;
  TempDir dir;
  const std::string fifo = dir.path() + "/out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Hold both ends, so neither side blocks in open and a replaced FIFO cannot hang the test.
  const int keep = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(keep, 0);
  ASSERT_GE(rd, 0);
  std::atomic<bool> finished{false};
  std::string got;
  std::thread reader([&] {
    char buf[65536];
    for (;;) {
      pollfd p{rd, POLLIN, 0};
      ::poll(&p, 1, 50);
      const ssize_t n = ::read(rd, buf, sizeof buf);
      if (n > 0) got.append(buf, static_cast<std::size_t>(n));
      else if (finished.load()) break;
    }
  });
  auto r = s.run(with(kArgs, {"--output", fifo}));
  finished = true;
  reader.join();
  ::close(rd);
  ::close(keep);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(S_ISFIFO(mode_of(fifo))) << "the FIFO is still a FIFO";
  EXPECT_TRUE(is_brief(got)) << got.substr(0, 200);
}

// A FIFO nobody reads (issue 22 item 4): --output waits for a reader only within the
// run's --timeout, before any request, and a FIFO at the --save target only briefly.
TEST(OutputCli, AFifoWithNoReaderIsRefusedWithinTheTimeout) {
  Scenario s;
  TempDir dir;
  const std::string fifo = dir.path() + "/out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = s.run(with(kArgs, {"--output", fifo, "--timeout", "2"}), 20s);
  ASSERT_FALSE(r.timed_out) << "open() of a FIFO without a reader must not block forever";
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nothing opened it for reading within 2 s"), std::string::npos) << r.err;
  EXPECT_LT(r.elapsed.count(), 2000 + 1500);
  EXPECT_TRUE(s.fake().log().empty()) << "refused before any request";
  EXPECT_TRUE(S_ISFIFO(mode_of(fifo)));

  TempDir saves;
  ASSERT_EQ(::mkfifo((saves.path() + "/tokio-runtime-raw.md").c_str(), 0600), 0);
  auto saved = s.run(with(kArgs, {"--save-dir", saves.path()}), 30s);
  ASSERT_FALSE(saved.timed_out) << "a FIFO at the --save target must not hang after the brief";
  EXPECT_EQ(saved.exit_code, 1) << saved.err;
  EXPECT_TRUE(is_brief(saved.out)) << "the brief was printed first";
  EXPECT_NE(saved.err.find("tokio-runtime-raw.md: it is a FIFO and nothing opened it for reading"), std::string::npos)
      << saved.err;
}

// Issue 22 item 9: --output onto the research store (or its WAL/SHM, the config, a
// recording in use; by any name: a hard link, a symlink) is refused before any request.
TEST(OutputCli, TheOutputIsNeverAFileTheProductKeeps) {
  Scenario s;
  TempDir data;
  auto env = s.env();
  const std::string db = data.path() + "/research.db";
  env["LAST30DAYS_STORE_PATH"] = db;
  std::ofstream(db) << "SQLite format 3";  // a stand-in: it must not be touched
  ASSERT_EQ(::link(db.c_str(), (data.path() + "/hard.db").c_str()), 0);
  std::filesystem::create_symlink(db, data.path() + "/soft.db");
  const std::string config_dir = s.home().path() + "/config/last30days";  // XDG_CONFIG_HOME is HOME/config
  std::filesystem::create_directories(config_dir);
  std::ofstream(config_dir + "/.env") << "# config\n";
  TempDir rec;
  struct Case {
    std::vector<std::string> extra;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--output", db}, "is the research store"},
      {{"--output", data.path() + "/hard.db"}, "is the research store"},
      {{"--output", data.path() + "/soft.db"}, "is the research store"},
      {{"--output", db + "-wal", "--store"}, "is the research store file -wal"},
      {{"--output", db + "-shm"}, "is the research store file -shm"},
      {{"--output", config_dir + "/.env"}, "is the config file"},
      {{"--output", rec.path() + "/run.json", "--record", rec.path()}, "is inside the recording"},
  };
  for (const auto& c : cases) {
    auto r = run_last30days(with(kArgs, c.extra), env);
    EXPECT_EQ(r.exit_code, 2) << c.extra[1] << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.extra[1] << ": " << r.err;
  }
  EXPECT_TRUE(s.fake().log().empty()) << "refused before any request";
  EXPECT_EQ(read(db), "SQLite format 3");
  EXPECT_EQ(read(config_dir + "/.env"), "# config\n");
  EXPECT_FALSE(std::filesystem::exists(db + "-wal"));
  EXPECT_TRUE(rec.files().empty());
}

TEST(OutputCli, ADeviceIsWrittenThroughAndAFullOneIsExitOne) {
  Scenario s;
  const int full = ::open("/dev/full", O_WRONLY);  // inherited by the child as the same number
  ASSERT_GE(full, 0);
  auto r = s.run(with(kArgs, {"--output", "/dev/fd/" + std::to_string(full)}));
  ::close(full);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
}

TEST(OutputCli, AnImpossibleOutputFailsBeforeAnyRequest) {
  Scenario s([](const FakeRequest&) -> std::optional<FakeReply> { return FakeReply::hang(); });
  TempDir dir;
  std::filesystem::create_directory(dir.path() + "/a-directory");
  for (const std::string& bad : {dir.path() + "/missing-dir/brief.json", dir.path() + "/a-directory"}) {
    auto r = s.run(with(kArgs, {"--output", bad, "--timeout", "10"}), 30s);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--output"), std::string::npos) << r.err;
    EXPECT_LT(r.elapsed, 3s) << "at once, not after the run";
  }
  EXPECT_EQ(s.fake().log().size(), 0u) << "no request was made";
}

TEST(OutputCli, AFullOrClosedStdoutIsExitOneWithAMessage) {
  Scenario s;
  const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(full, 0);
  SpawnOptions to_full;
  to_full.stdout_fd = full;
  auto r = run_last30days(kArgs, s.env(), to_full);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("stdout"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  auto help = run_last30days({"--help"}, s.env(), to_full);
  EXPECT_EQ(help.exit_code, 1) << "--help into a full disk is not a success";
  ::close(full);

  const auto before = s.fake().log().size();
  SpawnOptions closed;
  closed.close_stdout = true;
  auto c = run_last30days(kArgs, s.env(), closed);
  EXPECT_EQ(c.exit_code, 1) << c.err;
  EXPECT_NE(c.err.find("stdout is closed"), std::string::npos) << c.err;
  EXPECT_EQ(s.fake().log().size(), before) << "known before any request";
}

TEST(OutputCli, AReaderThatGoesAwayIsQuiet) {
  Scenario s;
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  ::close(p[0]);  // `| head` that has already exited: every write is EPIPE
  SpawnOptions opts;
  opts.stdout_fd = p[1];
  auto r = run_last30days(kArgs, s.env(), opts);
  ::close(p[1]);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(OutputCli, AFailedSaveIsNotASilentSuccess) {
  Scenario s;
  TempDir dir;
  std::ofstream(dir.path() + "/not-a-dir") << "x";
  auto r = s.run(with(kArgs, {"--save-dir", dir.path() + "/not-a-dir"}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
}
