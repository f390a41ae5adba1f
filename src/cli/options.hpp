#pragma once
// Command line: raw flags (CLI11) -> validated Options. Nothing here touches the network.
#include <optional>
#include <string>
#include <vector>

#include "app/format.hpp"
#include "core/time.hpp"
#include "model/report.hpp"

namespace cli {

enum class Command { research, discover, doctor, library, watch, mcp, completions };
using Emit = app::Format;

struct Options {
  Command command = Command::research;
  std::string topic;
  std::vector<std::string> entities;  // "A vs B [vs C ...]": 2..6 entities, else empty
  bool no_compare = false;
  int days = 30;
  bool days_set = false;                   // discovery defaults to a shorter window
  std::optional<core::UnixSeconds> as_of;  // UTC midnight of the as-of day
  model::Depth depth = model::Depth::standard;
  std::vector<std::string> sources;  // validated ids; empty = all
  Emit emit = Emit::compact;
  bool emit_set = false;  // --emit given (else inferred from --output's extension)
  std::string output_file;
  bool save = false;
  std::string save_dir;
  bool store = false;
  std::optional<std::string> plan_json;  // inline JSON or the file's content
  bool strict = false;
  bool summarize = false;  // --summarize: a "What happened" synthesis (src/synth)
  std::optional<double> timeout_seconds;
  bool quiet = false;
  std::string record_dir;
  std::string replay_dir;
  // Discovery.
  std::string domain;  // "" = global
  bool discover_shallow = false;
  bool nominate_only = false;
  std::string judgments_file;
  bool finalize = false;
  std::string angles_file;
  std::optional<double> enrich_budget;
  std::optional<int> enrich_workers;
  std::vector<std::string> command_args;  // for doctor/library/watch
  // library / watch (spec §7), checked by check_memory_options.
  std::string verb;  // "search" | "list" | "forget" | "add" | "remove" | "run" | "notify" | "budget"
  // --limit: stories in a research brief (default kDefaultStories), results of library search.
  std::optional<int> limit;
  std::optional<double> every_hours;    // watch add --every
  bool all = false;                     // watch run --all
  std::optional<std::string> notify;    // watch add --notify CHANNELS|none
  std::string channel;                  // watch notify test CHANNEL
  std::string budget_source;            // watch budget SOURCE (its id)
  std::optional<long> budget_requests;  // watch budget SOURCE N; nullopt: off
};

// The memory commands' words and flags: a usage error message, or nullopt when fine.
// Fills verb and topic (the QUERY or TOPIC).
std::optional<std::string> check_memory_options(Options& o);

constexpr int kDefaultStories = 12;
constexpr int kMaxStories = 100;
// Stories a research brief shows: --limit, else the default.
inline std::size_t story_limit(const Options& o) { return static_cast<std::size_t>(o.limit.value_or(kDefaultStories)); }

// The format an --output file's extension asks for (.md, .json, .html, .txt), or nullopt.
std::optional<Emit> emit_for_file(std::string_view path);

struct ParseOutcome {
  std::optional<Options> options;  // set when the run should go on
  int exit_code = 0;
  std::string text;     // help/version (stdout) or the usage error (stderr)
  std::string message;  // the usage error alone, without the "last30days: " frame
  std::string note;     // a remark for stderr before the run ("researching 'doctr' ...")
  bool to_stdout = false;
};

// today: the current UTC time, to reject an --as-of in the future.
ParseOutcome parse_args(int argc, const char* const* argv, core::UnixSeconds today);

std::string_view to_string(Emit e);

}  // namespace cli
