// Files the host hands us -- --plan, .env, judgments, angles, the protocol bundle and
// pending files, run.json -- as an attacker or an accident would: a FIFO nobody writes,
// an endless device, a directory, a huge file, malformed or future-dated contents.
// Each ends at once in exit 2 with the file named, before any request.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "core/time.hpp"
#include "scenario.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

json bundle(core::UnixSeconds created) {
  const auto now = core::now_unix();
  return {{"schema_version", 1},
          {"kind", "discovery-nominations"},
          {"bundle_id", "b-hostile"},
          {"tier", "deep"},
          {"domain", ""},
          {"window", {{"from", core::format_date(now - 7 * 86400)}, {"to", core::format_date(now)}, {"days", 7}}},
          {"scoring_clock", now},
          {"created_unix", created},
          {"replay", false},
          {"sources", {"hackernews"}},
          {"source_status", json::object()},
          {"nominations", json::array({{{"id", "n1"}, {"name", "Tokio 2.0"}, {"velocity_score", 10.0}}})}};
}

json pending() {
  json p = bundle(core::now_unix());
  p["kind"] = "discovery-pending";
  p.erase("nominations");
  p["results"] = json::array({{{"id", "n1"}, {"name", "Tokio 2.0"}, {"velocity_score", 10.0}}});
  p["enrichment"] = {{"tier", "deep"}, {"depth", "default"}, {"max_workers", 4}, {"budget_seconds", 450}, {"elapsed_ms", 0}};
  return p;
}

enum class Hostile { fifo, endless_device, directory, oversize };

// Puts the hostile thing at `path`.
void plant(Hostile h, const std::string& path) {
  std::filesystem::remove_all(path);
  switch (h) {
    case Hostile::fifo: ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0); break;
    case Hostile::endless_device: std::filesystem::create_symlink("/dev/zero", path); break;  // read, never written
    case Hostile::directory: std::filesystem::create_directory(path); break;
    case Hostile::oversize: write_file(path, "{\"x\":\"" + std::string(9u << 20, 'a') + "\"}"); break;
  }
}

const char* expected_word(Hostile h) {
  switch (h) {
    case Hostile::fifo: return "FIFO";
    case Hostile::endless_device: return "device";
    case Hostile::directory: return "directory";
    case Hostile::oversize: return "limit";
  }
  return "";
}

}  // namespace

TEST(HostileFiles, EveryHostFileMustBeASmallRegularFile) {
  Scenario s;
  struct Kind {
    std::string name;
    // Prepares a directory, returns the hostile file's path and the command line.
    std::function<std::pair<std::string, std::vector<std::string>>(const std::string& dir)> setup;
    bool env_file = false;
  };
  const std::vector<Kind> kinds = {
      {"--plan",
       [](const std::string& d) {
         return std::make_pair(d + "/plan.json", std::vector<std::string>{"tokio", "--plan", d + "/plan.json"});
       }},
      {"--judgments",
       [](const std::string& d) {
         write_file(d + "/discover-nominations.json", bundle(core::now_unix()).dump());
         return std::make_pair(d + "/j.json",
                               std::vector<std::string>{"--discover", "--judgments", d + "/j.json", "--save-dir", d});
       }},
      {"nominations bundle",
       [](const std::string& d) {
         write_file(d + "/j.json", R"({"bundle_id":"b-hostile","judgments":[]})");
         return std::make_pair(d + "/discover-nominations.json",
                               std::vector<std::string>{"--discover", "--judgments", d + "/j.json", "--save-dir", d});
       }},
      {"pending file",
       [](const std::string& d) {
         write_file(d + "/a.json", R"({"bundle_id":"b-hostile","angles":[]})");
         return std::make_pair(d + "/discover-pending.json",
                               std::vector<std::string>{"--discover", "--finalize", "--angles", d + "/a.json", "--save-dir", d});
       }},
      {"--angles",
       [](const std::string& d) {
         write_file(d + "/discover-pending.json", pending().dump());
         return std::make_pair(d + "/a.json",
                               std::vector<std::string>{"--discover", "--finalize", "--angles", d + "/a.json", "--save-dir", d});
       }},
      {"run.json",
       [](const std::string& d) {
         std::filesystem::create_directories(d + "/cassette");
         return std::make_pair(d + "/cassette/run.json", std::vector<std::string>{"tokio", "--replay", d + "/cassette"});
       }},
      {".env",
       [](const std::string& d) { return std::make_pair(d + "/config/last30days/.env", std::vector<std::string>{"tokio"}); },
       true},
  };
  for (const auto& kind : kinds) {
    for (Hostile h : {Hostile::fifo, Hostile::endless_device, Hostile::directory, Hostile::oversize}) {
      TempDir dir;
      std::filesystem::create_directories(dir.path() + "/config/last30days");
      auto [path, args] = kind.setup(dir.path());
      plant(h, path);
      auto env = s.env();
      env["XDG_CONFIG_HOME"] = dir.path() + "/config";
      auto r = run_last30days(args, env, 10s);
      const std::string what = kind.name + " as " + expected_word(h);
      ASSERT_FALSE(r.timed_out) << what << ": hung";
      EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
      EXPECT_NE(r.err.find(expected_word(h)), std::string::npos) << what << ": " << r.err;
      EXPECT_NE(r.err.find(kind.env_file ? std::string("config file") : std::filesystem::path(path).filename().string()),
                std::string::npos)
          << what << ": the file is named: " << r.err;
      EXPECT_LT(r.elapsed, 3s) << what;
    }
  }
  EXPECT_EQ(s.fake().log().size(), 0u) << "every refusal comes before any request";
}

