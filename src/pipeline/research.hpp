#pragma once
// One research run: plan -> fetch -> normalize -> window -> relevance -> freshness ->
// engagement -> prune -> dedupe -> fusion -> rerank -> clusters -> outcome.
#include <functional>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/deadline.hpp"
#include "model/report.hpp"
#include "sources/source.hpp"

namespace pipeline {

struct DepthProfile {
  int limit;                   // items asked per sub-query
  core::Millis source_budget;  // each source's own deadline
  core::Millis run_timeout;    // default --timeout
};
DepthProfile profile(model::Depth depth);

struct ResearchSpec {
  std::string topic;
  model::Depth depth = model::Depth::standard;
  model::Window window;
  std::optional<model::Plan> host_plan;
  std::vector<const sources::Source*> sources;
  core::UnixSeconds now = 0;
  bool comments = true;             // quote the best items' discussions (discovery sub-runs only count items)
  std::size_t max_sub_queries = 0;  // 0: the depth's (pipeline::max_sub_queries); else the plan's first ones
};

// One source starting or finishing inside a run (the progress hook's event).
struct SourceEvent {
  std::string_view topic;  // the run's topic (an entity of a comparison); empty for listings
  std::string_view source;
  bool finished = false;
  model::SourceState state = model::SourceState::ok;  // finished only
  int items = 0;                                      // fetched, before the window and dedupe
  long elapsed_ms = 0;
  std::string_view reason;
};
// Called on the source's own worker thread as it starts and as it finishes, so it
// must be thread-safe and quick. Used by the terminal progress and MCP progress.
using SourceHook = std::function<void(const SourceEvent&)>;

// What a research run may touch: the network through a Fetcher and read-only
// configuration. There is deliberately no store, save directory or cache here:
// a run writes nothing, which is what makes abandoning a discovery sub-run safe.
// Daily request budgets (LAST30DAYS_BUDGET_<SOURCE>, spec §3): asked before a source
// runs, told what it spent after. Thread-safe (sources run on their own threads).
class RequestBudget {
 public:
  virtual ~RequestBudget() = default;
  // nullopt: the source may run; else why not (it is skipped as rate-limited).
  virtual std::optional<std::string> refuse(std::string_view source) = 0;
  virtual void spent(std::string_view source, int requests) = 0;
};

struct ResearchEnv {
  const core::Config& config;
  sources::Fetcher& http;
  core::Deadline deadline;
  std::stop_token stop;
  SourceHook on_source = nullptr;   // optional
  RequestBudget* budget = nullptr;  // optional: no budgets
};

// Stage 2, exposed for discovery: every source on its own thread. Each source ends by
// its own deadline (HTTP is deadline-bounded and cancellable), so the join is bounded.
struct FetchResult {
  std::vector<model::Item> items;
  std::map<std::string, model::SourceStatus> status;
};
FetchResult fetch_all(const std::vector<const sources::Source*>& srcs, const ResearchEnv& env, core::Millis source_budget,
                      const std::function<sources::SourceResult(const sources::Source&, sources::Env&)>& call);

// Thread-safe: runs may proceed concurrently (discovery does).
model::Report run_research(const ResearchSpec& spec, const ResearchEnv& env);

}  // namespace pipeline
