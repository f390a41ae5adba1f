#pragma once
// The program: parse -> validate -> build components -> run a command -> exit code.

namespace cli {

// Exit codes (spec §2): 0 ok (also nothing-solid and degraded sources), 2 usage or
// contract error, 3 --strict with a degraded source, 1 internal error.
int run(int argc, const char* const* argv);

}  // namespace cli
