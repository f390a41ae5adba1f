// The research store's part of a run, library search and watch run (spec §7).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "app/budget.hpp"
#include "app/run.hpp"
#include "core/json.hpp"
#include "core/log.hpp"
#include "http/host_map.hpp"
#include "pipeline/client_fetcher.hpp"
#include "pipeline/research.hpp"
#include "render/render.hpp"

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
    db.sync_briefs(std::filesystem::absolute(dir, ec), core::now_unix(), store::machine_identity(cfg));
  } catch (const store::Error& e) {
    core::log::warn("saved briefs were not indexed: {}", e.what());
  }
}

std::optional<model::LibraryResult> search_library(const LibraryRequest& r, const RunContext& ctx, const persist::Writer& writer,
                                                   Problem* problem) {
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

model::Report research_entry(const model::WatchEntry& entry, const RunContext& ctx, core::Deadline deadline,
                             pipeline::RequestBudget* budget) {
  ResearchRequest request;
  request.topic = entry.topic;
  request.days = entry.days;
  request.sources = entry.sources;
  const auto spec = research_spec(request, ctx, entry.topic);
  pipeline::ClientFetcher fetcher(ctx.client);
  const pipeline::ResearchEnv env{ctx.config, fetcher, deadline, {}, nullptr, budget};
  core::log::progress("watch: researching \"{}\"", entry.topic);
  return pipeline::run_research(spec, env);
}

// Due topics run in parallel on the shared HTTP client (so per-host politeness holds
// across them); each worker claims one topic at a time, so several processes (on
// PostgreSQL, several machines) share the list and each topic runs exactly once.
}  // namespace

bool WatchRunResult::news() const {
  return std::any_of(report.runs.begin(), report.runs.end(),
                     [](const auto& r) { return !r.fresh.empty() || !r.surging.empty(); });
}

WatchRunResult run_watch(const WatchRunRequest& request, const RunContext& ctx, store::Store& db) {
  const auto budget = request.budget;
  const long lease = static_cast<long>(2 * std::chrono::duration_cast<std::chrono::seconds>(budget).count()) + 1;
  WatchRunResult result;
  result.claimant = claimant_id();
  const std::string& claimant = result.claimant;
  const auto since = core::now_unix();
  result.report.generated_at = since;
  std::mutex mu;  // guards db, result, attempted
  std::set<std::string> attempted;
  // The store's budgets join the environment's; with neither set nothing is counted.
  if (request.requests) request.requests->load(db, since);
  StoreBudget* const requests = request.requests && !request.requests->empty() ? request.requests : nullptr;

  const auto worker = [&] {
    for (;;) {
      std::optional<model::WatchEntry> entry;
      {
        std::lock_guard lock(mu);
        if (result.fatal) return;
        try {
          db.set_deadline(core::Deadline::in(budget));
          entry = db.watch_claim(claimant, core::now_unix(), lease, request.all, since);
          if (entry && !attempted.insert(store::topic_key(entry->topic)).second) {
            db.watch_release(claimant, entry->topic);
            entry.reset();
          }
        } catch (const std::exception& e) {
          result.fatal = e.what();
        }
        if (!entry) return;
      }
      const auto deadline = core::Deadline::in(budget);
      WatchedTopic t;
      t.entry = *entry;
      t.started = core::now_unix();
      t.run.topic = entry->topic;
      t.run.previous_run_at = entry->last_run_at;
      try {
        t.report = research_entry(*entry, ctx, deadline, requests);
      } catch (const std::exception& e) {
        t.run.error = fmt::format("the research failed: {}", e.what());
      }
      t.run.source_status = t.report.source_status;
      std::lock_guard lock(mu);
      try {
        db.set_deadline(store_deadline(deadline));
        if (t.run.error) {
          db.watch_release(claimant, entry->topic);
        } else {
          std::vector<std::string> keys;
          for (const auto& it : t.report.items) {
            keys.push_back(store::finding_key(it.url));
            for (const auto& s : it.also_seen) keys.push_back(store::finding_key(s.url));
          }
          const auto mem = db.memory(entry->topic, keys);
          t.run.previous_run_at = mem.history.last_run_at;
          classify(t.run, t.report, mem);
        }
      } catch (const std::exception& e) {
        t.run.error = fmt::format("not recorded: {}", e.what());
        result.fatal = e.what();
      }
      result.researched.push_back(std::move(t));
    }
  };
  const int workers = std::max(1, kWatchWorkers);
  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) threads.emplace_back(worker);
  for (auto& t : threads) t.join();  // each topic's research ends by its own deadline

  std::sort(result.researched.begin(), result.researched.end(),
            [](const auto& a, const auto& b) { return store::topic_key(a.run.topic) < store::topic_key(b.run.topic); });
  for (const auto& t : result.researched) result.report.runs.push_back(t.run);
  if (requests) {
    try {
      db.set_deadline(core::Deadline::in(core::Millis(5000)));
      requests->flush(db);
    } catch (const store::Error& e) {
      core::log::warn("request budgets: this run's requests were not counted: {}", e.what());
    }
  }
  return result;
}

