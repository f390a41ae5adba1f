#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "app/run.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "pipeline/client_fetcher.hpp"
#include "pipeline/compare.hpp"
#include "pipeline/plan.hpp"
#include "pipeline/research.hpp"
#include "render/render.hpp"

namespace app {

namespace fs = std::filesystem;

std::vector<const sources::Source*> allowed_sources(const std::vector<std::string>& ids) {
  std::vector<const sources::Source*> out;
  for (const auto* s : sources::all())
    if (ids.empty() || std::find(ids.begin(), ids.end(), s->id()) != ids.end()) out.push_back(s);
  return out;
}

namespace {

// The topic's words, joined by '-'. Words alone lose what set two topics apart ("a/b" and
// "a b", "a-b", a long topic cut at 60 bytes), so unless the name spells the whole topic
// -- its words separated by single spaces, up to case -- a hash of the topic follows.
std::string slug(const std::string& topic) {
  std::string out, words;
  bool cut = false;
  for (const auto& t : core::tokenize(topic)) {
    words += (words.empty() ? "" : " ") + t;
    if (cut || out.size() + t.size() > 60) {
      cut = true;
      continue;
    }
    out += (out.empty() ? "" : "-") + t;
  }
  const std::string spelled = core::collapse_whitespace(topic);
  if (!out.empty() && !cut && core::casefold(spelled) == words) return out;
  return (out.empty() ? "topic" : out) + "-" + core::hex64(core::fnv1a64(spelled)).substr(0, 10);
}

}  // namespace

std::optional<std::string> memory_dir(const std::string& save_dir, const core::Config& cfg) {
  if (!save_dir.empty()) return save_dir;
  if (auto d = cfg.get("LAST30DAYS_MEMORY_DIR")) return *d;
  if (auto home = cfg.home()) return *home + "/Documents/Last30Days";
  return std::nullopt;
}

// Only the top-level commands save; research runs themselves write nothing.
bool save_brief(const std::string& save_dir, const core::Config& cfg, const std::string& topic, const std::string& markdown,
                const std::string& json, const persist::Writer& writer) {
  const fs::path dir = memory_dir(save_dir, cfg).value_or(".");
  const std::string base = slug(topic) + "-raw";
  if (!writer.write(dir / (base + ".md"), markdown) || !writer.write(dir / (base + ".json"), json)) return false;
  core::log::info("saved {}", (dir / base).string() + ".{md,json}");
  return true;
}

std::optional<std::string> settle_topic(const std::string& typed_raw, bool no_compare, ResearchRequest& request) {
  // What the user typed is echoed in briefs, logs and messages: never a raw control
  // character or invalid UTF-8 on a terminal.
  const std::string typed = core::strip_controls(typed_raw);  // comparison separators need the spaces as typed
  request.topic = core::printable_line(typed_raw);
  request.entities.clear();
  if (request.topic.empty()) return "a TOPIC is required (or --discover, doctor, library, watch)";
  if (core::utf8_length(request.topic) > pipeline::kMaxTopicChars)
    return fmt::format("the topic is longer than {} characters", pipeline::kMaxTopicChars);
  if (!no_compare) {
    auto split = pipeline::split_comparison(typed);
    if (!split.error.empty()) return split.error;
    if (!split.entities.empty() && request.plan_json)
      return "--plan describes one topic, not a comparison: drop --plan or add --no-compare";
    request.entities = std::move(split.entities);
  }
  return std::nullopt;
}

pipeline::ResearchSpec research_spec(const ResearchRequest& r, const RunContext& ctx, const std::string& topic) {
  pipeline::ResearchSpec spec;
  spec.topic = topic;
  spec.depth = r.depth;
  spec.now = ctx.now;
  spec.window = model::Window::ending(r.as_of.value_or(ctx.now), r.days);
  spec.sources = allowed_sources(r.sources);
  return spec;
}

core::Millis run_budget(const ResearchRequest& r) {
  return r.timeout_seconds ? core::millis_from_seconds(*r.timeout_seconds) : pipeline::profile(r.depth).run_timeout;
}

void limit_stories(model::Report& report, int limit) {
  if (limit < 0 || report.clusters.size() <= static_cast<std::size_t>(limit)) return;
  report.clusters.resize(static_cast<std::size_t>(limit));
  std::set<std::string> kept;
  for (const auto& c : report.clusters) kept.insert(c.items.begin(), c.items.end());
  std::erase_if(report.items, [&kept](const model::Item& it) { return kept.count(it.id) == 0; });
}

ResearchRun run_research(const ResearchRequest& r, const RunContext& ctx, const RunHooks& hooks) {
  pipeline::ClientFetcher fetcher(ctx.client);
  const pipeline::ResearchEnv env{ctx.config, fetcher,         core::Deadline::in(run_budget(r)),
                                  hooks.stop, hooks.on_source, hooks.budget};
  ResearchRun run;
  if (!r.entities.empty()) {
    std::vector<pipeline::ResearchSpec> specs;
    for (const auto& entity : r.entities) specs.push_back(research_spec(r, ctx, entity));
    core::log::progress("comparing {} over {} sources, {} → {}", r.topic, specs.front().sources.size(),
                        core::format_date(specs.front().window.from), core::format_date(specs.front().window.to));
    run.comparison = pipeline::run_comparison(r.topic, specs, env);
    if (r.limit)
      for (auto& e : run.comparison->entities) limit_stories(e.report, *r.limit);
    return run;
  }
  pipeline::ResearchSpec spec = research_spec(r, ctx, r.topic);
  if (r.plan_json) {
    spec.host_plan = pipeline::parse_host_plan(*r.plan_json, &run.error);
    if (!spec.host_plan) return run;
  }
  core::log::progress("researching \"{}\" over {} sources, {} → {}", spec.topic, spec.sources.size(),
                      core::format_date(spec.window.from), core::format_date(spec.window.to));
  run.report = pipeline::run_research(spec, env);
  if (r.limit) limit_stories(*run.report, *r.limit);
  return run;
}

std::string ResearchRun::topic() const { return comparison ? comparison->topic : report ? report->topic : std::string(); }

std::vector<model::Report*> ResearchRun::reports() {
  std::vector<model::Report*> out;
  if (report) out.push_back(&*report);
  if (comparison)
    for (auto& e : comparison->entities) out.push_back(&e.report);
  return out;
}

std::string render_research(Format f, const ResearchRun& run, std::size_t stories) {
  if (run.comparison) {
    switch (f) {
      case Format::compact: return render::comparison_compact(*run.comparison);
      case Format::md: return render::comparison_markdown(*run.comparison);
      case Format::json: return render::comparison_json(*run.comparison);
      case Format::html: return render::comparison_html(*run.comparison);
    }
  }
  if (!run.report) return {};
  switch (f) {
    case Format::compact: return render::research_compact(*run.report, stories);
    case Format::md: return render::research_markdown(*run.report, stories);
    case Format::json: return render::research_json(*run.report);
    case Format::html: return render::research_html(*run.report, stories);
  }
  return {};
}

}  // namespace app
