#pragma once
// Discovery: nominate from listings -> topics -> enrich under the budget -> floor -> report.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "discover/enrich.hpp"
#include "model/discovery.hpp"
#include "pipeline/research.hpp"

namespace discover {

constexpr std::size_t kNominations = 15;

struct Nominations {
  std::vector<model::Topic> topics;  // fastest first, ids n1..
  std::map<std::string, model::SourceStatus> status;
  long elapsed_ms = 0;
};

// Reads every allowed listing in parallel (deadline-bounded) and groups the items.
Nominations nominate(const std::string& domain, const model::Window& window, core::UnixSeconds now,
                     const std::vector<const sources::Source*>& allowed, const pipeline::ResearchEnv& env);

struct EnrichPlan {
  Tier tier;
  std::vector<const sources::Source*> sources;  // every source the user allowed
  std::shared_ptr<const core::Config> config;
  std::shared_ptr<http::Client> client;
  std::uint64_t http_session = 0;  // the listings' (sources::Fetcher::session): one login for all
  SubRun run = research_subrun;
  std::stop_token stop;          // the caller's cancellation, as well as the budget
  TopicHook on_topic = nullptr;  // progress: see enrich.hpp for when it is called
};

// Warnings about the listings themselves: degraded ones, none answering at all, and in a
// domain run each listing that kept nothing (with its counts), or the fall back to global.
std::vector<std::string> listing_warnings(const std::map<std::string, model::SourceStatus>& status, const std::string& domain);

// Enriches the top kMaxEnriched topics by `score` (velocity, or the judged blend), then
// applies the floor and fold. `score` is parallel to topics.
model::DiscoveryReport enrich_and_select(std::vector<model::Topic> topics, const std::vector<double>& score,
                                         const EnrichPlan& plan, const model::Window& window, core::UnixSeconds now);

}  // namespace discover
