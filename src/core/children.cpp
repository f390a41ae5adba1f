#include "core/children.hpp"

#include <signal.h>

#include <array>
#include <atomic>
#include <ctime>

namespace core::children {

namespace {

constexpr std::size_t kSlots = 256;
// Plain atomics with static storage: trivially destructible, readable from a signal
// handler and during exit while other threads still run.
std::array<std::atomic<pid_t>, kSlots> g_slots{};
std::atomic<bool> g_exiting{false};

std::mutex& spawn_mutex() {
  static auto* mu = new std::mutex();  // leaked: locked for good by the exit path
  return *mu;
}

constexpr std::array<int, 4> kFatal{SIGINT, SIGTERM, SIGHUP, SIGQUIT};
struct sigaction g_previous[kFatal.size()];

void on_fatal_signal(int sig) {
  kill_registered();
  for (std::size_t i = 0; i < kFatal.size(); ++i) {
    if (kFatal[i] != sig) continue;
    sigaction(sig, &g_previous[i], nullptr);
    raise(sig);  // delivered when the handler returns (the signal is blocked inside it)
  }
}

}  // namespace

std::unique_lock<std::mutex> lock_for_spawn() {
  if (g_exiting.load()) return {};
  std::unique_lock lock(spawn_mutex());
  if (g_exiting.load()) return {};
  return lock;
}

bool exiting() { return g_exiting.load(); }

bool add(pid_t pgid) {
  for (auto& slot : g_slots) {
    pid_t expected = 0;
    if (slot.compare_exchange_strong(expected, pgid)) return true;
  }
  return false;
}

void remove(pid_t pgid) {
  std::lock_guard lock(spawn_mutex());
  for (auto& slot : g_slots) {
    pid_t expected = pgid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

void kill_registered() noexcept {
  for (auto& slot : g_slots) {
    const pid_t pgid = slot.load();
    if (pgid > 0) killpg(pgid, SIGKILL);
  }
}

void kill_all_for_exit() noexcept {
  g_exiting.store(true);
  // try_lock in a loop rather than lock: a spawn in progress finishes in microseconds,
  // and the exit path must not block forever if the mutex is somehow wedged.
  auto& mu = spawn_mutex();
  for (int i = 0; i < 2000 && !mu.try_lock(); ++i) {
    struct timespec ms {
      0, 1000000
    };
    nanosleep(&ms, nullptr);
  }
  kill_registered();  // the mutex stays locked: no spawn or reap after this point
}

void install_signal_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (std::size_t i = 0; i < kFatal.size(); ++i) {
      struct sigaction current {};
      if (sigaction(kFatal[i], nullptr, &current) != 0) continue;
      if (current.sa_handler == SIG_IGN) continue;  // nohup and friends keep their meaning
      g_previous[i] = current;
      struct sigaction sa {};
      sa.sa_handler = on_fatal_signal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESTART;
      sigaction(kFatal[i], &sa, nullptr);
    }
  });
}

}  // namespace core::children
