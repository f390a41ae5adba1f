#pragma once
// The process exit path. Abandoned workers (discovery stragglers) may still be running
// when main() is done: then the process must not run static destructors under them.
#include <atomic>

namespace core {

// Counts workers that were abandoned while still running. Never decremented by the
// abandoner: the worker itself decrements when (if ever) it finishes.
std::atomic<int>& live_stragglers();

// Flushes stdio and ends the process. With stragglers alive it skips static
// destruction (std::_Exit), so nothing they touch is torn down under them.
[[noreturn]] void exit_process(int code);

}  // namespace core
