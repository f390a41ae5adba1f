#include "cli/app.hpp"

#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "http/client.hpp"

namespace cli {

namespace fs = std::filesystem;

namespace {

// A cassette remembers when it was recorded, so a replay sees the same window.
constexpr const char* kRunMeta = "run.json";

std::optional<core::UnixSeconds> replay_clock(const std::string& dir) {
  std::ifstream f(fs::path(dir) / kRunMeta);
  if (!f) return std::nullopt;
  auto j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.contains("now") || !j["now"].is_number_integer()) return std::nullopt;
  return j["now"].get<core::UnixSeconds>();
}

bool write_record_meta(const std::string& dir, core::UnixSeconds now, const persist::Writer& writer) {
  return writer.write(fs::path(dir) / kRunMeta, nlohmann::json{{"now", now}, {"version", L30_VERSION}}.dump(1) + "\n");
}

}  // namespace

int run(int argc, const char* const* argv) {
  const auto wall_now = core::now_unix();
  auto parsed = parse_args(argc, argv, wall_now);
  if (!parsed.options) {
    std::fputs(parsed.text.c_str(), parsed.to_stdout ? stdout : stderr);
    return parsed.exit_code;
  }
  Options& o = *parsed.options;
  core::log::set_quiet(o.quiet);
  // The one Writer of the process: only commands run from here may write files.
  const persist::Writer writer;

  RunContext ctx{core::Config::from_process(), wall_now, nullptr};
  core::log::set_secrets(ctx.config.secret_values());

  if (!o.replay_dir.empty()) {
    if (!fs::is_directory(o.replay_dir)) {
      std::fprintf(stderr, "last30days: --replay: '%s' is not a directory\n", o.replay_dir.c_str());
      return 2;
    }
    if (auto t = replay_clock(o.replay_dir)) ctx.now = *t;
  }
  if (!o.record_dir.empty() && !write_record_meta(o.record_dir, ctx.now, writer)) {
    std::fprintf(stderr, "last30days: --record: cannot write to '%s'\n", o.record_dir.c_str());
    return 2;
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
  copts.replay_dir = o.replay_dir;
  copts.secrets = ctx.config.secret_values();
  try {
    ctx.client = std::make_shared<http::Client>(std::move(copts));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "last30days: %s\n", e.what());
    return 2;
  }

  switch (o.command) {
    case Command::research: return research_command(o, ctx, writer);
    case Command::discover: return discover_command(o, ctx, writer);
    case Command::doctor: return doctor_command(o, ctx, writer);
    case Command::library:
    case Command::watch:
      std::fprintf(stderr, "last30days: '%s' needs the research store, which this build does not include yet\n",
                   o.command == Command::library ? "library" : "watch");
      return 2;
  }
  return 1;
}

}  // namespace cli
