#pragma once
// The only door to the network. One libcurl multi loop on one thread serves every
// request of the process; callers block in fetch() on their own thread.
// Thread-safety: fetch() and stats() may be called from any thread at once.
// Lifetime: hold the client in a shared_ptr; an abandoned worker keeps it alive.
#include <memory>
#include <string>
#include <vector>

#include "http/host_map.hpp"
#include "http/types.hpp"

namespace http {

struct HostSpacing {
  std::string host_suffix;  // "arxiv.org" matches export.arxiv.org
  core::Millis interval;
};

struct ClientOptions {
  std::string user_agent;
  HostMap host_map;
  std::string record_dir;                     // --record
  std::string record_meta;                    // --record: run.json's content, written when the client starts
  std::string replay_dir;                     // --replay: never touches the network
  std::size_t max_body_bytes = 8u << 20;      // on the wire
  std::size_t max_decoded_bytes = 32u << 20;  // after Content-Encoding
  int max_redirects = 3;
  core::Millis connect_timeout{5000};
  core::Millis retry_backoff{300};
  // Hosts whose rules allow one request per interval (Brave's free plan: 1 a second), so a
  // source may send its requests at once and the client keeps them apart.
  std::vector<HostSpacing> spacing{
      {"arxiv.org", core::Millis(3000)}, {"reddit.com", core::Millis(1000)}, {"api.search.brave.com", core::Millis(1000)}};
};

struct ClientStats {
  unsigned long started = 0;   // transfers handed to curl
  unsigned long finished = 0;  // completed by curl (any status)
  unsigned long aborted = 0;   // removed mid-flight by cancellation or deadline
  int in_flight = 0;
};

std::string default_user_agent();

class Client {
 public:
  // Throws std::runtime_error when curl cannot start or a cassette dir is unusable.
  explicit Client(ClientOptions options);
  ~Client();  // aborts whatever is still in flight, then joins the loop thread
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Blocks until a final response, the request deadline, or the stop token.
  // Policy: same-host redirects (max 3), one retry on 5xx, 429 waits for
  // Retry-After only when it fits the deadline, per-host spacing.
  Response fetch(const Request& request);
  ClientStats stats() const;
  bool replaying() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace http
