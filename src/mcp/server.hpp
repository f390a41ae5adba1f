#pragma once
// `last30days mcp`: a Model Context Protocol server on stdio (protocol versions
// 2025-06-18 and 2025-03-26). The stdin reader only parses and queues: every tool call
// waits as data in a bounded queue and runs on a pool of at most kMaxConcurrentCalls
// threads, each call with its own stop source; notifications/cancelled stops a call's
// transfers at once (or drops it from the queue) and suppresses its result.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "app/run.hpp"

namespace mcp {

constexpr std::string_view kLatestProtocol = "2025-06-18";
constexpr std::string_view kOlderProtocol = "2025-03-26";
constexpr int kMaxConcurrentCalls = 4;  // calls running at once: the pool's threads
// Calls waiting for a thread; one more is refused at once with code::server_busy.
constexpr std::size_t kMaxQueuedCalls = 32;

// The protocol engine without the process plumbing: feed it lines, it writes lines.
// handle_line() is called from one reader thread; the sink is called from any thread
// and must be thread-safe (one whole line per call).
class Session {
 public:
  using Sink = std::function<void(const std::string& line)>;
  // writer: the top-level command's capability, which lives as long as the process:
  // research with store and library_search open the research store with it.
  Session(std::shared_ptr<const app::RunContext> ctx, const persist::Writer& writer, Sink sink);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void handle_line(std::string_view line);
  // stdin closed: cancels every call (no results are sent), waits up to `grace` for
  // their threads, and counts the rest as stragglers for core::exit_process.
  // Returns how many were left running.
  int shutdown(std::chrono::milliseconds grace);

  struct State;

 private:
  std::shared_ptr<State> st_;
};

// Serves on fds 0/1 until stdin closes. Stdout is kept for protocol messages only:
// anything else that writes to fd 1 lands on stderr. Returns the exit code.
int serve(std::shared_ptr<const app::RunContext> ctx, const persist::Writer& writer);

}  // namespace mcp
