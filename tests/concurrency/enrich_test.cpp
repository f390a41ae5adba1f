// The enrichment budget contract (spec §6) at the batch level. These tests would fail
// with std::async futures, a joining std::jthread or a pool that joins on destruction:
// each blocks its caller until the slowest sub-run returns, and one of ours never does.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "core/exit.hpp"
#include "discover/enrich.hpp"
#include "fake_upstream.hpp"

using namespace std::chrono_literals;
using discover::SubRunContext;
using model::EnrichStatus;

namespace {

std::vector<SubRunContext> tasks(std::initializer_list<const char*> names) {
  std::vector<SubRunContext> out;
  for (const char* n : names) {
    SubRunContext c;
    c.topic = n;
    out.push_back(c);
  }
  return out;
}

// A report with n items, so tests can see which sub-run produced which outcome.
discover::SubRunResult report_with(int n) {
  discover::SubRunResult out;
  model::Report& r = out.report;
  for (int i = 0; i < n; ++i) {
    model::Item it;
    it.id = "x:" + std::to_string(i);
    it.url = "https://example.com/" + std::to_string(i);
    r.items.push_back(it);
  }
  return out;
}

int digits_of(const std::string& s) {
  int n = 0;
  for (char c : s)
    if (c >= '0' && c <= '9') n = n * 10 + (c - '0');
  return n;
}

// Blocks forever and ignores its stop token: the worst straggler there is.
discover::SubRunResult stubborn(const SubRunContext& ctx, std::stop_token) {
  if (ctx.topic == "stuck")
    for (;;) std::this_thread::sleep_for(1h);
  return report_with(digits_of(ctx.topic));
}

discover::SubRunResult thrower(const SubRunContext& ctx, std::stop_token) {
  if (ctx.topic == "bad 7") throw std::runtime_error("malformed answer from upstream");
  return report_with(digits_of(ctx.topic));
}

std::atomic<int> g_in_flight{0};
std::atomic<int> g_peak{0};
discover::SubRunResult counted(const SubRunContext& ctx, std::stop_token) {
  const int now = ++g_in_flight;
  int peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {}
  std::this_thread::sleep_for(120ms);
  --g_in_flight;
  return report_with(digits_of(ctx.topic));
}

long ms_since(std::chrono::steady_clock::time_point t0) {
  return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace

TEST(EnrichBatch, AWorkerThatIgnoresCancellationIsAbandonedAtTheDeadline) {
  discover::BatchOptions opts;
  opts.max_workers = 3;
  opts.budget = 600ms;
  opts.grace = 200ms;
  const int stragglers_before = core::live_stragglers().load();
  const auto t0 = std::chrono::steady_clock::now();
  auto r = discover::enrich_batch(tasks({"a 1", "stuck", "c 3", "d 4"}), stubborn, opts);
  const long took = ms_since(t0);
  EXPECT_GE(took, 600);
  EXPECT_LT(took, 600 + 200 + 300) << "the batch returns at the deadline, not when the straggler does";
  ASSERT_EQ(r.outcomes.size(), 4u);
  EXPECT_EQ(r.outcomes[0].status, EnrichStatus::enriched);
  EXPECT_EQ(r.outcomes[0].items, 1);
  EXPECT_EQ(r.outcomes[1].status, EnrichStatus::nomination_only);
  EXPECT_EQ(r.outcomes[1].error, std::string(discover::kBudgetExhausted));
  EXPECT_EQ(r.outcomes[2].items, 3);
  EXPECT_EQ(r.outcomes[3].items, 4);
  EXPECT_EQ(r.abandoned, 1);
  EXPECT_EQ(core::live_stragglers().load(), stragglers_before + 1) << "the exit path must know a straggler lives";
}

namespace {
std::mutex g_release_mu;
std::condition_variable g_release_cv;
bool g_released = false;
// Ignores its stop token until the test lets it go.
discover::SubRunResult held_until_released(const SubRunContext&, std::stop_token) {
  std::unique_lock lock(g_release_mu);
  g_release_cv.wait(lock, [] { return g_released; });
  return report_with(1);
}
}  // namespace

TEST(EnrichBatch, AStragglerIsUncountedOnlyAfterItsLastSharedReferenceIsGone) {
  // The config is shared-owned by the batch: whoever drops the last reference destroys it,
  // and that must happen while the straggler still counts, or the exit path could run
  // static destructors while a straggler is still tearing things down.
  std::promise<int> count_when_destroyed;
  auto seen = count_when_destroyed.get_future();
  auto ts = tasks({"held"});
  ts[0].config = std::shared_ptr<const core::Config>(new core::Config(), [&count_when_destroyed](const core::Config* c) {
    count_when_destroyed.set_value(core::live_stragglers().load());
    delete c;
  });
  discover::BatchOptions opts;
  opts.max_workers = 1;
  opts.budget = 200ms;
  opts.grace = 50ms;
  const int before = core::live_stragglers().load();
  auto r = discover::enrich_batch(std::move(ts), held_until_released, opts);
  ASSERT_EQ(r.abandoned, 1);
  EXPECT_EQ(core::live_stragglers().load(), before + 1);
  {
    std::lock_guard lock(g_release_mu);
    g_released = true;
  }
  g_release_cv.notify_all();
  ASSERT_EQ(seen.wait_for(5s), std::future_status::ready) << "the straggler finished and let go of the batch";
  EXPECT_EQ(seen.get(), before + 1) << "still counted while its last shared reference was dropped";
  for (int i = 0; i < 200 && core::live_stragglers().load() != before; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(core::live_stragglers().load(), before) << "and uncounted after";
}

TEST(EnrichBatch, NeverMoreThanMaxWorkersInFlightAndReachesIt) {
  g_in_flight = 0;
  g_peak = 0;
  discover::BatchOptions opts;
  opts.max_workers = 3;
  opts.budget = 10s;
  auto r = discover::enrich_batch(tasks({"t 1", "t 2", "t 3", "t 4", "t 5", "t 6", "t 7", "t 8"}), counted, opts);
  EXPECT_EQ(g_peak.load(), 3);
  EXPECT_EQ(r.peak_in_flight, 3);
  for (std::size_t i = 0; i < r.outcomes.size(); ++i) {
    EXPECT_EQ(r.outcomes[i].status, EnrichStatus::enriched);
    EXPECT_EQ(r.outcomes[i].items, static_cast<int>(i) + 1) << "nomination order is kept";
  }
  EXPECT_EQ(r.abandoned, 0);
}

TEST(EnrichBatch, AFailingSubRunIsContained) {
  discover::BatchOptions opts;
  opts.max_workers = 2;
  opts.budget = 5s;
  auto r = discover::enrich_batch(tasks({"ok 1", "ok 2", "bad 7", "ok 4"}), thrower, opts);
  ASSERT_EQ(r.outcomes.size(), 4u);
  EXPECT_EQ(r.outcomes[2].status, EnrichStatus::failed);
  EXPECT_EQ(r.outcomes[2].error, "malformed answer from upstream");
  for (std::size_t i : {0u, 1u, 3u}) {
    EXPECT_EQ(r.outcomes[i].status, EnrichStatus::enriched) << i;
    EXPECT_FALSE(r.outcomes[i].error);
  }
  EXPECT_EQ(r.outcomes[3].items, 4);
}

TEST(EnrichBatch, TasksNotStartedByTheDeadlineAreNominationOnly) {
  discover::BatchOptions opts;
  opts.max_workers = 1;
  opts.budget = 300ms;
  opts.grace = 100ms;
  auto r = discover::enrich_batch(tasks({"stuck", "b 2", "c 3"}), stubborn, opts);
  for (const auto& o : r.outcomes) {
    EXPECT_EQ(o.status, EnrichStatus::nomination_only);
    EXPECT_EQ(o.error, std::string(discover::kBudgetExhausted));
  }
}

TEST(EnrichBatch, EmptyBatchReturnsAtOnce) {
  auto r = discover::enrich_batch({}, stubborn, {});
  EXPECT_TRUE(r.outcomes.empty());
  EXPECT_LT(r.elapsed_ms, 50);
}

namespace {
// Fetches with no deadline of its own: only the batch's stop token can end the transfer.
std::string g_hang_url;
discover::SubRunResult fetch_until_stopped(const SubRunContext& ctx, std::stop_token stop) {
  http::Request req;
  req.url = g_hang_url;
  req.stop = std::move(stop);
  req.timeout = std::chrono::milliseconds(60000);
  auto resp = ctx.client->fetch(req);
  if (resp.error == http::NetError::cancelled) throw std::runtime_error("cancelled");
  return report_with(1);
}
}  // namespace

TEST(EnrichBatch, CancellationAtTheDeadlineAbortsTheSubRunsTransfers) {
  testing_support::FakeUpstream fake([](const testing_support::FakeRequest&) { return testing_support::FakeReply::hang(); });
  http::ClientOptions copts;
  std::string err;
  copts.host_map = *http::HostMap::parse(fake.host_map({{"slow.example.com", ""}}), &err);
  auto client = std::make_shared<http::Client>(copts);
  g_hang_url = "https://slow.example.com/search?q=topic";
  auto ts = tasks({"one", "two"});
  for (auto& t : ts) t.client = client;
  discover::BatchOptions opts;
  opts.max_workers = 2;
  opts.budget = 700ms;
  opts.grace = 300ms;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = discover::enrich_batch(std::move(ts), fetch_until_stopped, opts);
  EXPECT_LT(ms_since(t0), 700 + 300);
  for (const auto& o : r.outcomes) EXPECT_EQ(o.status, EnrichStatus::nomination_only);
  EXPECT_EQ(r.abandoned, 0) << "cancelled sub-runs return: nothing is left behind";
  for (int i = 0; i < 50 && fake.closed_hung() < 2; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(fake.closed_hung(), 2) << "the sockets were closed at the deadline, not left to run on";
  for (const auto& e : fake.log()) {
    const auto at = std::chrono::duration_cast<std::chrono::milliseconds>(e.ended - t0).count();
    EXPECT_GE(at, 650);
    EXPECT_LT(at, 900);
  }
}

namespace {
// Returns a report in which every source timed out, just before the budget's instant: what
// a sub-run does when curl's timer ends its hung requests a moment early. Its outcome is
// the sub-run's own word (discover::unfinished_research), not the batch's clock.
discover::SubRunResult all_timed_out_early(const SubRunContext& ctx, std::stop_token) {
  std::this_thread::sleep_until(ctx.deadline.when() - 2ms);
  discover::SubRunResult out;
  out.report.source_status["hackernews"].state = model::SourceState::timeout;
  out.report.source_status["reddit"].state = model::SourceState::timeout;
  out.report.source_status["x"].state = model::SourceState::skipped_unconfigured;
  out.unfinished = discover::unfinished_research(out.report, true, false);
  return out;
}
}  // namespace

TEST(EnrichBatch, ASubRunWhoseEverySourceTimedOutEnrichedNothingWhenEverItReturns) {
  discover::BatchOptions opts;
  opts.max_workers = 2;
  opts.budget = 150ms;
  auto r = discover::enrich_batch(tasks({"hung", "also hung"}), all_timed_out_early, opts);
  for (const auto& o : r.outcomes) {
    EXPECT_EQ(o.status, EnrichStatus::nomination_only) << "returned before the deadline, but nothing was enriched";
    EXPECT_EQ(o.error, std::string(discover::kBudgetExhausted));
  }
  // Sources timing out on their own, with budget left: the topic still enriched nothing.
  model::Report own;
  own.source_status["hackernews"].state = model::SourceState::timeout;
  EXPECT_EQ(discover::unfinished_research(own, false, false), std::string(discover::kAllSourcesTimedOut));
  own.source_status["reddit"].state = model::SourceState::ok;
  EXPECT_FALSE(discover::unfinished_research(own, true, false)) << "one source answered: it finished";
  EXPECT_EQ(discover::unfinished_research(own, true, true), std::string(discover::kBudgetExhausted));
  EXPECT_FALSE(discover::unfinished_research(model::Report{}, true, false)) << "nothing asked is not a timeout";
}

// The race itself, through the production sub-run: Hacker News answers every search by
// hanging, so each sub-run's requests are cut at the budget's instant by the same clock the
// batch waits on. Whichever thread gets there first, the topic must be nomination-only.
TEST(EnrichBatch, AHungTopicIsNominationOnlyHoweverTheDeadlineRaceFalls) {
  testing_support::FakeUpstream fake([](const testing_support::FakeRequest&) { return testing_support::FakeReply::hang(); });
  http::ClientOptions copts;
  std::string err;
  copts.host_map = *http::HostMap::parse(fake.host_map({{"hn.algolia.com", ""}}), &err);
  auto client = std::make_shared<http::Client>(copts);
  auto config = std::make_shared<const core::Config>();
  const auto* hn = sources::find("hn");
  ASSERT_NE(hn, nullptr);
  constexpr int kRounds = 40;
  int enriched = 0;
  for (int round = 0; round < kRounds; ++round) {
    auto ts = tasks({"quantum teleportation", "quantum error correction"});
    for (auto& t : ts) {
      t.client = client;
      t.config = config;
      t.sources = {hn};
      t.depth = model::Depth::quick;
    }
    discover::BatchOptions opts;
    opts.max_workers = 2;
    opts.budget = std::chrono::milliseconds(40 + round % 7);  // vary where the deadline falls
    opts.grace = 2s;  // cancelled sub-runs return at once; the grace only matters on a loaded machine
    auto r = discover::enrich_batch(std::move(ts), discover::research_subrun, opts);
    for (const auto& o : r.outcomes) {
      enriched += o.status == EnrichStatus::enriched ? 1 : 0;
      EXPECT_EQ(o.status, EnrichStatus::nomination_only) << "round " << round;
      EXPECT_EQ(o.error, std::string(discover::kBudgetExhausted)) << "round " << round;
    }
  }
  EXPECT_EQ(enriched, 0) << "of " << 2 * kRounds << " hung sub-runs";
}
