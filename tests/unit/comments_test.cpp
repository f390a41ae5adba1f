// The comments stage: which threads are read, within which time, and quote excerpts.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/text.hpp"
#include "pipeline/comments.hpp"
#include "sources/source.hpp"

using namespace std::chrono_literals;

TEST(Excerpt, CutsAtASentenceOrAWord) {
  EXPECT_EQ(core::excerpt("  Short   and sweet. ", 40), "Short and sweet.");
  EXPECT_EQ(core::excerpt("First sentence is here. Second one is longer and does not fit in.", 40), "First sentence is here.");
  EXPECT_EQ(core::excerpt("Why? Because the rest of this sentence runs on well past the room we have", 40),
            "Why? Because the rest of this…")
      << "a sentence end too early (under 40%) is not worth it";
  EXPECT_EQ(core::excerpt("Version 2.0 is out and it changes everything about scheduling", 30), "Version 2.0 is out and it…")
      << "'2.0' is not a sentence end";
  const std::string cjk = "東京東京東京東京東京東京東京東京東京東京東京東京東京東京";  // no spaces at all
  const std::string cut = core::excerpt(cjk, 20);
  EXPECT_LE(cut.size(), 20u);
  EXPECT_EQ(core::sanitize_utf8(cut), cut) << "never splits a UTF-8 sequence";
}

namespace {

model::Item item(std::string id, double comments) {
  model::Item it;
  it.id = std::move(id);
  it.source = it.id.substr(0, it.id.find(':'));
  it.engagement = {{it.source == "lobsters" ? "comment_count" : "num_comments", comments}};
  return it;
}

model::Sighting sighting(std::string id, double comments) {
  model::Sighting s;
  s.id = std::move(id);
  s.source = s.id.substr(0, s.id.find(':'));
  s.engagement = {{"num_comments", comments}};
  return s;
}

model::Report report(std::vector<std::vector<model::Item>> stories) {
  model::Report r;
  for (auto& story : stories) {
    model::Cluster c;
    c.id = "c" + std::to_string(r.clusters.size() + 1);
    for (auto& it : story) {
      c.items.push_back(it.id);
      r.items.push_back(std::move(it));
    }
    r.clusters.push_back(std::move(c));
  }
  return r;
}

using Pick = std::pair<std::string, int>;  // thread id, sighting index

std::vector<Pick> picks(const model::Report& r, std::size_t max = pipeline::kCommentThreads) {
  std::vector<Pick> out;
  for (const auto& p : pipeline::pick_threads(r, {"hackernews", "reddit", "lobsters"}, max)) {
    const auto& it = r.items[p.item];
    out.emplace_back(p.sighting < 0 ? it.id : it.also_seen[static_cast<std::size_t>(p.sighting)].id, p.sighting);
  }
  return out;
}

}  // namespace

TEST(PickThreads, TheLiveliestThreadOfEachStoryFirstThenTheRest) {
  auto top = item("reddit:a1", 300);
  top.also_seen = {sighting("hackernews:1", 900), sighting("lobsters:x1", 20)};
  auto r = report({{top, item("github:repo:5", 0)}, {item("hackernews:2", 50), item("reddit:b2", 0)}, {item("lobsters:y2", 4)}});
  EXPECT_EQ(picks(r), (std::vector<Pick>{
                          {"hackernews:1", 0}, {"hackernews:2", -1}, {"lobsters:y2", -1}, {"reddit:a1", -1}, {"lobsters:x1", 1}}))
      << "GitHub has no comments capability; reddit:b2 counted zero comments";
  EXPECT_EQ(picks(r, 2), (std::vector<Pick>{{"hackernews:1", 0}, {"hackernews:2", -1}}));
}

TEST(PickThreads, AtMostEightAndOnlyShownItems) {
  std::vector<std::vector<model::Item>> stories;
  for (int s = 0; s < 12; ++s) stories.push_back({item("hackernews:" + std::to_string(s), 10)});
  stories[0] = {item("hackernews:100", 1), item("hackernews:101", 1), item("hackernews:102", 1), item("hackernews:103", 1)};
  auto r = report(stories);
  const auto p = picks(r);
  ASSERT_EQ(p.size(), 8u);
  for (const auto& [id, s] : p) EXPECT_NE(id, "hackernews:103") << "the fourth item of a story is not shown, so not read";
}

