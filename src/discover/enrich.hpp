#pragma once
// Enrichment under a wall-clock budget that bounds the process (spec §6).
//
// The contract:
//  - at most max_workers sub-runs are in flight at any moment;
//  - at the steady-clock deadline every in-flight sub-run is cancelled: its stop
//    token fires and the HTTP layer aborts the transfers and closes their sockets;
//  - a sub-run that ignores cancellation is abandoned after a short grace: its
//    worker is a detached thread that owns (through shared_ptr) everything it
//    touches, so neither it nor static destruction can delay or crash the exit
//    (core::exit_process skips static destructors while stragglers live);
//  - a sub-run that throws is contained: that topic is "failed" with the message;
//  - results keep the input order; late results are dropped, never half-applied.
//
// PRECONDITION THAT MAKES ABANDONING SAFE: sub-runs write nothing -- no save, no
// store, no library sync, no cache. It is enforced by types, not by this comment:
//  - a sub-run is a plain function pointer (SubRun), so it cannot capture state;
//  - all it receives is a SubRunContext, which has no persist::Writer, no path and
//    no store; persist::Writer cannot be copied or default-constructed, so a
//    copyable context could not carry one (checked by the static_asserts below);
//  - opening a store::Store takes that Writer, and a Store cannot be copied or
//    moved either: a sub-run can neither hold the parent's store nor open its own.
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/config.hpp"
#include "core/deadline.hpp"
#include "http/client.hpp"
#include "model/discovery.hpp"
#include "model/report.hpp"
#include "persist/writer.hpp"
#include "sources/source.hpp"
#include "store/store.hpp"

namespace discover {

struct Tier {
  std::string name;  // "one-shot" | "shallow" | "deep"
  model::Depth depth;
  int max_workers;
  double budget_seconds;
};
constexpr int kMaxEnriched = 6;             // topics that get a sub-run
constexpr double kMaxBudgetSeconds = 3600;  // --enrich-budget and LAST30DAYS_ENRICH_BUDGET_SECONDS

Tier one_shot_tier();
Tier shallow_tier();  // keeps the one-shot constants
// Deep resume tier; LAST30DAYS_ENRICH_BUDGET_SECONDS (the raw value, if set) overrides
// the budget when it parses as a positive finite number, capped at kMaxBudgetSeconds
// like --enrich-budget (with a warning).
Tier deep_tier(std::optional<std::string_view> env_budget);
// nullopt for blank, non-numeric, trailing junk, non-finite or <= 0.
std::optional<double> parse_budget_knob(std::string_view text);

struct SubRunContext {
  std::string topic;
  model::Window window;
  model::Depth depth = model::Depth::quick;
  core::UnixSeconds now = 0;
  std::vector<const sources::Source*> sources;  // the registry's, alive for the process
  std::shared_ptr<const core::Config> config;
  std::shared_ptr<http::Client> client;               // a straggler keeps the client alive
  std::uint64_t http_session = 0;                     // sources::Fetcher::session (0 = its own)
  core::Deadline deadline = core::Deadline::never();  // set by the batch: its own deadline
};
// What a sub-run returns. The batch decides a topic's status from this value alone, never
// from when it arrives: a sub-run whose requests all time out at the budget's instant
// returns at about that instant, and which thread reads the clock first must not decide
// whether its topic was enriched.
struct SubRunResult {
  model::Report report;
  // Set by a sub-run that did not finish its research (its deadline passed, it was
  // cancelled, or every source it asked timed out): the reason. Its topic enriched nothing.
  std::optional<std::string> unfinished;
};
using SubRun = SubRunResult (*)(const SubRunContext&, std::stop_token);

static_assert(std::is_copy_constructible_v<SubRunContext>);
static_assert(!std::is_copy_constructible_v<persist::Writer> && !std::is_move_constructible_v<persist::Writer> &&
                  !std::is_default_constructible_v<persist::Writer>,
              "a Writer must not be able to travel into a sub-run context");
static_assert(!std::is_copy_constructible_v<store::Store> && !std::is_move_constructible_v<store::Store> &&
                  !std::is_default_constructible_v<store::Store>,
              "a Store must not be able to travel into a sub-run context");
static_assert(std::is_invocable_r_v<std::unique_ptr<store::Store>, decltype(&store::Store::open), const store::Location&,
                                    const persist::Writer&, core::Deadline, store::OpenOptions>,
              "opening a Store must take the Writer capability");

// Progress of the batch: it starts (total topics, budget), a topic starts, a topic ends.
struct TopicEvent {
  enum class Kind { batch_started, started, finished } kind = Kind::started;
  std::string_view topic;
  model::EnrichStatus status = model::EnrichStatus::enriched;  // finished only
  int items = 0;
  int total = 0;                     // batch_started only
  core::Clock::time_point deadline;  // the budget's end
};
// Called with the batch's lock held and never after enrich_batch returned (so a
// straggler cannot call into a caller that is gone): thread-safe, quick, no re-entry.
using TopicHook = std::function<void(const TopicEvent&)>;

struct BatchOptions {
  int max_workers = 3;
  core::Millis budget{240000};
  core::Millis grace{300};  // after cancelling, how long to wait for workers to return
  std::stop_token stop;     // the caller's cancellation (an MCP cancel): ends the batch early
  TopicHook on_topic = nullptr;
};

struct BatchResult {
  std::vector<model::TopicEnrichment> outcomes;  // input order
  long elapsed_ms = 0;
  int abandoned = 0;       // workers still running when the batch returned
  int peak_in_flight = 0;  // sub-runs running at once, at most max_workers
};

constexpr std::string_view kBudgetExhausted = "enrichment budget exhausted";
constexpr std::string_view kCancelled = "cancelled";

// Runs every task through `run` under the budget. Never throws for a sub-run's sake.
BatchResult enrich_batch(std::vector<SubRunContext> tasks, SubRun run, const BatchOptions& options);

constexpr std::string_view kAllSourcesTimedOut = "every source timed out";

// Whether a research report finished, as research_subrun decides it: nullopt when it did,
// else the reason. `budget_binds`: the batch's deadline came before any source's own.
std::optional<std::string> unfinished_research(const model::Report& report, bool budget_binds, bool out_of_time);

// The production sub-run: a research run at the context's depth, writing nothing.
SubRunResult research_subrun(const SubRunContext& ctx, std::stop_token stop);

}  // namespace discover
