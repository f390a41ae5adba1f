#pragma once
// The terminal front end's two halves, which the program (program::run) calls in turn:
// argv -> validated options, the run context and the output, all checked before any
// request; then the command. `mcp` is parsed here but served by the MCP front end.
#include <optional>

#include "app/run.hpp"
#include "cli/options.hpp"
#include "persist/writer.hpp"

namespace cli {

// A command line ready to run.
struct Launch {
  Options options;
  app::RunContext ctx;
  persist::Output output;  // --output or stdout, opened before any request
};

// Parses and checks argv, reads the configuration and builds the HTTP client. Sets
// *launch when the command is to run (and returns 0); otherwise the command line has been
// answered here (help, a version, a usage error, printed) and the result is its exit code.
int prepare(int argc, const char* const* argv, const persist::Writer& writer, std::optional<Launch>* launch);

// Runs a prepared command at the terminal (every command but `mcp`). Exit codes: spec §2.
int execute(Launch& launch, const persist::Writer& writer);

}  // namespace cli
