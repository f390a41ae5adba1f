#pragma once
// Bounded fan-out that never outlives its caller: the threads are started and joined inside
// the call, so no future blocks in a destructor and no detached work touches the caller's stack.
#include <cstddef>
#include <functional>

namespace core {

// Runs task(i) for every i in [0, n) on at most max_threads threads, the calling thread
// included, and returns once every task has finished. The join is exactly as bounded as
// the tasks are: each must bound its own blocking (deadline-bounded, cancellable HTTP).
// When a thread cannot be started the remaining threads (at least the caller) do its share.
// The first exception a task throws is rethrown after the join; the other tasks still run.
// Thread-safe; tasks run concurrently, so what they share must be.
void parallel_for(std::size_t n, std::size_t max_threads, const std::function<void(std::size_t)>& task);

}  // namespace core
