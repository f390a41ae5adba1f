// The store's rules on both backends: a real SQLite file and a real PostgreSQL server.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/redact.hpp"
#include "core/text.hpp"
#include "core/url.hpp"
#include "pg_cluster.hpp"
#include "spawn.hpp"
#include "store/store.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

enum class Kind { sqlite, postgres };

class StoreTest : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override {
    if (GetParam() == Kind::sqlite) {
      where_ = {store::Location::Kind::sqlite, tmp_.path() + "/nested/dir/research.db", "test"};
    } else {
      db_ = PgCluster::shared().fresh_database();
      where_ = {store::Location::Kind::postgres, PgCluster::shared().url(db_), "test"};
    }
  }
  std::unique_ptr<store::Store> open(int version = 0) {
    return store::Store::open(where_, persist::testing::writer(), core::Deadline::in(30s), {version});
  }
  // Raw SQL against the same database, outside the store (schema surgery, inspection).
  std::vector<std::vector<std::string>> raw(const std::string& sql) {
    if (GetParam() == Kind::postgres) return PgCluster::shared().query(db_, "SET search_path TO last30days; " + sql);
    sqlite3* db = nullptr;
    sqlite3_open(where_.target.c_str(), &db);
    std::vector<std::vector<std::string>> rows;
    char* err = nullptr;
    sqlite3_exec(
        db, sql.c_str(),
        [](void* out, int n, char** values, char**) {
          std::vector<std::string> row;
          for (int i = 0; i < n; ++i) row.emplace_back(values[i] ? values[i] : "");
          static_cast<std::vector<std::vector<std::string>>*>(out)->push_back(row);
          return 0;
        },
        &rows, &err);
    std::string msg = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    if (!msg.empty()) throw std::runtime_error(msg);
    return rows;
  }

  static store::RunInput run(std::string topic, core::UnixSeconds at, std::vector<store::FindingInput> findings) {
    store::RunInput in;
    in.topic = std::move(topic);
    in.window = model::Window::ending(at, 30);
    in.started_at = at - 5;
    in.finished_at = at;
    in.source_status["hackernews"] = {model::SourceState::ok, static_cast<int>(findings.size()), "", 12, 1};
    in.findings = std::move(findings);
    return in;
  }
  static store::FindingInput finding(std::string url, std::string title, double engagement = 10, std::string snippet = "") {
    return {std::move(url), std::move(title), "hackernews", std::move(snippet), engagement, std::nullopt};
  }

  TempDir tmp_;
  std::string db_;
  store::Location where_;
};

std::string key(std::string_view url) { return store::finding_key(url); }

