#pragma once
// Commands: each builds its components from validated options and returns an exit code.
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "cli/options.hpp"
#include "core/config.hpp"
#include "discover/enrich.hpp"
#include "http/client.hpp"
#include "model/comparison.hpp"
#include "model/discovery.hpp"
#include "model/report.hpp"
#include "persist/writer.hpp"
#include "pipeline/research.hpp"
#include "store/store.hpp"

namespace cli {

struct RunContext {
  core::Config config;
  core::UnixSeconds now;  // wall clock, or the recording's clock under --replay
  std::shared_ptr<http::Client> client;
  persist::Output* output = nullptr;  // stdout or --output, opened before any request
  discover::SubRun subrun = discover::research_subrun;  // only a test build changes it (cli::TestSeams)
  // The sources' HTTP session (sources::Fetcher::session) shared by discovery's listings
  // and sub-runs: one Bluesky login, one Reddit token.
  std::uint64_t http_session = sources::Fetcher::new_session();
};

// How a run is watched and stopped from outside (the terminal progress, an MCP call).
// The hooks are called from worker threads; see pipeline::SourceHook and discover::TopicHook.
struct RunHooks {
  std::stop_token stop;
  pipeline::SourceHook on_source = nullptr;
  discover::TopicHook on_topic = nullptr;
};

// The one path from validated options to a finished report, shared by the CLI commands
// and the MCP tools: a research, or a comparison when the topic is "A vs B [vs C ...]".
// Runs write nothing; the caller renders, emits and saves.
struct ResearchRun {
  std::optional<model::Report> report;
  std::optional<model::Comparison> comparison;
  std::string error;  // neither: a contract error (a bad --plan), exit 2 or an MCP tool error
  bool ok() const { return report.has_value() || comparison.has_value(); }
  int exit_code(const Options& o) const;  // 3 under --strict when any source degraded
};
ResearchRun run_research(const Options& o, const RunContext& ctx, const RunHooks& hooks);
std::string render_research(Emit emit, const ResearchRun& run);
// One-shot discovery (not the protocol legs, which read and write files).
model::DiscoveryReport run_discovery(const Options& o, const RunContext& ctx, const RunHooks& hooks);
std::string render_discovery(Emit emit, const model::DiscoveryReport& r);

int research_command(const Options& o, RunContext& ctx, const persist::Writer& writer);  // research or comparison
int discover_command(const Options& o, RunContext& ctx, const persist::Writer& writer);
int doctor_command(const Options& o, RunContext& ctx, const persist::Writer& writer);
int library_command(const Options& o, RunContext& ctx, const persist::Writer& writer);
// Library search as `library search` and the MCP tool run it: o.topic is the query,
// o.limit the limit; saved briefs are indexed first. nullopt with *error (and the exit
// code: 2 for a malformed store setting, 1 for a store that cannot be used).
std::optional<model::LibraryResult> search_library(const Options& o, const RunContext& ctx, const persist::Writer& writer,
                                                   std::string* error, int* exit_code);
int watch_command(const Options& o, RunContext& ctx, const persist::Writer& writer);

// Opens the research store for a top-level command. On failure prints why and sets
// *exit_code (2 for a malformed setting, 1 for a store that cannot be opened).
std::unique_ptr<store::Store> open_store(RunContext& ctx, const persist::Writer& writer, core::Deadline deadline, int* exit_code);
// The store's share after a run: the run's own deadline, at least half a second from now.
core::Deadline store_deadline(core::Deadline run_deadline);
// After the run: marks each report's history and seen_before, then records them all in
// one transaction (a comparison: each entity as its own topic). The error, if any, with
// the marks taken off again.
std::optional<std::string> remember(store::Store& db, const std::vector<model::Report*>& reports, core::UnixSeconds started,
                                    core::Deadline run_deadline);
// Says the run was not recorded; the exit code for that (1).
int not_recorded(const std::string& error);
// Indexes the saved briefs after a --save; a failure is a warning, not the run's.
void index_saved_briefs(store::Store& db, const Options& o, const core::Config& cfg);

// The research of one topic (an entity of a comparison, or the whole topic) as the options ask.
pipeline::ResearchSpec research_spec(const Options& o, const RunContext& ctx, const std::string& topic);
// The whole run's wall-clock cap: --timeout, or the depth's default.
core::Millis run_budget(const Options& o);
// Where --save writes: --save-dir, LAST30DAYS_MEMORY_DIR, or ~/Documents/Last30Days; nullopt
// when none applies (HOME is not an absolute path), which is checked before any work.
std::optional<std::string> memory_dir(const Options& o, const core::Config& cfg);
// --save: <slug>-raw.md and <slug>-raw.json in the memory dir. False (logged) on failure.
bool save_brief(const Options& o, const core::Config& cfg, const std::string& topic, const std::string& markdown,
                const std::string& json, const persist::Writer& writer);

// Writes the rendered output to --output or stdout: 0, or 1 with a message when it could
// not be written (a full disk, a closed stdout). A reader that went away (`| head`) is 0.
int emit(RunContext& ctx, const std::string& text);
// Exit code for a finished run: 3 under --strict when a source is degraded.
int exit_code_for(const Options& o, const std::map<std::string, model::SourceStatus>& status);

}  // namespace cli
