#pragma once
// `last30days mcp` as an agent host runs it: the binary under test (binary_under_test())
// as a Child, spoken to line by line in JSON-RPC.
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "child.hpp"

namespace testing_support {

class McpChild : public Child {
 public:
  explicit McpChild(const std::map<std::string, std::string>& env);

  // Sends initialize (id 1, protocol 2025-06-18): the reply line, or nullopt when none
  // came within the timeout.
  std::optional<std::string> initialize(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // Sends tools/call of `tool` with `arguments` (a JSON object's text) as request `id`.
  void call(std::string_view tool, std::string_view arguments, int id = 2);
  // The next line that is not a notification (progress is skipped): the call's reply, or a
  // line that is not JSON at all. nullopt when a line did not come within the timeout.
  std::optional<std::string> reply(std::chrono::milliseconds timeout);
};

}  // namespace testing_support
