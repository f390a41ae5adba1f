#include "synth/chat.hpp"

#include <fmt/format.h>

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>

#include "core/json.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "core/url.hpp"
#include "synth/sse.hpp"

namespace synth {

using json = nlohmann::json;

std::optional<Endpoint> endpoint_from(const core::Config& cfg, std::string* error) {
  const auto url = cfg.get("LAST30DAYS_LLM_URL");
  const auto model = cfg.get("LAST30DAYS_LLM_MODEL");
  if (!url || !model) {
    std::string missing = !url && !model ? "LAST30DAYS_LLM_URL and LAST30DAYS_LLM_MODEL"
                          : !url         ? "LAST30DAYS_LLM_URL"
                                         : "LAST30DAYS_LLM_MODEL";
    *error = "--summarize needs " + missing +
             " (the base URL of an OpenAI-compatible API such as http://127.0.0.1:11434/v1, and the model name; "
             "LAST30DAYS_LLM_KEY too when the server wants a key): set them in the environment or the config file";
    return std::nullopt;
  }
  std::string base(core::trim(*url));
  while (!base.empty() && base.back() == '/') base.pop_back();
  constexpr std::string_view kTail = "/chat/completions";
  if (base.size() > kTail.size() && base.compare(base.size() - kTail.size(), kTail.size(), kTail) == 0)
    base.resize(base.size() - kTail.size());
  const auto parsed = core::Url::parse(base);
  if (!parsed || (parsed->scheme != "http" && parsed->scheme != "https") || parsed->host.empty() ||
      base.find_first_of("?#") != std::string::npos) {
    *error = "LAST30DAYS_LLM_URL is not an http(s) base URL (such as http://127.0.0.1:11434/v1 or https://api.openai.com/v1)";
    return std::nullopt;
  }
  Endpoint ep;
  ep.base_url = std::move(base);
  ep.model = std::string(core::trim(*model));
  ep.key = std::string(core::trim(cfg.get("LAST30DAYS_LLM_KEY").value_or("")));
  return ep;
}

std::string request_body(const Endpoint& ep, const ChatRequest& req) {
  json messages = json::array();
  for (const auto& m : req.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  json body{{"model", ep.model}, {"messages", messages}, {"stream", true}, {"stream_options", {{"include_usage", true}}}};
  if (!req.response_format.empty()) body["response_format"] = core::json::parse_or_discarded(req.response_format);
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

// The server's own words from an error object ({"error":{"message":..}} or {"error":".."}).
std::string server_message(const json& doc) {
  if (!doc.is_object() || !doc.contains("error")) return {};
  const auto& e = doc["error"];
  if (e.is_string()) return e.get<std::string>();
  if (e.is_object()) {
    if (e.contains("message")) return text_of(e["message"]);
    return e.dump();
  }
  return {};
}

std::string clean_reason(std::string_view s) { return core::truncate_utf8(core::printable_line(core::redact::scrub(s)), 200); }

std::optional<long> count(const json& usage, const char* key) {
  if (!usage.is_object() || !usage.contains(key) || !usage[key].is_number()) return std::nullopt;
  const double v = usage[key].get<double>();
  if (!(v >= 0) || v > 1e12) return std::nullopt;
  return static_cast<long>(v);
}

}  // namespace

struct AnswerReader::Impl {
  enum class Mode { unknown, sse, whole };
  std::size_t max_content;
  std::size_t max_event;
  Mode mode = Mode::unknown;
  std::string raw;  // Mode::whole: the body, bounded by max_event
  SseParser sse;
  ChatAnswer answer;
  bool done = false;  // [DONE] seen
  bool over_cap = false;

  Impl(std::size_t mc, std::size_t me)
      : max_content(mc), max_event(me), sse([this](std::string_view data) { return event(data); }, me) {}

  void take_usage(const json& doc) {
    if (!doc.contains("usage")) return;
    if (auto p = count(doc["usage"], "prompt_tokens")) answer.prompt_tokens = p;
    if (auto c = count(doc["usage"], "completion_tokens")) answer.completion_tokens = c;
  }

  bool add_content(std::string_view piece) {
    if (answer.content.size() + piece.size() > max_content) {
      over_cap = true;
      answer.error = fmt::format("the model's answer is over the {} KB cap; it was not read further", max_content >> 10);
      return false;
    }
    answer.content.append(piece);
    return true;
  }

  bool event(std::string_view data) {
    if (core::trim(data) == "[DONE]") {
      done = true;
      return false;
    }
    const json doc = core::json::parse_or_discarded(data);
    if (doc.is_discarded() || !doc.is_object()) {
      answer.error = "the model server sent an event that is not JSON";
      return false;
    }
    if (const auto msg = server_message(doc); !msg.empty()) {
      answer.error = "the model server reported an error mid-answer: " + clean_reason(msg);
      return false;
    }
    take_usage(doc);
    if (doc.contains("choices") && doc["choices"].is_array() && !doc["choices"].empty()) {
      const auto& c = doc["choices"][0];
      if (c.is_object()) {
        if (c.contains("finish_reason") && c["finish_reason"].is_string()) answer.finish_reason = c["finish_reason"];
        for (const char* part : {"delta", "message"})
          if (c.contains(part) && c[part].is_object() && c[part].contains("content"))
            if (!add_content(text_of(c[part]["content"]))) return false;
      }
    }
    return true;
  }

  bool feed(std::string_view piece) {
    if (done || answer.error) return !over_cap;  // the rest is ignored, not read into memory
    if (mode == Mode::unknown) {
      const auto first = piece.find_first_not_of(" \t\r\n");
      if (first == std::string_view::npos) return true;
      mode = piece[first] == '{' ? Mode::whole : Mode::sse;
    }
    if (mode == Mode::whole) {
      if (raw.size() + piece.size() > max_event) {
        over_cap = true;
        answer.error = fmt::format("the model's answer is over the {} KB cap; it was not read further", max_event >> 10);
        return false;
      }
      raw.append(piece);
      return true;
    }
    sse.feed(piece);
    if (sse.overflowed()) {
      over_cap = true;
      answer.error = fmt::format("the model server sent an event over the {} KB cap", max_event >> 10);
    }
    return !over_cap;
  }

  ChatAnswer finish() {
    if (!answer.error && mode == Mode::whole) {
      const json doc = core::json::parse_or_discarded(raw);
      if (doc.is_discarded()) answer.error = "the model server's answer is not JSON";
      else if (const auto msg = server_message(doc); !msg.empty())
        answer.error = "the model server reported an error: " + clean_reason(msg);
      else event(raw);
    } else if (!answer.error && !done) {
      sse.finish();
    }
    if (!answer.error && mode == Mode::unknown) answer.error = "the model server sent an empty answer";
    if (!answer.error && core::trim(answer.content).empty())
      answer.error = answer.finish_reason == "length" ? "the model ran out of tokens before it wrote anything"
                                                      : "the model's answer was empty";
    return std::move(answer);
  }
};

AnswerReader::AnswerReader(std::size_t max_content, std::size_t max_event)
    : impl_(std::make_unique<Impl>(max_content, max_event)) {}
AnswerReader::~AnswerReader() = default;
bool AnswerReader::feed(std::string_view piece) { return impl_->feed(piece); }
ChatAnswer AnswerReader::finish() { return impl_->finish(); }

namespace {

bool sleep_for(core::Millis d, const std::stop_token& stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  return !cv.wait_for(lock, stop, d, [] { return false; });
}

std::string status_reason(const http::Response& r, const Endpoint& ep) {
  std::string msg;
  const json doc = core::json::parse_or_discarded(r.body);
  if (!doc.is_discarded()) msg = server_message(doc);
  const std::string tail = msg.empty() ? "" : ": " + clean_reason(msg);
  const auto host = core::Url::parse(ep.base_url);
  const std::string where = host ? host->host : "the model server";
  switch (r.status) {
    case 401:
    case 403: return fmt::format("{} refused the request (HTTP {}){}; check LAST30DAYS_LLM_KEY", where, r.status, tail);
    case 404:
      return fmt::format(
          "{} has no such endpoint or model (HTTP 404){}; check LAST30DAYS_LLM_URL (it ends in /v1) and LAST30DAYS_LLM_MODEL",
          where, tail);
    case 429: {
      const auto after = r.header("retry-after");
      return fmt::format("{} is rate-limiting (HTTP 429){}{}", where,
                         after ? "; it asks to wait " + clean_reason(*after) + " s, more than the run has left" : "", tail);
    }
    default: return fmt::format("{} answered HTTP {}{}", where, r.status, tail);
  }
}

}  // namespace

ChatAnswer ChatClient::complete(const ChatRequest& req, core::Deadline deadline, std::stop_token stop) const {
  const auto t0 = core::Clock::now();
  const std::string body = request_body(ep_, req);
  ChatAnswer out;
  for (int round = 0;; ++round) {
    AnswerReader reader(max_answer_);
    http::Request hr;
    hr.url = ep_.url();
    hr.method = "POST";
    hr.body = body;
    hr.headers = {{"Content-Type", "application/json"}, {"Accept", "text/event-stream"}};
    if (!ep_.key.empty()) hr.headers.push_back({"Authorization", "Bearer " + ep_.key});
    hr.deadline = deadline;
    hr.timeout = deadline.remaining();  // a model may write for a long time; the run's deadline is the bound
    hr.stop = stop;
    hr.on_body = [&reader](std::string_view piece) { return reader.feed(piece); };
    const http::Response r = http_->fetch(hr);
    out = reader.finish();
    out.attempts += r.attempts;
    if (!r.transport_ok()) {
      // The reader's reason (over its cap) is the better one when it stopped the transfer.
      if (r.error != http::NetError::too_large || !out.error) {
        const auto host = core::Url::parse(ep_.base_url);
        const std::string where = host ? host->host : "the model server";
        switch (r.error) {
          case http::NetError::timeout:
            out.error = "the model did not finish its answer before the run's deadline (raise --timeout)";
            break;
          case http::NetError::cancelled: out.error = "cancelled before the model finished"; break;
          case http::NetError::unreachable:
            out.error = fmt::format("cannot reach {}: {}", where, clean_reason(r.error_detail));
            break;
          case http::NetError::too_large: out.error = "the model's answer is over the size cap; it was not read further"; break;
          case http::NetError::redirect_offhost:
            out.error = fmt::format("{} redirected to another host; not followed (the key stays with its host)", where);
            break;
          case http::NetError::replay_miss: out.error = "--replay has no recording of this model request"; break;
          default: out.error = fmt::format("the exchange with {} failed: {}", where, clean_reason(r.error_detail)); break;
        }
      }
      out.content.clear();
      break;
    }
    if (r.status == 429 && round == 0 && !r.header("retry-after") && deadline.remaining() > core::Millis(2500)) {
      // No Retry-After (the HTTP client waits only for one it is given): one retry after a second.
      if (!sleep_for(core::Millis(1000), stop)) {
        out.error = "cancelled before the model finished";
        break;
      }
      continue;
    }
    if (r.status < 200 || r.status >= 300) {
      out.content.clear();
      out.error = status_reason(r, ep_);
    }
    break;
  }
  out.elapsed = std::chrono::duration_cast<core::Millis>(core::Clock::now() - t0);
  return out;
}

}  // namespace synth
