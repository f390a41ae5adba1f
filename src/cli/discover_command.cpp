// --discover: one-shot, or one leg of the host-judged protocol.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include "cli/commands.hpp"
#include "core/file.hpp"
#include "cli/progress.hpp"
#include "core/log.hpp"
#include "discover/discover.hpp"
#include "discover/protocol.hpp"
#include "discover/topics.hpp"
#include "pipeline/client_fetcher.hpp"
#include "render/render.hpp"

namespace cli {

namespace fs = std::filesystem;

namespace {

constexpr int kDefaultDiscoveryDays = 7;  // "spiking now": a week unless --days says otherwise

int usage(const std::string& message) {
  std::fprintf(stderr, "last30days: %s\n", message.c_str());
  return 2;
}

// Protocol files live in --save-dir when given, else in the config dir (checked by
// protocol_dir_error before any work starts).
fs::path protocol_dir(const Options& o, const core::Config& cfg) {
  return o.save_dir.empty() ? fs::path(cfg.config_dir().value_or("")) : fs::path(o.save_dir);
}

std::vector<const sources::Source*> allowed_sources(const Options& o) {
  std::vector<const sources::Source*> out;
  for (const auto* s : sources::all())
    if (o.sources.empty() || std::find(o.sources.begin(), o.sources.end(), s->id()) != o.sources.end()) out.push_back(s);
  return out;
}

discover::Tier apply_overrides(discover::Tier t, const Options& o) {
  if (o.enrich_budget) t.budget_seconds = *o.enrich_budget;
  if (o.enrich_workers) t.max_workers = *o.enrich_workers;
  return t;
}

discover::EnrichPlan make_plan(const Options& o, const RunContext& ctx, discover::Tier tier,
                               std::vector<const sources::Source*> srcs) {
  discover::EnrichPlan plan;
  plan.tier = apply_overrides(std::move(tier), o);
  plan.sources = std::move(srcs);
  plan.config = std::make_shared<const core::Config>(ctx.config);
  plan.client = ctx.client;
  plan.http_session = ctx.http_session;
  plan.run = ctx.subrun;
  return plan;
}

std::string render_report(const Options& o, const model::DiscoveryReport& r) { return render_discovery(o.emit, r); }

constexpr auto kDiscoveryStoreBudget = core::Millis(15000);

// Only the top-level discovery records, after the batch: its sub-runs never see the store.
std::unique_ptr<store::Store> open_discovery_store(const Options& o, RunContext& ctx, const persist::Writer& writer, int* code) {
  if (!o.store) return nullptr;
  return open_store(ctx, writer, core::Deadline::in(kDiscoveryStoreBudget), code);
}

// With --store, records the finished discovery first; then the brief to stdout or
// --output; with --save or --save-dir also discover-<domain|global>-raw.md and .json in
// the memory dir, like a research brief.
int deliver(const Options& o, RunContext& ctx, const model::DiscoveryReport& r, const persist::Writer& writer,
            store::Store* db = nullptr, core::UnixSeconds started = 0) {
  std::optional<std::string> store_error;
  if (db) {
    db->set_deadline(core::Deadline::in(kDiscoveryStoreBudget));
    try {
      db->record({store::run_input(r, started, core::now_unix())});
    } catch (const store::Error& e) {
      store_error = e.what();
    }
  }
  if (int rc = emit(ctx, render_report(o, r))) return rc;
  if (o.save && !save_brief(o, ctx.config, "discover " + (r.domain.empty() ? std::string("global") : r.domain),
                            render::discovery_markdown(r), render::discovery_json(r), writer))
    return 1;
  if (o.save && db && !store_error) index_saved_briefs(*db, o, ctx.config);
  if (store_error) return not_recorded(*store_error);
  return exit_code_for(o, r.source_status);
}

discover::Nominations run_nominations(const Options& o, const RunContext& ctx, const model::Window& window,
                                      const RunHooks& hooks = {}) {
  pipeline::ClientFetcher fetcher(ctx.client, ctx.http_session);
  const auto budget = o.timeout_seconds ? core::millis_from_seconds(*o.timeout_seconds) : core::Millis(25000);
  const pipeline::ResearchEnv env{ctx.config, fetcher, core::Deadline::in(budget), hooks.stop, hooks.on_source};
  core::log::progress("nominating from listings{}", o.domain.empty() ? "" : " in " + o.domain);
  return discover::nominate(o.domain, window, ctx.now, allowed_sources(o), env);
}

std::string progress_title(const std::string& domain) {
  return "last30days discover · " + (domain.empty() ? std::string("global") : "domain \"" + domain + "\"");
}

int one_shot(const Options& o, RunContext& ctx, const persist::Writer& writer) {
  int code = 0;
  auto db = open_discovery_store(o, ctx, writer, &code);
  if (o.store && !db) return code;
  const auto started = core::now_unix();
  ProgressScope progress(o, ctx.config, progress_title(o.domain));
  const auto report = run_discovery(o, ctx, progress.hooks());
  progress.finish();
  return deliver(o, ctx, report, writer, db.get(), started);
}

int nominate_only(const Options& o, RunContext& ctx, const persist::Writer& writer) {
  const auto window = model::Window::ending(ctx.now, o.days_set ? o.days : kDefaultDiscoveryDays);
  ProgressScope progress(o, ctx.config, progress_title(o.domain));
  auto noms = run_nominations(o, ctx, window, progress.hooks());
  progress.finish();
  discover::Bundle b;
  b.bundle_id = discover::new_bundle_id();
  b.tier = o.discover_shallow ? "shallow" : "deep";
  b.domain = o.domain;
  b.window = window;
  b.now = ctx.now;
  b.created_wall = core::now_unix();
  b.replay = !o.replay_dir.empty();
  for (const auto* s : allowed_sources(o)) b.sources.emplace_back(s->id());
  b.source_status = noms.status;
  noms.topics.resize(std::min(noms.topics.size(), discover::kNominations));
  b.nominations = noms.topics;
  const fs::path path = protocol_dir(o, ctx.config) / discover::kNominationsFile;
  const std::string doc = discover::bundle_to_json(b);
  if (!writer.write(path, doc)) return usage(fmt::format("--nominate-only: cannot write {}", path.string()));
  core::log::info("wrote {} nominations to {}", b.nominations.size(), path.string());
  const std::string out = o.emit == Emit::json ? doc : render::nominations_compact(b.bundle_id, b.nominations, path.string());
  if (int rc = emit(ctx, out)) return rc;
  return exit_code_for(o, b.source_status);
}

int judgments_leg(const Options& o, RunContext& ctx, const persist::Writer& writer) {
  int code = 0;
  auto db = open_discovery_store(o, ctx, writer, &code);
  if (o.store && !db) return code;
  const auto started = core::now_unix();
  const fs::path dir = protocol_dir(o, ctx.config);
  const auto bundle_text = core::read_file_capped(dir / discover::kNominationsFile, core::kProtocolFileCap);
  if (!bundle_text && bundle_text.error.kind == core::FileError::Kind::missing)
    return usage(fmt::format("--judgments: no {} in {}: run last30days --discover --nominate-only first",
                             discover::kNominationsFile, dir.string()));
  if (!bundle_text) return usage("--judgments: " + bundle_text.error.message);
  std::string error;
  auto bundle = discover::bundle_from_json(*bundle_text.text, &error);
  if (!bundle)
    return usage(fmt::format("--judgments: {}: {} (run last30days --discover --nominate-only again)",
                             (dir / discover::kNominationsFile).string(), error));
  const auto judgments_text = core::read_file_capped(o.judgments_file, core::kHostFileCap);
  if (!judgments_text) return usage("--judgments: " + judgments_text.error.message);
  auto judgments = discover::parse_judgments(*judgments_text.text, &error);
  if (!judgments) return usage(error);
  if (auto bad = discover::check_bundle(*bundle, judgments->bundle_id, core::now_unix(), !o.replay_dir.empty(), "--judgments"))
    return usage(*bad);

  std::map<std::string, model::Topic*> by_id;
  for (auto& t : bundle->nominations) by_id[t.id] = &t;
  for (const auto& jd : judgments->items) {
    auto it = by_id.find(jd.id);
    if (it == by_id.end()) return usage(fmt::format("--judgments: '{}' is not a nomination of bundle {}", jd.id, bundle->bundle_id));
    auto& t = *it->second;
    if (jd.name) t.name = *jd.name;
    if (jd.junk) t.junk = *jd.junk;
    if (jd.worthiness) t.worthiness = *jd.worthiness;
  }
  std::vector<double> score;
  for (const auto& t : bundle->nominations) score.push_back(discover::blended_score(t.velocity, t.worthiness));
  std::vector<const sources::Source*> srcs;
  for (const auto& id : bundle->sources)
    if (const auto* s = sources::find(id)) srcs.push_back(s);
  const auto env_budget = ctx.config.get("LAST30DAYS_ENRICH_BUDGET_SECONDS");
  const auto tier = bundle->tier == "shallow" ? discover::shallow_tier()
                                              : discover::deep_tier(env_budget ? std::optional<std::string_view>(*env_budget) : std::nullopt);
  auto plan = make_plan(o, ctx, tier, srcs);
  ProgressScope progress(o, ctx.config, progress_title(bundle->domain));
  plan.on_topic = progress.hooks().on_topic;
  // Scored on the bundle's window and clock, not on the clock at resume time.
  auto report = discover::enrich_and_select(bundle->nominations, score, plan, bundle->window, bundle->now);
  progress.finish();
  report.domain = bundle->domain;
  report.source_status = bundle->source_status;
  report.bundle_id = bundle->bundle_id;
  auto lw = discover::listing_warnings(report.source_status, report.domain);
  report.warnings.insert(report.warnings.begin(), lw.begin(), lw.end());
  const fs::path pending = dir / discover::kPendingFile;
  if (!writer.write(pending, discover::pending_to_json(*bundle, report)))
    return usage(fmt::format("--judgments: cannot write {}", pending.string()));
  core::log::info("wrote {}; next: last30days --discover --finalize --angles FILE", pending.string());
  return deliver(o, ctx, report, writer, db.get(), started);
}

int finalize_leg(const Options& o, RunContext& ctx, const persist::Writer& writer) {
  const fs::path dir = protocol_dir(o, ctx.config);
  const auto text = core::read_file_capped(dir / discover::kPendingFile, core::kProtocolFileCap);
  if (!text && text.error.kind == core::FileError::Kind::missing)
    return usage(fmt::format("--finalize: no {} in {}: run the --judgments leg first", discover::kPendingFile, dir.string()));
  if (!text) return usage("--finalize: " + text.error.message);
  std::string error;
  auto pending = discover::pending_from_json(*text.text, &error);
  if (!pending)
    return usage(fmt::format("--finalize: {}: {} (run the --judgments leg again)", (dir / discover::kPendingFile).string(), error));
  auto& [bundle, report] = *pending;
  const auto angles_text = core::read_file_capped(o.angles_file, core::kHostFileCap);
  if (!angles_text) return usage("--angles: " + angles_text.error.message);
  auto angles = discover::parse_angles(*angles_text.text, &error);
  if (!angles) return usage(error);
  // Offline: replay/live mixing cannot matter here, so only id and age are checked.
  if (auto bad = discover::check_bundle(bundle, angles->bundle_id, core::now_unix(), bundle.replay, "--angles"))
    return usage(*bad);
  for (const auto& entry : angles->by_topic) {
    const std::string& key = entry.first;
    const auto& kinds = entry.second;
    auto it = std::find_if(report.results.begin(), report.results.end(),
                           [&key](const model::Topic& t) { return t.id == key || t.name == key; });
    if (it == report.results.end())
      return usage(fmt::format("--angles: '{}' is not a result of bundle {}", key, bundle.bundle_id));
    for (const auto& [kind, value] : kinds) it->angles[kind] = value;
  }
  return deliver(o, ctx, report, writer);
}

}  // namespace

model::DiscoveryReport run_discovery(const Options& o, const RunContext& ctx, const RunHooks& hooks) {
  const auto window = model::Window::ending(ctx.now, o.days_set ? o.days : kDefaultDiscoveryDays);
  auto noms = run_nominations(o, ctx, window, hooks);
  std::vector<double> score;
  for (const auto& t : noms.topics) score.push_back(t.velocity);
  auto plan = make_plan(o, ctx, o.discover_shallow ? discover::shallow_tier() : discover::one_shot_tier(), allowed_sources(o));
  plan.stop = hooks.stop;
  plan.on_topic = hooks.on_topic;
  auto report = discover::enrich_and_select(std::move(noms.topics), score, plan, window, ctx.now);
  report.domain = o.domain;
  report.source_status = std::move(noms.status);
  report.nomination_ms = noms.elapsed_ms;
  auto lw = discover::listing_warnings(report.source_status, report.domain);
  report.warnings.insert(report.warnings.begin(), lw.begin(), lw.end());
  return report;
}

std::string render_discovery(Emit emit, const model::DiscoveryReport& r) {
  switch (emit) {
    case Emit::json: return render::discovery_json(r);
    case Emit::md: return render::discovery_markdown(r);
    default: return render::discovery_compact(r);
  }
}

int discover_command(const Options& o, RunContext& ctx, const persist::Writer& writer) {
  const bool protocol = o.nominate_only || !o.judgments_file.empty() || o.finalize;
  if (protocol && o.save_dir.empty() && !ctx.config.config_dir())
    return usage("the host-judged protocol keeps its files in the config dir, and neither XDG_CONFIG_HOME nor HOME "
                 "is an absolute path: give --save-dir DIR");
  if (o.store && (o.nominate_only || o.finalize))
    return usage("--store records a finished discovery: use it with one-shot --discover or the --judgments leg");
  if (o.nominate_only) return nominate_only(o, ctx, writer);
  if (!o.judgments_file.empty()) return judgments_leg(o, ctx, writer);
  if (o.finalize) return finalize_leg(o, ctx, writer);
  return one_shot(o, ctx, writer);
}

}  // namespace cli
