#pragma once
// A fake upstream on 127.0.0.1 (random port) that speaks HTTP/1.1 and injects faults:
// hang (accept, read the request, never answer), delay, close without answer, gzip.
// It logs every exchange, including when the client gave up on a hung one.
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace testing_support {

struct FakeRequest {
  std::string method;
  std::string target;  // path?query as sent
  std::string path;
  std::string query;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string param(const std::string& name) const;  // decoded query parameter
};

struct FakeReply {
  enum class Mode { respond, hang, close };
  Mode mode = Mode::respond;
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds delay{0};
  // When set, the answer is held (after any delay) until *release is true: a test decides
  // when it goes out, instead of guessing how long the other side takes.
  std::shared_ptr<const std::atomic<bool>> release;
  bool gzip = false;
  // Streaming: when set, the body is sent with Transfer-Encoding: chunked, one HTTP chunk
  // per piece, each written on its own after chunk_gap (body is ignored).
  std::vector<std::string> chunks;
  std::chrono::milliseconds chunk_gap{15};

  static FakeReply json(std::string body, int status = 200);
  static FakeReply xml(std::string body, std::string type = "application/atom+xml");
  static FakeReply html(std::string body, int status = 200);
  static FakeReply hang();
};

struct Exchange {
  FakeRequest request;
  std::chrono::steady_clock::time_point received;
  std::chrono::steady_clock::time_point ended;  // answered or closed by the client
  bool answered = false;
  bool closed_by_client = false;  // the client closed the socket before an answer
  bool hung = false;
};

class FakeUpstream {
 public:
  using Handler = std::function<FakeReply(const FakeRequest&)>;
  explicit FakeUpstream(Handler handler);
  ~FakeUpstream();

  int port() const { return port_; }
  std::string base() const;  // http://127.0.0.1:PORT
  // LAST30DAYS_HOST_MAP value sending each real host to base()/<prefix>.
  std::string host_map(const std::vector<std::pair<std::string, std::string>>& host_to_prefix) const;

  std::vector<Exchange> log() const;
  int open_hung() const;    // hung exchanges whose socket is still open
  int closed_hung() const;  // hung exchanges the client closed
  int connections() const;  // accepted so far

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

// gzip-compresses a body, for replies that carry Content-Encoding: gzip themselves
// (a huge answer compressed once instead of on every request).
std::string gzip(const std::string& in);

// Reads tests/fixtures/<relative> (compiled-in root).
std::string fixture(const std::string& relative);

}  // namespace testing_support
