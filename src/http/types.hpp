#pragma once
// The engine's view of HTTP: plain values and a closed error enum. No curl here.
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/deadline.hpp"

namespace http {

enum class NetError {
  none,
  timeout,      // request timeout or deadline reached
  cancelled,    // stop token fired
  unreachable,  // DNS, connect refused, network down
  tls,
  too_large,         // body or decoded body over the cap
  redirect_offhost,  // Location points at another host
  too_many_redirects,
  protocol,     // malformed response, connection dropped mid-body
  replay_miss,  // --replay has no recording for this request
  politeness,   // the per-host spacing would not fit before the deadline
  internal,
};
std::string_view to_string(NetError e);

struct Header {
  std::string name;  // lower-case in responses
  std::string value;
};

struct Request {
  std::string url;  // logical URL, before LAST30DAYS_HOST_MAP
  std::string method = "GET";
  std::vector<Header> headers;
  std::string body;
  core::Millis timeout{15000};                        // per attempt
  core::Deadline deadline = core::Deadline::never();  // caps all attempts and waits
  std::stop_token stop;                               // aborts the transfer in flight
  // Streaming: a 2xx body is handed here piece by piece as it arrives (any split, on the
  // client's loop thread: keep it short) instead of into Response::body. Returning false
  // aborts the transfer as too_large. Other statuses still fill Response::body.
  std::function<bool(std::string_view)> on_body;
};

struct Response {
  long status = 0;
  NetError error = NetError::none;
  std::string error_detail;
  std::string content_type;  // media type only, lower-case ("application/json")
  std::string body;
  std::vector<Header> headers;
  std::string final_url;  // logical URL after redirects
  int attempts = 0;
  core::Millis elapsed{0};

  std::optional<std::string> header(std::string_view name) const;
  bool transport_ok() const { return error == NetError::none; }
  bool ok() const { return error == NetError::none && status >= 200 && status < 300; }
};

}  // namespace http
