// The research store's part of a run, library search and watch run (spec §7).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "app/run.hpp"
#include "core/log.hpp"
#include "pipeline/client_fetcher.hpp"
#include "pipeline/research.hpp"

namespace app {

namespace {

constexpr auto kLibraryBudget = core::Millis(15000);
constexpr int kWatchWorkers = 4;

}  // namespace

core::Deadline store_deadline(core::Deadline run_deadline) {
  const auto floor = core::Deadline::in(core::Millis(500));  // a healthy write takes milliseconds
  return run_deadline.when() < floor.when() ? floor : run_deadline;
}

std::unique_ptr<store::Store> open_store(const RunContext& ctx, const persist::Writer& writer, core::Deadline deadline,
                                         Problem* problem, std::string* unanswered) {
  std::string error;
  const auto where = store::locate(ctx.config, &error);
  if (!where) {
    *problem = {2, error};
    return nullptr;
  }
  try {
    return store::Store::open(*where, writer, deadline);
  } catch (const store::Unanswered& e) {
    if (unanswered) *unanswered = e.what();
    else *problem = {1, e.what()};
    return nullptr;
  } catch (const store::Error& e) {
    *problem = {1, e.what()};
    return nullptr;
  }
}

std::optional<std::string> remember(store::Store& db, const std::vector<model::Report*>& reports, core::UnixSeconds started,
                                    core::Deadline run_deadline) {
  db.set_deadline(store_deadline(run_deadline));
  try {
    std::vector<store::RunInput> runs;
    for (auto* r : reports) db.annotate(*r);
    const auto finished = core::now_unix();
    for (const auto* r : reports) runs.push_back(store::run_input(*r, started, finished));
    db.record(runs);
    return std::nullopt;
  } catch (const store::Error& e) {
    for (auto* r : reports) {
      r->history.reset();
      for (auto& it : r->items) it.seen_before.reset();
    }
    return std::string(e.what());
  }
}

std::string not_recorded(const std::string& error) { return error + "; the run was not recorded"; }

void index_saved_briefs(store::Store& db, const std::string& save_dir, const core::Config& cfg) {
  const auto where = memory_dir(save_dir, cfg);
  if (!where) return;
  const std::filesystem::path dir = *where;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return;
  try {
    db.sync_briefs(std::filesystem::absolute(dir, ec), core::now_unix());
  } catch (const store::Error& e) {
    core::log::warn("saved briefs were not indexed: {}", e.what());
  }
}

std::optional<model::LibraryResult> search_library(const LibraryRequest& r, const RunContext& ctx,
                                                   const persist::Writer& writer, Problem* problem) {
  std::string where_error;
  const auto where = store::locate(ctx.config, &where_error);
  if (!where) {
    *problem = {2, where_error};
    return std::nullopt;
  }
  const auto budget = r.timeout_seconds ? core::Millis(static_cast<long long>(*r.timeout_seconds * 1000)) : kLibraryBudget;
  try {
    auto db = store::Store::open(*where, writer, core::Deadline::in(budget));
    index_saved_briefs(*db, r.save_dir, ctx.config);
    return db->search(r.query, r.limit.value_or(kDefaultLibraryLimit));
  } catch (const store::Error& e) {
    *problem = {1, e.what()};
    return std::nullopt;
  }
}

namespace {

std::string claimant_id() {
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "unknown");
  std::random_device rd;
  return fmt::format("{}:{}:{:08x}", host, ::getpid(), rd());
}

// New: none of its URLs was seen in an earlier run of this topic. Surging: its raw
// engagement at least doubled and grew by at least 10 over the highest stored before.
void classify(model::WatchRun& run, const model::Report& report, const store::TopicMemory& mem) {
  for (const auto& it : report.items) {
    std::optional<double> prior;
    if (auto p = mem.seen.find(store::finding_key(it.url)); p != mem.seen.end()) prior = p->second.max_engagement;
    for (const auto& s : it.also_seen)
      if (auto p = mem.seen.find(store::finding_key(s.url)); p != mem.seen.end() && !prior) prior = p->second.max_engagement;
    if (!prior) {
      run.fresh.push_back(it);
      continue;
    }
    const double now = it.engagement_total();
    if (now >= 2 * *prior && now - *prior >= 10) {
      run.previous_engagement[it.id] = *prior;
      run.surging.push_back(it);
    }
  }
}

model::Report research_entry(const model::WatchEntry& entry, const RunContext& ctx, core::Deadline deadline) {
  ResearchRequest request;
  request.topic = entry.topic;
  request.days = entry.days;
  request.sources = entry.sources;
  const auto spec = research_spec(request, ctx, entry.topic);
  pipeline::ClientFetcher fetcher(ctx.client);
  const pipeline::ResearchEnv env{ctx.config, fetcher, deadline, {}};
  core::log::progress("watch: researching \"{}\"", entry.topic);
  return pipeline::run_research(spec, env);
}

// Due topics run in parallel on the shared HTTP client (so per-host politeness holds
// across them); each worker claims one topic at a time, so several processes (on
// PostgreSQL, several machines) share the list and each topic runs exactly once.
}  // namespace

