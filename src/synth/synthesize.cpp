#include "synth/synthesize.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <map>

#include "core/text.hpp"
#include "synth/verify.hpp"

namespace synth {

std::optional<Settings> settings_from(const core::Config& cfg, std::string* error) {
  auto ep = endpoint_from(cfg, error);
  if (!ep) return std::nullopt;
  Settings s;
  s.endpoint = std::move(*ep);
  s.max_prompt_tokens = kDefaultPromptBudget;
  if (const auto v = cfg.get("LAST30DAYS_LLM_MAX_PROMPT_TOKENS")) {
    const std::string t(core::trim(*v));
    char* end = nullptr;
    const long n = std::strtol(t.c_str(), &end, 10);
    if (t.empty() || end == nullptr || *end != '\0' || n <= 0 || n > 10'000'000) {
      *error = "LAST30DAYS_LLM_MAX_PROMPT_TOKENS must be a whole number of tokens above 0 (default " +
               std::to_string(kDefaultPromptBudget) + ")";
      return std::nullopt;
    }
    s.max_prompt_tokens = n;
  }
  return s;
}

Synthesizer::Synthesizer(std::shared_ptr<http::Client> http, Settings settings)
    : chat_(std::move(http), settings.endpoint), settings_(std::move(settings)) {}

namespace {

constexpr core::Millis kLeastTime{1000};

}  // namespace

model::Synthesis Synthesizer::run(Task task, const std::string& subject, const model::Window& window,
                                  const std::vector<std::string>& groups, const std::vector<Evidence>& evidence,
                                  core::Deadline deadline, std::stop_token stop) const {
  const auto t0 = core::Clock::now();
  model::Synthesis out;
  out.model = settings_.endpoint.model;
  auto finish = [&]() {
    out.elapsed_ms = static_cast<long>(std::chrono::duration_cast<core::Millis>(core::Clock::now() - t0).count());
    return out;
  };
  if (evidence.empty()) {
    out.error = "nothing to summarize: no items";
    return finish();
  }
  const ChatRequest req = chat_request(task, subject, window, groups, evidence);
  const long estimate = estimate_tokens(req);
  out.usage = {estimate, 0, true};
  if (estimate > settings_.max_prompt_tokens) {
    out.usage = {0, 0, true};
    out.error = fmt::format(
        "not sent: the prompt would take about {} tokens, over the budget of {} "
        "(raise LAST30DAYS_LLM_MAX_PROMPT_TOKENS, or use --quick for fewer items)",
        estimate, settings_.max_prompt_tokens);
    return finish();
  }
  if (deadline.remaining() < kLeastTime) {
    out.usage = {0, 0, true};
    out.error = "not sent: the run's deadline left no time for the model (raise --timeout)";
    return finish();
  }
  const ChatAnswer answer = chat_.complete(req, deadline, stop);
  if (answer.prompt_tokens || answer.completion_tokens) {
    out.usage = {answer.prompt_tokens.value_or(0), answer.completion_tokens.value_or(0), false};
  } else {
    out.usage.completion_tokens = static_cast<long>((answer.content.size() + 3) / 4);
  }
  if (answer.error) {
    out.error = answer.error;
    return finish();
  }
  std::string why;
  const auto claims = parse_answer(answer.content, &why);
  if (!claims) {
    out.error = why;
    return finish();
  }
  const Verifier verifier(evidence);
  std::map<std::string, const Evidence*> by_id;
  for (const auto& e : evidence) by_id.emplace(e.id, &e);
  for (const auto& c : *claims) {
    model::SynthSentence s;
    s.text = c.text;
    s.cites = c.cites;
    s.failed_check = verifier.check(c);
    s.verified = !s.failed_check;
    if (!s.verified) ++out.dropped;
    if (s.verified)
      for (const auto& id : c.cites)
        if (out.number_of(id) == 0) {
          const Evidence& e = *by_id.at(id);
          out.sources.push_back({e.id, e.title, e.url});
        }
    out.sentences.push_back(std::move(s));
  }
  if (out.kept() == 0) out.error = fmt::format("every sentence failed its checks ({} dropped)", out.dropped);
  return finish();
}

model::Synthesis Synthesizer::research(const model::Report& r, core::Deadline deadline, std::stop_token stop) const {
  return run(Task::research, r.topic, r.window, {}, evidence_of(r), deadline, std::move(stop));
}

model::Synthesis Synthesizer::comparison(const model::Comparison& c, core::Deadline deadline, std::stop_token stop) const {
  std::vector<std::string> names;
  for (const auto& e : c.entities) names.push_back(e.name);
  return run(Task::comparison, c.topic, c.window, names, evidence_of(c), deadline, std::move(stop));
}

model::Synthesis Synthesizer::discovery(const model::DiscoveryReport& d, core::Deadline deadline, std::stop_token stop) const {
  std::vector<std::string> names;
  for (const auto& t : d.results) names.push_back(t.name);
  return run(Task::discovery, d.domain, d.window, names, evidence_of(d), deadline, std::move(stop));
}

model::Synthesis Synthesizer::watch(const model::WatchRun& w, const model::Window& window, core::Deadline deadline,
                                    std::stop_token stop) const {
  return run(Task::watch, w.topic, window, {}, evidence_of(w), deadline, std::move(stop));
}

}  // namespace synth