model::WatchEntry entry(std::string topic) {
  model::WatchEntry e;
  e.topic = std::move(topic);
  return e;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_P(StoreTest, HistoryAndSeenArePerTopicCaseFoldedAndCountRuns) {
  auto s = open();
  EXPECT_EQ(s->schema_version(), store::Store::latest_schema_version());
  auto empty = s->memory("tokio runtime", {key("https://a.example/1")});
  EXPECT_EQ(empty.history.runs_before, 0);
  EXPECT_FALSE(empty.history.last_run_at);

  s->record({run("Tokio  Runtime", 1000, {finding("https://a.example/1", "one"), finding("https://a.example/2", "two")})});
  s->record({run("other topic", 1500, {finding("https://a.example/3", "three")})});
  s->record({run("tokio runtime", 2000, {finding("https://a.example/1", "one"), finding("https://a.example/4", "four")})});

  const auto keys = std::vector<std::string>{key("https://a.example/1"), key("https://a.example/2"), key("https://a.example/3"),
                                             key("https://a.example/4"), key("https://a.example/5")};
  auto m = s->memory("  TOKIO\truntime ", keys);
  EXPECT_EQ(m.history.runs_before, 2);
  ASSERT_TRUE(m.history.last_run_at);
  EXPECT_EQ(*m.history.last_run_at, 2000) << "last_run_at is the previous run's finish time";
  ASSERT_TRUE(m.seen.count(keys[0]) && m.seen.count(keys[1]) && m.seen.count(keys[3]));
  EXPECT_EQ(m.runs_ago(m.seen.at(keys[0])), 2) << "first seen two runs of this topic ago";
  EXPECT_EQ(m.runs_ago(m.seen.at(keys[1])), 2);
  EXPECT_EQ(m.runs_ago(m.seen.at(keys[3])), 1);
  EXPECT_FALSE(m.seen.count(keys[2])) << "seen only under another topic";
  EXPECT_FALSE(m.seen.count(keys[4]));
}

TEST_P(StoreTest, AnnotateMarksHistoryAndSeenBefore) {
  auto s = open();
  model::Report r;
  r.topic = "rust";
  model::Item a;
  a.id = "hackernews:1";
  a.url = "https://www.example.com/post?utm_source=hn";
  model::Item b;
  b.id = "hackernews:2";
  b.url = "https://example.com/other";
  r.items = {a, b};
  s->annotate(r);
  ASSERT_TRUE(r.history);
  EXPECT_EQ(r.history->runs_before, 0);
  EXPECT_EQ(r.items[0].seen_before, 0);
  s->record_report(r, 100, 200);
  r.items = {b};
  r.items[0].url = "http://example.com/post";  // the same finding, canonically
  s->annotate(r);
  EXPECT_EQ(r.history->runs_before, 1);
  EXPECT_EQ(r.history->last_run_at, 200);
  EXPECT_EQ(r.items[0].seen_before, 1);
}

TEST_P(StoreTest, FindingsAreUniqueByCanonicalUrlWithSightingsAndHighestEngagement) {
  auto s = open();
  s->record({run("t1", 1000, {finding("https://www.example.com/story/?utm_source=x", "Borrow checker story", 40)})});
  s->record({run("t2", 2000, {finding("http://example.com/story", "Borrow checker story, updated", 15)})});
  s->record({run("t2", 3000, {finding("https://example.com/story#comments", "Borrow checker story, updated", 25)})});
  const auto rows = raw("SELECT count(*), max(sightings), max(max_engagement), min(first_seen), max(last_seen) FROM findings");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "1");
  EXPECT_EQ(rows[0][1], "3") << "one sighting per (finding, run)";
  EXPECT_EQ(std::stod(rows[0][2]), 40);
  EXPECT_EQ(rows[0][3], "1000");
  EXPECT_EQ(rows[0][4], "3000");
  auto hits = s->search("borrow checker", 10).results;
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].sightings, 3);
  EXPECT_EQ(hits[0].first_seen, 1000);
  EXPECT_EQ(hits[0].last_seen, 3000);
  EXPECT_EQ(hits[0].topics, (std::vector<std::string>{"t1", "t2"}));
  EXPECT_EQ(hits[0].title, "Borrow checker story, updated");
}

TEST_P(StoreTest, OneRunWithinARunCountsAFindingOnce) {
  auto s = open();
  s->record({run("t", 1000, {finding("https://example.com/a", "A", 5), finding("https://www.example.com/a/", "A again", 9)})});
  const auto rows = raw("SELECT count(*), max(sightings), max(max_engagement) FROM findings");
  EXPECT_EQ(rows[0][0], "1");
  EXPECT_EQ(rows[0][1], "1");
  EXPECT_EQ(std::stod(rows[0][2]), 9);
  EXPECT_EQ(raw("SELECT count(*) FROM sightings")[0][0], "1");
}

TEST_P(StoreTest, ARunOfManyFindingsIsWrittenWholeInBatches) {
  // More findings than one statement carries, with a duplicate: every finding, its own
  // sighting and engagement, whatever order the database returns the ids in.
  auto s = open();
  std::vector<store::FindingInput> many;
  for (int i = 0; i < 601; ++i)
    many.push_back(finding("https://e.com/many/" + std::to_string(i), "Story " + std::to_string(i), i));
  many.push_back(finding("https://e.com/many/7", "Story 7 again", 1000));
  s->record({run("t", 1000, many)});
  s->record({run("t", 2000, {finding("https://e.com/many/600", "Story 600", 3), finding("https://e.com/new", "New", 4)})});
  EXPECT_EQ(raw("SELECT count(*) FROM findings")[0][0], "602");
  EXPECT_EQ(raw("SELECT count(*) FROM sightings")[0][0], "603");
  EXPECT_EQ(raw("SELECT count(*) FROM sightings s JOIN findings f ON f.id = s.finding_id "
                "WHERE f.url <> 'https://e.com/many/7' AND s.run_id = (SELECT min(id) FROM runs) AND "
                "s.engagement <> CAST(substr(f.url, length('https://e.com/many/') + 1) AS INTEGER)")[0][0],
            "0")
      << "each sighting belongs to its own finding";
  EXPECT_EQ(std::stod(raw("SELECT max_engagement FROM findings WHERE url = 'https://e.com/many/7'")[0][0]), 1000);
  EXPECT_EQ(raw("SELECT sightings FROM findings WHERE url = 'https://e.com/many/600'")[0][0], "2");
  EXPECT_EQ(s->search("story", 700).results.size(), 601u);
}

