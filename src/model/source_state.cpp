#include "model/source_state.hpp"

#include <array>

namespace model {

namespace {
constexpr std::array<std::string_view, 10> kNames{
    "ok",          "no-results", "partial",      "rate-limited",         "auth-failed",
    "unreachable", "timeout",    "schema-drift", "skipped-unconfigured", "error"};
}

std::string_view to_string(SourceState s) { return kNames[static_cast<std::size_t>(s)]; }

std::optional<SourceState> parse_source_state(std::string_view s) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == s) return static_cast<SourceState>(i);
  return std::nullopt;
}

bool is_degraded(SourceState s) {
  return s != SourceState::ok && s != SourceState::no_results && s != SourceState::skipped_unconfigured;
}

bool answered(SourceState s) { return s == SourceState::ok || s == SourceState::no_results || s == SourceState::partial; }

bool any_answered(const std::map<std::string, SourceStatus>& status) {
  for (const auto& [id, st] : status)
    if (answered(st.state)) return true;
  return false;
}

}  // namespace model
