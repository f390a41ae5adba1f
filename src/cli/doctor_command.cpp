// last30days doctor: the probes' table of state, latency and what to do next, and which
// credentials are set (never a value).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "app/budget.hpp"
#include "cli/commands.hpp"
#include "core/json.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "render/json_parts.hpp"
#include "render/render.hpp"
#include "sources/source.hpp"
#include "store/store.hpp"

namespace cli {

namespace {

using Row = app::DoctorRow;

bool works(model::SourceState s) {
  return s == model::SourceState::ok || s == model::SourceState::no_results || s == model::SourceState::partial;
}

std::string one_line(std::string_view s, std::size_t max) { return core::truncate_utf8(core::collapse_whitespace(s), max); }

std::string render_text(const std::vector<Row>& rows, const std::vector<std::pair<std::string, bool>>& creds,
                        const std::optional<std::string>& ytdlp, const std::string& env_file, bool env_exists) {
  std::string out = fmt::format("last30days doctor · config {} ({})\n\n", env_file, env_exists ? "found" : "not found");
  out += fmt::format("{:<13} {:<21} {:>8}  {}\n", "source", "state", "latency", "notes");
  int working = 0;
  std::vector<std::string> setup;
  for (const auto& r : rows) {
    const auto state = r.status.state;
    working += works(state) ? 1 : 0;
    if (state == model::SourceState::skipped_unconfigured) setup.emplace_back(r.source->id());
    const std::string latency =
        state == model::SourceState::skipped_unconfigured ? "-" : fmt::format("{} ms", r.status.elapsed_ms);
    const bool degraded = model::is_degraded(state);
    std::string first = degraded ? one_line(r.status.reason, 110) : r.fix;
    if (state == model::SourceState::skipped_unconfigured) first = r.fix;
    out += fmt::format("{:<13} {:<21} {:>8}  {}\n", r.source->id(), model::to_string(state), latency, first);
    if (degraded && !r.fix.empty()) out += fmt::format("{:<45}  fix: {}\n", "", r.fix);
  }
  std::string set_line;
  for (const auto& [key, set] : creds)
    set_line += fmt::format("{}{} {}", set_line.empty() ? "" : " · ", key, set ? "set" : "not set");
  out += "\ncredentials: " + set_line + "\n";
  out += "yt-dlp: " + (ytdlp ? *ytdlp : std::string("not found on PATH")) + "\n";
  out += fmt::format("\n{} of {} sources work.", working, rows.size());
  const bool offline =
      std::none_of(rows.begin(), rows.end(), [](const Row& r) { return works(r.status.state); }) &&
      std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.status.state == model::SourceState::unreachable; });
  if (offline) out += " Nothing could be reached: check this machine's network connection or proxy.";
  if (!setup.empty()) {
    std::string names;
    for (const auto& n : setup) names += (names.empty() ? "" : ", ") + n;
    out += fmt::format(" Not set up: {} (see the notes above).", names);
  }
  out += "\n";
  return out;
}

std::string render_markdown(const std::vector<Row>& rows, const std::string& env_file) {
  std::string out =
      fmt::format("# last30days doctor\n\nConfig: `{}`\n\n| source | state | latency | notes |\n|---|---|---|---|\n", env_file);
  auto cell = [](std::string s) {
    std::string o;
    for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
    return o;
  };
  for (const auto& r : rows) {
    std::string notes = model::is_degraded(r.status.state) && r.status.state != model::SourceState::skipped_unconfigured
                            ? one_line(r.status.reason, 110) + (r.fix.empty() ? "" : " — fix: " + r.fix)
                            : r.fix;
    out +=
        fmt::format("| {} | {} | {} | {} |\n", r.source->id(), model::to_string(r.status.state),
                    r.status.state == model::SourceState::skipped_unconfigured ? "-" : fmt::format("{} ms", r.status.elapsed_ms),
                    cell(notes));
  }
  return out;
}