TEST_P(StoreTest, LibrarySearchQuotesTheUsersWords) {
  auto s = open();
  s->record({run("langs", 1000,
                 {finding("https://e.com/1", "C++ coroutines in practice", 50),
                  finding("https://e.com/2", "AND gates explained for programmers", 20),
                  finding("https://e.com/3", "Rust async runtimes compared", 30, "tokio and smol")})});
  for (const std::string q :
       {"\"",         "c++ \"", "AND", "OR", "NOT", "NEAR(rust async)", "title:rust", "rust*", "-rust", "(", ")", "^rust",
        "{title}: x", "'",      "\\",  "%",  "_",   "rust' OR 1=1 --",  "\xff\xfe",   "",      "   "}) {
    SCOPED_TRACE(q);
    EXPECT_NO_THROW(s->search(q, 10));
  }
  auto cpp = s->search("c++", 10).results;
  ASSERT_FALSE(cpp.empty());
  EXPECT_EQ(cpp[0].url, "https://e.com/1");
  auto gates = s->search("AND gates", 10).results;
  ASSERT_FALSE(gates.empty());
  EXPECT_EQ(gates[0].url, "https://e.com/2") << "AND is a word here, not an operator";
  EXPECT_TRUE(s->search("\"", 10).results.empty());
  auto near = s->search("NEAR(rust async)", 10).results;
  ASSERT_EQ(near.size(), 0u) << "'near' is a word the findings do not have";
  auto col = s->search("title:rust", 10).results;
  ASSERT_EQ(col.size(), 0u) << "'title' is a word, not a column filter";
  EXPECT_EQ(s->search("rust async", 10).results.size(), 1u);
}

TEST_P(StoreTest, LibraryRanksTitleMatchesFirstAndHonoursTheLimit) {
  auto s = open();
  std::vector<store::FindingInput> fs_;
  for (int i = 0; i < 30; ++i)
    fs_.push_back(finding("https://e.com/snip/" + std::to_string(i), "Unrelated headline " + std::to_string(i), 1,
                          "a long snippet that mentions scheduler once among many other words about nothing"));
  fs_.push_back(finding("https://e.com/title", "The scheduler rewrite", 1, "short"));
  s->record({run("t", 1000, fs_)});
  auto hits = s->search("scheduler", 5).results;
  ASSERT_EQ(hits.size(), 5u);
  EXPECT_EQ(hits[0].url, "https://e.com/title");
  for (std::size_t i = 1; i < hits.size(); ++i) EXPECT_LE(hits[i].score, hits[i - 1].score);
}

TEST_P(StoreTest, SavedBriefsAreIndexedIncrementally) {
  auto s = open();
  const fs::path dir = tmp_.path() + "/memory";
  fs::create_directories(dir);
  const auto brief = dir / "zig-comptime-raw.md";
  std::ofstream(brief) << "# last30days: zig comptime\n\nWindow ...\n\n- [Zig comptime tricks](https://z.example) — flamingo\n";
  std::ofstream(dir / "notes.txt") << "flamingo but not a brief\n";
  ::mkfifo((dir / "fifo-raw.md").c_str(), 0600);  // never opened
  auto st = s->sync_briefs(dir, 100);
  EXPECT_EQ(st.scanned, 1);
  EXPECT_EQ(st.indexed, 1);
  auto hits = s->search("flamingo", 10).results;
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].source, "brief");
  EXPECT_EQ(hits[0].url, "file://" + brief.string());
  EXPECT_EQ(hits[0].topics, std::vector<std::string>{"zig comptime"});

  // Unchanged mtime and size: not read again (a same-size rewrite with the old mtime
  // restored goes unnoticed, which is the point of the cheap check).
  struct stat before {};
  ::stat(brief.c_str(), &before);
  std::ofstream(brief) << "# last30days: zig comptime\n\nWindow ...\n\n- [Zig comptime tricks](https://z.example) — pelicans\n";
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ::utimensat(AT_FDCWD, brief.c_str(), times, 0);
  st = s->sync_briefs(dir, 200);
  EXPECT_EQ(st.indexed, 0);
  EXPECT_EQ(s->search("pelicans", 10).results.size(), 0u);

  // Touched: re-hashed; changed content is re-indexed.
  ::utimensat(AT_FDCWD, brief.c_str(), nullptr, 0);
  st = s->sync_briefs(dir, 300);
  EXPECT_EQ(st.indexed, 1);
  EXPECT_EQ(s->search("pelicans", 10).results.size(), 1u);
  EXPECT_EQ(s->search("flamingo", 10).results.size(), 0u);
  // Touched again without a change: the hash says so, nothing is re-indexed.
  std::this_thread::sleep_for(10ms);
  ::utimensat(AT_FDCWD, brief.c_str(), nullptr, 0);
  EXPECT_EQ(s->sync_briefs(dir, 400).indexed, 0);

  fs::remove(brief);
  st = s->sync_briefs(dir, 500);
  EXPECT_EQ(st.removed, 1);
  EXPECT_EQ(s->search("pelicans", 10).results.size(), 0u);
}

