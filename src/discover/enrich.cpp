#include "discover/enrich.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "core/exit.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "pipeline/client_fetcher.hpp"
#include "pipeline/research.hpp"

namespace discover {

Tier one_shot_tier() { return {"one-shot", model::Depth::quick, 3, 240}; }
Tier shallow_tier() { return {"shallow", model::Depth::quick, 3, 240}; }

Tier deep_tier(std::optional<std::string_view> env_budget) {
  Tier t{"deep", model::Depth::standard, 4, 450};
  if (env_budget)
    if (auto v = parse_budget_knob(*env_budget)) {
      if (*v > kMaxBudgetSeconds)
        core::log::warn("LAST30DAYS_ENRICH_BUDGET_SECONDS={} is over the {:.0f} s cap: using {:.0f} s", core::trim(*env_budget),
                        kMaxBudgetSeconds, kMaxBudgetSeconds);
      t.budget_seconds = std::min(*v, kMaxBudgetSeconds);
    }
  return t;
}

std::optional<double> parse_budget_knob(std::string_view text) {
  const std::string s(core::trim(text));
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

namespace {

// Shared by the batch and its workers; a straggler's shared_ptr keeps it alive.
struct BatchState {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<SubRunContext> tasks;
  SubRun run = nullptr;
  std::vector<std::optional<model::TopicEnrichment>> done;
  std::size_t next = 0;
  int in_flight = 0;
  int peak = 0;
  int running = 0;         // worker threads alive
  bool closed = false;     // the batch has returned: late results are dropped
  bool abandoned = false;  // running workers are counted in core::live_stragglers()
  std::stop_source stop;
  TopicHook on_topic;  // called under mu, only while !closed
  core::Clock::time_point deadline;
};

model::TopicEnrichment from_report(const model::Report& r) {
  model::TopicEnrichment e;
  e.status = model::EnrichStatus::enriched;
  e.items = static_cast<int>(r.items.size());
  for (std::size_t i = 0; i < r.items.size() && i < 3; ++i) {
    e.top_urls.push_back(r.items[i].url);
    e.top_titles.push_back(r.items[i].title);
  }
  return e;
}

void worker(std::shared_ptr<BatchState> st) {
  for (;;) {
    std::size_t i = 0;
    SubRunContext ctx;
    {
      std::lock_guard lock(st->mu);
      if (st->closed || st->stop.stop_requested() || st->next >= st->tasks.size()) break;
      i = st->next++;
      ctx = st->tasks[i];
      st->peak = std::max(st->peak, ++st->in_flight);
      if (st->on_topic) st->on_topic({TopicEvent::Kind::started, ctx.topic, {}, 0, 0, st->deadline});
    }
    model::TopicEnrichment out;
    std::optional<std::string> unfinished;
    try {
      auto result = st->run(ctx, st->stop.get_token());
      unfinished = std::move(result.unfinished);
      if (!unfinished) out = from_report(result.report);
    } catch (const std::exception& e) {
      out.status = model::EnrichStatus::failed;
      out.error = e.what();
    } catch (...) {
      out.status = model::EnrichStatus::failed;
      out.error = "sub-run failed with an unknown error";
    }
    {
      std::lock_guard lock(st->mu);
      --st->in_flight;
      // The sub-run says whether it finished; once the batch has stopped or closed, a
      // result is late and dropped, and the batch words what the topic got (budget or cancel).
      if (!st->closed && !st->stop.stop_requested()) {
        if (unfinished) {
          out.status = model::EnrichStatus::nomination_only;
          out.error = std::move(unfinished);
        }
        if (st->on_topic) st->on_topic({TopicEvent::Kind::finished, ctx.topic, out.status, out.items, 0, st->deadline});
        st->done[i] = std::move(out);
      }
    }
    st->cv.notify_all();
  }
  bool counted = false;
  {
    std::lock_guard lock(st->mu);
    --st->running;
    counted = st->abandoned;
  }
  st->cv.notify_all();
  // The exit rule (core/exit.hpp): first drop the last shared reference -- it may be the
  // one that destroys the batch, the config and the HTTP client -- and only then stop
  // counting as a straggler. Past this line the thread touches nothing but the counter.
  st.reset();
  if (counted) core::live_stragglers().fetch_sub(1);
}

}  // namespace

BatchResult enrich_batch(std::vector<SubRunContext> tasks, SubRun run, const BatchOptions& options) {
  const auto t0 = core::Clock::now();
  const auto deadline = t0 + std::clamp(options.budget, core::Millis(0), core::kMaxSpan);  // never overflows
  auto st = std::make_shared<BatchState>();
  st->run = run;
  st->on_topic = options.on_topic;
  st->deadline = deadline;
  st->done.resize(tasks.size());
  for (auto& t : tasks) t.deadline = core::Deadline::at(deadline);
  st->tasks = std::move(tasks);
  const std::size_t n = st->tasks.size();

  // Detached on purpose: a joining thread (std::jthread, a joining pool, std::async's
  // future) would tie the process exit to the slowest sub-run.
  const int workers = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(1, options.max_workers)), n));
  for (int w = 0; w < workers; ++w) {
    {
      std::lock_guard lock(st->mu);
      ++st->running;
    }
    try {
      std::thread(worker, st).detach();
    } catch (const std::system_error&) {
      std::lock_guard lock(st->mu);
      --st->running;
    }
  }

  // The caller's cancel ends the batch like the deadline does, only sooner.
  std::stop_callback on_cancel(options.stop, [st] {
    st->stop.request_stop();
    std::lock_guard lock(st->mu);
    st->cv.notify_all();
  });
  std::unique_lock lock(st->mu);
  if (st->on_topic) st->on_topic({TopicEvent::Kind::batch_started, {}, {}, 0, static_cast<int>(n), deadline});
  const auto finished = [&] { return (st->next >= n || st->running == 0) && st->in_flight == 0; };
  if (!st->cv.wait_until(lock, deadline, [&] { return finished() || st->stop.stop_requested(); }) || !finished()) {
    st->stop.request_stop();  // reaches every transfer of every in-flight sub-run
    st->cv.wait_for(lock, options.grace, [&] { return st->in_flight == 0; });
  }
  st->closed = true;
  const bool cancelled = options.stop.stop_requested();
  BatchResult result;
  if (st->running > 0) {
    st->abandoned = true;
    core::live_stragglers().fetch_add(st->running);
    result.abandoned = st->in_flight;
  }
  result.peak_in_flight = st->peak;
  result.outcomes.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (st->done[i]) {
      result.outcomes.push_back(std::move(*st->done[i]));
    } else if (st->running == 0 && st->next <= i && !st->stop.stop_requested()) {
      model::TopicEnrichment e;  // no worker could be started
      e.status = model::EnrichStatus::failed;
      e.error = "could not start an enrichment worker";
      result.outcomes.push_back(std::move(e));
    } else {
      model::TopicEnrichment e;
      e.status = model::EnrichStatus::nomination_only;
      e.error = std::string(cancelled ? kCancelled : kBudgetExhausted);
      result.outcomes.push_back(std::move(e));
    }
  }
  result.elapsed_ms = static_cast<long>(std::chrono::duration_cast<core::Millis>(core::Clock::now() - t0).count());
  return result;
}

