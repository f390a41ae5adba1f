#pragma once
// Stage 1: the query plan. Deterministic: the same topic and depth always give the same plan.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/report.hpp"

namespace pipeline {

// The longest topic or sub-query, in characters (code points, not bytes).
constexpr std::size_t kMaxTopicChars = 300;

int max_sub_queries(model::Depth depth);
// The intents make_plan chooses from, the words a source's intent_weights() may name.
std::span<const std::string_view> plan_intents();
// Each source's weight for an intent (Source::intent_weights; a source not named weighs 1).
std::map<std::string, double> intent_source_weights(std::string_view intent);
// host_synonyms come first; the built-in table adds what they do not cover.
model::Plan make_plan(std::string_view topic, model::Depth depth, std::vector<model::Synonym> host_synonyms = {});

// The topic without the words at its ends that ask for news or talk rather than name the
// subject ("latest", "news", "this week", "what are people saying about", "... reddit", a
// leading "the"; in lower case, or a sentence's opening capital): what the run plans and
// scores by. The whole topic when nothing else would be left.
std::string subject_of(std::string_view topic);

// The built-in synonym and abbreviation table's entries for words of this topic.
std::vector<model::Synonym> table_synonyms(std::string_view topic);
// first, then the entries of `then` for terms `first` does not cover.
std::vector<model::Synonym> merge_synonyms(std::vector<model::Synonym> first, const std::vector<model::Synonym>& then);

// A host agent's plan: {"intent": str, "sub_queries": [str | {"query": str, "weight": num}],
// "source_weights": {id: num}, "synonyms": {"term": ["other spelling", ...]}}. With synonyms,
// sub_queries may be left out: the built-in planner then asks, with the host's synonyms.
// Returns nullopt and sets error for a plan that breaks the contract.
std::optional<model::Plan> parse_host_plan(std::string_view json_text, std::string* error);

// The run's plan: the built-in one, the host's, or the built-in one with the host's synonyms;
// the built-in synonym table always applies to the topic's words the host did not cover.
model::Plan plan_for(std::string_view topic, model::Depth depth, const std::optional<model::Plan>& host);

}  // namespace pipeline
