#pragma once
// The closed set of states a source ends a run in (spec §4).
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace model {

enum class SourceState {
  ok,
  no_results,
  partial,
  rate_limited,
  auth_failed,
  unreachable,
  timeout,
  schema_drift,
  skipped_unconfigured,
  error,
};

std::string_view to_string(SourceState s);  // "no-results", "rate-limited", ...
std::optional<SourceState> parse_source_state(std::string_view s);
// ok / no-results / skipped-unconfigured are healthy; anything else makes --strict exit 3.
bool is_degraded(SourceState s);
// The source was asked and answered (partial counts: some of it answered).
bool answered(SourceState s);
struct SourceStatus;
bool any_answered(const std::map<std::string, SourceStatus>& status);

struct SourceStatus {
  SourceState state = SourceState::ok;
  int items = 0;       // items the source contributed after the pipeline
  std::string reason;  // empty = null in JSON
  long elapsed_ms = 0;
  int requests = 0;
  // Comments of the run's best items: threads asked, threads that could not be read and
  // why. A failed thread never changes the state: the item just has no quotes.
  int comment_threads = 0;
  int comment_failures = 0;
  std::string comments_reason{};
};

}  // namespace model
