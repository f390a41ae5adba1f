#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "core/log.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "pipeline/client_fetcher.hpp"
#include "pipeline/compare.hpp"
#include "pipeline/plan.hpp"
#include "pipeline/research.hpp"
#include "render/render.hpp"
#include "store/store.hpp"

namespace cli {

namespace fs = std::filesystem;

int emit(RunContext& ctx, const std::string& text) {
  std::string error;
  if (ctx.output->write(text, &error) != persist::Output::Result::failed) return 0;
  std::fprintf(stderr, "last30days: cannot write the output to %s: %s\n", ctx.output->name().c_str(), error.c_str());
  return 1;
}

int exit_code_for(const Options& o, const std::map<std::string, model::SourceStatus>& status) {
  if (!o.strict) return 0;
  for (const auto& [id, st] : status)
    if (model::is_degraded(st.state)) return 3;
  return 0;
}

namespace {

std::string slug(const std::string& topic) {
  std::string out;
  for (const auto& t : core::tokenize(topic)) {
    if (out.size() + t.size() > 60) break;
    out += (out.empty() ? "" : "-") + t;
  }
  return out.empty() ? "topic" : out;
}

}  // namespace

std::optional<std::string> memory_dir(const Options& o, const core::Config& cfg) {
  if (!o.save_dir.empty()) return o.save_dir;
  if (auto d = cfg.get("LAST30DAYS_MEMORY_DIR")) return *d;
  if (auto home = cfg.home()) return *home + "/Documents/Last30Days";
  return std::nullopt;
}

// Only the top-level commands save; research runs themselves write nothing.
bool save_brief(const Options& o, const core::Config& cfg, const std::string& topic, const std::string& markdown,
                const std::string& json, const persist::Writer& writer) {
  const fs::path dir = memory_dir(o, cfg).value_or(".");
  const std::string base = slug(topic) + "-raw";
  if (!writer.write(dir / (base + ".md"), markdown) || !writer.write(dir / (base + ".json"), json)) return false;
  core::log::info("saved {}", (dir / base).string() + ".{md,json}");
  return true;
}

pipeline::ResearchSpec research_spec(const Options& o, const RunContext& ctx, const std::string& topic) {
  pipeline::ResearchSpec spec;
  spec.topic = topic;
  spec.depth = o.depth;
  spec.now = ctx.now;
  spec.window = model::Window::ending(o.as_of.value_or(ctx.now), o.days);
  for (const auto* s : sources::all())
    if (o.sources.empty() || std::find(o.sources.begin(), o.sources.end(), s->id()) != o.sources.end())
      spec.sources.push_back(s);
  return spec;
}

core::Millis run_budget(const Options& o) {
  return o.timeout_seconds ? core::millis_from_seconds(*o.timeout_seconds) : pipeline::profile(o.depth).run_timeout;
}

ResearchRun run_research(const Options& o, const RunContext& ctx, const RunHooks& hooks) {
  pipeline::ClientFetcher fetcher(ctx.client);
  const pipeline::ResearchEnv env{ctx.config, fetcher, core::Deadline::in(run_budget(o)), hooks.stop, hooks.on_source};
  ResearchRun run;
  if (!o.entities.empty()) {
    std::vector<pipeline::ResearchSpec> specs;
    for (const auto& entity : o.entities) specs.push_back(research_spec(o, ctx, entity));
    core::log::progress("comparing {} over {} sources, {} → {}", o.topic, specs.front().sources.size(),
                        core::format_date(specs.front().window.from), core::format_date(specs.front().window.to));
    run.comparison = pipeline::run_comparison(o.topic, specs, env);
    return run;
  }
  pipeline::ResearchSpec spec = research_spec(o, ctx, o.topic);
  if (o.plan_json) {
    spec.host_plan = pipeline::parse_host_plan(*o.plan_json, &run.error);
    if (!spec.host_plan) return run;
  }
  core::log::progress("researching \"{}\" over {} sources, {} → {}", spec.topic, spec.sources.size(),
                      core::format_date(spec.window.from), core::format_date(spec.window.to));
  run.report = pipeline::run_research(spec, env);
  return run;
}

std::string render_research(Emit emit, const ResearchRun& run) {
  if (run.comparison) {
    switch (emit) {
      case Emit::compact: return render::comparison_compact(*run.comparison);
      case Emit::md: return render::comparison_markdown(*run.comparison);
      case Emit::json: return render::comparison_json(*run.comparison);
      case Emit::html: return render::comparison_html(*run.comparison);
    }
  }
  if (!run.report) return {};
  switch (emit) {
    case Emit::compact: return render::research_compact(*run.report);
    case Emit::md: return render::research_markdown(*run.report);
    case Emit::json: return render::research_json(*run.report);
    case Emit::html: return render::research_html(*run.report);
  }
  return {};
}

int ResearchRun::exit_code(const Options& o) const {
  int code = report ? exit_code_for(o, report->source_status) : 0;
  if (comparison)
    for (const auto& e : comparison->entities) code = std::max(code, exit_code_for(o, e.report.source_status));
  return code;
}

int research_command(const Options& o, RunContext& ctx, const persist::Writer& writer) {
  // The store is opened first: a broken store fails fast, before any request is made.
  std::unique_ptr<store::Store> db;
  const auto deadline = core::Deadline::in(run_budget(o));
  if (o.store) {
    int code = 0;
    db = open_store(ctx, writer, deadline, &code);
    if (!db) return code;
  }
  const auto started = core::now_unix();
  const auto window = model::Window::ending(o.as_of.value_or(ctx.now), o.days);
  ProgressScope progress(o, ctx.config,
                         fmt::format("last30days · \"{}\" · {} → {}", o.topic, core::format_date(window.from),
                                     core::format_date(window.to)),
                         !o.entities.empty());
  auto run = run_research(o, ctx, progress.hooks());
  progress.finish();
  if (!run.ok()) {
    std::fprintf(stderr, "last30days: %s\n", run.error.c_str());
    return 2;
  }
  // Only this top-level command records, after the run (spec §6.4); a comparison stores
  // each entity as its own topic, in one transaction.
  std::optional<std::string> store_error;
  if (db) {
    std::vector<model::Report*> reports;
    if (run.report) reports.push_back(&*run.report);
    if (run.comparison)
      for (auto& e : run.comparison->entities) reports.push_back(&e.report);
    store_error = remember(*db, reports, started, deadline);
  }
  if (int rc = emit(ctx, render_research(o.emit, run))) return rc;
  if (o.save && !save_brief(o, ctx.config, run.comparison ? run.comparison->topic : run.report->topic,
                            render_research(Emit::md, run), render_research(Emit::json, run), writer))
    return 1;
  if (o.save && db && !store_error) index_saved_briefs(*db, o, ctx.config);
  if (store_error) return not_recorded(*store_error);
  return run.exit_code(o);
}

}  // namespace cli
