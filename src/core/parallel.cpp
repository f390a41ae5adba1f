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

}  // namespace core