TEST_P(StoreTest, AnOlderStoreIsUpgradedAndANewerOneRefused) {
  {
    auto v1 = open(1);
    EXPECT_EQ(v1->schema_version(), 1);
    v1->record({run("kept", 1000, {finding("https://e.com/kept", "Kept across upgrades")})});
  }
  {
    auto now = open();
    EXPECT_EQ(now->schema_version(), store::Store::latest_schema_version());
    EXPECT_EQ(now->memory("kept", {}).history.runs_before, 1);
    EXPECT_EQ(now->search("upgrades", 10).results.size(), 1u);
    now->sync_briefs(tmp_.path(), 1);  // the table the upgrade added
  }
  raw("INSERT INTO schema_migrations(version, applied_at) VALUES (99, 0)");
  try {
    open();
    FAIL() << "a newer store must be refused";
  } catch (const store::Error& e) {
    EXPECT_NE(std::string(e.what()).find("newer last30days (schema version 99"), std::string::npos) << e.what();
  }
}

TEST_P(StoreTest, WatchlistAddUpdateListRemove) {
  auto s = open();
  model::WatchEntry e;
  e.topic = "Tokio Runtime";
  e.days = 7;
  e.every_hours = 12;
  e.sources = {"hackernews", "reddit"};
  EXPECT_TRUE(s->watch_add(e, 1000));
  auto list = s->watch_list();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].topic, "Tokio Runtime");
  EXPECT_EQ(list[0].days, 7);
  EXPECT_EQ(list[0].every_hours, 12);
  EXPECT_EQ(list[0].sources, e.sources);
  EXPECT_FALSE(list[0].last_run_at);
  EXPECT_EQ(list[0].next_due_at, 1000) << "a new watch is due at once";
  e.topic = "tokio   runtime";
  e.days = 30;
  e.sources = {};
  EXPECT_FALSE(s->watch_add(e, 2000)) << "adding an existing topic updates it";
  list = s->watch_list();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].days, 30);
  EXPECT_TRUE(list[0].sources.empty());
  // A plain stored research of the watched topic counts as a run of it.
  s->record({run("TOKIO RUNTIME", 5000, {})});
  list = s->watch_list();
  EXPECT_EQ(list[0].last_run_at, 5000);
  EXPECT_EQ(list[0].next_due_at, 5000 + 12 * 3600);
  EXPECT_FALSE(s->watch_remove("never watched"));
  EXPECT_TRUE(s->watch_remove("Tokio runtime"));
  EXPECT_TRUE(s->watch_list().empty());
}

TEST_P(StoreTest, EachDueTopicIsClaimedOnceAndADeadClaimIsReclaimed) {
  auto a = open();
  auto b = open();
  model::WatchEntry e;
  e.topic = "alpha";
  a->watch_add(e, 1000);
  e.topic = "beta";
  a->watch_add(e, 1000);
  const long lease = 90;
  auto first = a->watch_claim("A", 1000, lease, false, 1000);
  auto second = b->watch_claim("B", 1000, lease, false, 1000);
  ASSERT_TRUE(first && second);
  EXPECT_NE(first->topic, second->topic);
  EXPECT_FALSE(b->watch_claim("B", 1001, lease, false, 1000)) << "both due topics are claimed";
  // A finishes: its run and the watch bookkeeping commit together.
  const store::WatchCommit ca{"A", {}, ""};
  a->record({run(first->topic, 1100, {finding("https://e.com/x", "x")})}, &ca);
  // B dies; after the lease its topic is due for someone else.
  EXPECT_FALSE(a->watch_claim("A2", 1000 + lease - 1, lease, false, 1000));
  auto taken = a->watch_claim("A2", 1000 + lease + 1, lease, false, 1000);
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->topic, second->topic);
  // B comes back to record: the claim is no longer its own, nothing is written.
  const auto runs_before = raw("SELECT count(*) FROM runs")[0][0];
  const store::WatchCommit cb{"B", {}, ""};
  EXPECT_THROW(b->record({run(second->topic, 1200, {finding("https://e.com/y", "y")})}, &cb), store::LeaseLost);
  EXPECT_EQ(raw("SELECT count(*) FROM runs")[0][0], runs_before);
  EXPECT_EQ(raw("SELECT count(*) FROM findings WHERE url = 'https://e.com/y'")[0][0], "0");
  const store::WatchCommit ca2{"A2", {}, ""};
  a->record({run(taken->topic, 1150, {finding("https://e.com/y", "y")})}, &ca2);
  // The finished topic is not due again until every_hours later; --all takes it.
  EXPECT_FALSE(a->watch_claim("C", 1200, lease, false, 1200));
  auto all = a->watch_claim("C", 1200, lease, true, 1200);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->topic, first->topic);
  a->watch_release("C", all->topic);
}