std::string render_json(const std::vector<Row>& rows, const std::vector<std::pair<std::string, bool>>& creds,
                        const std::optional<std::string>& ytdlp, const std::string& env_file, bool env_exists,
                        core::UnixSeconds now) {
  nlohmann::ordered_json sources = nlohmann::ordered_json::array();
  int working = 0;
  for (const auto& r : rows) {
    working += works(r.status.state) ? 1 : 0;
    const bool skipped = r.status.state == model::SourceState::skipped_unconfigured;
    sources.push_back({{"id", r.source->id()},
                       {"name", r.source->name()},
                       {"state", model::to_string(r.status.state)},
                       {"reason", r.status.reason.empty() ? nlohmann::ordered_json(nullptr)
                                                          : nlohmann::ordered_json(one_line(r.status.reason, 300))},
                       {"latency_ms", skipped ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.status.elapsed_ms)},
                       {"requests", r.status.requests},
                       {"fix", r.fix.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.fix)}});
  }
  nlohmann::ordered_json credentials = nlohmann::ordered_json::object();
  for (const auto& [key, set] : creds) credentials[key] = set;
  const nlohmann::ordered_json doc = {
      {"schema_version", 1},
      {"kind", "doctor"},
      {"generated_at", core::format_iso8601(now)},
      {"config_file", {{"path", env_file}, {"exists", env_exists}}},
      {"sources", sources},
      {"credentials", credentials},
      {"tools", {{"yt-dlp", ytdlp ? nlohmann::ordered_json(*ytdlp) : nlohmann::ordered_json(nullptr)}}},
      {"working", working},
      {"total", rows.size()}};
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace

namespace {

// The budgets in force (the environment's and the store's) with today's spend; an absent
// SQLite store is not created for it (nothing was spent, nothing is kept). A source whose
// request costs something upstream (YouTube's quota units) says so even with no budget set,
// so a quota can be turned into one.
void add_budgets(const Options& o, const Frame& f, std::string& text) {
  std::string budget_error;
  auto env = app::StoreBudget::from_config(f.ctx.config, &budget_error);
  if (!env) {
    text += "! " + budget_error + "\n";
    return;
  }
  const auto now = core::now_unix();
  std::vector<model::BudgetStatus> budgets;
  std::string store_error;
  std::string where_error;
  const auto where = store::locate(f.ctx.config, &where_error);
  std::error_code ec;
  try {
    std::unique_ptr<store::Store> db;
    if (!where) store_error = where_error;
    else if (where->kind == store::Location::Kind::postgres || std::filesystem::exists(where->target, ec))
      db = store::Store::open(*where, f.writer, core::Deadline::in(core::Millis(5000)));
    budgets = app::budget_status(*env, db.get(), f.ctx.config, now);
  } catch (const store::Error& e) {
    store_error = e.what();
    budgets = app::budget_status(*env, nullptr, f.ctx.config, now);
  }
  std::map<std::string, std::string> costs;  // sources with no budget whose request costs something upstream
  for (const auto* s : sources::all()) {
    const bool budgeted = std::any_of(budgets.begin(), budgets.end(), [&](const auto& b) { return b.source == s->id(); });
    if (auto cost = s->request_cost(f.ctx.config); !cost.empty() && !budgeted) costs[std::string(s->id())] = cost;
  }
  if (budgets.empty() && costs.empty() && store_error.empty()) return;
  if (o.emit == Emit::json) {
    auto doc = core::json::parse_ordered_or_discarded(text);
    auto b = render::budgets_json(budgets, now);
    b["request_costs"] = costs;
    b["error"] = store_error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(store_error);
    doc["budgets"] = std::move(b);
    text = doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    return;
  }
  const bool md = o.emit == Emit::md;
  text += md ? "" : "\n";
  text += render::budgets_text(budgets, md);
  if (budgets.empty())
    text += fmt::format("{}none set (LAST30DAYS_BUDGET_<SOURCE>=N, or last30days watch budget SOURCE N)\n", md ? "- " : "  ");
  for (const auto& [source, cost] : costs) text += fmt::format("{}{} (no budget): {}\n", md ? "- " : "  ", source, cost);
  if (!store_error.empty()) text += fmt::format("  (the store could not be read: {})\n", store_error);
}

}  // namespace

int doctor_command(const Options& o, const Frame& f) {
  const auto d = app::run_doctor({o.sources, o.timeout_seconds}, f.ctx);
  std::string text;
  switch (o.emit) {
    case Emit::json: text = render_json(d.rows, d.credentials, d.ytdlp, d.env_file, d.env_exists, f.ctx.now); break;
    case Emit::md: text = render_markdown(d.rows, d.env_file); break;
    default: text = render_text(d.rows, d.credentials, d.ytdlp, d.env_file, d.env_exists); break;
  }
  add_budgets(o, f, text);
  if (const int failed = emit(f.output, text)) return failed;
  // doctor is the report on what does not answer: it is not "no source answered" (4).
  const int code = exit_code_for(o, d.status);
  return code == kNoSourceAnswered ? (o.strict ? 3 : 0) : code;
}

}  // namespace cli
