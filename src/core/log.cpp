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
  std::function<void(std::string_view)> sink;
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
void set_line_sink(std::function<void(std::string_view)> sink) {
  std::lock_guard lock(state().mu);
  state().sink = std::move(sink);
}

void write(Level level, std::string_view message) {
  const std::string line = core::redact::scrub_value(message);
  auto& st = state();
  std::lock_guard lock(st.mu);
  if ((level == Level::progress && (!st.progress || st.quiet)) || (level == Level::info && st.quiet)) return;
  const char* prefix = level == Level::warn ? "warning: " : level == Level::error ? "error: " : "";
  const std::string full = "last30days: " + std::string(prefix) + line + "\n";
  if (st.sink) {
    st.sink(full);
    return;
  }
  std::fwrite(full.data(), 1, full.size(), stderr);
  std::fflush(stderr);
}

}  // namespace core::log
