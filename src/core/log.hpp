#pragma once
// Diagnostics go to stderr only; stdout carries nothing but the requested output.
// Thread-safe: may be called from any thread, including abandoned workers.
#include <fmt/format.h>

#include <functional>
#include <string>
#include <string_view>

namespace core::log {

enum class Level { progress, info, warn, error };

void set_quiet(bool quiet);       // suppress progress/info
void set_progress(bool enabled);  // progress lines (default: only when stderr is a TTY)
// Every line is scrubbed by core::redact before it is written.
void write(Level level, std::string_view message);
// While set, every stderr line (already scrubbed, with its newline) goes to `sink`
// instead: the terminal progress draws it above its live block. Called with the
// log's lock held: the sink must not log.
void set_line_sink(std::function<void(std::string_view)> sink);

template <typename... Args>
void warn(fmt::format_string<Args...> f, Args&&... args) {
  write(Level::warn, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
  write(Level::info, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void progress(fmt::format_string<Args...> f, Args&&... args) {
  write(Level::progress, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace core::log
