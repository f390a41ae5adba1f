#pragma once
// The product, not the model, decides what a sentence may say: the answer is parsed as data
// and every sentence is checked against the items it cites.
//   uncited         the sentence cites nothing
//   unknown-cite    a cited id is not one of the report's items
//   quote           a quoted phrase is in no cited item
//   number          a number, version, percentage or amount is in no cited item (text,
//                   title, engagement figures or date)
//   name            a name of a person, project or product (a capitalised or CamelCase word,
//                   dotted like llama.cpp, an @handle) is in no cited item
// failed_check is "<check>: <what>".
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "synth/prompt.hpp"

namespace synth {

struct Claim {
  std::string text;
  std::vector<std::string> cites;
};

// The model's answer as data: {"sentences":[{"text":..,"cites":[..]}]} (a ```json fence
// around it is tolerated). nullopt with *why when it is not that form.
std::optional<std::vector<Claim>> parse_answer(std::string_view content, std::string* why);

class Verifier {
 public:
  explicit Verifier(const std::vector<Evidence>& evidence);
  // nullopt: verified; else the failed check.
  std::optional<std::string> check(const Claim& claim) const;

 private:
  struct Known {
    std::string folded;                       // casefolded text, whitespace collapsed
    std::unordered_set<std::string> words;    // its tokens
    std::unordered_set<std::string> numbers;  // normalized numeric tokens
    std::vector<double> values;               // every number it holds, engagement included
  };
  std::unordered_map<std::string, Known> known_;
};

// Exposed for tests: the numeric tokens of a text, as written ("$1,200", "v1.2.3", "50%").
std::vector<std::string> numeric_tokens(std::string_view text);

}  // namespace synth
