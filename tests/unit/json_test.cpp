// Every JSON the product reads goes through core::json::parse, which limits nesting at the
// parser (issue 22 item 1): a document deep enough to exhaust the stack in a later copy,
// dump or walk is refused with a message instead of crashing the process.
#include "core/json.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "discover/protocol.hpp"
#include "mcp/jsonrpc.hpp"
#include "pipeline/plan.hpp"
#include "sources/common.hpp"
#include "spawn.hpp"

namespace {

// `depth` arrays inside one another around `core`, inside `prefix`...`suffix`.
std::string nested(std::size_t depth, std::string_view core = "1", std::string_view open = "[", std::string_view close = "]") {
  std::string s;
  s.reserve(depth * (open.size() + close.size()) + core.size());
  for (std::size_t i = 0; i < depth; ++i) s += open;
  s += core;
  for (std::size_t i = 0; i < depth; ++i) s += close;
  return s;
}

}  // namespace

TEST(Json, NestingIsLimitedAtTheParserWithAClearError) {
  EXPECT_TRUE(core::json::parse(nested(core::json::kMaxDepth)));
  const auto deep = core::json::parse(nested(core::json::kMaxDepth + 1));
  ASSERT_FALSE(deep);
  EXPECT_TRUE(deep.too_deep);
  EXPECT_EQ(deep.error, "JSON nested deeper than 512 levels");
  // Objects count as levels too, and so do the elements dropped past an array cap.
  EXPECT_TRUE(core::json::parse(nested(600, "1", "{\"a\":", "}")).too_deep);
  core::json::ParseOptions capped;
  capped.max_array_elements = 1;
  EXPECT_TRUE(core::json::parse("[0," + nested(600) + "]", capped).too_deep);
  // 200,000 levels (what crashed `last30days mcp`): refused, not a stack overflow.
  EXPECT_TRUE(core::json::parse(nested(200000)).too_deep);
  const auto bad = core::json::parse("{\"a\": tru");
  EXPECT_FALSE(bad);
  EXPECT_FALSE(bad.too_deep);
  EXPECT_FALSE(bad.error.empty());
  EXPECT_TRUE(core::json::parse_or_discarded(nested(1000)).is_discarded());
}

TEST(Json, TheArrayCapDropsElementsAsTheyAreRead) {
  core::json::ParseOptions capped;
  capped.max_array_elements = 2;
  const auto v = core::json::parse(R"({"a":[1,[2,3,4],{"x":[5]},6],"b":"c"})", capped);
  ASSERT_TRUE(v);
  EXPECT_EQ(v.value->dump(), R"({"a":[1,[2,3]],"b":"c"})");
}

// The documents a host writes (--plan, --judgments, --angles) are read by one field reader
// (core/json_fields.hpp); its messages name the flag, the row and the field as each reader's
// own did. (One changed in the merge: "--plan is not a JSON object" is now
// "--plan: not a JSON object", like the other two.) A null field counts as absent.
TEST(Json, HostDocumentsNameTheFlagTheRowAndTheField) {
  using Reader = bool (*)(std::string_view, std::string*);
  const Reader plan = [](std::string_view t, std::string* e) { return pipeline::parse_host_plan(t, e).has_value(); };
  const Reader judgments = [](std::string_view t, std::string* e) { return discover::parse_judgments(t, e).has_value(); };
  const Reader angles = [](std::string_view t, std::string* e) { return discover::parse_angles(t, e).has_value(); };
  const struct {
    Reader read;
    std::string text, message;
  } kCases[] = {
      {plan, "[1]", "--plan: not a JSON object"},
      {plan, "{\"intent\":3,\"sub_queries\":[\"a\"]}", "--plan: 'intent' must be a string"},
      {plan, "{}", "--plan: 'sub_queries' must be a non-empty array (or give 'synonyms')"},
      {plan, "{\"sub_queries\":{}}", "--plan: 'sub_queries' must be a non-empty array"},
      {plan, "{\"synonyms\":[]}", "--plan: 'synonyms' must be an object of \"term\": [\"other spelling\", ...]"},
      {plan, "{\"synonyms\":{\"x\":\"y\"}}", "--plan: synonyms for 'x' must be an array of 1..10 strings"},
      {plan, "{\"sub_queries\":[\"a\"],\"source_weights\":[]}", "--plan: 'source_weights' must be an object"},
      {plan, "{\"sub_queries\":[\"a\"],\"source_weights\":{\"myspace\":1}}",
       "--plan: unknown source 'myspace' in source_weights"},
      {plan, "{\"sub_queries\":[7]}", "--plan: sub_queries entries must be strings or objects"},
      {judgments, "\"x\"", "--judgments: not a JSON object"},
      {judgments, "{\"judgments\":[]}", "--judgments: 'bundle_id' (string) is required"},
      {judgments, "{\"bundle_id\":5,\"judgments\":[]}", "--judgments: 'bundle_id' (string) is required"},
      {judgments, "{\"bundle_id\":\"b\"}", "--judgments: 'judgments' must be an array"},
      {judgments, "{\"bundle_id\":\"b\",\"judgments\":{}}", "--judgments: 'judgments' must be an array"},
      {judgments, "{\"bundle_id\":\"b\",\"judgments\":[{\"name\":\"x\"}]}", "--judgments: each judgment needs a string 'id'"},
      {judgments, "{\"bundle_id\":\"b\",\"judgments\":[{\"id\":\"n1\",\"name\":2}]}", "--judgments: n1: 'name' must be a string"},
      {judgments, "{\"bundle_id\":\"b\",\"judgments\":[{\"id\":\"n1\",\"junk\":\"no\"}]}",
       "--judgments: n1: 'junk' must be true or false, got \"no\""},
      {judgments, "{\"bundle_id\":\"b\",\"judgments\":[{\"id\":\"n2\",\"worthiness\":\"high\"}]}",
       "--judgments: n2: 'worthiness' must be a number from 0 to 100"},
      {angles, "{\"bundle_id\":\"b\"}", "--angles: 'angles' must be an array"},
      {angles, "{\"bundle_id\":\"b\",\"angles\":[1]}", "--angles: each angle must be an object"},
      {angles, "{\"bundle_id\":\"b\",\"angles\":[{\"podcast\":\"p\"}]}", "--angles: each angle needs an 'id' (n1..) or a 'name'"},
      {angles, "{\"bundle_id\":\"b\",\"angles\":[{\"id\":\"n1\",\"x_article\":1}]}",
       "--angles: n1: 'x_article' must be a string"},
  };
  for (const auto& c : kCases) {
    std::string error;
    EXPECT_FALSE(c.read(c.text, &error)) << c.text;
    EXPECT_EQ(error, c.message) << c.text;
  }
  std::string error;
  EXPECT_TRUE(pipeline::parse_host_plan(R"({"intent":null,"sub_queries":["a"],"source_weights":null})", &error)) << error;
  EXPECT_TRUE(discover::parse_judgments(R"({"bundle_id":"b","judgments":[{"id":"n1","junk":null,"name":null}]})", &error))
      << error;
}

