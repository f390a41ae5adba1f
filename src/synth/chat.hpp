#pragma once
// The one client for the OpenAI-compatible chat-completions API (POST {base}/chat/completions)
// that local servers (Ollama, llama.cpp's server, vLLM) and hosted ones (OpenAI, OpenRouter,
// Gemini's compatible endpoint) speak. It asks for a streamed answer and reads the
// server-sent events as they arrive; a server that ignores `stream` and answers one JSON
// object is read too. Everything goes through http::Client: the run's deadline and stop
// token bound it, 5xx is retried once and 429 waits for Retry-After when it fits, and the
// key (a Bearer token) is sent to this URL's host only (the client refuses off-host redirects).
#include <cstddef>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.hpp"
#include "core/deadline.hpp"
#include "http/client.hpp"

namespace synth {

struct Endpoint {
  std::string base_url;  // ".../v1", without the trailing slash
  std::string model;
  std::string key;  // empty for a local server without one
  std::string url() const { return base_url + "/chat/completions"; }
};

// LAST30DAYS_LLM_URL, LAST30DAYS_LLM_MODEL and LAST30DAYS_LLM_KEY from the configuration.
// nullopt with *error (in the product's words, naming the variables) when one is missing
// or the URL is not an http(s) URL.
std::optional<Endpoint> endpoint_from(const core::Config& cfg, std::string* error);

struct Message {
  std::string role;  // "system" | "user"
  std::string content;
};

struct ChatRequest {
  std::vector<Message> messages;
  std::string response_format;  // a JSON object for "response_format", or empty
};

struct ChatAnswer {
  std::string content;                // the assistant's text, whole
  std::optional<long> prompt_tokens;  // as the server reported them
  std::optional<long> completion_tokens;
  std::optional<std::string> error;  // why there is no usable answer
  std::string finish_reason;
  int attempts = 0;
  core::Millis elapsed{0};
};

// The answer of one streamed (or not) chat completion, assembled from body pieces split
// anywhere. Bounded: content over max_content bytes, or an event over max_event bytes,
// ends it with an error; nothing grows past those caps.
class AnswerReader {
 public:
  explicit AnswerReader(std::size_t max_content, std::size_t max_event = 1u << 20);
  ~AnswerReader();
  AnswerReader(const AnswerReader&) = delete;
  AnswerReader& operator=(const AnswerReader&) = delete;
  bool feed(std::string_view piece);  // false: stop reading (over a cap, or the stream said done)
  ChatAnswer finish();                // after the last piece

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The request body: model, messages, stream with usage, the response format.
std::string request_body(const Endpoint& ep, const ChatRequest& req);

class ChatClient {
 public:
  static constexpr std::size_t kMaxAnswerBytes = 256u << 10;
  ChatClient(std::shared_ptr<http::Client> http, Endpoint endpoint, std::size_t max_answer_bytes = kMaxAnswerBytes)
      : http_(std::move(http)), ep_(std::move(endpoint)), max_answer_(max_answer_bytes) {}

  // Blocks until the whole answer, the deadline or the stop token. Never throws for a
  // server's behaviour: every failure is ChatAnswer::error.
  ChatAnswer complete(const ChatRequest& req, core::Deadline deadline, std::stop_token stop) const;
  const Endpoint& endpoint() const { return ep_; }

 private:
  std::shared_ptr<http::Client> http_;
  Endpoint ep_;
  std::size_t max_answer_;
};

}  // namespace synth
