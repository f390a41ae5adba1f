// library search and watch add|list|remove|run (spec §7).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "cli/commands.hpp"
#include "core/log.hpp"
#include "core/redact.hpp"
#include "core/url.hpp"
#include "pipeline/client_fetcher.hpp"
#include "pipeline/research.hpp"
#include "render/render.hpp"

namespace cli {

namespace {

constexpr int kDefaultLibraryLimit = 10;
constexpr auto kLibraryBudget = core::Millis(15000);
constexpr int kWatchWorkers = 4;

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "last30days: %s\n", core::redact::scrub(message).c_str());
  return code;
}

core::Millis memory_budget(const Options& o) {
  return o.timeout_seconds ? core::Millis(static_cast<long long>(*o.timeout_seconds * 1000)) : kLibraryBudget;
}

}  // namespace

core::Deadline store_deadline(core::Deadline run_deadline) {
  const auto floor = core::Deadline::in(core::Millis(500));  // a healthy write takes milliseconds
  return run_deadline.when() < floor.when() ? floor : run_deadline;
}

std::unique_ptr<store::Store> open_store(RunContext& ctx, const persist::Writer& writer, core::Deadline deadline, int* exit_code) {
  std::string error;
  const auto where = store::locate(ctx.config, &error);
  if (!where) {
    *exit_code = fail(2, error);
    return nullptr;
  }
  try {
    return store::Store::open(*where, writer, deadline);
  } catch (const store::Error& e) {
    *exit_code = fail(1, e.what());
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

int not_recorded(const std::string& error) { return fail(1, error + "; the run was not recorded"); }

void index_saved_briefs(store::Store& db, const Options& o, const core::Config& cfg) {
  const auto where = memory_dir(o, cfg);
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

std::optional<model::LibraryResult> search_library(const Options& o, const RunContext& ctx, const persist::Writer& writer,
                                                   std::string* error, int* exit_code) {
  std::string where_error;
  const auto where = store::locate(ctx.config, &where_error);
  if (!where) {
    *error = where_error;
    *exit_code = 2;
    return std::nullopt;
  }
  try {
    auto db = store::Store::open(*where, writer, core::Deadline::in(memory_budget(o)));
    index_saved_briefs(*db, o, ctx.config);
    return db->search(o.topic, o.limit.value_or(kDefaultLibraryLimit));
  } catch (const store::Error& e) {
    *error = e.what();
    *exit_code = 1;
    return std::nullopt;
  }
}

int library_command(const Options& o, RunContext& ctx, const persist::Writer& writer) {
  std::string error;
  int code = 0;
  const auto result = search_library(o, ctx, writer, &error, &code);
  if (!result) return fail(code, error);
  return emit(ctx, o.emit == Emit::json ? render::library_json(*result) : render::library_compact(*result));
}

namespace {

std::string sources_text(const std::vector<std::string>& sources) {
  std::string out;
  for (const auto& s : sources) out += (out.empty() ? "" : ",") + s;
  return out.empty() ? "all sources" : out;
}

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

model::Report research_entry(const model::WatchEntry& entry, RunContext& ctx, core::Deadline deadline) {
  pipeline::ResearchSpec spec;
  spec.topic = entry.topic;
  spec.depth = model::Depth::standard;
  spec.now = ctx.now;
  spec.window = model::Window::ending(ctx.now, entry.days);
  for (const auto* s : sources::all())
    if (entry.sources.empty() || std::find(entry.sources.begin(), entry.sources.end(), s->id()) != entry.sources.end())
      spec.sources.push_back(s);
  pipeline::ClientFetcher fetcher(ctx.client);
  const pipeline::ResearchEnv env{ctx.config, fetcher, deadline, {}};
  core::log::progress("watch: researching \"{}\"", entry.topic);
  return pipeline::run_research(spec, env);
}

// Due topics run in parallel on the shared HTTP client (so per-host politeness holds
// across them); each worker claims one topic at a time, so several processes (on
// PostgreSQL, several machines) share the list and each topic runs exactly once.
int watch_run(const Options& o, RunContext& ctx, store::Store& db) {
  const auto budget = run_budget(o);
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
          entry = db.watch_claim(claimant, core::now_unix(), lease, o.all, since);
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
  std::string text;
  switch (o.emit) {
    case Emit::json: text = render::watch_json(report); break;
    case Emit::md: text = render::watch_markdown(report); break;
    default: text = render::watch_compact(report); break;
  }
  if (int rc = emit(ctx, text)) return rc;
  if (fatal) return fail(1, *fatal);
  std::map<std::string, model::SourceStatus> all_status;
  for (const auto& run : report.runs)
    for (const auto& [id, st] : run.source_status)
      if (model::is_degraded(st.state)) all_status[run.topic + "/" + id] = st;
  return exit_code_for(o, all_status);
}

}  // namespace

int watch_command(const Options& o, RunContext& ctx, const persist::Writer& writer) {
  int code = 0;
  auto db = open_store(ctx, writer, core::Deadline::in(o.verb == "run" ? run_budget(o) : memory_budget(o)), &code);
  if (!db) return code;
  try {
    if (o.verb == "add") {
      model::WatchEntry e;
      e.topic = o.topic;
      e.days = o.days;
      e.every_hours = o.every_hours.value_or(24);
      e.sources = o.sources;
      const bool added = db->watch_add(e, core::now_unix());
      const std::string line = fmt::format("{} \"{}\": every {:g} h, last {} days, {}\n", added ? "watching" : "updated", o.topic,
                                           e.every_hours, e.days, sources_text(e.sources));
      return emit(ctx, line);
    }
    if (o.verb == "remove") {
      if (!db->watch_remove(o.topic)) return fail(2, fmt::format("\"{}\" is not watched (watch list shows what is)", o.topic));
      return emit(ctx, fmt::format("no longer watching \"{}\"\n", o.topic));
    }
    if (o.verb == "list") {
      const auto list = db->watch_list();
      const std::string text = o.emit == Emit::json ? render::watchlist_json(list) : render::watchlist_compact(list, core::now_unix());
      return emit(ctx, text);
    }
    return watch_run(o, ctx, *db);
  } catch (const store::Error& e) {
    return fail(1, e.what());
  }
}

}  // namespace cli