TEST_P(StoreTest, SecretsNeverEnterTheStore) {
  const std::string secret = "ghp_s3cretTokenValue42";
  core::redact::add_secret(secret);
  {
    auto s = open();
    s->record({run("leaky " + secret, 1000, {finding("https://e.com/?token=" + secret, "title with " + secret, 1, secret)})});
    auto hits = s->search("title", 10).results;
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].title.find(secret), std::string::npos);
  }
  if (GetParam() == Kind::sqlite) {
    for (const auto& f : fs::directory_iterator(fs::path(where_.target).parent_path())) {
      const std::string bytes = slurp(f.path());
      EXPECT_EQ(bytes.find(secret), std::string::npos) << f.path();
    }
  } else {
    for (const auto& [table, col] : std::vector<std::pair<std::string, std::string>>{
             {"findings", "url || title || snippet"}, {"topics", "display || key"}, {"runs", "source_status"}})
      EXPECT_EQ(raw("SELECT count(*) FROM " + table + " WHERE strpos(" + col + ", '" + secret + "') > 0")[0][0], "0") << table;
  }
}

TEST_P(StoreTest, ConcurrentWritersAllCommit) {
  { open(); }
  constexpr int kThreads = 4, kRuns = 15;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        auto s = open();
        for (int i = 0; i < kRuns; ++i) {
          std::vector<store::FindingInput> f;
          // Overlapping findings in different orders: a writer that did not sort would deadlock.
          for (int k = 0; k < 20; ++k) {
            const int n = (t % 2 == 0) ? k : 19 - k;
            f.push_back(finding("https://e.com/shared/" + std::to_string(n), "shared " + std::to_string(n), t * 100 + i));
          }
          s->record({run("topic " + std::to_string(t), 1000 + i, f)});
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
        ++failures;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(raw("SELECT count(*) FROM runs")[0][0], std::to_string(kThreads * kRuns));
  EXPECT_EQ(raw("SELECT max(sightings) FROM findings")[0][0], std::to_string(kThreads * kRuns));
}

// Issue 22 item 15: a research topic named like a discovery run has its own history.
TEST_P(StoreTest, DiscoveryRunsLiveInTheirOwnTopicNamespace) {
  auto s = open();
  auto disc = run("discover: global", 1000, {finding("https://d.example/1", "trending")});
  disc.kind = "discovery";
  s->record({disc});
  const auto mem = s->memory("Discover: Global", {key("https://d.example/1")});
  EXPECT_EQ(mem.history.runs_before, 0) << "the research topic does not see the discovery run";
  EXPECT_TRUE(mem.seen.empty());
  s->record({run("Discover: Global", 2000, {finding("https://d.example/2", "a research find")})});
  const auto topics = s->topics();
  ASSERT_EQ(topics.size(), 2u);
  int research = 0, discovery = 0;
  for (const auto& t : topics) (t.kind == "discovery" ? discovery : research) += t.runs;
  EXPECT_EQ(research, 1);
  EXPECT_EQ(discovery, 1);
  auto disc2 = run("discover: global", 3000, {finding("https://d.example/1", "trending")});
  disc2.kind = "discovery";
  s->record({disc2});
  EXPECT_EQ(s->memory("discover: global", {}).history.runs_before, 1) << "the research topic's own run, not the discoveries";
}

// Issue 22 item 10: on a shared store two machines with the same memory-dir path keep
// each other's saved briefs.
TEST_P(StoreTest, SavedBriefsAreKeptPerMachine) {
  auto s = open();
  const fs::path dir = tmp_.path() + "/memory";
  fs::create_directories(dir);
  std::ofstream(dir / "a-raw.md") << "# last30days: a\n\n- [Alpha](https://a.example) — albatross\n";
  EXPECT_EQ(s->sync_briefs(dir, 100, "machine-one").indexed, 1);
  fs::remove(dir / "a-raw.md");
  std::ofstream(dir / "b-raw.md") << "# last30days: b\n\n- [Beta](https://b.example) — buzzard\n";
  const auto st = s->sync_briefs(dir, 200, "machine-two");
  EXPECT_EQ(st.indexed, 1);
  EXPECT_EQ(st.removed, 0) << "machine two does not remove machine one's brief";
  EXPECT_EQ(s->search("albatross", 10).results.size(), 1u);
  EXPECT_EQ(s->search("buzzard", 10).results.size(), 1u);
  fs::remove(dir / "b-raw.md");  // back on machine one, whose dir holds neither brief now
  EXPECT_EQ(s->sync_briefs(dir, 300, "machine-one").removed, 1) << "machine one's own removal still counts";
  EXPECT_EQ(s->search("albatross", 10).results.size(), 0u);
  EXPECT_EQ(s->search("buzzard", 10).results.size(), 1u);
}

TEST_P(StoreTest, ForgetRemovesATopicItsRunsAndTheFindingsOnlyItHolds) {
  auto s = open();
  s->record({run("alpha", 1000,
                 {finding("https://f.example/shared", "shared pelican"), finding("https://f.example/only-a", "only pelican")})});
  s->record({run("beta", 1100, {finding("https://f.example/shared", "shared pelican")})});
  s->watch_add(entry("alpha"), 1200);
  EXPECT_FALSE(s->forget("gamma"));
  EXPECT_TRUE(s->forget("ALPHA"));
  const auto hits = s->search("pelican", 10).results;
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].url, "https://f.example/shared");
  EXPECT_EQ(hits[0].sightings, 1);
  EXPECT_EQ(hits[0].topics, std::vector<std::string>{"beta"});
  EXPECT_TRUE(s->watch_list().empty());
  ASSERT_EQ(s->topics().size(), 1u);
  EXPECT_EQ(s->topics()[0].topic, "beta");
  EXPECT_EQ(raw("SELECT count(*) FROM runs")[0][0], "1");
}

