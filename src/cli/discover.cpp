// --discover: one-shot, or one leg of the host-judged protocol, whose files live in
// --save-dir or the config dir.
#include <fmt/format.h>

#include <filesystem>

#include "app/summarize.hpp"
#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "core/file.hpp"
#include "core/log.hpp"
#include "discover/protocol.hpp"
#include "render/render.hpp"

namespace cli {

namespace fs = std::filesystem;

namespace {

// $XDG_STATE_HOME/last30days, else ~/.local/state/last30days: pending nominations are
// state between runs, not configuration. Only absolute paths count, as for the config dir.
std::optional<std::string> state_dir(const core::Config& cfg) {
  if (auto x = cfg.get("XDG_STATE_HOME"); x && x->front() == '/') return *x + "/last30days";
  if (auto h = cfg.home()) return *h + "/.local/state/last30days";
  return std::nullopt;
}

// Protocol files live in --save-dir when given, else in the state dir (checked by
// discover_command before any work starts).
fs::path protocol_dir(const Options& o, const core::Config& cfg) {
  return o.save_dir.empty() ? fs::path(state_dir(cfg).value_or("")) : fs::path(o.save_dir);
}

constexpr auto kDiscoveryStoreBudget = core::Millis(15000);

// Only the top-level discovery records, after the batch: its sub-runs never see the store.
std::unique_ptr<store::Store> open_discovery_store(const Options& o, const Frame& f, int* code) {
  if (!o.store) return nullptr;
  app::Problem problem;
  auto db = app::open_store(f.ctx, f.writer, core::Deadline::in(kDiscoveryStoreBudget), &problem);
  if (!db) *code = fail(problem);
  return db;
}

// With --store, records the finished discovery first; then the brief to stdout or
// --output; with --save or --save-dir also discover-<domain|global>-raw.md and .json in
// the memory dir, like a research brief.
int deliver(const Options& o, const Frame& f, const model::DiscoveryReport& r, store::Store* db = nullptr,
            core::UnixSeconds started = 0) {
  std::optional<std::string> store_error;
  if (db) {
    db->set_deadline(core::Deadline::in(kDiscoveryStoreBudget));
    try {
      db->record({store::run_input(r, started, core::now_unix())});
    } catch (const store::Error& e) {
      store_error = e.what();
    }
  }
  if (int rc = emit(f.output, app::render_discovery(o.emit, r))) return rc;
  if (o.save && !app::save_brief(o.save_dir, f.ctx.config, "discover " + (r.domain.empty() ? std::string("global") : r.domain),
                                 render::discovery_markdown(r), render::discovery_json(r), f.writer))
    return 1;
  if (o.save && db && !store_error) app::index_saved_briefs(*db, o.save_dir, f.ctx.config);
  if (store_error) return fail(1, app::not_recorded(*store_error));
  return exit_code_for(o, r.source_status);
}

std::string progress_title(const std::string& domain) {
  return "last30days discover · " + (domain.empty() ? std::string("global") : "domain \"" + domain + "\"");
}

int one_shot(const Options& o, const Frame& f) {
  int code = 0;
  auto db = open_discovery_store(o, f, &code);
  if (o.store && !db) return code;
  const auto started = core::now_unix();
  ProgressScope progress(o, f.ctx.config, progress_title(o.domain));
  auto report = app::run_discovery(discovery_request(o), f.ctx, progress.hooks());
  progress.finish();
  // Discovery has no whole-run cap: the synthesis gets --timeout, or a minute, of its own.
  if (o.summarize)
    app::summarize(f.ctx, report,
                   core::Deadline::in(o.timeout_seconds ? core::millis_from_seconds(*o.timeout_seconds) : core::Millis(60000)),
                   progress.hooks().stop);
  return deliver(o, f, report, db.get(), started);
}

int nominate_only(const Options& o, const Frame& f) {
  ProgressScope progress(o, f.ctx.config, progress_title(o.domain));
  const auto b = app::nominate(discovery_request(o), f.ctx, progress.hooks());
  progress.finish();
  const fs::path path = protocol_dir(o, f.ctx.config) / discover::kNominationsFile;
  const std::string doc = discover::bundle_to_json(b);
  if (!f.writer.write(path, doc)) return fail(2, fmt::format("--nominate-only: cannot write {}", path.string()));
  core::log::info("wrote {} nominations to {}", b.nominations.size(), path.string());
  const std::string out = o.emit == Emit::json ? doc : render::nominations_compact(b.bundle_id, b.nominations, path.string());
  if (int rc = emit(f.output, out)) return rc;
  return exit_code_for(o, b.source_status);
}

int judgments_leg(const Options& o, const Frame& f) {
  int code = 0;
  auto db = open_discovery_store(o, f, &code);
  if (o.store && !db) return code;
  const auto started = core::now_unix();
  const fs::path dir = protocol_dir(o, f.ctx.config);
  const auto bundle_text = core::read_file_capped(dir / discover::kNominationsFile, core::kProtocolFileCap);
  if (!bundle_text && bundle_text.error.kind == core::FileError::Kind::missing)
    return fail(2, fmt::format("--judgments: no {} in {}: run last30days --discover --nominate-only first",
                               discover::kNominationsFile, dir.string()));
  if (!bundle_text) return fail(2, "--judgments: " + bundle_text.error.message);
  std::string error;
  auto bundle = discover::bundle_from_json(*bundle_text.text, &error);
  if (!bundle)
    return fail(2, fmt::format("--judgments: {}: {} (run last30days --discover --nominate-only again)",
                               (dir / discover::kNominationsFile).string(), error));
  const auto judgments_text = core::read_file_capped(o.judgments_file, core::kHostFileCap);
  if (!judgments_text) return fail(2, "--judgments: " + judgments_text.error.message);
  auto judgments = discover::parse_judgments(*judgments_text.text, &error);
  if (!judgments) return fail(2, error);
  const auto request = discovery_request(o);
  if (!app::apply_judgments(*bundle, *judgments, request.replaying, "--judgments", &error)) return fail(2, error);
  ProgressScope progress(o, f.ctx.config, progress_title(bundle->domain));
  const auto report = app::enrich_judged(*bundle, request, f.ctx, progress.hooks());
  progress.finish();
  const fs::path pending = dir / discover::kPendingFile;
  if (!f.writer.write(pending, discover::pending_to_json(*bundle, report)))
    return fail(2, fmt::format("--judgments: cannot write {}", pending.string()));
  core::log::info("wrote {}; next: last30days --discover --finalize --angles FILE", pending.string());
  return deliver(o, f, report, db.get(), started);
}

int finalize_leg(const Options& o, const Frame& f) {
  const fs::path dir = protocol_dir(o, f.ctx.config);
  const auto text = core::read_file_capped(dir / discover::kPendingFile, core::kProtocolFileCap);
  if (!text && text.error.kind == core::FileError::Kind::missing)
    return fail(2, fmt::format("--finalize: no {} in {}: run the --judgments leg first", discover::kPendingFile, dir.string()));
  if (!text) return fail(2, "--finalize: " + text.error.message);
  std::string error;
  auto pending = discover::pending_from_json(*text.text, &error);
  if (!pending)
    return fail(
        2, fmt::format("--finalize: {}: {} (run the --judgments leg again)", (dir / discover::kPendingFile).string(), error));
  auto& [bundle, report] = *pending;
  const auto angles_text = core::read_file_capped(o.angles_file, core::kHostFileCap);
  if (!angles_text) return fail(2, "--angles: " + angles_text.error.message);
  auto angles = discover::parse_angles(*angles_text.text, &error);
  if (!angles) return fail(2, error);
  // Offline: replay/live mixing cannot matter here, so only id and age are checked.
  if (auto bad = discover::check_bundle(bundle, angles->bundle_id, core::now_unix(), bundle.replay, "--angles"))
    return fail(2, *bad);
  if (!app::apply_angles(report, bundle, *angles, &error)) return fail(2, error);
  return deliver(o, f, report);
}

}  // namespace

app::DiscoveryRequest discovery_request(const Options& o) {
  app::DiscoveryRequest r;
  r.domain = o.domain;
  if (o.days_set) r.days = o.days;
  r.shallow = o.discover_shallow;
  r.sources = o.sources;
  r.timeout_seconds = o.timeout_seconds;
  r.enrich_budget = o.enrich_budget;
  r.enrich_workers = o.enrich_workers;
  r.replaying = !o.replay_dir.empty();
  return r;
}

int discover_command(const Options& o, const Frame& f) {
  const bool protocol = o.nominate_only || !o.judgments_file.empty() || o.finalize;
  if (protocol && o.save_dir.empty() && !state_dir(f.ctx.config))
    return fail(2,
                "the host-judged protocol keeps its files in the state dir, and neither XDG_STATE_HOME nor HOME "
                "is an absolute path: give --save-dir DIR");
  if (o.store && (o.nominate_only || o.finalize))
    return fail(2, "--store records a finished discovery: use it with one-shot --discover or the --judgments leg");
  if (o.nominate_only) return nominate_only(o, f);
  if (!o.judgments_file.empty()) return judgments_leg(o, f);
  if (o.finalize) return finalize_leg(o, f);
  return one_shot(o, f);
}

}  // namespace cli
