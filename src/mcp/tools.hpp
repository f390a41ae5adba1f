#pragma once
// The MCP tools: their JSON Schemas, and tool arguments -> validated app:: requests.
// Arguments are checked here with the rules the command line applies to its flags, and
// errors speak in the tool's terms (argument names, never flags).
#include <optional>
#include <string>
#include <string_view>

#include "app/run.hpp"
#include "core/time.hpp"
#include "mcp/jsonrpc.hpp"

namespace mcp {

enum class Tool { research, discover, discover_nominate, discover_finalize, library_search };
std::optional<Tool> find_tool(std::string_view name);
std::string tool_names();  // "research, discover, ..."

// Every default call answers within the official SDK's default request timeout (60 s):
// discovery lists for at most kMcpListingSeconds and enriches for kMcpEnrichBudgetSeconds
// unless budget_seconds asks for more; a deep research stops at kMcpDeepSeconds unless
// timeout_seconds says otherwise (quick and default research stop at 25 and 45 s).
constexpr double kMcpListingSeconds = 20;
constexpr double kMcpEnrichBudgetSeconds = 30;
constexpr double kMcpDeepSeconds = 50;

// The tools/list "tools" array. Output schemas exist from protocol 2025-06-18 on.
json tool_list(bool with_output_schemas);

struct ToolCall {
  Tool tool = Tool::research;
  bool ok = false;  // the arguments are valid: the request for the tool is set
  app::ResearchRequest research;
  app::DiscoveryRequest discovery;
  app::LibraryRequest library;
  bool store = false;             // research: record the run in the research store
  discover::Judgments judgments;  // discover_finalize
  std::string error;              // otherwise: what is wrong, in the tool's terms
};
// today: the current UTC time (an as_of in the future is refused).
ToolCall tool_call(Tool tool, const json& arguments, core::UnixSeconds today);

// A message of the application layer (which names the CLI's flags) in the tools' terms.
std::string in_tool_terms(std::string message);

}  // namespace mcp
