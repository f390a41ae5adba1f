// Terminal progress through a real pseudo-terminal (openpty): on stderr when it is a
// terminal, redrawn in place, coloured unless NO_COLOR; never on stdout, never with
// --quiet, never when stderr is a pipe.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <pty.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "child.hpp"
#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

struct TtyRun {
  int exit_code = -1;
  std::string out;  // stdout (a pipe)
  std::string tty;  // everything written to the terminal
};

TtyRun run_on_tty(Scenario& s, std::vector<std::string> args, std::map<std::string, std::string> extra_env = {}) {
  int master = -1, slave = -1;
  winsize ws{};
  ws.ws_row = 50;
  ws.ws_col = 140;
  if (openpty(&master, &slave, nullptr, nullptr, &ws) != 0) throw std::runtime_error("openpty");
  fcntl(master, F_SETFD, FD_CLOEXEC);
  auto env = s.env();
  env["TERM"] = "xterm-256color";
  env["NO_COLOR"] = "";
  for (auto& [k, v] : extra_env) env[k] = v;
  args.insert(args.begin(), L30_BINARY);
  TtyRun r;
  std::string tty;
  std::thread reader([&] {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(master, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // EIO once every slave descriptor is closed
      tty.append(buf, static_cast<std::size_t>(n));
    }
  });
  {
    Child child(args, env, slave);
    ::close(slave);
    child.close_stdin();
    const auto code = child.wait(60s);
    r.exit_code = code.value_or(-1);
    while (auto l = child.read_line(1s)) r.out += *l + "\n";
    r.out += child.out_rest();
  }
  reader.join();
  ::close(master);
  r.tty = tty;
  return r;
}

const std::vector<std::string> kResearch = {"tokio runtime", "--as-of", "2026-11-29", "--emit", "json"};

}  // namespace

TEST(ProgressTty, ResearchDrawsOneLinePerSourceInPlaceOnStderrOnly) {
  Scenario s;
  auto r = run_on_tty(s, kResearch);
  ASSERT_EQ(r.exit_code, 0) << r.tty;
  EXPECT_FALSE(json::parse(r.out, nullptr, false).is_discarded()) << "stdout is exactly the JSON";
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "no terminal codes on stdout";
  EXPECT_NE(r.tty.find("\"tokio runtime\""), std::string::npos) << r.tty;
  for (const char* id : {"hackernews", "reddit", "polymarket", "github", "arxiv", "lobsters", "stackexchange"}) {
    EXPECT_NE(r.tty.find(id), std::string::npos) << id;
  }
  EXPECT_NE(r.tty.find("no-results"), std::string::npos);
  EXPECT_NE(r.tty.find("items"), std::string::npos);
  EXPECT_NE(r.tty.find(" s"), std::string::npos) << "elapsed time";
  EXPECT_NE(r.tty.find("\x1b[J"), std::string::npos) << "the block is redrawn in place";
  EXPECT_NE(r.tty.find("A\r\x1b[J"), std::string::npos) << "cursor moves up over the previous block";
  EXPECT_NE(r.tty.find("\x1b[32m"), std::string::npos) << "ok is green";
  // The last frame shows every source finished, none still running.
  const auto last = r.tty.rfind("\x1b[J");
  const std::string final_frame = r.tty.substr(last);
  EXPECT_EQ(final_frame.find("running"), std::string::npos) << final_frame;
  EXPECT_NE(final_frame.find("ok"), std::string::npos) << final_frame;
  std::cerr << "final frame:\n" << final_frame << "\n";
}

TEST(ProgressTty, NoColorKeepsTheRedrawWithoutColours) {
  Scenario s;
  auto r = run_on_tty(s, kResearch, {{"NO_COLOR", "1"}});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.tty.find("hackernews"), std::string::npos);
  EXPECT_NE(r.tty.find("\x1b[J"), std::string::npos);
  for (const char* sgr : {"\x1b[32m", "\x1b[31m", "\x1b[33m", "\x1b[2m", "\x1b[0m"})
    EXPECT_EQ(r.tty.find(sgr), std::string::npos) << "colour code with NO_COLOR";
}

TEST(ProgressTty, QuietShowsNothing) {
  Scenario s;
  auto args = kResearch;
  args.push_back("--quiet");
  auto r = run_on_tty(s, args);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.tty, "") << "--quiet: nothing on the terminal";
}

TEST(ProgressTty, NoProgressWhenStderrIsAPipe) {
  Scenario s;
  auto env = s.env();
  env["TERM"] = "xterm-256color";
  auto r = run_last30days(kResearch, env);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("hackernews"), std::string::npos) << "no per-source lines on a pipe: " << r.err;
}

TEST(ProgressTty, DiscoveryShowsListingsThenEnrichmentWithTheBudgetLeft) {
  Scenario s(nullptr, World::discovery);
  auto r = run_on_tty(s, {"--discover", "--enrich-budget", "4", "--emit", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.tty;
  EXPECT_FALSE(json::parse(r.out, nullptr, false).is_discarded());
  EXPECT_NE(r.tty.find("last30days discover · global"), std::string::npos);
  const auto listings = r.tty.find("listings");
  const auto enrichment = r.tty.find("enrichment:");
  ASSERT_NE(listings, std::string::npos) << r.tty;
  ASSERT_NE(enrichment, std::string::npos) << r.tty;
  EXPECT_LT(listings, enrichment);
  EXPECT_NE(r.tty.find("s of 4 s budget left"), std::string::npos) << r.tty;
  EXPECT_NE(r.tty.find("enriched"), std::string::npos);
  std::cerr << "final frame:\n" << r.tty.substr(r.tty.rfind("\x1b[J")) << "\n";
}
