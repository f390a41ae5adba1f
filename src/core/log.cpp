#include "core/log.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>

namespace core::log {

namespace {
// Leaked on purpose: abandoned workers may log during static destruction.
struct State {
  std::mutex mu;
  bool quiet = false;
  bool progress = isatty(STDERR_FILENO) != 0;
  std::vector<std::string> secrets;
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
void set_secrets(std::vector<std::string> secrets) {
  std::lock_guard lock(state().mu);
  state().secrets = std::move(secrets);
}

namespace {
std::string redact_locked(std::string_view text, const std::vector<std::string>& secrets) {
  std::string out(text);
  for (const auto& s : secrets) {
    if (s.empty()) continue;
    for (auto pos = out.find(s); pos != std::string::npos; pos = out.find(s, pos)) {
      out.replace(pos, s.size(), "[redacted]");
      pos += 10;
    }
  }
  return out;
}
}  // namespace

std::string redact(std::string_view text) {
  std::lock_guard lock(state().mu);
  return redact_locked(text, state().secrets);
}

void write(Level level, std::string_view message) {
  auto& st = state();
  std::lock_guard lock(st.mu);
  if ((level == Level::progress && (!st.progress || st.quiet)) || (level == Level::info && st.quiet)) return;
  const char* prefix = level == Level::warn ? "warning: " : level == Level::error ? "error: " : "";
  const std::string line = redact_locked(message, st.secrets);
  std::fprintf(stderr, "last30days: %s%s\n", prefix, line.c_str());
  std::fflush(stderr);
}

}  // namespace core::log
