// Discovery: one-shot, and the legs of the host-judged protocol (spec §8) as functions
// over bundles and judgments; where the bundle lives is the front end's business.
#include <fmt/format.h>

#include <algorithm>

#include "app/run.hpp"
#include "core/log.hpp"
#include "discover/discover.hpp"
#include "discover/topics.hpp"
#include "pipeline/client_fetcher.hpp"
#include "render/render.hpp"

namespace app {

namespace {

discover::Tier apply_overrides(discover::Tier t, const DiscoveryRequest& r) {
  if (r.enrich_budget) t.budget_seconds = *r.enrich_budget;
  if (r.enrich_workers) t.max_workers = *r.enrich_workers;
  return t;
}

discover::EnrichPlan make_plan(const DiscoveryRequest& r, const RunContext& ctx, discover::Tier tier,
                               std::vector<const sources::Source*> srcs) {
  discover::EnrichPlan plan;
  plan.tier = apply_overrides(std::move(tier), r);
  plan.sources = std::move(srcs);
  plan.config = std::make_shared<const core::Config>(ctx.config);
  plan.client = ctx.client;
  plan.http_session = ctx.http_session;
  plan.run = ctx.subrun;
  return plan;
}

model::Window discovery_window(const DiscoveryRequest& r, const RunContext& ctx) {
  return model::Window::ending(ctx.now, r.days.value_or(kDefaultDiscoveryDays));
}

discover::Nominations run_nominations(const DiscoveryRequest& r, const RunContext& ctx, const model::Window& window,
                                      const RunHooks& hooks) {
  pipeline::ClientFetcher fetcher(ctx.client, ctx.http_session);
  const auto budget = r.timeout_seconds ? core::millis_from_seconds(*r.timeout_seconds) : core::Millis(25000);
  const pipeline::ResearchEnv env{ctx.config, fetcher, core::Deadline::in(budget), hooks.stop, hooks.on_source};
  core::log::progress("nominating from listings{}", r.domain.empty() ? "" : " in " + r.domain);
  return discover::nominate(r.domain, window, ctx.now, allowed_sources(r.sources), env);
}

}  // namespace

model::DiscoveryReport run_discovery(const DiscoveryRequest& r, const RunContext& ctx, const RunHooks& hooks) {
  const auto window = discovery_window(r, ctx);
  auto noms = run_nominations(r, ctx, window, hooks);
  std::vector<double> score;
  for (const auto& t : noms.topics) score.push_back(t.velocity);
  auto plan = make_plan(r, ctx, r.shallow ? discover::shallow_tier() : discover::one_shot_tier(), allowed_sources(r.sources));
  plan.stop = hooks.stop;
  plan.on_topic = hooks.on_topic;
  auto report = discover::enrich_and_select(std::move(noms.topics), score, plan, window, ctx.now);
  report.domain = r.domain;
  report.source_status = std::move(noms.status);
  report.nomination_ms = noms.elapsed_ms;
  auto lw = discover::listing_warnings(report.source_status, report.domain);
  report.warnings.insert(report.warnings.begin(), lw.begin(), lw.end());
  return report;
}

std::string render_discovery(Format f, const model::DiscoveryReport& r) {
  switch (f) {
    case Format::json: return render::discovery_json(r);
    case Format::md: return render::discovery_markdown(r);
    default: return render::discovery_compact(r);
  }
}

discover::Bundle nominate(const DiscoveryRequest& r, const RunContext& ctx, const RunHooks& hooks) {
  const auto window = discovery_window(r, ctx);
  auto noms = run_nominations(r, ctx, window, hooks);
  discover::Bundle b;
  b.bundle_id = discover::new_bundle_id();
  b.tier = r.shallow ? "shallow" : "deep";
  b.domain = r.domain;
  b.window = window;
  b.now = ctx.now;
  b.created_wall = core::now_unix();
  b.replay = r.replaying;
  for (const auto* s : allowed_sources(r.sources)) b.sources.emplace_back(s->id());
  b.source_status = noms.status;
  noms.topics.resize(std::min(noms.topics.size(), discover::kNominations));
  b.nominations = noms.topics;
  return b;
}

bool apply_judgments(discover::Bundle& bundle, const discover::Judgments& judgments, bool replaying, const std::string& what,
                     std::string* error) {
  if (auto bad = discover::check_bundle(bundle, judgments.bundle_id, core::now_unix(), replaying, what)) {
    *error = *bad;
    return false;
  }
  std::map<std::string, model::Topic*> by_id;
  for (auto& t : bundle.nominations) by_id[t.id] = &t;
  for (const auto& jd : judgments.items) {
    auto it = by_id.find(jd.id);
    if (it == by_id.end()) {
      *error = fmt::format("{}: '{}' is not a nomination of bundle {}", what, jd.id, bundle.bundle_id);
      return false;
    }
    auto& t = *it->second;
    if (jd.name) t.name = *jd.name;
    if (jd.junk) t.junk = *jd.junk;
    if (jd.worthiness) t.worthiness = *jd.worthiness;
  }
  return true;
}

model::DiscoveryReport enrich_judged(const discover::Bundle& bundle, const DiscoveryRequest& r, const RunContext& ctx,
                                     const RunHooks& hooks) {
  std::vector<double> score;
  for (const auto& t : bundle.nominations) score.push_back(discover::blended_score(t.velocity, t.worthiness));
  std::vector<const sources::Source*> srcs;
  for (const auto& id : bundle.sources)
    if (const auto* s = sources::find(id)) srcs.push_back(s);
  const auto env_budget = ctx.config.get("LAST30DAYS_ENRICH_BUDGET_SECONDS");
  const auto tier = bundle.tier == "shallow"
                        ? discover::shallow_tier()
                        : discover::deep_tier(env_budget ? std::optional<std::string_view>(*env_budget) : std::nullopt);
  auto plan = make_plan(r, ctx, tier, srcs);
  plan.stop = hooks.stop;
  plan.on_topic = hooks.on_topic;
  // Scored on the bundle's window and clock, not on the clock at resume time.
  auto report = discover::enrich_and_select(bundle.nominations, score, plan, bundle.window, bundle.now);
  report.domain = bundle.domain;
  report.source_status = bundle.source_status;
  report.bundle_id = bundle.bundle_id;
  auto lw = discover::listing_warnings(report.source_status, report.domain);
  report.warnings.insert(report.warnings.begin(), lw.begin(), lw.end());
  return report;
}

bool apply_angles(model::DiscoveryReport& report, const discover::Bundle& bundle, const discover::Angles& angles,
                  std::string* error) {
  for (const auto& entry : angles.by_topic) {
    const std::string& key = entry.first;
    const auto& kinds = entry.second;
    auto it = std::find_if(report.results.begin(), report.results.end(),
                           [&key](const model::Topic& t) { return t.id == key || t.name == key; });
    if (it == report.results.end()) {
      *error = fmt::format("--angles: '{}' is not a result of bundle {}", key, bundle.bundle_id);
      return false;
    }
    for (const auto& [kind, value] : kinds) it->angles[kind] = value;
  }
  return true;
}

}  // namespace app
