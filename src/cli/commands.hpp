#pragma once
// The CLI's commands: validated options -> an app:: request, the run, then the output
// (stdout or --output), the store and --save as the flags ask, and an exit code.
#include <map>
#include <string>

#include "app/run.hpp"
#include "cli/options.hpp"
#include "persist/writer.hpp"

namespace cli {

// What every command gets from the program: the run context, the output opened before
// any request, and the process's one Writer.
struct Frame {
  const app::RunContext& ctx;
  persist::Output& output;
  const persist::Writer& writer;
};

int research_command(const Options& o, const Frame& f);  // research or comparison
int discover_command(const Options& o, const Frame& f);
int doctor_command(const Options& o, const Frame& f);
int library_command(const Options& o, const Frame& f);
int watch_command(const Options& o, const Frame& f);

// The requests the flags describe.
app::ResearchRequest research_request(const Options& o);
app::DiscoveryRequest discovery_request(const Options& o);

// The one way the CLI reports an error: "last30days: MESSAGE" on stderr, scrubbed of
// secrets; returns code.
int fail(int code, const std::string& message);
int fail(const app::Problem& p);
// Writes the rendered output to --output or stdout: 0, or 1 with a message when it could
// not be written (a full disk, a closed stdout). A reader that went away (`| head`) is 0.
int emit(persist::Output& output, const std::string& text);
// Exit code for a finished run: 4 when no source answered at all, 3 under --strict when a
// source is degraded.
constexpr int kNoSourceAnswered = 4;
int exit_code_for(const Options& o, const std::map<std::string, model::SourceStatus>& status);

}  // namespace cli
