#include "cli/app.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/config_check.hpp"
#include "cli/options.hpp"
#include "core/file.hpp"
#include "core/json.hpp"
#include "core/log.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "core/url.hpp"
#include "http/client.hpp"
#include "pipeline/research.hpp"
#include "store/store.hpp"
#include "synth/synthesize.hpp"

namespace cli {

namespace fs = std::filesystem;

namespace {

// A cassette remembers when it was recorded, so a replay sees the same window.
constexpr const char* kRunMeta = "run.json";

// The recording's clock, or why the directory is not a usable recording.
std::optional<core::UnixSeconds> replay_clock(const std::string& dir, core::UnixSeconds wall_now, std::string* error) {
  const fs::path path = fs::path(dir) / kRunMeta;
  const auto text = core::read_file_capped(path, core::kHostFileCap);
  if (!text) {
    *error = text.error.kind == core::FileError::Kind::missing
                 ? fmt::format("'{}' is not a recording: it has no {} (make one with --record DIR)", dir, kRunMeta)
                 : text.error.message;
    return std::nullopt;
  }
  const auto parsed = core::json::parse(*text.text);
  if (!parsed || !parsed.value->is_object()) {
    *error = fmt::format("{}: {}", path.string(), parsed.too_deep ? parsed.error : std::string("not a JSON object"));
    return std::nullopt;
  }
  const nlohmann::json& j = *parsed.value;
  const auto now = j.find("now");
  // A recording is made by a clock this program could have read: after 2000, not in the future.
  constexpr core::UnixSeconds kY2k = 946684800;
  if (now == j.end() || !now->is_number_integer() || now->get<long long>() < kY2k || now->get<long long>() > wall_now + 86400) {
    *error = fmt::format("{}: 'now' must be the recording's Unix time (an integer after 2000, not in the future)", path.string());
    return std::nullopt;
  }
  return now->get<core::UnixSeconds>();
}

std::string record_meta(core::UnixSeconds now) { return nlohmann::json{{"now", now}, {"version", L30_VERSION}}.dump(1) + "\n"; }

// What --output must never be: a file this run (or any run) reads or keeps. Writing the
// brief there would replace it -- the store, its journal files, the config, a recording.
std::optional<std::string> output_clash(const Options& o, const core::Config& config) {
  const fs::path out(o.output_file);
  std::string ignored;
  if (auto where = store::locate(config, &ignored); where && where->kind == store::Location::Kind::sqlite)
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      if (core::same_file(out, where->target + suffix))
        return fmt::format("--output '{}' is the research store{} ({}): writing the brief there would destroy it", o.output_file,
                           *suffix ? std::string(" file ") + suffix : std::string(), where->display);
  if (auto env = config.env_file_path(); env && core::same_file(out, *env))
    return fmt::format("--output '{}' is the config file {}", o.output_file, *env);
  for (const std::string* dir : {&o.record_dir, &o.replay_dir})
    if (!dir->empty() && core::inside_directory(out, *dir))
      return fmt::format("--output '{}' is inside the recording '{}'", o.output_file, *dir);
  return std::nullopt;
}

int usage(const std::string& message) { return fail(2, message); }

}  // namespace

int prepare(int argc, const char* const* argv, const persist::Writer& writer, std::optional<Launch>* launch) {
  const auto wall_now = core::now_unix();
  auto parsed = parse_args(argc, argv, wall_now);
  if (!parsed.options) {
    if (!parsed.to_stdout) {
      std::fputs(parsed.text.c_str(), stderr);
      return parsed.exit_code;
    }
    std::string error;
    auto out = writer.open("-", persist::Writer::Parents::must_exist, &error);
    if (out && out->write(parsed.text, &error) != persist::Output::Result::failed) return parsed.exit_code;
    std::fprintf(stderr, "last30days: cannot write to stdout: %s\n", error.c_str());
    return 1;
  }
  Options& o = *parsed.options;
  core::log::set_quiet(o.quiet);
  if (!parsed.note.empty()) std::fprintf(stderr, "last30days: %s\n", parsed.note.c_str());
  // Where the output goes is settled before any work: an impossible --output fails now,
  // not after a 30 s run, and a FIFO gets its writer now -- if a reader comes within the
  // run's timeout.
  std::string output_error;
  const bool to_stdout = o.output_file.empty() || o.output_file == "-";
  const auto reader_wait =
      o.timeout_seconds ? core::millis_from_seconds(*o.timeout_seconds) : pipeline::profile(o.depth).run_timeout;
  auto output = writer.open(to_stdout ? "-" : o.output_file, persist::Writer::Parents::must_exist, &output_error, reader_wait);
  if (!output && to_stdout) {
    std::fprintf(stderr, "last30days: cannot write to stdout: %s\n", output_error.c_str());
    return 1;
  }
  if (!output) return usage(fmt::format("--output '{}': {}", o.output_file, output_error));

  app::RunContext ctx{core::Config::from_process(), wall_now, nullptr};
  for (const auto& secret : ctx.config.secret_values()) core::redact::add_secret(secret);  // warns about unsafe ones
  if (!ctx.config.file_error().empty()) return usage(ctx.config.file_error());
  for (const auto& w : config_warnings(ctx.config)) std::fprintf(stderr, "last30days: warning: %s\n", w.c_str());
  if (auto key = ctx.config.malformed_credential())
    return usage(
        fmt::format("{} contains a control character (a line break?): fix it in the environment or the config file", *key));
  if (!to_stdout)
    if (auto clash = output_clash(o, ctx.config)) return usage(*clash);
  if (o.summarize) {  // before any request: a synthesis that cannot be asked for is a usage error
    std::string error;
    const auto settings = synth::settings_from(ctx.config, &error);
    if (!settings) return usage(error);
    const auto url = core::Url::parse(settings->endpoint.base_url);
    if (!settings->endpoint.key.empty() && url && url->scheme == "http" && url->host != "127.0.0.1" && url->host != "localhost" &&
        url->host != "::1" && url->host != "[::1]")
      core::log::warn("LAST30DAYS_LLM_KEY goes to {} over plain http: anyone on the path can read it (use https)", url->host);
  }
  if (o.save && !app::memory_dir(o.save_dir, ctx.config))
    return usage("--save: HOME is not an absolute path; give --save-dir DIR or set LAST30DAYS_MEMORY_DIR");

  if (!o.replay_dir.empty()) {
    if (!fs::is_directory(o.replay_dir)) return usage(fmt::format("--replay: '{}' is not a directory", o.replay_dir));
    std::string error;
    const auto t = replay_clock(o.replay_dir, wall_now, &error);
    if (!t) return usage("--replay: " + error);
    ctx.now = *t;
  }

  http::ClientOptions copts;
  if (auto spec = ctx.config.get("LAST30DAYS_HOST_MAP")) {
    std::string error;
    auto map = http::HostMap::parse(*spec, &error);
    if (!map) {
      std::fprintf(stderr, "last30days: LAST30DAYS_HOST_MAP: %s\n", error.c_str());
      return 2;
    }
    copts.host_map = std::move(*map);
  }
  copts.record_dir = o.record_dir;
  if (!o.record_dir.empty()) copts.record_meta = record_meta(ctx.now);  // run.json, written by the cassette
  copts.replay_dir = o.replay_dir;
  try {
    ctx.client = std::make_shared<http::Client>(std::move(copts));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "last30days: %s\n", e.what());
    return 2;
  }

  launch->emplace(Launch{std::move(o), std::move(ctx), std::move(*output)});
  return 0;
}

int execute(Launch& launch, const persist::Writer& writer) {
  const Options& o = launch.options;
  const Frame frame{launch.ctx, launch.output, writer};
  switch (o.command) {
    case Command::research: return research_command(o, frame);
    case Command::discover: return discover_command(o, frame);
    case Command::doctor: return doctor_command(o, frame);
    case Command::mcp: return 1;          // served by the MCP front end (program::run)
    case Command::completions: return 1;  // answered by parse_args
    case Command::library: return library_command(o, frame);
    case Command::watch: return watch_command(o, frame);
  }
  return 1;
}

}  // namespace cli