TEST_P(StoreTest, PendingDigestsWaitPerChannelUntilDelivered) {
  auto s = open();
  s->watch_add(entry("alpha"), 1000);
  auto claimed = s->watch_claim("me", 1000, 60, false, 1000);
  ASSERT_TRUE(claimed);
  const store::WatchCommit commit{"me", {"slack", "email"}, R"({"topic":"alpha","new":[]})"};
  s->record({run("alpha", 1010, {finding("https://p.example/1", "one")})}, &commit);
  ASSERT_EQ(s->notify_pending("slack").size(), 1u);
  ASSERT_EQ(s->notify_pending("email").size(), 1u);
  EXPECT_TRUE(s->notify_pending("webhook").empty());
  s->notify_done("slack", {s->notify_pending("slack")[0].id}, 1020, true, "delivered (HTTP 200)");
  s->notify_done("email", {}, 1020, false, "SMTP 451");
  EXPECT_TRUE(s->notify_pending("slack").empty());
  EXPECT_EQ(s->notify_pending("email").size(), 1u);
  const auto log = s->notify_log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].channel, "email");
  EXPECT_FALSE(log[0].ok);
  EXPECT_EQ(log[0].pending, 1);
  EXPECT_TRUE(log[1].ok);
}

TEST_P(StoreTest, BudgetCountersAddUpPerSourceAndDay) {
  auto s = open();
  EXPECT_EQ(s->budget_spent("youtube", "2026-12-01"), 0);
  s->budget_add("youtube", "2026-12-01", 3);
  s->budget_add("youtube", "2026-12-01", 4);
  s->budget_add("youtube", "2026-12-02", 1);
  s->budget_add("github", "2026-12-01", 2);
  EXPECT_EQ(s->budget_spent("youtube", "2026-12-01"), 7);
  EXPECT_EQ(s->budget_day("2026-12-01"), (std::map<std::string, long>{{"github", 2}, {"youtube", 7}}));
}

// Issue 19 item 4: budgets kept in the store (`watch budget`), on a store upgraded from v3
// (the last schema without them); they outlive the connection that set them.
TEST_P(StoreTest, BudgetLimitsAreKeptSetAgainAndTurnedOff) {
  {
    auto v3 = open(3);
    v3->budget_add("youtube", "2026-12-01", 5);
  }
  {
    auto s = open();
    EXPECT_TRUE(s->budget_limits().empty());
    EXPECT_FALSE(s->budget_set("youtube", 20, 1000)) << "no budget before";
    EXPECT_FALSE(s->budget_set("github", 0, 1000));
    EXPECT_TRUE(s->budget_set("youtube", 30, 1001)) << "set again: replaced";
  }
  auto s = open();
  EXPECT_EQ(s->budget_limits(), (std::map<std::string, long>{{"github", 0}, {"youtube", 30}}));
  EXPECT_TRUE(s->budget_set("youtube", std::nullopt, 1002));
  EXPECT_FALSE(s->budget_set("youtube", std::nullopt, 1003)) << "off twice: nothing left to remove";
  EXPECT_EQ(s->budget_limits(), (std::map<std::string, long>{{"github", 0}}));
  EXPECT_EQ(s->budget_spent("youtube", "2026-12-01"), 5) << "the spend is not the budget";
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, ::testing::Values(Kind::sqlite, Kind::postgres),
                         [](const auto& p) { return p.param == Kind::sqlite ? "SQLite" : "PostgreSQL"; });

