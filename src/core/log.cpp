#include "core/log.hpp"

#include <unistd.h>

#include <cstdio>
#include <mutex>

#include "core/redact.hpp"

namespace core::log {

namespace {
// Leaked on purpose: abandoned workers may log during static destruction.
struct State {
  std::mutex mu;
  bool quiet = false;
  bool progress = isatty(STDERR_FILENO) != 0;
};
State& state() {
  static State* s = new State();
  return *s;
}
}  // namespace

void set_quiet(bool quiet) {
  std::lock_guard lock(state().mu);
  state().quiet = quiet;
}
void set_progress(bool enabled) {
  std::lock_guard lock(state().mu);
  state().progress = enabled;
}

void write(Level level, std::string_view message) {
  const std::string line = core::redact::scrub(message);
  auto& st = state();
  std::lock_guard lock(st.mu);
  if ((level == Level::progress && (!st.progress || st.quiet)) || (level == Level::info && st.quiet)) return;
  const char* prefix = level == Level::warn ? "warning: " : level == Level::error ? "error: " : "";
  std::fprintf(stderr, "last30days: %s%s\n", prefix, line.c_str());
  std::fflush(stderr);
}

}  // namespace core::log
