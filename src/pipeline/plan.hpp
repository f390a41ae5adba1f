#pragma once
// Stage 1: the query plan. Deterministic: the same topic and depth always give the same plan.
#include <optional>
#include <string>
#include <string_view>

#include "model/report.hpp"

namespace pipeline {

// The longest topic or sub-query, in characters (code points, not bytes).
constexpr std::size_t kMaxTopicChars = 300;

int max_sub_queries(model::Depth depth);
model::Plan make_plan(std::string_view topic, model::Depth depth);

// A host agent's plan: {"intent": str, "sub_queries": [str | {"query": str, "weight": num}],
// "source_weights": {id: num}}. Returns nullopt and sets error for a plan that breaks the contract.
std::optional<model::Plan> parse_host_plan(std::string_view json_text, std::string* error);

}  // namespace pipeline
