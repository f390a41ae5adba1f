#pragma once
// One source's search or listing sent over HTTP to a fake internet, as a run sends it: the
// registry's and the eval's checks that every registered source has a fake answering it.
#include <string>
#include <vector>

#include "core/config.hpp"
#include "sources/source.hpp"

namespace testing_support {

// The hosts `s` declares (Source::hosts) that Scenario::host_prefixes(), the map both the
// tests' and the eval's fakes use, sends to no fake.
std::vector<std::string> unmapped_hosts(const sources::Source& s);

// `host_map` is a LAST30DAYS_HOST_MAP spec (FakeUpstream::host_map). No per-host spacing:
// a fake has no rate limit to respect.
sources::SourceResult search_via(const sources::Source& s, const std::string& host_map, const core::Config& config,
                                 const sources::Query& query);
sources::SourceResult listing_via(const sources::Source& s, const std::string& host_map, const core::Config& config,
                                  const sources::ListingQuery& query);

// "" when the fake answered the source as its platform would (ok, or no-results: nothing of
// the fixtures matched), else the state and reason.
std::string unanswered(const sources::SourceResult& r);

}  // namespace testing_support
