#pragma once
// The program, above both front ends: argv goes to the CLI's parser, and the command it
// names runs in the front end that serves it -- `mcp` in the MCP server (mcp::serve), every
// other command at the terminal (cli::execute). Neither front end includes the other.
#include "discover/enrich.hpp"

namespace program {

// Seams for a test build of the program, and nothing else: the production main() passes
// none, and no flag, variable or file can set one. A test executable links the same
// library with its own main() to drive the real program down a path no upstream can
// force -- a discovery sub-run that ignores cancellation, to exercise abandonment.
struct TestSeams {
  discover::SubRun subrun = nullptr;  // replaces discover::research_subrun
};

// Exit codes (spec §2): 0 ok (also nothing-solid and degraded sources), 2 usage or
// contract error, 3 --strict with a degraded source, 4 no source answered, 1 internal error.
int run(int argc, const char* const* argv, const TestSeams& seams = {});

// The whole process around run(): standard descriptors, SIGPIPE, errors, the exit path.
[[noreturn]] void main_process(int argc, char** argv, const TestSeams& seams = {});

}  // namespace program
