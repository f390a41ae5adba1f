#pragma once
// The MCP tools: their JSON Schemas, and tool arguments -> validated CLI options.
// Arguments go through the CLI's own parser, so a tool accepts exactly what the
// command line accepts and says so with the same rules.
#include <optional>
#include <string>
#include <string_view>

#include "cli/options.hpp"
#include "core/time.hpp"
#include "mcp/jsonrpc.hpp"

namespace mcp {

enum class Tool { research, discover, library_search };
std::optional<Tool> find_tool(std::string_view name);

// The tools/list "tools" array. Output schemas exist from protocol 2025-06-18 on.
json tool_list(bool with_output_schemas);

struct ToolCall {
  Tool tool = Tool::research;
  std::optional<cli::Options> options;  // set when the arguments are valid
  std::string error;                    // otherwise: what is wrong, in the tool's terms
};
// today: the current UTC time (an as_of in the future is refused).
ToolCall tool_call(Tool tool, const json& arguments, core::UnixSeconds today);

}  // namespace mcp
