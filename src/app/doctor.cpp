// doctor: every source probed at once with its cheapest request, each with what to do next.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "app/run.hpp"
#include "core/text.hpp"
#include "pipeline/client_fetcher.hpp"
#include "pipeline/research.hpp"
#include "proc/subprocess.hpp"

namespace app {

namespace {

constexpr core::Millis kProbeBudget{10000};  // each source's own deadline
constexpr core::Millis kDoctorTimeout{15000};

// "/home/ann/.config/last30days/.env" -> "~/.config/last30days/.env"
std::string tilde(const std::string& path, const core::Config& cfg) {
  const auto home = cfg.home();
  if (home && home->size() > 1 && path.rfind(*home + "/", 0) == 0) return "~" + path.substr(home->size());
  return path;
}

std::string generic_fix(model::SourceState s, std::string_view env_file) {
  using S = model::SourceState;
  switch (s) {
    case S::unreachable: return "check the network or proxy (LAST30DAYS_HOST_MAP reroutes a host)";
    case S::timeout: return "the source was slow: try again, or give doctor --timeout SECONDS";
    case S::rate_limited: return "wait and try again later";
    case S::auth_failed: return fmt::format("a credential was rejected: renew it in {}", env_file);
    case S::schema_drift: return "the API answered in an unexpected shape: update last30days";
    case S::skipped_unconfigured: return fmt::format("set its credentials in {}", env_file);
    case S::error: return "see the reason above";
    default: return {};
  }
}

// A network or format problem has the same fix whatever the source; otherwise the
// source knows best (its credentials, its keyless limits).
std::string fix_for(const sources::Source& s, model::SourceState st, const core::Config& cfg, std::string_view env_file) {
  using S = model::SourceState;
  if (st == S::unreachable || st == S::timeout || st == S::schema_drift || st == S::error) return generic_fix(st, env_file);
  std::string advice = s.advice(st, cfg, env_file);
  return advice.empty() ? generic_fix(st, env_file) : advice;
}

}  // namespace

DoctorResult run_doctor(const DoctorRequest& r, const RunContext& ctx) {
  const auto srcs = allowed_sources(r.sources);
  pipeline::ClientFetcher fetcher(ctx.client);
  const auto budget = r.timeout_seconds ? core::millis_from_seconds(*r.timeout_seconds) : kDoctorTimeout;
  const pipeline::ResearchEnv env{ctx.config, fetcher, core::Deadline::in(budget), {}};
  // In parallel, each with its own short deadline; politeness is the HTTP client's, as in a run.
  auto probed = pipeline::fetch_all(srcs, env, std::min(kProbeBudget, budget),
                                    [&](const sources::Source& s, sources::Env& senv) { return s.probe(senv, ctx.now); });

  DoctorResult out;
  const auto env_path = ctx.config.env_file_path();
  out.env_file = env_path ? tilde(*env_path, ctx.config) : std::string("the .env file (HOME is not an absolute path)");
  std::error_code ec;
  out.env_exists = env_path && std::filesystem::is_regular_file(*env_path, ec);
  for (const auto* s : srcs) {
    DoctorRow row{s, probed.status[std::string(s->id())], {}};
    row.fix = fix_for(*s, row.status.state, ctx.config, out.env_file);
    out.rows.push_back(std::move(row));
    for (auto key : s->config_keys())
      if (std::none_of(out.credentials.begin(), out.credentials.end(), [&](const auto& c) { return c.first == key; }))
        out.credentials.emplace_back(std::string(key), !core::trim(ctx.config.get(key).value_or("")).empty());
  }
  out.ytdlp = proc::find_in_path("yt-dlp", ctx.config.get("PATH").value_or(""));
  out.status = std::move(probed.status);
  return out;
}

}  // namespace app
