// library search and watch add|list|remove|run (spec §7).
#include <fmt/format.h>

#include "app/summarize.hpp"
#include "cli/commands.hpp"
#include "render/render.hpp"

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

int watch_run(const Options& o, const Frame& f, store::Store& db) {
  auto result = app::run_watch({o.all, app::run_budget(research_request(o))}, f.ctx, db);
  if (o.summarize) app::summarize(f.ctx, result.report, core::Deadline::in(app::run_budget(research_request(o))));
  std::string text;
  switch (o.emit) {
    case Emit::json: text = render::watch_json(result.report); break;
    case Emit::md: text = render::watch_markdown(result.report); break;
    default: text = render::watch_compact(result.report); break;
  }
  if (int rc = emit(f.output, text)) return rc;
  if (result.fatal) return fail(1, *result.fatal);
  std::map<std::string, model::SourceStatus> all_status;
  for (const auto& run : result.report.runs)
    for (const auto& [id, st] : run.source_status)
      if (model::is_degraded(st.state)) all_status[run.topic + "/" + id] = st;
  return exit_code_for(o, all_status);
}

}  // namespace

int library_command(const Options& o, const Frame& f) {
  app::Problem problem;
  const auto result = app::search_library({o.topic, o.limit, o.timeout_seconds, o.save_dir}, f.ctx, f.writer, &problem);
  if (!result) return fail(problem);
  return emit(f.output, o.emit == Emit::json ? render::library_json(*result) : render::library_compact(*result));
}

int watch_command(const Options& o, const Frame& f) {
  app::Problem problem;
  auto db = app::open_store(f.ctx, f.writer,
                            core::Deadline::in(o.verb == "run" ? app::run_budget(research_request(o)) : memory_budget(o)), &problem);
  if (!db) return fail(problem);
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
      return emit(f.output, line);
    }
    if (o.verb == "remove") {
      if (!db->watch_remove(o.topic)) return fail(2, fmt::format("\"{}\" is not watched (watch list shows what is)", o.topic));
      return emit(f.output, fmt::format("no longer watching \"{}\"\n", o.topic));
    }
    if (o.verb == "list") {
      const auto list = db->watch_list();
      const std::string text = o.emit == Emit::json ? render::watchlist_json(list) : render::watchlist_compact(list, core::now_unix());
      return emit(f.output, text);
    }
    return watch_run(o, f, *db);
  } catch (const store::Error& e) {
    return fail(1, e.what());
  }
}

}  // namespace cli
