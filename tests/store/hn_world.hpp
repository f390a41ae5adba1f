#pragma once
// A Hacker News world for the memory commands through the real binary (the store and
// notification tests): stories relative to now on a fake Algolia, a private HOME, and
// the store's raw values.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "fake_upstream.hpp"
#include "scenario.hpp"
#include "spawn.hpp"

namespace testing_support {

using namespace std::chrono_literals;

struct Story {
  std::string id, title, url;
  int points = 10;
  int age_hours = 5;
};

// Hacker News (the real Algolia format) with stories relative to now; the only source
// these tests ask (--search hn). Mutable between runs; can answer slowly.
class HnWorld {
 public:
  HnWorld() : fake_([this](const FakeRequest& r) { return answer(r); }) {
    std::filesystem::create_directories(home_.path() + "/config");
    std::filesystem::permissions(
        home_.path(), std::filesystem::perms::all & ~std::filesystem::perms::others_write & ~std::filesystem::perms::group_write);
  }
  void set(std::vector<Story> stories) {
    std::lock_guard lock(mu_);
    stories_ = std::move(stories);
  }
  void set_delay(std::chrono::milliseconds d) {
    std::lock_guard lock(mu_);
    delay_ = d;
  }
  void set_title_suffix(std::string s) {
    std::lock_guard lock(mu_);
    suffix_ = std::move(s);
  }
  std::map<std::string, std::string> env() const {
    return {{"LAST30DAYS_HOST_MAP", fake_.host_map({{"hn.algolia.com", "/hn"}})},
            {"HOME", home_.path()},
            {"XDG_CONFIG_HOME", home_.path() + "/config"},
            {"XDG_DATA_HOME", home_.path() + "/data"},
            {"LAST30DAYS_MEMORY_DIR", home_.path() + "/memory"},
            {"LAST30DAYS_STORE_PATH", ""},
            {"LAST30DAYS_STORE_URL", ""},
            {"GITHUB_TOKEN", ""},
            {"REDDIT_CLIENT_ID", ""},
            {"REDDIT_CLIENT_SECRET", ""},
            {"STACKEXCHANGE_KEY", ""}};
  }
  ProcessResult run(std::vector<std::string> args, std::map<std::string, std::string> extra = {},
                    std::chrono::milliseconds watchdog = 60000ms) const {
    auto e = env();
    for (auto& [k, v] : extra) e[k] = v;
    return run_last30days(args, e, watchdog);
  }
  std::string default_db() const { return home_.path() + "/data/last30days/research.db"; }
  const TempDir& home() const { return home_; }
  FakeUpstream& fake() { return fake_; }

 private:
  FakeReply answer(const FakeRequest& r) const {
    std::lock_guard lock(mu_);
    if (r.path.rfind("/hn/api/v1/search", 0) != 0) return FakeReply::json("{}", 404);
    const auto now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    nlohmann::json hits = nlohmann::json::array();
    for (const auto& s : stories_)
      hits.push_back({{"objectID", s.id},
                      {"title", s.title + suffix_},
                      {"url", s.url},
                      {"author", "someone"},
                      {"points", s.points},
                      {"num_comments", 0},
                      {"created_at_i", now - s.age_hours * 3600},
                      {"_tags", {"story"}}});
    FakeReply reply = FakeReply::json(nlohmann::json{{"hits", hits}, {"nbHits", hits.size()}, {"page", 0}}.dump());
    reply.delay = delay_;
    return reply;
  }

  TempDir home_;
  mutable std::mutex mu_;
  std::vector<Story> stories_;
  std::chrono::milliseconds delay_{0};
  std::string suffix_;
  FakeUpstream fake_;
};

inline nlohmann::json parse(const ProcessResult& r) {
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "stdout must be exactly one JSON document:\n" << r.out << "\nstderr:\n" << r.err;
  return j;
}

inline std::vector<std::string> titles(const nlohmann::json& items) {
  std::vector<std::string> out;
  for (const auto& it : items) out.push_back(it["title"]);
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string sqlite_value(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  std::string out = "<error>";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    const auto* t = sqlite3_column_text(st, 0);
    out = t ? reinterpret_cast<const char*>(t) : "";
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace testing_support
