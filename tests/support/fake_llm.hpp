#pragma once
// A fake OpenAI-compatible chat-completions server on 127.0.0.1 for --summarize tests: it
// parses each request's prompt (the items of its <data> block) and answers as a test
// scripts it, streamed as server-sent events split wherever the test says.
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fake_upstream.hpp"

namespace testing_support {

struct LlmPrompt {
  nlohmann::json body;                // the request body
  std::string system, user;           // the two messages
  std::vector<nlohmann::json> items;  // each line of the <data> block
  std::string data_block;             // the lines between <data> and </data>
  bool parsed = false;
};
LlmPrompt parse_prompt(const FakeRequest& r);

// A streamed chat completion whose content is `content`, written as one event per
// `per_event` bytes of content (0: one event), and sent in HTTP chunks cut every `cut`
// bytes of the stream (0: one chunk), usage at the end.
FakeReply sse_answer(const std::string& content, std::size_t per_event = 0, std::size_t cut = 0, long prompt_tokens = 321,
                     long completion_tokens = 45);
// {"sentences":[{"text":..,"cites":[..]},..]}
std::string sentences_json(const std::vector<std::pair<std::string, std::vector<std::string>>>& sentences);

class FakeLlm {
 public:
  using Script = std::function<FakeReply(const LlmPrompt& prompt, int call)>;  // call: 1, 2, ...
  explicit FakeLlm(Script script);
  std::string url() const { return upstream_->base() + "/v1"; }
  std::vector<Exchange> log() const { return upstream_->log(); }
  FakeUpstream& upstream() { return *upstream_; }

 private:
  Script script_;
  int calls_ = 0;
  std::unique_ptr<FakeUpstream> upstream_;
};

}  // namespace testing_support
