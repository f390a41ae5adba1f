// libFuzzer target: JSON nesting (issue 22). Every JSON the product is given goes through
// core::json::parse (a unit test keeps it the only parser in src/). Whatever the text, it
// ends in a value or a message, and a parsed value survives what the product does with
// values afterwards -- copy, dump, walk, an MCP message's classification -- without
// exhausting the stack. (The readers built on it -- plan, judgments, bundles, each source
// -- are fuzzed by the upstream target.)
//
// Input: byte 0 picks how deep a prefix of '[' / '{"k":' to put around the rest (0-255
// levels times 4, so the limit's edge at 512 is reached), byte 1 its kind; the rest is text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/json.hpp"
#include "mcp/jsonrpc.hpp"

namespace {

std::size_t walk(const nlohmann::json& j) {  // recursion like the cassette's redaction
  std::size_t n = 1;
  if (j.is_structured())
    for (const auto& v : j) n += walk(v);
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t depth = static_cast<std::size_t>(data[0]) * 4;
  const bool objects = (data[1] & 1) != 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  std::string text;
  for (std::size_t i = 0; i < depth; ++i) text += objects ? "{\"k\":" : "[";
  text += rest;
  for (std::size_t i = 0; i < depth && (data[1] & 2) != 0; ++i) text += objects ? "}" : "]";

  const auto parsed = core::json::parse(text);
  if (parsed) {
    const nlohmann::json copy = *parsed.value;  // recursive copy
    (void)copy.dump();                          // recursive dump
    (void)walk(copy);
  } else if (parsed.error.empty()) {
    __builtin_trap();  // a refusal always says why
  }
  core::json::ParseOptions capped;  // as the sources read answers
  capped.max_array_elements = 3;
  if (auto doc = core::json::parse(text, capped)) (void)walk(*doc.value);
  for (const auto& m : mcp::parse_line(text).messages) (void)m.params.dump();
  return 0;
}
