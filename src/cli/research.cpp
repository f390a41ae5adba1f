#include <fmt/format.h>

#include <cstdio>

#include "app/budget.hpp"
#include "app/summarize.hpp"
#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "core/log.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"

namespace cli {

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "last30days: %s\n", core::redact::scrub_value(message).c_str());
  return code;
}

int fail(const app::Problem& p) { return fail(p.exit_code, p.message); }

int emit(persist::Output& output, const std::string& text) {
  std::string error;
  if (output.write(text, &error) != persist::Output::Result::failed) return 0;
  return fail(1, fmt::format("cannot write the output to {}: {}", output.name(), error));
}

int exit_code_for(const Options& o, const std::map<std::string, model::SourceStatus>& status) {
  if (!status.empty() && !model::any_answered(status)) return kNoSourceAnswered;
  if (!o.strict) return 0;
  for (const auto& [id, st] : status)
    if (model::is_degraded(st.state)) return 3;
  return 0;
}

app::ResearchRequest research_request(const Options& o) {
  app::ResearchRequest r;
  r.topic = o.topic;
  r.entities = o.entities;
  r.days = o.days;
  r.as_of = o.as_of;
  r.depth = o.depth;
  r.sources = o.sources;
  r.plan_json = o.plan_json;
  r.timeout_seconds = o.timeout_seconds;
  return r;
}

int research_command(const Options& o, const Frame& f) {
  const auto request = research_request(o);
  // The store is opened first: a broken store fails fast, before any request is made. One
  // that does not answer within its share (a frozen server) costs only that share: the
  // research runs and prints, and the run ends with the store's error, not recorded.
  std::unique_ptr<store::Store> db;
  std::optional<std::string> store_error;
  const auto deadline = core::Deadline::in(app::run_budget(request));
  if (o.store) {
    app::Problem problem;
    std::string unanswered;
    db = app::open_store(f.ctx, f.writer, deadline.earliest(core::Deadline::in(app::kStoreOpenShare)), &problem, &unanswered);
    if (!db && unanswered.empty()) return fail(problem);
    if (!db) {
      core::log::warn("{}: researching without it", unanswered);
      store_error = std::move(unanswered);
    }
  }
  app::Problem budget_problem;
  auto budget = app::RunBudget::open(f.ctx, f.writer, db.get(), deadline, &budget_problem, store_error);
  if (!budget && !budget_problem.message.empty()) return fail(budget_problem);
  const auto started = core::now_unix();
  const auto window = model::Window::ending(o.as_of.value_or(f.ctx.now), o.days);
  ProgressScope progress(
      o, f.ctx.config,
      fmt::format("last30days · \"{}\" · {} → {}", o.topic, core::format_date(window.from), core::format_date(window.to)),
      !o.entities.empty());
  auto hooks = progress.hooks();
  hooks.budget = budget ? budget->get() : nullptr;
  auto run = app::run_research(request, f.ctx, hooks);
  progress.finish();
  if (budget) budget->close(deadline);
  if (!run.ok()) return fail(2, run.error);
  if (o.summarize) app::summarize(f.ctx, run, deadline, progress.hooks().stop);
  // Only this top-level command records, after the run (spec §6.4); a comparison stores
  // each entity as its own topic, in one transaction.
  if (db) store_error = app::remember(*db, run.reports(), started, deadline);
  if (int rc = emit(f.output, app::render_research(o.emit, run, story_limit(o)))) return rc;
  if (o.save && !app::save_brief(o.save_dir, f.ctx.config, run.topic(), app::render_research(Emit::md, run, story_limit(o)),
                                 app::render_research(Emit::json, run), f.writer))
    return 1;
  if (o.save && db && !store_error) app::index_saved_briefs(*db, o.save_dir, f.ctx.config);
  if (store_error) return fail(1, app::not_recorded(*store_error));
  // A comparison says "no source answered" only when that is true of every entity.
  int code = 0;
  bool none_answered = !run.reports().empty();
  for (const auto* r : run.reports()) {
    const int c = exit_code_for(o, r->source_status);
    if (c != kNoSourceAnswered) none_answered = false;
    code = std::max(code, c == kNoSourceAnswered ? (o.strict ? 3 : 0) : c);
  }
  return none_answered ? kNoSourceAnswered : code;
}

}  // namespace cli
