#pragma once
// The one way the product reads JSON. Every document it is given -- upstream answers, MCP
// lines, --plan, judgments, discovery bundles, cassettes, run.json -- is parsed here.
// Nesting is limited at the parser: copying, dumping or walking a DOM recurses once per
// level, so a document too deep for that is refused before it exists, with a message.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace core::json {

// Objects and arrays inside one another. Real answers nest a few dozen levels (a Reddit
// comment tree is the deepest); the stack needs well under 1 MiB for this many.
inline constexpr std::size_t kMaxDepth = 512;

struct ParseOptions {
  std::size_t max_depth = kMaxDepth;
  std::size_t max_array_elements = 0;  // 0: no cap; past it, elements are dropped as they are read
};

struct Parsed {
  std::optional<nlohmann::json> value;
  std::string error;      // when there is no value: why, in one line
  bool too_deep = false;  // refused for its nesting (error says so)
  explicit operator bool() const { return value.has_value(); }
};

Parsed parse(std::string_view text, const ParseOptions& options = {});

// For callers that only need to know the text was usable: the value, or a discarded json
// (is_discarded()) when parse() refused it.
nlohmann::json parse_or_discarded(std::string_view text, const ParseOptions& options = {});

// The same, keeping the keys' order (for documents the product rewrites and prints).
nlohmann::ordered_json parse_ordered_or_discarded(std::string_view text, const ParseOptions& options = {});

}  // namespace core::json
