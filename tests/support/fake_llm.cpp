#include "fake_llm.hpp"

#include <algorithm>
#include <sstream>

namespace testing_support {

using nlohmann::json;

LlmPrompt parse_prompt(const FakeRequest& r) {
  LlmPrompt p;
  p.body = json::parse(r.body, nullptr, false);
  if (p.body.is_discarded() || !p.body.contains("messages")) return p;
  for (const auto& m : p.body["messages"]) {
    if (m.value("role", "") == "system") p.system = m.value("content", "");
    if (m.value("role", "") == "user") p.user = m.value("content", "");
  }
  const auto open = p.user.find("\n<data>\n");
  const auto close = p.user.rfind("</data>");
  if (open == std::string::npos || close == std::string::npos || close < open) return p;
  p.data_block = p.user.substr(open + 8, close - open - 8);
  std::istringstream in(p.data_block);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) p.items.push_back(json::parse(line, nullptr, false));
  p.parsed = true;
  return p;
}

FakeReply sse_answer(const std::string& content, std::size_t per_event, std::size_t cut, long prompt_tokens,
                     long completion_tokens) {
  std::string stream = ": ping\n\n";
  const std::size_t step = per_event == 0 ? std::max<std::size_t>(content.size(), 1) : per_event;
  for (std::size_t k = 0, end = 0; k < content.size(); k = end) {
    // An event holds whole characters (its JSON must be valid UTF-8, as a server's is); the
    // HTTP chunks below cut anywhere, inside characters and JSON strings.
    end = std::min(content.size(), k + step);
    while (end < content.size() && (static_cast<unsigned char>(content[end]) & 0xC0) == 0x80) ++end;
    std::string escaped;
    for (char c : content.substr(k, end - k)) {
      if (c == '"' || c == '\\') escaped += '\\';
      escaped += c;
    }
    stream += "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" +
              escaped + "\"}}]}\n\n";
  }
  stream += "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
  stream += "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":" + std::to_string(prompt_tokens) +
            ",\"completion_tokens\":" + std::to_string(completion_tokens) + "}}\n\n";
  stream += "data: [DONE]\n\n";
  FakeReply r;
  r.content_type = "text/event-stream";
  if (cut == 0) {
    r.chunks = {stream};
  } else {
    for (std::size_t k = 0; k < stream.size(); k += cut) r.chunks.push_back(stream.substr(k, cut));
  }
  r.chunk_gap = std::chrono::milliseconds(cut == 0 ? 0 : 2);
  return r;
}

std::string sentences_json(const std::vector<std::pair<std::string, std::vector<std::string>>>& sentences) {
  json arr = json::array();
  for (const auto& [text, cites] : sentences) arr.push_back({{"text", text}, {"cites", cites}});
  return json{{"sentences", arr}}.dump();
}

FakeLlm::FakeLlm(Script script) : script_(std::move(script)) {
  upstream_ = std::make_unique<FakeUpstream>([this](const FakeRequest& r) {
    if (r.method != "POST" || r.path != "/v1/chat/completions") return FakeReply::json("{\"error\":\"not found\"}", 404);
    return script_(parse_prompt(r), ++calls_);
  });
}

}  // namespace testing_support