WatchRunResult run_watch(const WatchRunRequest& request, const RunContext& ctx, store::Store& db) {
  const auto budget = request.budget;
  const long lease = static_cast<long>(2 * std::chrono::duration_cast<std::chrono::seconds>(budget).count()) + 1;
  const std::string claimant = claimant_id();
  const auto since = core::now_unix();
  model::WatchReport report;
  report.generated_at = since;
  std::mutex mu;  // guards db, report, fatal, attempted
  std::optional<std::string> fatal;
  std::set<std::string> attempted;

  const auto worker = [&] {
    for (;;) {
      std::optional<model::WatchEntry> entry;
      {
        std::lock_guard lock(mu);
        if (fatal) return;
        try {
          db.set_deadline(core::Deadline::in(budget));
          entry = db.watch_claim(claimant, core::now_unix(), lease, request.all, since);
          if (entry && !attempted.insert(store::topic_key(entry->topic)).second) {
            db.watch_release(claimant, entry->topic);
            entry.reset();
          }
        } catch (const std::exception& e) {
          fatal = e.what();
        }
        if (!entry) return;
      }
      const auto deadline = core::Deadline::in(budget);
      const auto started = core::now_unix();
      model::WatchRun run;
      run.topic = entry->topic;
      run.previous_run_at = entry->last_run_at;
      model::Report r;
      try {
        r = research_entry(*entry, ctx, deadline);
      } catch (const std::exception& e) {
        run.error = fmt::format("the research failed: {}", e.what());
      }
      run.source_status = r.source_status;
      std::lock_guard lock(mu);
      try {
        db.set_deadline(store_deadline(deadline));
        if (run.error) {
          db.watch_release(claimant, entry->topic);
        } else {
          std::vector<std::string> keys;
          for (const auto& it : r.items) {
            keys.push_back(store::finding_key(it.url));
            for (const auto& s : it.also_seen) keys.push_back(store::finding_key(s.url));
          }
          const auto mem = db.memory(entry->topic, keys);
          if (mem.history.last_run_at) run.previous_run_at = mem.history.last_run_at;
          classify(run, r, mem);
          const store::WatchCommit commit{claimant};
          db.record({store::run_input(r, started, core::now_unix())}, &commit);
        }
      } catch (const store::LeaseLost& e) {
        run.error = e.what();
        run.fresh.clear();
        run.surging.clear();
      } catch (const std::exception& e) {
        run.error = fmt::format("not recorded: {}", e.what());
        fatal = e.what();
      }
      report.runs.push_back(std::move(run));
    }
  };
  const int workers = std::max(1, kWatchWorkers);
  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) threads.emplace_back(worker);
  for (auto& t : threads) t.join();  // each topic's research ends by its own deadline

  std::sort(report.runs.begin(), report.runs.end(),
            [](const auto& a, const auto& b) { return store::topic_key(a.topic) < store::topic_key(b.topic); });
  return {std::move(report), std::move(fatal)};
}

}  // namespace app
