// library search|list|forget and watch add|list|remove|run|notify|budget (spec §7).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "app/budget.hpp"
#include "app/summarize.hpp"
#include "cli/commands.hpp"
#include "core/text.hpp"
#include "notify/notify.hpp"
#include "render/escape.hpp"
#include "render/json_parts.hpp"
#include "render/render.hpp"
#include "sources/source.hpp"

namespace cli {

namespace {

constexpr auto kMemoryBudget = core::Millis(15000);

core::Millis memory_budget(const Options& o) {
  return o.timeout_seconds ? core::Millis(static_cast<long long>(*o.timeout_seconds * 1000)) : kMemoryBudget;
}

std::string sources_text(const std::vector<std::string>& sources) {
  std::string out;
  for (const auto& s : sources) out += (out.empty() ? "" : ",") + s;
  return out.empty() ? "all sources" : out;
}

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    auto comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const auto name = core::lower_ascii(core::trim(std::string_view(list).substr(start, comma - start)));
    if (!name.empty()) out.push_back(name);
    start = comma + 1;
  }
  return out;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Deliveries get the run's timeout again (at most a minute): research that used its
// whole budget still leaves the messages time to go.
core::Deadline delivery_deadline(const Options& o) {
  return core::Deadline::in(std::min(app::run_budget(research_request(o)), core::Millis(60000)));
}

// Research and classify; write the digest (nothing when nothing is new, unless --all);
// only then record the runs and queue their news; then deliver every channel's queue.
int watch_run(const Options& o, const Frame& f, store::Store& db, const std::vector<notify::Channel>& channels,
              app::StoreBudget* requests) {
  const auto budget = app::run_budget(research_request(o));
  auto result = app::run_watch({o.all, budget, requests}, f.ctx, db);
  if (o.summarize) app::summarize(f.ctx, result.report, core::Deadline::in(budget));
  for (const auto& run : result.report.runs)
    if (run.error) fail(1, fmt::format("watch \"{}\": {}", render::term::text(run.topic), *run.error));
  if (result.news() || o.all) {
    std::string text;
    switch (o.emit) {
      case Emit::json: text = render::watch_json(result.report); break;
      case Emit::md: text = render::watch_markdown(result.report); break;
      default: text = render::watch_compact(result.report); break;
    }
    if (int rc = emit(f.output, text)) {
      app::release_watch(result, db);
      return fail(rc, "the digest could not be written, so nothing was recorded: the next watch run reports the same news");
    }
  }
  if (result.fatal) {
    app::release_watch(result, db);
    return fail(1, *result.fatal);
  }
  const auto errors = app::commit_watch(result, db, channels, budget);
  for (const auto& e : errors) fail(1, e);
  bool delivered = true;
  try {
    for (const auto& d : app::deliver_pending(db, channels, f.ctx, delivery_deadline(o)))
      if (!d.outcome.ok) {
        delivered = false;
        fail(1, fmt::format("notification to {} ({}) failed: {}; its news stays queued for the next watch run", d.outcome.channel,
                            d.masked_url, d.outcome.detail));
      }
  } catch (const store::Error& e) {
    delivered = false;
    fail(1, fmt::format("notifications: {}", e.what()));
  }
  if (!errors.empty() || !delivered) return 1;
  std::map<std::string, model::SourceStatus> all_status;
  for (const auto& run : result.report.runs)
    for (const auto& [id, st] : run.source_status)
      if (model::is_degraded(st.state)) all_status[run.topic + "/" + id] = st;
  return exit_code_for(o, all_status);
}

int notify_test(const Options& o, const Frame& f, const std::vector<notify::Channel>& channels) {
  const auto it = std::find_if(channels.begin(), channels.end(), [&](const auto& c) { return c.name == o.channel; });
  if (it == channels.end())
    return fail(2, fmt::format("the {} channel is not configured (set {} in the environment or {})", o.channel,
                               o.channel == "email" ? "LAST30DAYS_NOTIFY_SMTP_URL, _EMAIL_FROM and _EMAIL_TO"
                                                    : "LAST30DAYS_NOTIFY_" + upper(o.channel),
                               f.ctx.config.env_file_path().value_or("~/.config/last30days/.env")));
  const auto out = app::send_sample(*it, f.ctx, delivery_deadline(o));
  if (!out.ok) return fail(1, fmt::format("the sample to {} ({}) was not delivered: {}", it->name, it->masked, out.detail));
  return emit(f.output, fmt::format("sent a sample to {} ({}): {}\n", it->name, it->masked, out.detail));
}

// watch budget: the budgets in force (the environment's and the store's) with today's spend.
// watch budget SOURCE N|off: sets or removes the store's budget for SOURCE, then says which
// budget holds for it when the environment sets one too (the stricter).
int watch_budget(const Options& o, const Frame& f, store::Store& db, const app::StoreBudget& env) {
  const auto now = core::now_unix();
  std::string line;
  if (!o.budget_source.empty()) {
    const auto& source = o.budget_source;
    const bool had = db.budget_set(source, o.budget_requests, now);
    const auto limits = env.limits();
    const auto it = limits.find(source);
    const long env_limit = it != limits.end() && it->second.env ? *it->second.env : -1;  // -1: not set
    const std::string key = app::StoreBudget::key_for(source);
    if (!o.budget_requests) {
      line = fmt::format("no budget for {} in the store{}", source, had ? "" : " (it had none)");
      if (env_limit >= 0) line += fmt::format("; {}={} still holds", key, env_limit);
    } else {
      const long n = *o.budget_requests;
      line = fmt::format("budget for {}: {} requests a day (UTC), kept in the store for every run that uses it", source, n);
      if (env_limit >= 0 && env_limit < n) line += fmt::format("; {}={} is stricter and holds", key, env_limit);
      else if (env_limit > n) line += fmt::format("; {}={} is looser: this one holds", key, env_limit);
      else if (env_limit == n) line += fmt::format("; {} is the same", key);
    }
    line += fmt::format(" · {} spent today\n", db.budget_spent(source, core::format_date(now)));
  }
  const auto budgets = app::budget_status(env, &db, f.ctx.config, now);
  if (o.emit == Emit::json) {
    auto doc = render::budgets_json(budgets, now);
    return emit(f.output,
                render::dump({{"schema_version", 1}, {"kind", "budgets"}, {"day", doc["day"]}, {"sources", doc["sources"]}}));
  }
  if (!o.budget_source.empty()) {
    // What one request costs upstream, when that is not the request itself (YouTube's units).
    const auto* s = sources::by_id(o.budget_source);
    if (const auto cost = s ? s->request_cost(f.ctx.config) : std::string(); o.budget_requests && !cost.empty())
      line += "  " + cost + "\n";
    return emit(f.output, line);
  }
  if (budgets.empty())
    return emit(f.output,
                "no request budgets set (last30days watch budget SOURCE N keeps one in the store; LAST30DAYS_BUDGET_<SOURCE>=N "
                "sets one in the environment)\n");
  return emit(f.output, render::budgets_text(budgets));
}

}  // namespace