std::optional<std::string> unfinished_research(const model::Report& report, bool budget_binds, bool out_of_time) {
  if (out_of_time) return std::string(kBudgetExhausted);
  int asked = 0, timed_out = 0;
  for (const auto& [id, st] : report.source_status) {
    if (st.state == model::SourceState::skipped_unconfigured) continue;
    ++asked;
    timed_out += st.state == model::SourceState::timeout ? 1 : 0;
  }
  if (asked == 0 || timed_out < asked) return std::nullopt;
  return std::string(budget_binds ? kBudgetExhausted : kAllSourcesTimedOut);
}

SubRunResult research_subrun(const SubRunContext& ctx, std::stop_token stop) {
  // Decided before the run, so no clock read at its end can race it: when the batch's
  // deadline comes before every source's own, a source that timed out ran out of budget.
  const bool budget_binds = ctx.deadline.when() <= core::Clock::now() + pipeline::profile(ctx.depth).source_budget;
  pipeline::ClientFetcher fetcher(ctx.client, ctx.http_session);
  pipeline::ResearchSpec spec;
  spec.topic = ctx.topic;
  spec.depth = ctx.depth;
  spec.window = ctx.window;
  spec.sources = ctx.sources;
  spec.now = ctx.now;
  spec.comments = false;  // a sub-run's items are counted and cited, never quoted
  // A nominated topic is a story the platforms named in their own words: a quick tier asks it
  // as named, once per source (a quick run's second form is for topics a person types); six
  // sub-runs already press on keyless search limits (GitHub's ten a minute).
  if (ctx.depth == model::Depth::quick) spec.max_sub_queries = 1;
  const pipeline::ResearchEnv env{*ctx.config, fetcher, ctx.deadline, stop};
  SubRunResult out;
  out.report = pipeline::run_research(spec, env);
  // Cancelled or past its deadline when it returned: the batch would drop it anyway;
  // saying so here makes the outcome the same whichever thread runs first.
  out.unfinished = unfinished_research(out.report, budget_binds, stop.stop_requested() || ctx.deadline.expired());
  return out;
}

}  // namespace discover