namespace {

std::vector<std::string> channels_for(const model::WatchEntry& e, const std::vector<notify::Channel>& channels) {
  std::vector<std::string> out;
  for (const auto& c : channels)
    if (!e.notify || std::find(e.notify->begin(), e.notify->end(), c.name) != e.notify->end()) out.push_back(c.name);
  return out;
}

std::string run_json(const model::WatchRun& run, core::UnixSeconds at) {
  model::WatchReport one;
  one.generated_at = at;
  one.runs.push_back(run);
  return core::json::parse_ordered_or_discarded(render::watch_json(one))["runs"][0].dump(
      -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// A client for notifications alone: never recorded into or replayed from a cassette (a
// channel URL is a secret and a delivery is not an upstream answer); the host map applies.
std::shared_ptr<http::Client> notify_client(const core::Config& config) {
  http::ClientOptions copts;
  if (auto spec = config.get("LAST30DAYS_HOST_MAP")) {
    std::string error;
    if (auto map = http::HostMap::parse(*spec, &error)) copts.host_map = std::move(*map);
  }
  copts.spacing.clear();
  return std::make_shared<http::Client>(std::move(copts));
}

}  // namespace

std::vector<std::string> commit_watch(const WatchRunResult& result, store::Store& db,
                                      const std::vector<notify::Channel>& channels, core::Millis budget) {
  std::vector<std::string> errors;
  for (const auto& t : result.researched) {
    if (t.run.error) continue;
    try {
      db.set_deadline(core::Deadline::in(core::Millis(std::max<long long>(5000, budget.count() / 4))));
      store::WatchCommit commit{result.claimant, channels_for(t.entry, channels), ""};
      if (!t.run.fresh.empty() || !t.run.surging.empty()) commit.run_json = run_json(t.run, result.report.generated_at);
      db.record({store::run_input(t.report, t.started, core::now_unix())}, &commit);
    } catch (const std::exception& e) {
      errors.push_back(fmt::format("watch \"{}\" was not recorded: {}", t.run.topic, e.what()));
    }
  }
  return errors;
}

void release_watch(const WatchRunResult& result, store::Store& db) {
  for (const auto& t : result.researched) {
    try {
      db.set_deadline(core::Deadline::in(core::Millis(5000)));
      db.watch_release(result.claimant, t.entry.topic);
    } catch (const std::exception&) {
      // the lease ends on its own
    }
  }
}

std::vector<Delivery> deliver_pending(store::Store& db, const std::vector<notify::Channel>& channels, const RunContext& ctx,
                                      core::Deadline deadline) {
  std::vector<std::pair<notify::Channel, notify::json>> sends;
  std::vector<std::vector<std::int64_t>> ids;
  const auto now = core::now_unix();
  for (const auto& c : channels) {
    const auto pending = db.notify_pending(c.name);
    if (pending.empty()) continue;
    notify::json runs = notify::json::array();
    std::vector<std::int64_t> these;
    for (const auto& p : pending) {
      auto j = core::json::parse_ordered_or_discarded(p.run_json);
      if (!j.is_discarded() && j.is_object()) runs.push_back(std::move(j));
      these.push_back(p.id);
    }
    sends.push_back({c,
                     {{"schema_version", 1},
                      {"kind", "watch"},
                      {"generated_at", core::format_iso8601(now)},
                      {"runs", runs},
                      {"warnings", notify::json::array()}}});
    ids.push_back(std::move(these));
  }
  std::vector<Delivery> out;
  if (sends.empty()) return out;
  auto client = notify_client(ctx.config);
  const auto outcomes = notify::deliver(sends, *client, deadline, now);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    db.set_deadline(core::Deadline::in(core::Millis(5000)));
    db.notify_done(outcomes[i].channel, outcomes[i].ok ? ids[i] : std::vector<std::int64_t>{}, core::now_unix(), outcomes[i].ok,
                   outcomes[i].detail);
    out.push_back({outcomes[i], sends[i].first.masked});
  }
  return out;
}

notify::Outcome send_sample(const notify::Channel& channel, const RunContext& ctx, core::Deadline deadline) {
  auto client = notify_client(ctx.config);
  const auto now = core::now_unix();
  return notify::deliver({{channel, notify::sample_digest(now)}}, *client, deadline, now).at(0);
}

std::vector<model::ChannelStatus> channel_status(store::Store& db, const std::vector<notify::Channel>& channels) {
  std::vector<model::ChannelStatus> out;
  const auto log = db.notify_log();
  for (const auto& c : channels) {
    model::ChannelStatus st{c.name, c.masked, std::nullopt};
    for (const auto& l : log)
      if (l.channel == c.name) st.last = l;
    out.push_back(std::move(st));
  }
  return out;
}

}  // namespace app
