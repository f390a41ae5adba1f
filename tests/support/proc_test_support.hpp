#pragma once
// Looking at processes from a test: which members of a process group are still alive.
#include <sys/types.h>

#include <vector>

namespace testing_support {

// Pids whose process group is `pgid` and that are not zombies (/proc scan).
std::vector<pid_t> live_members(pid_t pgid);

}  // namespace testing_support
