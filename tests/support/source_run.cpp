#include "source_run.hpp"

#include <memory>
#include <stdexcept>

#include "http/client.hpp"
#include "pipeline/client_fetcher.hpp"
#include "scenario.hpp"

namespace testing_support {

std::vector<std::string> unmapped_hosts(const sources::Source& s) {
  const auto mapped = Scenario::host_prefixes();
  std::vector<std::string> out;
  for (std::string_view host : s.hosts())
    if (!mapped.count(std::string(host))) out.emplace_back(host);
  return out;
}

namespace {

template <typename Call>
sources::SourceResult via(const std::string& host_map, const core::Config& config, Call call) {
  http::ClientOptions options;
  std::string error;
  auto map = http::HostMap::parse(host_map, &error);
  if (!map) throw std::runtime_error("host map: " + error);
  options.host_map = std::move(*map);
  options.spacing.clear();
  pipeline::ClientFetcher fetcher(std::make_shared<http::Client>(std::move(options)));
  sources::Env env{config, fetcher, core::Deadline::in(core::Millis(20000)), {}};
  return call(env);
}

}  // namespace

sources::SourceResult search_via(const sources::Source& s, const std::string& host_map, const core::Config& config,
                                 const sources::Query& query) {
  return via(host_map, config, [&](sources::Env& env) { return s.search(query, env); });
}

sources::SourceResult listing_via(const sources::Source& s, const std::string& host_map, const core::Config& config,
                                  const sources::ListingQuery& query) {
  return via(host_map, config, [&](sources::Env& env) { return s.listing(query, env); });
}

std::string unanswered(const sources::SourceResult& r) {
  if (r.state == model::SourceState::ok || r.state == model::SourceState::no_results) return "";
  return std::string(model::to_string(r.state)) + ": " + r.reason;
}

}  // namespace testing_support