TEST(StoreSqlite, AWordInMostFindingsRanksTheNewestThousand) {
  // The documented bound: when more than 1000 findings match, the 1000 most recently
  // stored are ranked (BM25 as ever); with fewer, every match is (the tests above).
  TempDir tmp;
  auto s = store::Store::open({store::Location::Kind::sqlite, tmp.path() + "/r.db", "test"}, persist::testing::writer(),
                              core::Deadline::in(30s));
  auto run_of = [](core::UnixSeconds at, std::vector<store::FindingInput> findings) {
    store::RunInput in;
    in.topic = "t";
    in.window = model::Window::ending(at, 30);
    in.started_at = at - 5;
    in.finished_at = at;
    in.findings = std::move(findings);
    return in;
  };
  // Stored first, the best match of all: the word alone in a short title.
  s->record({run_of(1000, {{"https://e.com/best", "Scheduler", "hackernews", "", 1, std::nullopt}})});
  std::vector<store::FindingInput> later;
  for (int i = 0; i < 1000; ++i)
    later.push_back({"https://e.com/" + std::to_string(10000 + i), "Unrelated headline " + std::to_string(i), "hackernews",
                     "a long snippet that mentions scheduler once among many other words", 1, std::nullopt});
  later.push_back({"https://e.com/zzzz", "The scheduler rewrite", "hackernews", "", 1, std::nullopt});
  s->record({run_of(2000, later)});
  const auto hits = s->search("scheduler", 3).results;
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].url, "https://e.com/zzzz") << "the best of the newest 1000 matches";
  for (const auto& h : hits) EXPECT_NE(h.url, "https://e.com/best") << "the oldest match is past the bound";
  // A word with few matches is ranked over all of them, the oldest included.
  const auto few = s->search("scheduler rewrite", 3).results;
  ASSERT_EQ(few.size(), 1u);
}

TEST(StoreSqlite, LibraryScoresAreFts5sOwnBm25BelowTheWeightSample) {
  // The store ranks with its own copy of bm25() whose word weights it counts itself (in the
  // newest 10,000 findings). In a smaller store that is all of it: the scores and their
  // order must be exactly what FTS5's bm25() with the schema's weights gives.
  TempDir tmp;
  const std::string path = tmp.path() + "/r.db";
  auto s = store::Store::open({store::Location::Kind::sqlite, path, "test"}, persist::testing::writer(), core::Deadline::in(30s));
  store::RunInput in;
  in.topic = "t";
  in.window = model::Window::ending(5000, 30);
  in.started_at = 4990;
  in.finished_at = 5000;
  const char* titles[] = {"Tokio scheduler rewrite", "Scheduler notes", "A rewrite of the async runtime",
                          "Runtime scheduler and rewrite plans for tokio", "Unrelated"};
  for (int i = 0; i < 40; ++i)
    in.findings.push_back({"https://e.com/" + std::to_string(i), std::string(titles[i % 5]) + " " + std::to_string(i),
                           "hackernews", i % 3 ? "the scheduler rewrite in a longer snippet with other words" : "short", 1,
                           std::nullopt});
  s->record({in});
  for (const std::string q : {"scheduler", "scheduler rewrite", "tokio runtime rewrite", "e.com"}) {
    const auto hits = s->search(q, 8).results;
    std::string match;
    for (const auto& w : core::tokenize(q)) match += (match.empty() ? "\"" : " \"") + w + "\"";
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db,
                                 "SELECT f.url, -bm25(findings_fts, 10.0, 3.0, 1.0) AS s FROM findings_fts JOIN findings f "
                                 "ON f.id = findings_fts.rowid WHERE findings_fts MATCH ? ORDER BY s DESC LIMIT 8",
                                 -1, &st, nullptr),
              SQLITE_OK);
    sqlite3_bind_text(st, 1, match.c_str(), -1, SQLITE_TRANSIENT);
    std::vector<std::pair<std::string, double>> want;
    while (sqlite3_step(st) == SQLITE_ROW)
      want.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), sqlite3_column_double(st, 1));
    sqlite3_finalize(st);
    sqlite3_close(db);
    ASSERT_EQ(hits.size(), want.size()) << q;
    ASSERT_FALSE(hits.empty()) << q;
    for (std::size_t i = 0; i < hits.size(); ++i) {
      EXPECT_NEAR(hits[i].score, want[i].second, 1e-9 * std::abs(want[i].second)) << q << " #" << i;
      if (i + 1 < want.size() && want[i].second != want[i + 1].second) {
        EXPECT_EQ(hits[i].url, want[i].first) << q << " #" << i;
      }
    }
  }
}

