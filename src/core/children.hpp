#pragma once
// Child process groups the process has started and not yet reaped. A child must never
// outlive the run: the exit path (core::exit_process, including its std::_Exit branch
// with abandoned stragglers) and the fatal-signal handlers kill every registered group.
//
// Thread-safety: everything here may be called from any thread. kill_registered() is
// async-signal-safe (atomics and killpg only).
#include <sys/types.h>

#include <mutex>

namespace core::children {

// Held while spawning and registering a child, so that the exit path cannot slip in
// between fork and registration. Returns an unowned lock when the process is exiting:
// then the caller must not spawn.
std::unique_lock<std::mutex> lock_for_spawn();
bool exiting();

// Registers a group whose leader is `pgid` (call with the spawn lock held). False when
// the registry is full: the caller must kill the group it just started.
bool add(pid_t pgid);
// Unregisters a group before its leader is reaped (while the leader's pid, and with it
// the group id, cannot be reused). Blocks forever once the process is exiting, which is
// what keeps an unreaped leader from being recycled under the exit path's kill.
void remove(pid_t pgid);

// SIGKILLs every registered group. Async-signal-safe.
void kill_registered() noexcept;
// The exit path: no more spawns, then SIGKILL every registered group.
void kill_all_for_exit() noexcept;

// Installs SIGINT/SIGTERM/SIGHUP/SIGQUIT handlers (once) that kill the registered groups
// and then re-deliver the signal to its previous disposition. Ignored signals stay ignored.
void install_signal_handlers();

}  // namespace core::children