// Each reader of JSON the product is given refuses a deep document with its own message.
TEST(Json, EveryReaderRefusesDeepDocumentsByName) {
  const std::string deep_object = nested(100000, "1", "{\"k\":", "}");
  std::string error;
  EXPECT_FALSE(pipeline::parse_host_plan(deep_object, &error));
  EXPECT_EQ(error, "--plan: JSON nested deeper than 512 levels");
  EXPECT_FALSE(discover::parse_judgments(deep_object, &error));
  EXPECT_EQ(error, "--judgments: JSON nested deeper than 512 levels");
  EXPECT_FALSE(discover::parse_angles(deep_object, &error));
  EXPECT_EQ(error, "--angles: JSON nested deeper than 512 levels");
  EXPECT_FALSE(discover::bundle_from_json(deep_object, &error));
  EXPECT_NE(error.find("nested deeper than 512 levels"), std::string::npos) << error;
  EXPECT_FALSE(discover::pending_from_json(deep_object, &error));
  EXPECT_NE(error.find("nested deeper than 512 levels"), std::string::npos) << error;

  sources::Failure failure{model::SourceState::ok, {}};
  EXPECT_FALSE(sources::parse_json(R"({"hits":)" + nested(20000) + "}", &failure));
  EXPECT_EQ(failure.state, model::SourceState::schema_drift);
  EXPECT_EQ(failure.reason, "JSON nested deeper than 512 levels");

  // An MCP line whose params nest 130,000 levels: one parse error, the server lives on.
  const std::string line =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":)" + nested(130000, "1", "{\"a\":", "}") + "}";
  const auto parsed = mcp::parse_line(line);
  ASSERT_EQ(parsed.messages.size(), 1u);
  EXPECT_EQ(parsed.messages[0].error_code, mcp::code::parse_error);
  EXPECT_EQ(parsed.messages[0].error_message, "JSON nested deeper than 512 levels");
}

// One parse entry point: nothing in src/ parses JSON except core/json.cpp.
TEST(Json, NothingElseInTheSourceTreeParsesJson) {
  const std::filesystem::path src = std::filesystem::path(L30_FIXTURE_DIR) / ".." / ".." / "src";
  const std::regex parse_call(
      R"((json|ordered_json)::(parse|sax_parse|accept|from_cbor|from_msgpack|from_ubjson|from_bson)\s*\()");
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src)) {
    const auto& p = entry.path();
    if (!entry.is_regular_file() || (p.extension() != ".cpp" && p.extension() != ".hpp")) continue;
    if (p.filename() == "json.cpp" && p.parent_path().filename() == "core") continue;
    if (p.filename().string().ends_with("_test.cpp")) continue;
    ++files;
    const std::string text = testing_support::read_file(p.string());
    for (auto m = std::sregex_iterator(text.begin(), text.end(), parse_call); m != std::sregex_iterator(); ++m) {
      const auto at = static_cast<std::size_t>(m->position());
      const bool ours = at >= 6 && text.compare(at - 6, 6, "core::") == 0;  // core::json::parse is the one parser
      EXPECT_TRUE(ours) << p << " parses JSON itself (" << m->str() << "): use core::json::parse";
    }
  }
  EXPECT_GT(files, 50);
}