TEST(StoreSqlite, RefusesAFileThatIsNotAStore) {
  TempDir tmp;
  const std::string path = tmp.path() + "/other.db";
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE invoices(id INTEGER)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  const store::Location where{store::Location::Kind::sqlite, path, path};
  EXPECT_THROW(store::Store::open(where, persist::testing::writer(), core::Deadline::in(5s)), store::Error);

  const std::string junk = tmp.path() + "/junk.db";
  std::ofstream(junk) << std::string(8192, 'x');
  try {
    store::Store::open({store::Location::Kind::sqlite, junk, junk}, persist::testing::writer(), core::Deadline::in(5s));
    FAIL() << "a corrupt file must be refused";
  } catch (const store::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a SQLite database"), std::string::npos) << e.what();
  }
}

TEST(StoreSqlite, ABusyStoreIsWaitedOnUntilTheDeadlineOnly) {
  TempDir tmp;
  const store::Location where{store::Location::Kind::sqlite, tmp.path() + "/s.db", "s"};
  { store::Store::open(where, persist::testing::writer(), core::Deadline::in(5s)); }
  sqlite3* holder = nullptr;
  sqlite3_open(where.target.c_str(), &holder);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto s = store::Store::open(where, persist::testing::writer(), core::Deadline::in(5s));
  s->set_deadline(core::Deadline::in(400ms));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(s->record({}), store::Error);
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, 350ms);
  EXPECT_LT(waited, 2000ms);
  // Released in time: the waiting writer gets through.
  std::thread release([&] {
    std::this_thread::sleep_for(200ms);
    sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
  });
  s->set_deadline(core::Deadline::in(5s));
  store::RunInput in;
  in.topic = "after the wait";
  EXPECT_NO_THROW(s->record({in}));
  release.join();
  sqlite3_close(holder);
}

TEST(StoreLocation, ResolvesUrlPathAndDefaultAndHidesThePassword) {
  std::string error;
  core::Config pg({{"LAST30DAYS_STORE_URL", "postgresql://alice:hunter2secret@db.example:5433/research"},
                   {"LAST30DAYS_STORE_PATH", "/tmp/ignored.db"}},
                  {});
  auto loc = store::locate(pg, &error);
  ASSERT_TRUE(loc) << error;
  EXPECT_EQ(loc->kind, store::Location::Kind::postgres);
  EXPECT_EQ(loc->display.find("hunter2secret"), std::string::npos);
  EXPECT_NE(loc->display.find("alice"), std::string::npos);
  EXPECT_EQ(core::redact::scrub("x hunter2secret y").find("hunter2secret"), std::string::npos) << "registered as a secret";
  core::Config short_scheme({{"LAST30DAYS_STORE_URL", "postgres:///research?host=/run/pg"}}, {});
  EXPECT_TRUE(store::locate(short_scheme, &error));
  core::Config mysql({{"LAST30DAYS_STORE_URL", "mysql://u:p@h/db"}}, {});
  EXPECT_FALSE(store::locate(mysql, &error));
  core::Config bad({{"LAST30DAYS_STORE_URL", "postgresql://u:pw@h/db?nonsense_option=1"}}, {});
  EXPECT_FALSE(store::locate(bad, &error));
  EXPECT_EQ(error.find("pw"), std::string::npos);
  core::Config path({{"LAST30DAYS_STORE_PATH", "/tmp/x/research.db"}}, {});
  EXPECT_EQ(store::locate(path, &error)->target, "/tmp/x/research.db");
  core::Config xdg({{"XDG_DATA_HOME", "/data"}, {"HOME", "/home/u"}}, {});
  EXPECT_EQ(store::locate(xdg, &error)->target, "/data/last30days/research.db");
  core::Config home({{"HOME", "/home/u"}}, {});
  EXPECT_EQ(store::locate(home, &error)->target, "/home/u/.local/share/last30days/research.db");
}

TEST(StoreTopics, KeyIsCaseFoldedWithWhitespaceCollapsed) {
  EXPECT_EQ(store::topic_key("  Tokio\t\nRUNTIME  "), "tokio runtime");
  EXPECT_EQ(store::topic_key("Straße"), store::topic_key("STRASSE"));
}
