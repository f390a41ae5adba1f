#pragma once
// JSON-RPC 2.0 as MCP's stdio transport uses it: one message per line, UTF-8, no
// embedded newlines. Pure functions over nlohmann::json, safe to fuzz.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp {

using json = nlohmann::json;

namespace code {
constexpr int parse_error = -32700;
constexpr int invalid_request = -32600;
constexpr int method_not_found = -32601;
constexpr int invalid_params = -32602;
constexpr int internal_error = -32603;
constexpr int server_busy = -32000;  // implementation-defined: the call queue is full
}  // namespace code

// One inbound message, classified. A malformed one carries the error to answer with.
struct Message {
  enum class Kind { request, notification, response, invalid } kind = Kind::invalid;
  json id;  // request (string or number) / response; null when unknown
  std::string method;
  json params = json::object();  // always an object for a valid request/notification
  int error_code = 0;            // invalid only
  std::string error_message;
  bool reply = true;  // invalid only: false for a malformed notification
};

// Classifies one parsed JSON value (an element of a batch, or a whole line).
Message classify(const json& value);

// A whole line: nothing (blank), one message, or a batch (array) of them.
struct Line {
  std::vector<Message> messages;
  bool batch = false;
};
Line parse_line(std::string_view line);

json response(const json& id, json result);
json error_response(const json& id, int code, std::string_view message);
json notification(std::string_view method, json params);

// One serialized line, never containing a raw newline (JSON escapes them), with
// invalid UTF-8 replaced so a hostile upstream string cannot break the stream.
std::string serialize(const json& message);

// Splits a byte stream into lines. A line longer than max_line is dropped whole and
// reported once, so one huge message cannot exhaust memory.
class LineReader {
 public:
  explicit LineReader(std::size_t max_line = 8u << 20) : max_(max_line) {}
  void feed(std::string_view bytes);
  // The next complete line (without "\n" or "\r\n"), or nullopt. *too_long is set
  // when the line was dropped for its size.
  std::optional<std::string> next(bool* too_long);
  // At end of input: an unterminated last line, if any.
  std::optional<std::string> rest();

 private:
  std::size_t max_;
  std::string buf_;
  std::vector<std::pair<std::string, bool>> ready_;
  std::size_t ready_pos_ = 0;
  bool discarding_ = false;
};

}  // namespace mcp
