#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "core/log.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "pipeline/client_fetcher.hpp"
#include "pipeline/plan.hpp"
#include "pipeline/research.hpp"
#include "render/render.hpp"

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
  return o.timeout_seconds ? core::Millis(static_cast<long long>(*o.timeout_seconds * 1000)) : pipeline::profile(o.depth).run_timeout;
}

int research_command(const Options& o, RunContext& ctx, const persist::Writer& writer) {
  if (!o.entities.empty()) return compare_command(o, ctx, writer);
  pipeline::ResearchSpec spec = research_spec(o, ctx, o.topic);
  if (o.plan_json) {
    std::string error;
    spec.host_plan = pipeline::parse_host_plan(*o.plan_json, &error);
    if (!spec.host_plan) {
      std::fprintf(stderr, "last30days: %s\n", error.c_str());
      return 2;
    }
  }
  pipeline::ClientFetcher fetcher(ctx.client);
  const pipeline::ResearchEnv env{ctx.config, fetcher, core::Deadline::in(run_budget(o)), {}};
  core::log::progress("researching \"{}\" over {} sources, {} → {}", spec.topic, spec.sources.size(),
                      core::format_date(spec.window.from), core::format_date(spec.window.to));
  const model::Report report = pipeline::run_research(spec, env);

  std::string text;
  switch (o.emit) {
    case Emit::compact: text = render::research_compact(report); break;
    case Emit::md: text = render::research_markdown(report); break;
    case Emit::json: text = render::research_json(report); break;
    case Emit::html: text = render::research_html(report); break;
  }
  if (int rc = emit(ctx, text)) return rc;
  if (o.save && !save_brief(o, ctx.config, report.topic, render::research_markdown(report), render::research_json(report), writer))
    return 1;
  return exit_code_for(o, report.source_status);
}

int doctor_command(const Options& o, RunContext& ctx, const persist::Writer&) {
  // A real probe: one quick search per source, so the answer reflects the network now.
  pipeline::ResearchSpec spec;
  spec.topic = "open source";
  spec.depth = model::Depth::quick;
  spec.now = ctx.now;
  spec.window = model::Window::ending(ctx.now, 7);
  for (const auto* s : sources::all())
    if (o.sources.empty() || std::find(o.sources.begin(), o.sources.end(), s->id()) != o.sources.end())
      spec.sources.push_back(s);
  pipeline::ClientFetcher fetcher(ctx.client);
  const auto budget = o.timeout_seconds ? core::Millis(static_cast<long long>(*o.timeout_seconds * 1000)) : core::Millis(20000);
  const pipeline::ResearchEnv env{ctx.config, fetcher, core::Deadline::in(budget), {}};
  sources::Query q;
  q.sub_queries = {{spec.topic, 1.0}};
  q.window = spec.window;
  q.depth = spec.depth;
  q.limit = 5;
  auto fetched = pipeline::fetch_all(spec.sources, env, core::Millis(15000),
                                     [&](const sources::Source& s, sources::Env& senv) { return s.search(q, senv); });
  std::string out = "last30days doctor\n";
  int healthy = 0;
  for (const auto* s : spec.sources) {
    const auto& st = fetched.status[std::string(s->id())];
    const bool good = !model::is_degraded(st.state);
    healthy += good && st.state != model::SourceState::skipped_unconfigured ? 1 : 0;
    out += fmt::format("  {:<14} {:<21} {:>5} ms  {}\n", s->id(), model::to_string(st.state), st.elapsed_ms, st.reason);
    std::string hint;
    switch (st.state) {
      case model::SourceState::unreachable: hint = "check the network, a proxy, or LAST30DAYS_HOST_MAP"; break;
      case model::SourceState::rate_limited: hint = "wait, or set credentials that raise the limit"; break;
      case model::SourceState::auth_failed: hint = "the configured credentials were rejected: renew them in ~/.config/last30days/.env"; break;
      case model::SourceState::skipped_unconfigured: hint = "set its credentials in ~/.config/last30days/.env to enable it"; break;
      default: break;
    }
    if (!hint.empty()) out += fmt::format("  {:<14} fix: {}\n", "", hint);
  }
  out += fmt::format("{} of {} sources answered. Config file: {}\n", healthy, spec.sources.size(), ctx.config.env_file_path().value_or("none (HOME is not an absolute path)"));
  if (int rc = emit(ctx, out)) return rc;
  return exit_code_for(o, fetched.status);
}

}  // namespace cli
