#pragma once
// The process exit path, and the one rule that makes abandoning a worker safe.
//
// THE RULE: anything a straggler (a worker abandoned while still running: a discovery
// sub-run or an MCP call that ignored cancellation) can touch is either
//  - leaked on purpose, so no destructor ever runs under it: the log state, the
//    redactor, curl's global state, this counter; or
//  - shared-owned by the straggler itself: the HTTP client, the configuration, the
//    batch state travel in shared_ptrs, so they die with the straggler's last reference,
//    never under it.
// A straggler stays counted in live_stragglers() until it has dropped its last shared
// reference (that drop may run destructors: the client joins its loop thread); only then
// does it decrement. So a count of zero means no straggler can touch anything, and
// exit_process may run static destructors; any other count means it must not.
// Sub-runs also write nothing (discover/enrich.hpp), so nothing is left half-written.
#include <atomic>

namespace core {

// Workers abandoned while still running. The abandoner increments; the worker itself
// decrements, after dropping its last shared reference, if it ever finishes.
std::atomic<int>& live_stragglers();

// Kills every child process group still registered (core/children.hpp), flushes
// stdio and ends the process. With stragglers alive it skips static
// destruction (std::_Exit), so nothing they touch is torn down under them.
[[noreturn]] void exit_process(int code);

}  // namespace core
