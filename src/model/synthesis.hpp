#pragma once
// A "What happened" synthesis (spec §5, §9): sentences a model wrote about a report, each
// checked by the product against the items it cites. Renderers read this; src/synth fills it.
#include <optional>
#include <string>
#include <vector>

namespace model {

struct SynthSentence {
  std::string text;
  std::vector<std::string> cites;  // item ids, as the model gave them
  bool verified = false;
  std::optional<std::string> failed_check;  // "uncited", "unknown-cite: x", "number: 42", ...
};

// An item a kept sentence cites, numbered by first citation: [1] is sources[0].
struct SynthSource {
  std::string id;
  std::string title;
  std::string url;
};

struct SynthUsage {
  long prompt_tokens = 0;
  long completion_tokens = 0;
  bool estimated = false;  // the server reported none: bytes / 4
};

struct Synthesis {
  std::string model;
  std::vector<SynthSentence> sentences;  // every sentence the model wrote, in its order
  int dropped = 0;                       // sentences that failed a check
  SynthUsage usage;
  long elapsed_ms = 0;
  std::optional<std::string> error;  // why there is no synthesis (the brief is printed anyway)
  std::vector<SynthSource> sources;  // what the kept sentences cite, numbered

  // 1-based citation number of an item id among sources, 0 when it is not one.
  std::size_t number_of(const std::string& id) const {
    for (std::size_t k = 0; k < sources.size(); ++k)
      if (sources[k].id == id) return k + 1;
    return 0;
  }
  std::size_t kept() const { return sentences.size() - static_cast<std::size_t>(dropped); }
};

}  // namespace model
