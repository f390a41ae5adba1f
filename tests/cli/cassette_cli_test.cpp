// --record against hostile input (issue 22): answers nested deeper than any parser should
// follow, a recording directory with symlinks planted at the names it will write, and
// personal data in a session answer.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::vector<std::string> kArgs = {"tokio runtime", "--as-of", "2026-11-29", "--emit", "json"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bool is_symlink(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

}  // namespace

// Item 2: the cassette's redaction walked and re-serialised the parsed answer recursively,
// so ~40 KB nested 20,000 deep ended the run with SIGSEGV. The parser now refuses it.
TEST(CassetteCli, RecordingADeeplyNestedAnswerIsASchemaDriftNotACrash) {
  const std::string deep = "{\"hits\":" + std::string(20000, '[') + std::string(20000, ']') + "}";
  Scenario s([&deep](const FakeRequest& r) -> std::optional<FakeReply> {
    if (r.path.rfind("/hn/api/v1/search", 0) == 0) return FakeReply::json(deep);
    return std::nullopt;
  });
  TempDir rec;
  auto r = s.run(with(kArgs, {"--search", "hn", "--record", rec.path()}));
  ASSERT_FALSE(r.timed_out);
  // Not a signal (it was SIGSEGV, 139). The only source asked failed, which is exit 0, or 4
  // where "no source answered" has its own exit code.
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 4) << "signal or error: " << r.exit_code << " " << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["source_status"]["hackernews"]["state"], "schema-drift");
  EXPECT_NE(j["source_status"]["hackernews"]["reason"].get<std::string>().find("JSON nested deeper than 512 levels"),
            std::string::npos)
      << j["source_status"]["hackernews"].dump();
  int entries = 0;
  for (const auto& f : rec.files()) {
    if (f == "run.json") continue;
    ++entries;
    EXPECT_FALSE(json::parse(read_file(rec.path() + "/" + f), nullptr, false).is_discarded()) << f;
  }
  EXPECT_GT(entries, 0);
  // Replayed, the recorded answer is refused the same way.
  TempDir home;
  auto replay = run_last30days(with(kArgs, {"--search", "hn", "--replay", rec.path()}), offline_env(home));
  ASSERT_TRUE(replay.exit_code == 0 || replay.exit_code == 4) << replay.err;
  const auto replayed = json::parse(replay.out)["source_status"]["hackernews"];
  EXPECT_NE(replayed["reason"].get<std::string>().find("JSON nested deeper than 512 levels"), std::string::npos)
      << replayed.dump();
}

// Item 3: a recording directory (checked out from a repository, say) with symlinks at the
// entry names, their temp names and run.json. Nothing outside the directory changes;
// each name becomes a regular file with the recording.
TEST(CassetteCli, RecordingNeverWritesThroughASymlinkInTheDirectory) {
  Scenario s;
  TempDir first, planted, outside;
  auto r = s.run(with(kArgs, {"--search", "hn,lobsters", "--record", first.path()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto names = first.files();
  ASSERT_GT(names.size(), 2u);
  int n = 0;
  std::vector<std::pair<std::string, std::string>> victims;  // victim file, its content
  for (const auto& name : names)
    for (const std::string& planted_name : {name, name + ".tmp"}) {
      const std::string victim = outside.path() + "/victim-" + std::to_string(n++);
      std::ofstream(victim) << "precious " << planted_name;
      victims.emplace_back(victim, "precious " + planted_name);
      std::filesystem::create_symlink(victim, planted.path() + "/" + planted_name);
    }
  auto again = s.run(with(kArgs, {"--search", "hn,lobsters", "--record", planted.path()}));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  for (const auto& [victim, content] : victims) EXPECT_EQ(read_file(victim), content) << victim << " was written through a link";
  for (const auto& name : names) {
    EXPECT_FALSE(is_symlink(planted.path() + "/" + name)) << name << " is still the planted link";
    if (name == "run.json") EXPECT_TRUE(json::parse(read_file(planted.path() + "/" + name)).contains("now"));
    else EXPECT_EQ(read_file(planted.path() + "/" + name), read_file(first.path() + "/" + name)) << name;
  }
}

// Item 16: Bluesky's session answer carries the account's e-mail address. A recording
// keeps it nowhere (nor does any output).
TEST(CassetteCli, RecordingsNeverHoldTheBlueskyAccountsEmail) {
  Scenario s;
  TempDir rec;
  auto env = s.env();
  env["BSKY_HANDLE"] = kGoodBskyHandle;
  env["BSKY_APP_PASSWORD"] = kGoodBskyPassword;
  auto r = run_last30days(with(kArgs, {"--search", "bluesky", "--record", rec.path()}), env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(json::parse(r.out)["source_status"]["bluesky"]["state"], "ok") << r.out;
  std::string all = r.out + r.err;
  for (const auto& f : rec.files()) all += read_file(rec.path() + "/" + f);
  ASSERT_NE(all.find("createSession"), std::string::npos) << "the session exchange was recorded";
  EXPECT_EQ(all.find("tester@example.org"), std::string::npos);
  EXPECT_EQ(all.find("tester%40example.org"), std::string::npos);
}
