#pragma once
// Looking at processes from a test: which members of a process group are still alive.
#include <sys/types.h>

#include <vector>

namespace testing_support {

// Pids whose process group is `pgid` and that are not zombies (/proc scan).
std::vector<pid_t> live_members(pid_t pgid);
// Whether the group has no live member within `ms`: SIGKILL is sent before the code under
// test returns, but the kernel finishes a killed process off asynchronously.
bool group_gone_within(pid_t pgid, int ms = 500);

}  // namespace testing_support
