#pragma once
// Child processes for sources that wrap a local tool (yt-dlp). The only code that spawns.
//
// A child runs in its own process group with stdin at EOF, no inherited descriptors
// beyond 0/1/2, default signal dispositions and an empty signal mask, and only the
// environment it is given. Its stdout is read as lines while it runs. The whole group is
// SIGKILLed at the deadline, on the stop token, when the caller has seen enough, and in
// every case before run_lines returns; the group is registered with core::children so
// that the exit path and fatal signals kill it too.
//
// Thread-safety: run_lines may be called from several threads at once.
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/deadline.hpp"

namespace proc {

struct Options {
  std::vector<std::string> argv;  // argv[0]: the program's absolute path
  std::vector<std::string> env;   // "KEY=value": the child's whole environment
  core::Deadline deadline = core::Deadline::never();
  std::stop_token stop;
  std::size_t max_line_bytes = 1u << 20;
  std::size_t max_stdout_bytes = 32u << 20;
  std::size_t max_stderr_bytes = 16u << 10;  // kept for the error message; the rest is drained
};

enum class End {
  exited,        // the program exited on its own (see exit_code / signal)
  deadline,      // killed at the deadline
  cancelled,     // killed because the stop token fired
  enough,        // killed because on_line returned false
  too_large,     // killed: a line or the whole output over its cap
  spawn_failed,  // never started (see error)
};

struct Result {
  End end = End::spawn_failed;
  int exit_code = -1;  // End::exited and a normal exit
  int signal = 0;      // End::exited through a signal
  std::string stderr_text;
  std::string error;  // End::spawn_failed: why
  int lines = 0;
};

// Calls on_line with each stdout line (without its newline) as it arrives; return false
// to stop the child. A last line without a newline is delivered at EOF.
Result run_lines(const Options& options, const std::function<bool(std::string_view)>& on_line);

// The first regular, executable file called `name` in a PATH value. Relative and empty
// PATH entries (the current directory) are never searched.
std::optional<std::string> find_in_path(std::string_view name, std::string_view path_value);

}  // namespace proc
