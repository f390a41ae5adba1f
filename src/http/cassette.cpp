#include "http/cassette.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/text.hpp"
#include "core/url.hpp"

namespace http {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool valid_utf8(std::string_view s) { return core::sanitize_utf8(s).size() == s.size() && s.find('\r') == std::string_view::npos; }

bool secret_field(std::string_view name) {
  const std::string n = core::lower_ascii(name);
  for (std::string_view w : {"token", "jwt", "secret", "password", "apikey", "api_key", "authorization"})
    if (n.find(w) != std::string::npos) return true;
  return false;
}

void redact_json(json& j) {
  if (j.is_object()) {
    for (auto& [k, v] : j.items()) {
      if (secret_field(k) && v.is_string()) v = "REDACTED";
      else redact_json(v);
    }
  } else if (j.is_array()) {
    for (auto& v : j) redact_json(v);
  }
}

// Headers worth replaying: what the engine reads. Everything else (cookies...) is dropped.
bool replayable_header(std::string_view name) {
  return name == "content-type" || name == "retry-after" || name == "location" ||
         name.rfind("x-ratelimit-", 0) == 0 || name == "content-encoding";
}

}  // namespace

bool is_secret_param(std::string_view name) {
  const std::string n = core::lower_ascii(name);
  return n == "key" || n == "api_key" || n == "apikey" || n == "token" || n == "access_token" ||
         n == "client_secret" || n == "client_id" || n == "password" || n == "sig" || n == "signature" ||
         n.find("token") != std::string::npos || n.find("secret") != std::string::npos;
}

Cassette::Cassette(std::string dir, Mode mode, std::vector<std::string> secrets)
    : dir_(std::move(dir)), mode_(mode), secrets_(std::move(secrets)) {
  std::error_code ec;
  if (mode_ == Mode::record) {
    fs::create_directories(dir_, ec);
    if (ec || !fs::is_directory(dir_)) throw std::runtime_error("cannot create record directory " + dir_);
  } else if (!fs::is_directory(dir_, ec)) {
    throw std::runtime_error("replay directory " + dir_ + " does not exist");
  }
}

std::string Cassette::redact_text(std::string_view text) const {
  std::string out(text);
  for (const auto& s : secrets_) {
    if (s.empty()) continue;
    for (auto pos = out.find(s); pos != std::string::npos; pos = out.find(s, pos)) out.replace(pos, s.size(), "REDACTED");
  }
  return out;
}

std::string Cassette::redact_url(std::string_view url) const {
  auto u = core::Url::parse(url);
  if (!u) return redact_text(url);
  std::string q;
  for (auto& [k, v] : core::split_query(u->query)) {
    if (!q.empty()) q += '&';
    q += k;
    if (!v.empty() || u->query.find(k + "=") != std::string::npos) q += "=" + (is_secret_param(k) ? std::string("REDACTED") : v);
  }
  u->query = q;
  u->fragment.clear();
  return redact_text(u->str());
}

std::string Cassette::redact_body(std::string_view body, std::string_view content_type) const {
  if (content_type.find("json") != std::string_view::npos) {
    json j = json::parse(body, nullptr, false);
    if (!j.is_discarded()) {
      redact_json(j);
      return redact_text(j.dump(-1, ' ', false, json::error_handler_t::replace));
    }
  }
  if (content_type.find("x-www-form-urlencoded") != std::string_view::npos) {
    std::string out;
    for (auto& [k, v] : core::split_query(body)) {
      if (!out.empty()) out += '&';
      out += k + "=" + (is_secret_param(k) ? std::string("REDACTED") : v);
    }
    return redact_text(out);
  }
  return redact_text(body);
}

std::string Cassette::key(std::string_view method, std::string_view url, std::string_view body) const {
  const std::string canon = std::string(method) + " " + redact_url(url) + "\n" + redact_text(body);
  return core::hex64(core::fnv1a64(canon));
}

std::optional<Response> Cassette::replay(std::string_view method, std::string_view url, std::string_view body) {
  const std::string k = key(method, url, body);
  int n = 0;
  {
    std::lock_guard lock(mu_);
    n = seq_[k]++;
  }
  fs::path p;
  for (; n >= 0; --n) {
    p = fs::path(dir_) / (k + "-" + std::to_string(n) + ".json");
    if (fs::exists(p)) break;
  }
  if (n < 0) return std::nullopt;
  std::ifstream f(p);
  json j = json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.contains("response")) return std::nullopt;
  const json& r = j["response"];
  Response out;
  out.status = r.value("status", 0L);
  out.content_type = r.value("content_type", "");
  out.error_detail = r.value("error_detail", "");
  const std::string err = r.value("error", "none");
  for (int e = 0; e <= static_cast<int>(NetError::internal); ++e)
    if (to_string(static_cast<NetError>(e)) == err) out.error = static_cast<NetError>(e);
  if (r.contains("headers"))
    for (const auto& h : r["headers"]) out.headers.push_back({h.at(0).get<std::string>(), h.at(1).get<std::string>()});
  if (r.contains("body_base64")) out.body = core::base64_decode(r["body_base64"].get<std::string>());
  else out.body = r.value("body", "");
  out.final_url = std::string(url);
  return out;
}

void Cassette::record(std::string_view method, std::string_view url, std::string_view body, const Response& resp) {
  const std::string k = key(method, url, body);
  int n = 0;
  {
    std::lock_guard lock(mu_);
    n = seq_[k]++;
  }
  json headers = json::array();
  for (const auto& h : resp.headers)
    if (replayable_header(h.name)) headers.push_back({h.name, redact_text(h.value)});
  json r = {{"status", resp.status},
            {"error", std::string(to_string(resp.error))},
            {"error_detail", redact_text(resp.error_detail)},
            {"content_type", resp.content_type},
            {"headers", headers}};
  const std::string clean = redact_body(resp.body, resp.content_type);
  if (valid_utf8(clean)) r["body"] = clean;
  else r["body_base64"] = core::base64_encode(clean);
  json doc = {{"request", {{"method", std::string(method)}, {"url", redact_url(url)}, {"body", redact_body(body, "")}}},
              {"response", r}};
  const fs::path p = fs::path(dir_) / (k + "-" + std::to_string(n) + ".json");
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << doc.dump(1, ' ', false, json::error_handler_t::replace) << "\n";
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
}

}  // namespace http
