#include "core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace core {

void parallel_for(std::size_t n, std::size_t max_threads, const std::function<void(std::size_t)>& task) {
  if (n == 0) return;
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::exception_ptr first_error;
  auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard lock(mu);
        if (!first_error) first_error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  const std::size_t extra = std::min(n, std::max<std::size_t>(max_threads, 1)) - 1;
  helpers.reserve(extra);
  for (std::size_t k = 0; k < extra; ++k) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // out of threads: the ones running (and the caller) take the rest
    }
  }
  work();
  for (auto& h : helpers) h.join();
  if (first_error) std::rethrow_exception(first_error);
}

namespace {
std::atomic<std::size_t> g_cpu_threads{std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 2)};
}  // namespace

std::size_t cpu_threads() { return g_cpu_threads.load(std::memory_order_relaxed); }
void set_cpu_threads(std::size_t n) { g_cpu_threads.store(std::max<std::size_t>(n, 1), std::memory_order_relaxed); }

void parallel_chunks(std::size_t n, std::size_t chunk, std::size_t threads,
                     const std::function<void(std::size_t, std::size_t, std::size_t)>& task) {
  if (threads <= 1) {  // one pass in order: what the chunks must add up to
    if (n > 0) task(0, 0, n);
    return;
  }
  const std::size_t chunks = (n + chunk - 1) / chunk;
  parallel_for(chunks, threads, [&](std::size_t k) { task(k, k * chunk, std::min(n, (k + 1) * chunk)); });
}

}  // namespace core