int library_command(const Options& o, const Frame& f) {
  if (o.verb == "list" || o.verb == "forget") {
    app::Problem problem;
    auto db = app::open_store(f.ctx, f.writer, core::Deadline::in(memory_budget(o)), &problem);
    if (!db) return fail(problem);
    try {
      if (o.verb == "forget") {
        if (!db->forget(o.topic))
          return fail(2, fmt::format("\"{}\" is not in the library (library list shows what is)", render::term::text(o.topic)));
        return emit(f.output,
                    fmt::format("forgot \"{}\": its runs and the findings only it held\n", render::term::text(o.topic)));
      }
      const auto topics = db->topics();
      return emit(f.output, o.emit == Emit::json ? render::library_topics_json(topics)
                            : o.emit == Emit::md ? render::library_topics_markdown(topics)
                                                 : render::library_topics_compact(topics));
    } catch (const store::Error& e) {
      return fail(1, e.what());
    }
  }
  app::Problem problem;
  const auto result = app::search_library({o.topic, o.limit, o.timeout_seconds, o.save_dir}, f.ctx, f.writer, &problem);
  if (!result) return fail(problem);
  return emit(f.output, o.emit == Emit::json ? render::library_json(*result)
                        : o.emit == Emit::md ? render::library_markdown(*result)
                                             : render::library_compact(*result));
}

int watch_command(const Options& o, const Frame& f) {
  std::string channel_error;
  const auto channels = notify::configured(f.ctx.config, &channel_error);
  if (!channel_error.empty()) return fail(2, channel_error);
  if (o.verb == "notify") return notify_test(o, f, channels);
  // The environment's budgets matter to the commands that spend or show them.
  std::unique_ptr<app::StoreBudget> requests;
  if (o.verb == "run" || o.verb == "list" || o.verb == "budget") {
    std::string budget_error;
    requests = app::StoreBudget::from_config(f.ctx.config, &budget_error);
    if (!requests) return fail(2, budget_error);
  }
  app::Problem problem;
  auto db = app::open_store(
      f.ctx, f.writer, core::Deadline::in(o.verb == "run" ? app::run_budget(research_request(o)) : memory_budget(o)), &problem);
  if (!db) return fail(problem);
  try {
    if (o.verb == "add") {
      model::WatchEntry e;
      e.topic = o.topic;
      e.days = o.days;
      e.every_hours = o.every_hours.value_or(24);
      e.sources = o.sources;
      if (o.notify) e.notify = *o.notify == "none" ? std::vector<std::string>{} : split_names(*o.notify);
      const bool added = db->watch_add(e, core::now_unix());
      std::string notify;
      if (e.notify) notify = e.notify->empty() ? ", no notifications" : ", notify " + sources_text(*e.notify);
      // term::text: the topic is the user's and may hold escape bytes.
      const std::string line = fmt::format("{} \"{}\": every {:g} h, last {} days, {}{}\n", added ? "watching" : "updated",
                                           render::term::text(o.topic), e.every_hours, e.days, sources_text(e.sources), notify);
      return emit(f.output, line);
    }
    if (o.verb == "remove") {
      if (!db->watch_remove(o.topic))
        return fail(2, fmt::format("\"{}\" is not watched (watch list shows what is)", render::term::text(o.topic)));
      return emit(f.output, fmt::format("no longer watching \"{}\"\n", render::term::text(o.topic)));
    }
    if (o.verb == "budget") return watch_budget(o, f, *db, *requests);
    if (o.verb == "list") {
      const auto list = db->watch_list();
      const auto status = app::channel_status(*db, channels);
      const auto now = core::now_unix();
      const auto budgets = app::budget_status(*requests, db.get(), f.ctx.config, now);
      const std::string text = o.emit == Emit::json ? render::watchlist_json(list, status, now, budgets)
                                                    : render::watchlist_compact(list, now, status, budgets);
      return emit(f.output, text);
    }
    return watch_run(o, f, *db, channels, requests.get());
  } catch (const store::Error& e) {
    return fail(1, e.what());
  }
}

}  // namespace cli
