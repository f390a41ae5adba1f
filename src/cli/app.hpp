#pragma once
// The program: parse -> validate -> build components -> run a command -> exit code.
#include "discover/enrich.hpp"

namespace cli {

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

}  // namespace cli
