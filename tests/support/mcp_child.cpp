#include "mcp_child.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "spawn.hpp"

namespace testing_support {

McpChild::McpChild(const std::map<std::string, std::string>& env) : Child({binary_under_test(), "mcp"}, env) {}

std::optional<std::string> McpChild::initialize(std::chrono::milliseconds timeout) {
  write(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},)"
        R"("clientInfo":{"name":"t","version":"1"}}})"
        "\n");
  return read_line(timeout);
}

void McpChild::call(std::string_view tool, std::string_view arguments, int id) {
  const auto request = fmt::format(R"({{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"{}","arguments":{}}}}})",
                                   id, tool, arguments);
  write(request + "\n");
}

std::optional<std::string> McpChild::reply(std::chrono::milliseconds timeout) {
  for (;;) {
    auto line = read_line(timeout);
    if (!line) return line;
    const auto message = nlohmann::json::parse(*line, nullptr, false);
    if (message.is_discarded() || !message.contains("method")) return line;  // a notification has a method
  }
}

}  // namespace testing_support
