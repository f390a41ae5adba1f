#include "mcp/jsonrpc.hpp"

#include "core/json.hpp"

namespace mcp {

Message classify(const json& v) {
  Message m;
  auto invalid = [&m](int c, std::string text) {
    m.kind = Message::Kind::invalid;
    m.error_code = c;
    m.error_message = std::move(text);
    return m;
  };
  if (!v.is_object()) return invalid(code::invalid_request, "a message must be a JSON object");
  if (auto id = v.find("id"); id != v.end() && (id->is_string() || id->is_number())) m.id = *id;
  const auto jr = v.find("jsonrpc");
  if (jr == v.end() || !jr->is_string() || jr->get_ref<const std::string&>() != "2.0")
    return invalid(code::invalid_request, "\"jsonrpc\" must be \"2.0\"");
  const auto method = v.find("method");
  if (method == v.end()) {
    if (v.contains("result") || v.contains("error")) {
      m.kind = Message::Kind::response;
      return m;
    }
    return invalid(code::invalid_request, "a message needs \"method\", \"result\" or \"error\"");
  }
  if (!method->is_string()) return invalid(code::invalid_request, "\"method\" must be a string");
  m.method = method->get<std::string>();
  const auto id = v.find("id");
  if (id != v.end() && !id->is_string() && !(id->is_number_integer() || id->is_number_unsigned()))
    return invalid(code::invalid_request, "\"id\" must be a string or an integer");
  if (const auto params = v.find("params"); params != v.end()) {
    if (!params->is_object()) {
      m.reply = id != v.end();  // a notification is never answered, even when malformed
      return invalid(code::invalid_params, "\"params\" must be an object");
    }
    m.params = *params;
  }
  m.kind = id == v.end() ? Message::Kind::notification : Message::Kind::request;
  return m;
}

Line parse_line(std::string_view line) {
  Line out;
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
  if (i == line.size()) return out;
  auto parsed = core::json::parse(line);
  if (!parsed) {
    Message m;
    m.error_code = code::parse_error;
    m.error_message = parsed.too_deep ? parsed.error : "not valid JSON";
    out.messages.push_back(std::move(m));
    return out;
  }
  const json& v = *parsed.value;
  if (v.is_array()) {
    out.batch = true;
    if (v.empty()) {
      Message m;
      m.error_code = code::invalid_request;
      m.error_message = "an empty batch";
      out.messages.push_back(std::move(m));
      out.batch = false;
      return out;
    }
    for (const auto& e : v) out.messages.push_back(classify(e));
    return out;
  }
  out.messages.push_back(classify(v));
  return out;
}

json response(const json& id, json result) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

json error_response(const json& id, int c, std::string_view message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", c}, {"message", std::string(message)}}}};
}

json notification(std::string_view method, json params) {
  return {{"jsonrpc", "2.0"}, {"method", std::string(method)}, {"params", std::move(params)}};
}

std::string serialize(const json& message) { return message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n"; }

void LineReader::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const auto nl = bytes.find('\n');
    const auto chunk = bytes.substr(0, nl);
    if (!discarding_) {
      if (buf_.size() + chunk.size() > max_) {
        discarding_ = true;
        buf_.clear();
        buf_.shrink_to_fit();
      } else {
        buf_.append(chunk);
      }
    }
    if (nl == std::string_view::npos) return;
    if (discarding_) {
      ready_.emplace_back(std::string(), true);
    } else {
      if (!buf_.empty() && buf_.back() == '\r') buf_.pop_back();
      ready_.emplace_back(std::move(buf_), false);
    }
    buf_.clear();
    discarding_ = false;
    bytes.remove_prefix(nl + 1);
  }
}

std::optional<std::string> LineReader::next(bool* too_long) {
  if (ready_pos_ >= ready_.size()) {
    ready_.clear();
    ready_pos_ = 0;
    return std::nullopt;
  }
  auto& [line, dropped] = ready_[ready_pos_++];
  if (too_long) *too_long = dropped;
  return std::move(line);
}

std::optional<std::string> LineReader::rest() {
  if (discarding_ || buf_.empty()) return std::nullopt;
  std::string out = std::move(buf_);
  buf_.clear();
  return out;
}

}  // namespace mcp
