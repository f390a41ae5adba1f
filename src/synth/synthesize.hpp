#pragma once
// --summarize (spec §9): a finished report in, a model::Synthesis out. The engine never
// calls this; the commands do, after the run, inside the run's deadline.
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "core/config.hpp"
#include "core/deadline.hpp"
#include "http/client.hpp"
#include "model/comparison.hpp"
#include "model/discovery.hpp"
#include "model/memory.hpp"
#include "model/report.hpp"
#include "model/synthesis.hpp"
#include "synth/chat.hpp"
#include "synth/prompt.hpp"

namespace synth {

struct Settings {
  Endpoint endpoint;
  long max_prompt_tokens = 12000;  // LAST30DAYS_LLM_MAX_PROMPT_TOKENS
};
inline constexpr long kDefaultPromptBudget = 12000;

// From the configuration, checked before any request: nullopt with *error naming what is
// missing or malformed (a usage error, exit 2).
std::optional<Settings> settings_from(const core::Config& cfg, std::string* error);

class Synthesizer {
 public:
  Synthesizer(std::shared_ptr<http::Client> http, Settings settings);

  model::Synthesis research(const model::Report& r, core::Deadline deadline, std::stop_token stop) const;
  model::Synthesis comparison(const model::Comparison& c, core::Deadline deadline, std::stop_token stop) const;
  model::Synthesis discovery(const model::DiscoveryReport& d, core::Deadline deadline, std::stop_token stop) const;
  model::Synthesis watch(const model::WatchRun& w, const model::Window& window, core::Deadline deadline,
                         std::stop_token stop) const;

  // The common path, for any evidence: prompt, budget, call, parse, verify.
  model::Synthesis run(Task task, const std::string& subject, const model::Window& window, const std::vector<std::string>& groups,
                       const std::vector<Evidence>& evidence, core::Deadline deadline, std::stop_token stop) const;

 private:
  ChatClient chat_;
  Settings settings_;
};

}  // namespace synth
