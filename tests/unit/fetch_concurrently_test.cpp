// sources::fetch_concurrently: a source's independent requests at once, answers in call
// order, and a stop rule that keeps a sequential loop's "break" without its wall time.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "fixture_fetcher.hpp"
#include "hostile.hpp"
#include "sources/common.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using sources::Call;
using sources::Fetched;

namespace {

bool rejected(const Fetched& f) { return f.failure && sources::hopeless(*f.failure); }

// Answers only once `width` requests are in flight together (or after 5 s): sequential
// sends would take the full 5 s per request.
class Rendezvous : public sources::Fetcher {
 public:
  explicit Rendezvous(int width) : width_(width) {}
  http::Response get(const http::Request& r) override {
    std::unique_lock lock(mu_);
    ++in_flight_;
    most_ = std::max(most_, in_flight_);
    cv_.notify_all();
    cv_.wait_for(lock, 5s, [&] { return most_ >= width_; });
    --in_flight_;
    http::Response out;
    out.status = 200;
    out.content_type = "application/json";
    out.body = R"({"url":")" + r.url + R"("})";
    return out;
  }
  int most() const {
    std::lock_guard lock(mu_);
    return most_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int width_;
  int in_flight_ = 0;
  int most_ = 0;
};

std::vector<Call> three() {
  return {Call("https://api.example/a"), Call("https://api.example/b"), Call("https://api.example/c")};
}

}  // namespace

TEST(FetchConcurrently, SendsTogetherAndAnswersInCallOrder) {
  Rendezvous r(3);
  TestEnv t(r);
  const auto t0 = std::chrono::steady_clock::now();
  const auto got = sources::fetch_concurrently(t.env, three());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 4s) << "the three requests were not in flight together";
  EXPECT_EQ(r.most(), 3);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_NE(got[0].response.body.find("/a"), std::string::npos);
  EXPECT_NE(got[2].response.body.find("/c"), std::string::npos);
  EXPECT_EQ(sources::sent_count(got), 3);
}

TEST(FetchConcurrently, AStopCancelsTheCallsAfterItInFlight) {
  FixtureFetcher f;
  f.hold("/b").hold("/c").on("/a", reply(401, R"({"message":"Bad credentials"})"));
  // The 401 comes back only once b and c are on the wire.
  struct AfterTheOthers : sources::Fetcher {
    FixtureFetcher& inner;
    explicit AfterTheOthers(FixtureFetcher& i) : inner(i) {}
    http::Response get(const http::Request& r) override {
      if (r.url.ends_with("/a"))
        for (int i = 0; i < 5000 && inner.holding() < 2; ++i) std::this_thread::sleep_for(1ms);
      return inner.get(r);
    }
  } wrapped(f);
  TestEnv t(wrapped);
  const auto t0 = std::chrono::steady_clock::now();
  const auto got = sources::fetch_concurrently(t.env, three(), 3, rejected);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s) << "the held calls were not cancelled";
  ASSERT_EQ(got.size(), 3u);
  ASSERT_TRUE(got[0].failure.has_value());
  EXPECT_EQ(got[0].failure->state, model::SourceState::auth_failed);
  EXPECT_FALSE(got[0].dropped);
  for (std::size_t i : {1u, 2u}) {
    EXPECT_TRUE(got[i].dropped) << i;
    EXPECT_FALSE(got[i].failure.has_value()) << "a dropped call's answer is not used";
  }
  // Both were on the wire (all three at once) and were cancelled there: not repeated, not waited for.
  EXPECT_EQ(f.cancelled(), 2);
  EXPECT_EQ(f.urls().size(), 3u);
}

TEST(FetchConcurrently, AnswersAfterTheStopAreUnusedEvenWhenTheyCameFirst) {
  // b (the stop) is held until c has answered: c's answer arrived first and is still dropped,
  // a's (before the stop) is kept -- the outcome of the sequential loop, whatever the timing.
  FixtureFetcher f;
  f.on_body("/a", R"({"ok":1})").on_body("/c", R"({"ok":3})");
  struct Slow : sources::Fetcher {
    FixtureFetcher& inner;
    std::atomic<bool> c_done{false};
    explicit Slow(FixtureFetcher& i) : inner(i) {}
    http::Response get(const http::Request& r) override {
      if (r.url.ends_with("/b")) {
        while (!c_done.load()) std::this_thread::sleep_for(1ms);
        http::Response out;
        out.status = 429;
        out.content_type = "application/json";
        out.body = "{}";
        return out;
      }
      auto out = inner.get(r);
      if (r.url.ends_with("/c")) c_done.store(true);
      return out;
    }
  } slow(f);
  TestEnv t(slow);
  const auto got = sources::fetch_concurrently(t.env, three(), 3, rejected);
  EXPECT_FALSE(got[0].dropped);
  EXPECT_FALSE(got[0].failure.has_value());
  ASSERT_TRUE(got[1].failure.has_value());
  EXPECT_EQ(got[1].failure->state, model::SourceState::rate_limited);
  EXPECT_TRUE(got[2].dropped);
  EXPECT_TRUE(got[2].sent);
  EXPECT_TRUE(got[2].response.body.empty());
}

TEST(FetchConcurrently, NothingIsSentAfterAStopOnceItIsKnown) {
  FixtureFetcher f;
  f.on("/a", reply(429, "{}"));
  TestEnv t(f);
  const auto got = sources::fetch_concurrently(t.env, three(), 1, rejected);  // one at a time
  EXPECT_EQ(f.urls().size(), 1u);
  EXPECT_EQ(sources::sent_count(got), 1);
  EXPECT_FALSE(got[1].sent);
  EXPECT_TRUE(got[2].dropped);
}

TEST(FetchConcurrently, TheRunsStopStillReachesEveryCall) {
  FixtureFetcher f;
  f.hold("/");
  std::stop_source run;
  core::Config cfg;
  sources::Env env{cfg, f, core::Deadline::in(core::Millis(30000)), run.get_token()};
  std::thread stopper([&] {
    std::this_thread::sleep_for(50ms);
    run.request_stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  const auto got = sources::fetch_concurrently(env, three(), 3, rejected);
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_EQ(f.cancelled(), 3);
  for (const auto& g : got) {
    EXPECT_FALSE(g.dropped) << "cancelled by the run, not by a stop rule";
    ASSERT_TRUE(g.failure.has_value());
    EXPECT_EQ(g.failure->state, model::SourceState::timeout);
  }
}
