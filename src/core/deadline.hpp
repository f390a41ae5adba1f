#pragma once
// Deadlines are steady-clock instants: wall-clock jumps never stretch a budget.
#include <algorithm>
#include <chrono>

namespace core {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

class Deadline {
 public:
  static Deadline never() { return Deadline(Clock::time_point::max()); }
  static Deadline at(Clock::time_point when) { return Deadline(when); }
  static Deadline in(Millis from_now) { return Deadline(Clock::now() + from_now); }

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
