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

// CPU-bound work over [0, n) in chunks of `chunk` indices: task(k, begin, end) for chunk k,
// on up to `threads` threads (usually cpu_threads()); the chunks depend on n and chunk only,
// never on the scheduling. With one thread it is one pass, task(0, 0, n): a stage that uses
// this must give that pass's result (tests/concurrency compare the two).
void parallel_chunks(std::size_t n, std::size_t chunk, std::size_t threads,
                     const std::function<void(std::size_t, std::size_t, std::size_t)>& task);
// Two (the machines this runs on have two cores or a few), at most hardware_concurrency.
std::size_t cpu_threads();
void set_cpu_threads(std::size_t n);

}  // namespace core