TEST(HostileFiles, AMalformedProtocolFileIsExitTwoNamingFileAndField) {
  Scenario s;
  TempDir dir;
  auto b = bundle(core::now_unix());
  b["nominations"][0]["velocity_score"] = "fast";  // nlohmann threw type_error: exit 1
  write_file(dir.path() + "/discover-nominations.json", b.dump());
  write_file(dir.path() + "/j.json", R"({"bundle_id":"b-hostile","judgments":[]})");
  auto r = s.run({"--discover", "--judgments", dir.path() + "/j.json", "--save-dir", dir.path()}, 20s);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("discover-nominations.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nominations[0].velocity_score"), std::string::npos) << r.err;

  auto p = pending();
  p["results"][0]["enrichment"] = {{"items", "three"}};
  write_file(dir.path() + "/discover-pending.json", p.dump());
  write_file(dir.path() + "/a.json", R"({"bundle_id":"b-hostile","angles":[]})");
  auto f = s.run({"--discover", "--finalize", "--angles", dir.path() + "/a.json", "--save-dir", dir.path()}, 20s);
  EXPECT_EQ(f.exit_code, 2) << f.err;
  EXPECT_NE(f.err.find("discover-pending.json"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("results[0].enrichment.items"), std::string::npos) << f.err;
  EXPECT_EQ(s.fake().log().size(), 0u);
}

TEST(HostileFiles, ABundleDatedInTheFutureIsInvalid) {
  Scenario s;
  TempDir dir;
  write_file(dir.path() + "/discover-nominations.json", bundle(core::now_unix() + 86400).dump());
  write_file(dir.path() + "/j.json", R"({"bundle_id":"b-hostile","judgments":[]})");
  auto r = s.run({"--discover", "--judgments", dir.path() + "/j.json", "--save-dir", dir.path()}, 20s);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("future"), std::string::npos) << r.err;
}

TEST(HostileFiles, RunJsonIsValidated) {
  TempDir home;
  const auto env = offline_env(home);  // nothing answers: a replay that fell through would fail loudly
  TempDir cassette;
  auto replay = [&] { return run_last30days({"tokio", "--replay", cassette.path()}, env, 20s); };
  auto missing = replay();
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("run.json"), std::string::npos) << missing.err;
  for (const json& bad :
       {json{{"now", "yesterday"}}, json{{"now", core::now_unix() + 10 * 86400}}, json{{"now", 12}}, json::array({1})}) {
    write_file(cassette.path() + "/run.json", bad.dump());
    auto r = replay();
    EXPECT_EQ(r.exit_code, 2) << bad.dump() << ": " << r.err;
    EXPECT_NE(r.err.find("run.json"), std::string::npos) << r.err;
  }
}
