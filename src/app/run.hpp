#pragma once
// The application layer: every run as a function over a request that says what the run
// needs, returning its result. The front ends (cli/, mcp/) turn flags or JSON arguments
// into these requests and results into output; nothing here parses argv or JSON-RPC,
// and nothing here writes to stdout.
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "app/format.hpp"
#include "core/config.hpp"
#include "discover/enrich.hpp"
#include "discover/protocol.hpp"
#include "http/client.hpp"
#include "model/comparison.hpp"
#include "model/discovery.hpp"
#include "model/memory.hpp"
#include "model/report.hpp"
#include "notify/notify.hpp"
#include "persist/writer.hpp"
#include "pipeline/research.hpp"
#include "store/store.hpp"

namespace app {

// What a run may use, built once per process (or per MCP call, with a fresh clock).
struct RunContext {
  core::Config config;
  core::UnixSeconds now;  // wall clock, or the recording's clock under --replay
  std::shared_ptr<http::Client> client;
  discover::SubRun subrun = discover::research_subrun;  // only a test build changes it (program::TestSeams)
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
  pipeline::RequestBudget* budget = nullptr;  // daily request budgets (app::RunBudget), when any is set
};

// Why a run did not happen: the message in the product's words (the front end may
// rename flags to its own terms) and the exit code the CLI gives it (2: the request or
// a setting is wrong; 1: something could not be used, such as the store).
struct Problem {
  int exit_code = 2;
  std::string message;
};

// The sources a run may use: these ids (validated by the front end), or all when empty.
std::vector<const sources::Source*> allowed_sources(const std::vector<std::string>& ids);

// ---- research and comparison ------------------------------------------------------------

struct ResearchRequest {
  std::string topic;                  // printable, as shown in briefs
  std::vector<std::string> entities;  // "A vs B [vs C ...]": 2..6 entities, else empty
  int days = 30;
  std::optional<core::UnixSeconds> as_of;  // UTC midnight of the as-of day
  model::Depth depth = model::Depth::standard;
  std::vector<std::string> sources;      // validated ids; empty = all
  std::optional<std::string> plan_json;  // a host's query plan (the --plan JSON)
  std::optional<double> timeout_seconds;
  std::optional<int> limit;  // at most this many stories (and their items) in the report
};

// The topic as typed -> request.topic and .entities. The checks every front end makes:
// not empty, not too long, a comparison well formed (unless no_compare) and not with a
// plan. The message names the CLI's flags (--no-compare, --plan).
std::optional<std::string> settle_topic(const std::string& typed, bool no_compare, ResearchRequest& request);

// The one path from a request to a finished report: a research, or a comparison when the
// request has entities. Runs write nothing; the caller renders, emits, stores and saves.
struct ResearchRun {
  std::optional<model::Report> report;
  std::optional<model::Comparison> comparison;
  std::string error;  // neither: a contract error (a bad plan)
  bool ok() const { return report.has_value() || comparison.has_value(); }
  std::string topic() const;
  std::vector<model::Report*> reports();  // the report, or each entity's
};
ResearchRun run_research(const ResearchRequest& r, const RunContext& ctx, const RunHooks& hooks);
// stories: how many stories a brief shows (the CLI's --limit); the rest are counted in an
// "N more" line. JSON holds every story the report has.
std::string render_research(Format f, const ResearchRun& run, std::size_t stories = 12);  // 12: render::kDefaultStories
// The research of one topic (an entity of a comparison, or the whole topic) as asked.
pipeline::ResearchSpec research_spec(const ResearchRequest& r, const RunContext& ctx, const std::string& topic);
// The whole run's wall-clock cap: the request's timeout, or the depth's default.
core::Millis run_budget(const ResearchRequest& r);
// Keeps the first `limit` stories of a report and the items they hold.
void limit_stories(model::Report& report, int limit);

// ---- the research store -----------------------------------------------------------------

// Opens the research store, or says why not (2 for a malformed setting, 1 for a store
// that cannot be opened). With `unanswered`, a store that did not answer in time
// (store::Unanswered) is no problem: its message goes there, so the caller can go on without it.
std::unique_ptr<store::Store> open_store(const RunContext& ctx, const persist::Writer& writer, core::Deadline deadline,
                                         Problem* problem, std::string* unanswered = nullptr);
// How long research waits for the store to connect and check its schema: a frozen server
// costs this much of the run, not all of it.
inline constexpr core::Millis kStoreOpenShare{5000};
// The store's share after a run: the run's own deadline, at least half a second from now.
core::Deadline store_deadline(core::Deadline run_deadline);
// After the run: marks each report's history and seen_before, then records them all in
// one transaction (a comparison: each entity as its own topic). The error, if any, with
// the marks taken off again.
std::optional<std::string> remember(store::Store& db, const std::vector<model::Report*>& reports, core::UnixSeconds started,
                                    core::Deadline run_deadline);
// "...; the run was not recorded".
std::string not_recorded(const std::string& error);

// ---- saved briefs -----------------------------------------------------------------------

// Where saved briefs go: save_dir, LAST30DAYS_MEMORY_DIR, or ~/Documents/Last30Days;
// nullopt when none applies (HOME is not an absolute path).
std::optional<std::string> memory_dir(const std::string& save_dir, const core::Config& cfg);
// <slug>-raw.md and <slug>-raw.json in the memory dir. False (logged) on failure.
bool save_brief(const std::string& save_dir, const core::Config& cfg, const std::string& topic, const std::string& markdown,
                const std::string& json, const persist::Writer& writer);
// Indexes the saved briefs of the memory dir; a failure is a warning, not the run's.
void index_saved_briefs(store::Store& db, const std::string& save_dir, const core::Config& cfg);

// ---- library search ---------------------------------------------------------------------

struct LibraryRequest {
  std::string query;
  std::optional<int> limit;
  std::optional<double> timeout_seconds;
  std::string save_dir;  // whose saved briefs are indexed first ("" = the default memory dir)
};
constexpr int kDefaultLibraryLimit = 10;
// Saved briefs are indexed first. nullopt with *problem.
std::optional<model::LibraryResult> search_library(const LibraryRequest& r, const RunContext& ctx, const persist::Writer& writer,
                                                   Problem* problem);

class StoreBudget;  // app/budget.hpp

// ---- watch run --------------------------------------------------------------------------

struct WatchRunRequest {
  bool all = false;        // every watched topic, not only the due ones
  core::Millis budget{0};  // each topic's research budget
  // The environment's budgets; the store's join them at the start, the spend is added at the end.
  StoreBudget* requests = nullptr;
};
struct WatchedTopic {
  model::WatchEntry entry;
  model::Report report;
  model::WatchRun run;
  core::UnixSeconds started = 0;
};
struct WatchRunResult {
  model::WatchReport report;
  std::optional<std::string> fatal;      // the store failed: the runs so far are in the report
  std::vector<WatchedTopic> researched;  // classified, claimed, not yet recorded
  std::string claimant;
  bool news() const;  // any topic with new or surging findings
};
// Researches and classifies each due topic (claimed, so each runs exactly once across
// processes). Nothing is recorded: the caller writes the digest, then commit_watch (or,
// when the digest could not be written, release_watch: the topics stay due, their news new).
WatchRunResult run_watch(const WatchRunRequest& r, const RunContext& ctx, store::Store& db);
// Records each topic's run; a topic with news has its digest queued, in the same
// transaction, for each channel it notifies. Returns one message per topic not recorded.
std::vector<std::string> commit_watch(const WatchRunResult& result, store::Store& db,
                                      const std::vector<notify::Channel>& channels, core::Millis budget);
void release_watch(const WatchRunResult& result, store::Store& db);
// Sends each channel's queued digests as one message (this run's and any an earlier run
// could not deliver); a delivered queue is emptied, a failed one stays for the next run.
struct Delivery {
  notify::Outcome outcome;
  std::string masked_url;
};
std::vector<Delivery> deliver_pending(store::Store& db, const std::vector<notify::Channel>& channels, const RunContext& ctx,
                                      core::Deadline deadline);
// `watch notify test CHANNEL`: a sample digest to one channel.
notify::Outcome send_sample(const notify::Channel& channel, const RunContext& ctx, core::Deadline deadline);
// What `watch list` shows of each configured channel.
std::vector<model::ChannelStatus> channel_status(store::Store& db, const std::vector<notify::Channel>& channels);

// ---- discovery --------------------------------------------------------------------------

struct DiscoveryRequest {
  std::string domain;       // "" = global
  std::optional<int> days;  // default: a week
  bool shallow = false;
  std::vector<std::string> sources;
  std::optional<double> timeout_seconds;  // the listings' budget
  std::optional<double> enrich_budget;
  std::optional<int> enrich_workers;
  bool replaying = false;  // the client answers from a recording
};
constexpr int kDefaultDiscoveryDays = 7;  // "spiking now": a week unless asked otherwise

// One-shot discovery: nominations, enrichment under the budget, ranking.
model::DiscoveryReport run_discovery(const DiscoveryRequest& r, const RunContext& ctx, const RunHooks& hooks);
std::string render_discovery(Format f, const model::DiscoveryReport& r);

// The host-judged protocol. Leg 1: the nominations as a bundle for the host to judge.
discover::Bundle nominate(const DiscoveryRequest& r, const RunContext& ctx, const RunHooks& hooks);
// Leg 2: the host's judgments applied to the bundle (false with *error: a judgment names
// no nomination of the bundle, the bundle expired...; what: how the judgments were given,
// "--judgments", for the messages), then enrichment and ranking of the judged bundle.
bool apply_judgments(discover::Bundle& bundle, const discover::Judgments& judgments, bool replaying, const std::string& what,
                     std::string* error);
model::DiscoveryReport enrich_judged(const discover::Bundle& bundle, const DiscoveryRequest& r, const RunContext& ctx,
                                     const RunHooks& hooks);
// Leg 3: the host's angles applied to the pending result. False with *error.
bool apply_angles(model::DiscoveryReport& report, const discover::Bundle& bundle, const discover::Angles& angles,
                  std::string* error);

// ---- doctor -----------------------------------------------------------------------------

struct DoctorRequest {
  std::vector<std::string> sources;
  std::optional<double> timeout_seconds;
};
struct DoctorRow {
  const sources::Source* source;
  model::SourceStatus status;
  std::string fix;
};
struct DoctorResult {
  std::vector<DoctorRow> rows;
  std::vector<std::pair<std::string, bool>> credentials;  // key, set (never a value)
  std::optional<std::string> ytdlp;
  std::string env_file;  // shown with ~ for HOME
  bool env_exists = false;
  std::map<std::string, model::SourceStatus> status;
};
// Every source probed at once with its cheapest request.
DoctorResult run_doctor(const DoctorRequest& r, const RunContext& ctx);

}  // namespace app
