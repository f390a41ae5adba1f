#pragma once
// Deadlines are steady-clock instants: wall-clock jumps never stretch a budget.
#include <algorithm>
#include <chrono>

namespace core {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

// The longest span any timeout or budget can mean: a year. Longer ones are clamped.
inline constexpr Millis kMaxSpan{365LL * 24 * 3600 * 1000};

// Seconds (from a flag, an environment knob, a host's request) as a span. Every place
// where seconds become time goes through here: NaN and negatives are zero and anything
// past kMaxSpan is kMaxSpan, so 1e10 or 1e300 saturate instead of overflowing.
inline Millis millis_from_seconds(double seconds) {
  if (!(seconds > 0)) return Millis(0);
  if (seconds * 1000.0 >= static_cast<double>(kMaxSpan.count())) return kMaxSpan;
  return Millis(static_cast<Millis::rep>(seconds * 1000.0));
}

class Deadline {
 public:
  static Deadline never() { return Deadline(Clock::time_point::max()); }
  static Deadline at(Clock::time_point when) { return Deadline(when); }
  // Saturates: a span too long to add to the clock is never.
  static Deadline in(Millis from_now) {
    const auto now = Clock::now();
    if (from_now >= std::chrono::duration_cast<Millis>(Clock::time_point::max() - now)) return never();
    return Deadline(now + std::max(from_now, Millis(0)));
  }

  Clock::time_point when() const { return when_; }
  bool is_never() const { return when_ == Clock::time_point::max(); }
  bool expired() const { return !is_never() && Clock::now() >= when_; }
  // Remaining time, clamped at zero; a large value for never.
  Millis remaining() const {
    if (is_never()) return Millis(24LL * 3600 * 1000);
    auto left = std::chrono::duration_cast<Millis>(when_ - Clock::now());
    return std::max(left, Millis(0));
  }
  Deadline earliest(Deadline other) const { return Deadline(std::min(when_, other.when_)); }

 private:
  explicit Deadline(Clock::time_point when) : when_(when) {}
  Clock::time_point when_;
};

}  // namespace core
