// The memory commands through the real binary: --store, library, watch, on a real SQLite
// file and a real PostgreSQL server, with the faults a user meets (corrupt, locked,
// read-only store, wrong URL, a server that stops answering or goes away, kill -9).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "fake_llm.hpp"
#include "fake_upstream.hpp"
#include "hn_world.hpp"
#include "pg_cluster.hpp"
#include "scenario.hpp"
#include "spawn.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

extern char** environ;

namespace {

const std::vector<Story> kTwo = {{"101", "Zig comptime explained", "https://zig.example/comptime", 10, 5},
                                 {"102", "Zig comptime generics in practice", "https://blog.example/zig-generics", 100, 8}};
const std::vector<std::string> kResearch = {"zig comptime", "--search", "hn", "--emit", "json", "--quiet"};

}  // namespace

TEST(StoreCli, ResearchTwiceRemembersHistoryAndMarksWhatIsNew) {
  HnWorld w;
  w.set(kTwo);
  auto first = w.run({"zig comptime", "--search", "hn", "--emit", "json", "--store"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto j1 = parse(first);
  EXPECT_EQ(j1["history"]["runs_before"], 0);
  EXPECT_TRUE(j1["history"]["last_run_at"].is_null());
  ASSERT_EQ(j1["items"].size(), 2u);
  for (const auto& it : j1["items"]) EXPECT_EQ(it["seen_before"], false);
  EXPECT_TRUE(fs::exists(w.default_db())) << "SQLite at $XDG_DATA_HOME/last30days/research.db, directory created";

  auto plain = w.run(kResearch);
  EXPECT_FALSE(parse(plain).contains("history")) << "without --store nothing is read or written";
  EXPECT_FALSE(parse(plain)["items"][0].contains("seen_before"));

  auto stories = kTwo;
  stories.push_back({"103", "Zig comptime and the build system", "https://zig.example/build", 30, 2});
  w.set(stories);
  auto second = w.run({"  ZIG   Comptime ", "--search", "hn", "--emit", "json", "--store"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  auto j2 = parse(second);
  EXPECT_EQ(j2["history"]["runs_before"], 1) << "the topic matches case-folded with whitespace collapsed";
  ASSERT_TRUE(j2["history"]["last_run_at"].is_string());
  EXPECT_EQ(j2["history"]["last_run_at"].get<std::string>().size(), 20u);
  for (const auto& it : j2["items"]) EXPECT_EQ(it["seen_before"], it["url"] != "https://zig.example/build") << it["url"];

  auto third = w.run({"zig comptime", "--search", "hn", "--store", "--quiet"});
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_NE(third.out.find("history: 2 runs before, the last at "), std::string::npos) << third.out;
  EXPECT_NE(third.out.find("· first seen 2 runs ago"), std::string::npos) << third.out;
  EXPECT_NE(third.out.find("· first seen 1 run ago"), std::string::npos) << third.out;
  auto md = w.run({"zig comptime", "--search", "hn", "--store", "--emit", "md"});
  EXPECT_NE(md.out.find("*first seen 3 runs ago*"), std::string::npos) << md.out;
  EXPECT_EQ(sqlite_value(w.default_db(), "SELECT count(*) FROM runs"), "4");
  EXPECT_EQ(sqlite_value(w.default_db(), "PRAGMA integrity_check"), "ok");
}

TEST(StoreCli, WatchRunPrintsOnlyWhatIsNewAndWhatSurged) {
  HnWorld w;
  w.set(kTwo);
  ASSERT_EQ(w.run({"zig comptime", "--search", "hn", "--store", "--quiet"}).exit_code, 0);
  auto add = w.run({"watch", "add", "Zig Comptime", "--search", "hn", "--every", "6", "--days", "7"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  auto list = parse(w.run({"watch", "list", "--emit", "json"}));
  EXPECT_EQ(list["kind"], "watchlist");
  ASSERT_EQ(list["topics"].size(), 1u);
  const auto& t = list["topics"][0];
  EXPECT_EQ(t["topic"], "zig comptime") << "a topic keeps the spelling it was first stored with";
  EXPECT_EQ(t["days"], 7);
  EXPECT_EQ(t["every_hours"], 6);
  EXPECT_EQ(t["sources"], json::array({"hackernews"}));
  EXPECT_TRUE(t["last_run_at"].is_string()) << "the stored research counted as a run of the watched topic";
  EXPECT_TRUE(t["next_due_at"].is_string());

  // Since then: 101 went from 10 to 40 (surging), 102 from 100 to 150 (not doubled),
  // 103 is new.
  w.set({{"101", "Zig comptime explained", "https://zig.example/comptime", 40, 5},
         {"102", "Zig comptime generics in practice", "https://blog.example/zig-generics", 150, 8},
         {"103", "Zig comptime and the build system", "https://zig.example/build", 30, 2}});
  auto run = w.run({"watch", "run", "--emit", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto j = parse(run);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["kind"], "watch");
  ASSERT_EQ(j["runs"].size(), 1u) << run.out;
  const auto& r = j["runs"][0];
  EXPECT_EQ(r["topic"], "zig comptime");
  EXPECT_TRUE(r["previous_run_at"].is_string());
  EXPECT_EQ(titles(r["new"]), std::vector<std::string>{"Zig comptime and the build system"});
  EXPECT_EQ(titles(r["surging"]), std::vector<std::string>{"Zig comptime explained"});
  ASSERT_EQ(r["surging"].size(), 1u);
  EXPECT_EQ(r["surging"][0]["previous_engagement"], 10);
  EXPECT_EQ(r["source_status"]["hackernews"]["state"], "ok");

  // Nothing is due now; --all runs it anyway and lists it with nothing new.
  auto again = w.run({"watch", "run", "--emit", "json"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "") << "nothing due, nothing new: quiet for cron";
  auto all = w.run({"watch", "run", "--all", "--emit", "json"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  auto ja = parse(all);
  ASSERT_EQ(ja["runs"].size(), 1u);
  EXPECT_TRUE(ja["runs"][0]["new"].empty());
  EXPECT_TRUE(ja["runs"][0]["surging"].empty());
  auto compact = w.run({"watch", "run", "--all"});
  EXPECT_NE(compact.out.find("nothing new since the previous run"), std::string::npos) << compact.out;
  auto md = w.run({"watch", "run", "--all", "--emit", "md"});
  EXPECT_NE(md.out.find("# last30days watch"), std::string::npos) << md.out;

  EXPECT_EQ(w.run({"watch", "remove", "zig   COMPTIME"}).exit_code, 0);
  auto gone = w.run({"watch", "remove", "zig comptime"});
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_NE(gone.err.find("not watched"), std::string::npos) << gone.err;
  EXPECT_TRUE(parse(w.run({"watch", "list", "--emit", "json"}))["topics"].empty());
}

// watch run --summarize: each topic with something new gets its own verified "What
// happened"; a topic with nothing new asks the model nothing; the key stays out of the store.
TEST(StoreCli, WatchRunSummarizesWhatIsNewPerTopic) {
  HnWorld w;
  w.set(kTwo);
  ASSERT_EQ(w.run({"watch", "add", "zig comptime", "--search", "hn"}).exit_code, 0);
  ASSERT_EQ(w.run({"watch", "add", "odin lang", "--search", "hn"}).exit_code, 0);
  const std::string key = "sk-l30-watch-key-ZQ2synth";
  std::vector<std::string> asked;
  FakeLlm llm([&](const LlmPrompt& p, int) {
    asked.push_back(p.user);
    std::string id = "none", title;
    if (!p.items.empty()) {
      const nlohmann::json& first = p.items.front();
      if (auto i = first.find("id"); i != first.end() && i->is_string()) id = i->get<std::string>();
      if (auto t = first.find("title"); t != first.end() && t->is_string()) title = t->get<std::string>();
    }
    return sse_answer(sentences_json({{"New: \u201c" + title + "\u201d.", {id}}, {"It drew 999999 points.", {id}}}));
  });
  const std::map<std::string, std::string> llm_env{
      {"LAST30DAYS_LLM_URL", llm.url()}, {"LAST30DAYS_LLM_MODEL", "fake-model"}, {"LAST30DAYS_LLM_KEY", key}};
  auto run = w.run({"watch", "run", "--all", "--summarize", "--emit", "json"}, llm_env);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = parse(run);
  bool summarized = false;
  for (const auto& r : j["runs"]) {
    if (r["new"].empty()) {
      EXPECT_FALSE(r.contains("synthesis")) << r["topic"];
      continue;
    }
    ASSERT_TRUE(r.contains("synthesis")) << r.dump().substr(0, 300);
    EXPECT_EQ(r["synthesis"]["sentences"][0]["verified"], true) << r["synthesis"].dump();
    EXPECT_EQ(r["synthesis"]["dropped"], 1);
    summarized = true;
  }
  EXPECT_TRUE(summarized);
  ASSERT_EQ(asked.size(), 1u) << "only the topic with something new was sent";
  EXPECT_NE(asked[0].find("since its last run"), std::string::npos);
  EXPECT_EQ(run.out.find(key), std::string::npos);
  for (const auto& f : fs::recursive_directory_iterator(w.home().path()))
    if (f.is_regular_file()) {
      EXPECT_EQ(slurp(f.path()).find(key), std::string::npos) << f.path();
    }
  auto bad = w.run({"watch", "list", "--summarize"}, llm_env);
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(StoreCli, LibrarySearchFindsStoredFindingsAndSavedBriefs) {
  HnWorld w;
  w.set(kTwo);
  ASSERT_EQ(w.run({"zig comptime", "--search", "hn", "--store", "--save", "--quiet"}).exit_code, 0);
  auto r = w.run({"library", "search", "comptime generics", "--emit", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse(r);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["kind"], "library");
  EXPECT_EQ(j["query"], "comptime generics");
  ASSERT_FALSE(j["results"].empty());
  const auto& top = j["results"][0];
  EXPECT_EQ(top["url"], "https://blog.example/zig-generics");
  for (const char* f : {"title", "url", "source", "first_seen", "last_seen", "sightings", "score", "snippet", "topics"})
    EXPECT_TRUE(top.contains(f)) << f;
  EXPECT_EQ(top["topics"], json::array({"zig comptime"}));
  bool brief = false;
  for (const auto& h : j["results"]) brief = brief || h["source"] == "brief";
  EXPECT_TRUE(brief) << "the saved brief is indexed too: " << j.dump(1);

  auto limited = parse(w.run({"library", "search", "zig", "--limit", "1", "--emit", "json"}));
  EXPECT_EQ(limited["results"].size(), 1u);
  auto hostile = w.run({"library", "search", "c++ AND \" NEAR( title:", "--emit", "json"});
  EXPECT_EQ(hostile.exit_code, 0) << hostile.err;
  auto compact = w.run({"library", "search", "zig"});
  EXPECT_NE(compact.out.find("library · \"zig\""), std::string::npos) << compact.out;
}

TEST(StoreCli, MemoryCommandsRejectBadInputWithExit2) {
  HnWorld w;
  const std::vector<std::vector<std::string>> bad = {{"library"},
                                                     {"library", "search"},
                                                     {"library", "find", "x"},
                                                     {"library", "search", "x", "--limit", "0"},
                                                     {"library", "search", "x", "--emit", "html"},
                                                     {"library", "search", "x", "--every", "2"},
                                                     {"watch"},
                                                     {"watch", "add"},
                                                     {"watch", "add", "x", "--every", "0"},
                                                     {"watch", "add", "x", "--every", "nan"},
                                                     {"watch", "list", "extra"},
                                                     {"watch", "list", "--emit", "md"},
                                                     {"watch", "run", "--emit", "html"},
                                                     {"watch", "run", "--days", "3"},
                                                     {"watch", "frobnicate"},
                                                     {"--discover", "--limit", "3"},
                                                     {"tokio", "--limit", "0"},
                                                     {"tokio", "--all"},
                                                     {"tokio", "--every", "3"},
                                                     {"--discover", "--nominate-only", "--store"}};
  for (const auto& args : bad) {
    auto r = w.run(args);
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << ::testing::PrintToString(args);
  }
  auto url = w.run({"library", "search", "x"}, {{"LAST30DAYS_STORE_URL", "mysql://u:p@h/db"}});
  EXPECT_EQ(url.exit_code, 2);
  EXPECT_NE(url.err.find("postgresql://"), std::string::npos) << url.err;
}

TEST(StoreCli, AComparisonStoresEachEntityAsItsOwnTopic) {
  HnWorld w;
  w.set({{"301", "Zig comptime versus Rust macros", "https://cmp.example/zig-rust", 80, 4},
         {"302", "Rust macros by example", "https://cmp.example/rust-macros", 40, 6}});
  ASSERT_EQ(w.run({"zig comptime", "--search", "hn", "--store", "--quiet"}).exit_code, 0);
  auto r = w.run({"zig comptime vs rust macros", "--search", "hn", "--store", "--emit", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = parse(r);
  ASSERT_EQ(j["kind"], "comparison");
  ASSERT_EQ(j["entities"].size(), 2u);
  EXPECT_EQ(j["entities"][0]["report"]["history"]["runs_before"], 1) << "the entity is the stored topic 'zig comptime'";
  EXPECT_EQ(j["entities"][1]["report"]["history"]["runs_before"], 0);
  EXPECT_EQ(sqlite_value(w.default_db(), "SELECT group_concat(display, '|') FROM (SELECT display FROM topics ORDER BY key)"),
            "rust macros|zig comptime");
  EXPECT_EQ(sqlite_value(w.default_db(), "SELECT count(*) FROM runs"), "3");
}

TEST(StoreCli, DiscoveryRunsCanBeStored) {
  Scenario s(nullptr, World::discovery);
  auto env = s.env();
  auto r = run_last30days({"--discover", "--enrich-budget", "3", "--emit", "json", "--store"}, env, 90000ms);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string db = s.home().path() + "/data/last30days/research.db";
  EXPECT_EQ(sqlite_value(db, "SELECT kind || ' ' || (SELECT display FROM topics WHERE id = topic_id) FROM runs"),
            "discovery discover: global");
  EXPECT_NE(sqlite_value(db, "SELECT count(*) FROM findings"), "0");
}

TEST(StoreCli, ACorruptStoreFailsFastWithExit1AndAsksNothing) {
  HnWorld w;
  w.set(kTwo);
  fs::create_directories(fs::path(w.default_db()).parent_path());
  std::ofstream(w.default_db()) << std::string(4096, 'Z');
  auto r = w.run({"zig comptime", "--search", "hn", "--store"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(w.default_db()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a SQLite database"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(w.fake().log().empty()) << "a broken store fails before any request";
  auto lib = w.run({"library", "search", "x"});
  EXPECT_EQ(lib.exit_code, 1);
  // A path whose parent is a file.
  std::ofstream(w.home().path() + "/plainfile") << "x";
  auto parent = w.run({"watch", "list"}, {{"LAST30DAYS_STORE_PATH", w.home().path() + "/plainfile/research.db"}});
  EXPECT_EQ(parent.exit_code, 1) << parent.err;
}

TEST(StoreCli, ALockedStoreIsWaitedOnNoLongerThanTheTimeout) {
  HnWorld w;
  w.set(kTwo);
  ASSERT_EQ(w.run({"watch", "list"}).exit_code, 0);  // creates the store
  sqlite3* holder = nullptr;
  sqlite3_open(w.default_db().c_str(), &holder);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto r = w.run({"zig comptime", "--search", "hn", "--store", "--timeout", "2"}, {}, 20000ms);
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("locked"), std::string::npos) << r.err;
  EXPECT_LT(r.elapsed, 3500ms) << "never a hang past --timeout";
  EXPECT_EQ(sqlite_value(w.default_db(), "SELECT count(*) FROM runs"), "0");
}

TEST(StoreCli, AReadOnlyStoreIsAClearErrorAndNoHalfRun) {
  HnWorld w;
  w.set(kTwo);
  ASSERT_EQ(w.run({"zig comptime", "--search", "hn", "--store", "--quiet"}).exit_code, 0);
  // The store belongs to root; the run is made as nobody (root ignores permissions).
  std::vector<std::string> args{L30_BINARY, "zig comptime", "--search", "hn", "--store"};
  if (::geteuid() == 0) args.insert(args.begin(), {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"});
  else fs::permissions(w.default_db(), fs::perms::owner_read);
  for (const auto& p : {w.home().path() + "/data", w.home().path() + "/data/last30days"})
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec);
  fs::permissions(w.default_db(),
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  auto r = run_binary(args, w.env());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
  EXPECT_EQ(sqlite_value(w.default_db(), "SELECT count(*) FROM runs"), "1");
  EXPECT_EQ(sqlite_value(w.default_db(), "PRAGMA integrity_check"), "ok");
}

TEST(StoreCli, ConcurrentRunsOnOneSqliteStoreAllSucceed) {
  HnWorld w;
  w.set(kTwo);
  constexpr int kRuns = 4;
  std::vector<ProcessResult> results(kRuns);
  std::vector<std::thread> threads;
  for (int i = 0; i < kRuns; ++i)
    threads.emplace_back([&, i] {
      results[static_cast<std::size_t>(i)] = w.run({"zig comptime", "--search", "hn", "--store", "--quiet"});
    });
  for (auto& t : threads) t.join();
  for (const auto& r : results) EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(sqlite_value(w.default_db(), "SELECT count(*) FROM runs"), std::to_string(kRuns));
  EXPECT_EQ(sqlite_value(w.default_db(), "SELECT max(sightings) FROM findings"), std::to_string(kRuns));
}

TEST(StoreCli, SecretsNeverEnterTheStore) {
  HnWorld w;
  const std::string token = "ghp_L30testTokenValue9876";
  w.set({{"201", "Zig comptime leak " + token, "https://leak.example/?access_token=" + token, 50, 3}});
  auto r = w.run({"zig comptime", "--search", "hn", "--store", "--save", "--emit", "json"}, {{"GITHUB_TOKEN", token}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find(token), std::string::npos);
  for (const auto& f : fs::recursive_directory_iterator(w.home().path()))
    if (f.is_regular_file()) {
      EXPECT_EQ(slurp(f.path()).find(token), std::string::npos) << f.path();
    }
}

namespace {

pid_t spawn_quiet(const std::vector<std::string>& args, const std::map<std::string, std::string>& env, const std::string& out) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    if (auto eq = kv.find('='); eq != std::string::npos) merged[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : env) {
    if (v.empty()) merged.erase(k);
    else merged[k] = v;
  }
  std::vector<std::string> strings;
  for (const auto& [k, v] : merged) strings.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> a = args;
  for (auto& s : a) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, (out + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

}  // namespace

// kill -9 at many moments in and around the commit (found by watching the WAL file
// change): the store always reopens, passes integrity_check, and every committed run is
// whole (all its sightings, counters agree).
TEST(StoreCli, SigkillMidWriteLeavesTheStoreConsistent) {
  HnWorld w;
  std::vector<Story> many;
  for (int i = 0; i < 250; ++i)
    many.push_back({std::to_string(1000 + i), "Zig comptime story number " + std::to_string(i),
                    "https://many.example/" + std::to_string(i), 10 + i, 1 + i % 20});
  w.set(many);
  const std::vector<std::string> args{L30_BINARY, "zig comptime", "--search", "hn", "--store", "--quiet"};
  ASSERT_EQ(w.run({args.begin() + 1, args.end()}).exit_code, 0);
  const std::string wal = w.default_db() + "-wal";
  const auto wal_state = [&] {
    struct stat st {};
    ::stat(wal.c_str(), &st);
    return std::make_pair(static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec, st.st_size);
  };
  int killed_before_commit = 0, killed_after_commit = 0;
  // The long delays land after the commit even on a loaded machine.
  for (int delay_us : {0, 0, 100, 200, 300, 500, 700, 1000, 1500, 2000, 3000, 5000, 8000, 20000, 60000, 250000}) {
    const auto runs_before = std::stoi(sqlite_value(w.default_db(), "SELECT count(*) FROM runs"));
    const auto wal_before = wal_state();
    const pid_t pid = spawn_quiet(args, w.env(), w.home().path() + "/out");
    const auto t0 = std::chrono::steady_clock::now();
    int status = 0;
    bool exited = false;
    while (wal_state() == wal_before && std::chrono::steady_clock::now() - t0 < 20s) {
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      std::this_thread::sleep_for(100us);
    }
    ASSERT_FALSE(exited) << "the run ended without writing the WAL";
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    const auto runs_after = std::stoi(sqlite_value(w.default_db(), "SELECT count(*) FROM runs"));
    (runs_after > runs_before ? killed_after_commit : killed_before_commit)++;
    ASSERT_EQ(sqlite_value(w.default_db(), "PRAGMA integrity_check"), "ok") << "delay " << delay_us;
    ASSERT_EQ(sqlite_value(w.default_db(),
                           "SELECT count(*) FROM runs r WHERE r.findings <> "
                           "(SELECT count(*) FROM sightings s WHERE s.run_id = r.id)"),
              "0")
        << "a committed run lost sightings (delay " << delay_us << ")";
    ASSERT_EQ(sqlite_value(w.default_db(),
                           "SELECT count(*) FROM findings f WHERE f.sightings <> "
                           "(SELECT count(*) FROM sightings s WHERE s.finding_id = f.id)"),
              "0");
  }
  // The FTS index agrees with its table, and the store still takes runs.
  EXPECT_EQ(w.run({"library", "search", "zig"}).exit_code, 0);
  ASSERT_EQ(w.run({args.begin() + 1, args.end()}).exit_code, 0);
  sqlite3* db = nullptr;
  sqlite3_open(w.default_db().c_str(), &db);
  EXPECT_EQ(sqlite3_exec(db, "INSERT INTO findings_fts(findings_fts) VALUES('integrity-check')", nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  std::printf("kills before commit: %d, after: %d\n", killed_before_commit, killed_after_commit);
  EXPECT_GT(killed_before_commit, 0) << "no kill landed before the commit completed";
  EXPECT_GT(killed_after_commit, 0) << "no kill landed after a commit";
}

// --- PostgreSQL -----------------------------------------------------------------------

TEST(StorePostgresCli, ResearchHistoryOnASharedStoreNeverPrintsThePassword) {
  auto& pg = PgCluster::shared();
  const auto db = pg.fresh_database();
  HnWorld w;
  w.set(kTwo);
  const std::map<std::string, std::string> env{{"LAST30DAYS_STORE_URL", pg.url(db)}};
  auto first = w.run({"zig comptime", "--search", "hn", "--emit", "json", "--store"}, env);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto second = w.run({"Zig Comptime", "--search", "hn", "--emit", "json", "--store"}, env);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(parse(second)["history"]["runs_before"], 1);
  for (const auto& it : parse(second)["items"]) EXPECT_EQ(it["seen_before"], true);
  auto lib = w.run({"library", "search", "generics", "--emit", "json"}, env);
  ASSERT_EQ(lib.exit_code, 0) << lib.err;
  ASSERT_FALSE(parse(lib)["results"].empty());
  EXPECT_EQ(parse(lib)["results"][0]["url"], "https://blog.example/zig-generics");
  for (const auto* r : {&first, &second, &lib})
    for (const auto& text : {r->out, r->err}) {
      EXPECT_EQ(text.find(pg.password()), std::string::npos);
      EXPECT_EQ(text.find(PgCluster::percent_encode(pg.password())), std::string::npos);
    }
  EXPECT_EQ(pg.query(db, "SELECT count(*) FROM last30days.runs")[0][0], "2");
  EXPECT_FALSE(fs::exists(w.default_db())) << "the URL takes precedence over the SQLite path";
}

TEST(StorePostgresCli, AWrongUrlIsAClearErrorWithoutThePassword) {
  auto& pg = PgCluster::shared();
  HnWorld w;
  w.set(kTwo);
  const std::string wrong = "Wr0ngPassw0rdXYZ";
  auto bad_pw = w.run({"zig comptime", "--search", "hn", "--store"},
                      {{"LAST30DAYS_STORE_URL", "postgresql://l30:" + wrong + "@/postgres?host=" + pg.socket_dir()}});
  EXPECT_EQ(bad_pw.exit_code, 1);
  EXPECT_NE(bad_pw.err.find("password authentication failed"), std::string::npos) << bad_pw.err;
  EXPECT_EQ(bad_pw.err.find(wrong), std::string::npos) << bad_pw.err;
  EXPECT_NE(bad_pw.err.find("****"), std::string::npos) << bad_pw.err;
  EXPECT_TRUE(w.fake().log().empty());
  auto no_server =
      w.run({"watch", "list", "--timeout", "3"},
            {{"LAST30DAYS_STORE_URL", "postgres://l30:" + wrong + "@/postgres?host=/nonexistent-l30-socket-dir"}}, 15000ms);
  EXPECT_EQ(no_server.exit_code, 1);
  EXPECT_LT(no_server.elapsed, 5000ms);
  EXPECT_EQ(no_server.err.find(wrong), std::string::npos) << no_server.err;
}

TEST(StorePostgresCli, SeveralProcessesCreateTheSchemaAtOnce) {
  auto& pg = PgCluster::shared();
  const auto db = pg.fresh_database();
  HnWorld w;
  std::vector<ProcessResult> results(5);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] {
      results[i] = w.run({"watch", "list", "--emit", "json"}, {{"LAST30DAYS_STORE_URL", pg.url(db)}});
    });
  for (auto& t : threads) t.join();
  for (const auto& r : results) EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(pg.query(db, "SELECT string_agg(version::text, ',' ORDER BY version) FROM last30days.schema_migrations")[0][0],
            "1,2,3,4");
}

TEST(StorePostgresCli, TwoWatchRunProcessesRunEachDueTopicExactlyOnce) {
  auto& pg = PgCluster::shared();
  const auto db = pg.fresh_database();
  HnWorld w;
  w.set(kTwo);
  w.set_delay(150ms);  // long enough that both processes are at work at the same time
  const std::map<std::string, std::string> env{{"LAST30DAYS_STORE_URL", pg.url(db)}};
  const std::vector<std::string> topics = {"zig comptime", "zig allocators", "zig build",     "zig async",
                                           "zig errors",   "zig testing",    "zig c interop", "zig packages"};
  for (const auto& t : topics) ASSERT_EQ(w.run({"watch", "add", t, "--search", "hn"}, env).exit_code, 0);
  ProcessResult a, b;
  std::thread ta([&] { a = w.run({"watch", "run", "--emit", "json"}, env); });
  std::thread tb([&] { b = w.run({"watch", "run", "--emit", "json"}, env); });
  ta.join();
  tb.join();
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  std::multiset<std::string> ran;
  std::size_t in_a = 0, in_b = 0;
  for (const auto* r : {&a, &b}) {
    auto j = parse(*r);
    (r == &a ? in_a : in_b) = j["runs"].size();
    for (const auto& run : j["runs"]) ran.insert(run["topic"].get<std::string>());
  }
  EXPECT_EQ(ran, std::multiset<std::string>(topics.begin(), topics.end())) << "every due topic ran once, in one process";
  EXPECT_GT(in_a, 0u) << "both processes took a share";
  EXPECT_GT(in_b, 0u) << "both processes took a share";
  EXPECT_EQ(pg.query(db, "SELECT count(*) FROM last30days.runs")[0][0], std::to_string(topics.size()));
  EXPECT_EQ(pg.query(db, "SELECT count(DISTINCT topic_id) FROM last30days.runs")[0][0], std::to_string(topics.size()));
  EXPECT_EQ(pg.query(db, "SELECT count(*) FROM last30days.watchlist WHERE claimed_by IS NOT NULL OR last_run_at IS NULL")[0][0],
            "0");
}

TEST(StorePostgresCli, AServerThatStopsAnsweringEndsInExit1ByTheTimeout) {
  auto& pg = PgCluster::shared();
  const auto db = pg.fresh_database();
  HnWorld w;
  w.set(kTwo);
  const std::map<std::string, std::string> env{{"LAST30DAYS_STORE_URL", pg.url(db)}};
  ASSERT_EQ(w.run({"watch", "list"}, env).exit_code, 0);  // schema in place
  w.set_delay(1500ms);
  ProcessResult r;
  std::thread t([&] { r = w.run({"zig comptime", "--search", "hn", "--store", "--timeout", "3"}, env, 30000ms); });
  // Freeze the run's own server process while the research is under way.
  int backend = 0;
  for (int i = 0; i < 100 && backend == 0; ++i) {
    std::this_thread::sleep_for(20ms);
    auto rows =
        pg.query("postgres", "SELECT pid FROM pg_stat_activity WHERE application_name = 'last30days' AND datname = '" + db + "'");
    if (!rows.empty()) backend = std::stoi(rows[0][0]);
  }
  ASSERT_NE(backend, 0);
  ::kill(backend, SIGSTOP);
  t.join();
  ::kill(backend, SIGCONT);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("did not answer before the deadline"), std::string::npos) << r.err;
  EXPECT_LT(r.elapsed, 5000ms) << "bounded by --timeout";
  EXPECT_EQ(pg.query(db, "SELECT count(*) FROM last30days.runs")[0][0], "0");
}

TEST(StorePostgresCli, AServerThatGoesAwayEndsInExit1WithTheBriefStillPrinted) {
  PgCluster own;  // this test stops its server
  HnWorld w;
  w.set(kTwo);
  const std::map<std::string, std::string> env{{"LAST30DAYS_STORE_URL", own.url()}};
  ASSERT_EQ(w.run({"watch", "list"}, env).exit_code, 0);
  w.set_delay(1500ms);
  ProcessResult r;
  std::thread t([&] { r = w.run({"zig comptime", "--search", "hn", "--store", "--timeout", "10"}, env, 30000ms); });
  std::this_thread::sleep_for(500ms);
  own.stop();
  t.join();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("not recorded"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Zig comptime"), std::string::npos) << "the research itself is still printed";
  EXPECT_LT(r.elapsed, 12000ms);
  own.start();
  EXPECT_EQ(own.query("postgres", "SELECT count(*) FROM last30days.runs")[0][0], "0") << "no half-written run";
}
