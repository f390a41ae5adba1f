#pragma once
// Renderers read a finished report and nothing else: no HTTP, no sources.
#include <string>

#include "model/discovery.hpp"
#include "model/report.hpp"

namespace render {

std::string research_json(const model::Report& r);
std::string research_compact(const model::Report& r);
std::string research_markdown(const model::Report& r);
std::string research_html(const model::Report& r);

std::string discovery_json(const model::DiscoveryReport& r);
std::string discovery_compact(const model::DiscoveryReport& r);
std::string discovery_markdown(const model::DiscoveryReport& r);
std::string nominations_compact(const std::string& bundle_id, const std::vector<model::Topic>& topics, const std::string& path);

// Shared by the text renderers.
std::string engagement_summary(const std::vector<model::Engagement>& engagement);  // "812 points · 411 comments"
std::string human_number(double v);                       // 1234 -> "1.2k"

}  // namespace render