namespace {

// Answers every request after a delay (or never, until the request's deadline), counting
// how many are in flight at once.
class SlowFetcher final : public sources::Fetcher {
 public:
  explicit SlowFetcher(std::optional<std::chrono::milliseconds> delay) : delay_(delay) {}
  http::Response get(const http::Request& req) override {
    const int now = ++in_flight_;
    for (int seen = peak_.load(); now > seen && !peak_.compare_exchange_weak(seen, now);) {}
    std::unique_lock lock(mu_);
    const auto until = delay_ ? std::min(core::Clock::now() + *delay_, req.deadline.when()) : req.deadline.when();
    cv_.wait_until(lock, until, [] { return false; });
    --in_flight_;
    http::Response r;
    if (!delay_ || core::Clock::now() >= req.deadline.when()) {
      r.error = http::NetError::timeout;
      r.error_detail = "deadline";
      return r;
    }
    r.status = 200;
    r.content_type = "application/json";
    r.body = R"({"id":1,"children":[{"id":2,"type":"comment","author":"a","text":"<p>said</p>","children":[]}]})";
    return r;
  }
  int peak() const { return peak_; }

 private:
  std::optional<std::chrono::milliseconds> delay_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<int> in_flight_{0}, peak_{0};
};

model::Report hn_report(int n) {
  std::vector<std::vector<model::Item>> stories;
  for (int s = 1; s <= n; ++s) stories.push_back({item("hackernews:" + std::to_string(s), 10)});
  auto r = report(stories);
  r.source_status["hackernews"].state = model::SourceState::ok;
  return r;
}

}  // namespace

TEST(AttachComments, ThreadsAreReadConcurrentlyButBounded) {
  SlowFetcher fetcher(200ms);
  core::Config cfg;
  auto r = hn_report(8);
  const pipeline::ResearchEnv env{cfg, fetcher, core::Deadline::in(10s), {}};
  const auto t0 = core::Clock::now();
  pipeline::attach_comments(r, {sources::find("hackernews")}, env);
  const auto took = core::Clock::now() - t0;
  EXPECT_LT(took, 700ms) << "8 threads, 4 at a time, 200 ms each: two rounds, not eight";
  EXPECT_LE(fetcher.peak(), 4) << "a source reads at most 4 threads at once";
  EXPECT_GE(fetcher.peak(), 2);
  for (const auto& it : r.items) ASSERT_EQ(it.comments.size(), 1u) << it.id;
  EXPECT_EQ(r.source_status["hackernews"].comment_threads, 8);
  EXPECT_EQ(r.source_status["hackernews"].comment_failures, 0);
}

TEST(AttachComments, HungThreadsEndAtTheRunDeadlineAndDegradeNothing) {
  SlowFetcher fetcher(std::nullopt);  // never answers
  core::Config cfg;
  auto r = hn_report(3);
  const pipeline::ResearchEnv env{cfg, fetcher, core::Deadline::in(400ms), {}};
  const auto t0 = core::Clock::now();
  pipeline::attach_comments(r, {sources::find("hackernews")}, env);
  const auto took = core::Clock::now() - t0;
  EXPECT_GE(took, 350ms);
  EXPECT_LT(took, 900ms) << "bounded by the run's deadline";
  const auto& st = r.source_status["hackernews"];
  EXPECT_EQ(st.state, model::SourceState::ok) << "a thread's failure never changes the source's state";
  EXPECT_EQ(st.comment_failures, 3);
  EXPECT_NE(st.comments_reason.find("timeout"), std::string::npos) << st.comments_reason;
  for (const auto& it : r.items) EXPECT_TRUE(it.comments.empty());
}

TEST(AttachComments, AStoppedRunReadsNothingMore) {
  SlowFetcher fetcher(std::nullopt);
  core::Config cfg;
  auto r = hn_report(2);
  std::stop_source stop;
  const pipeline::ResearchEnv env{cfg, fetcher, core::Deadline::in(300ms), stop.get_token()};
  stop.request_stop();
  const auto t0 = core::Clock::now();
  pipeline::attach_comments(r, {sources::find("hackernews")}, env);
  EXPECT_LT(core::Clock::now() - t0, 100ms);
  EXPECT_EQ(fetcher.peak(), 0) << "no request after the run was cancelled";
  EXPECT_EQ(r.source_status["hackernews"].comment_threads, 0);
}
