#include "sources/common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "core/text.hpp"
#include "core/time.hpp"
#include "core/url.hpp"

namespace sources {

using model::SourceState;

namespace {

bool looks_like_block_page(std::string_view body) {
  const std::string_view head = body.substr(0, 64 * 1024);
  for (std::string_view marker :
       {"captcha", "too many requests", "rate limit", "ratelimit", "blocked", "are you a robot",
        "verify you are human", "cf-chl", "challenge-platform", "access denied", "whoa there, pardner"})
    if (core::contains_ci(head, marker)) return true;
  return false;
}

std::string_view media_kind(std::string_view ct) {
  if (ct.find("json") != std::string_view::npos) return "json";
  if (ct.find("xml") != std::string_view::npos) return "xml";
  if (ct.find("html") != std::string_view::npos) return "html";
  return ct;
}

std::string_view first_non_space(std::string_view body) {
  std::size_t i = 0;
  if (body.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < body.size() && std::isspace(static_cast<unsigned char>(body[i]))) ++i;
  return body.substr(i, 16);
}

int severity(SourceState s) {
  switch (s) {
    case SourceState::auth_failed: return 6;
    case SourceState::rate_limited: return 5;
    case SourceState::schema_drift: return 4;
    case SourceState::timeout: return 3;
    case SourceState::unreachable: return 2;
    case SourceState::error: return 1;
    default: return 0;
  }
}

}  // namespace

std::optional<Failure> classify(const http::Response& r, Expect expect) {
  using http::NetError;
  switch (r.error) {
    case NetError::none: break;
    case NetError::timeout: return Failure{SourceState::timeout, "no answer before the deadline"};
    case NetError::cancelled: return Failure{SourceState::timeout, "cancelled: run budget exhausted"};
    case NetError::politeness: return Failure{SourceState::timeout, r.error_detail};
    case NetError::unreachable: return Failure{SourceState::unreachable, "cannot connect: " + r.error_detail};
    case NetError::tls: return Failure{SourceState::unreachable, "TLS failure: " + r.error_detail};
    case NetError::replay_miss: return Failure{SourceState::unreachable, r.error_detail};
    case NetError::too_large: return Failure{SourceState::error, "response larger than the 8 MiB cap"};
    case NetError::redirect_offhost:
    case NetError::too_many_redirects: return Failure{SourceState::schema_drift, r.error_detail};
    case NetError::protocol: return Failure{SourceState::unreachable, "connection failed mid-response: " + r.error_detail};
    case NetError::internal: return Failure{SourceState::error, r.error_detail};
  }
  if (r.status == 429) {
    auto ra = r.header("retry-after");
    return Failure{SourceState::rate_limited,
                   ra ? fmt::format("HTTP 429, retry after {}", *ra) : std::string("HTTP 429 Too Many Requests")};
  }
  if (r.status == 401) return Failure{SourceState::auth_failed, "HTTP 401: credentials rejected"};
  if (r.status == 403) {
    if (r.header("x-ratelimit-remaining") == std::optional<std::string>("0") || looks_like_block_page(r.body))
      return Failure{SourceState::rate_limited, "HTTP 403: rate limit or block page"};
    return Failure{SourceState::auth_failed, "HTTP 403 Forbidden"};
  }
  if (r.status >= 500) return Failure{SourceState::unreachable, fmt::format("HTTP {} from upstream", r.status)};
  if (r.status < 200 || r.status >= 300) return Failure{SourceState::error, fmt::format("HTTP {}", r.status)};

  const std::string_view want = expect == Expect::json ? "json" : "xml";
  const std::string_view kind = media_kind(r.content_type);
  const std::string_view start = first_non_space(r.body);
  if (start.empty()) return Failure{SourceState::schema_drift, "empty response body"};
  const bool html_body = core::starts_with_ci(start, "<!doctype html") || core::starts_with_ci(start, "<html");
  if (kind == "html" || html_body) {
    if (looks_like_block_page(r.body)) return Failure{SourceState::rate_limited, "got an anti-bot HTML page instead of data"};
    return Failure{SourceState::schema_drift, fmt::format("expected {}, got an HTML page", want)};
  }
  // Some APIs label JSON as text/plain or omit the type; trust the body's first byte then.
  if (kind != want && !kind.empty() && kind != "text/plain" && kind != "application/octet-stream") {
    if (!(expect == Expect::xml && kind == "atom")) 
      return Failure{SourceState::schema_drift, fmt::format("expected {}, got {}", want, r.content_type)};
  }
  if (expect == Expect::json && start.front() != '{' && start.front() != '[')
    return Failure{SourceState::schema_drift, "response is not JSON"};
  if (expect == Expect::xml && start.front() != '<') return Failure{SourceState::schema_drift, "response is not XML"};
  return std::nullopt;
}

http::Request make_request(const Env& env, std::string url, std::vector<http::Header> headers) {
  http::Request req;
  req.url = std::move(url);
  req.headers = std::move(headers);
  req.deadline = env.deadline;
  req.stop = env.stop;
  req.timeout = core::Millis(15000);
  return req;
}

Fetched fetch(Env& env, std::string url, Expect expect, std::vector<http::Header> headers) {
  if (std::none_of(headers.begin(), headers.end(), [](const http::Header& h) { return h.name == "Accept"; }))
    headers.push_back({"Accept", expect == Expect::json ? "application/json" : "application/atom+xml, application/xml"});
  Fetched f;
  f.response = env.http.get(make_request(env, std::move(url), std::move(headers)));
  f.failure = classify(f.response, expect);
  return f;
}

namespace {

// nlohmann refuses a whole document for one number a double cannot hold ("number
// overflow parsing '1e400'"). The number policy for upstream answers: such a number is
// null -- absent, to the lenient accessors -- and costs only its own field. A single pass
// outside strings; nullopt when there was nothing to change.
std::optional<std::string> null_out_of_range_numbers(std::string_view body) {
  std::string out;
  std::size_t copied = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (c != '-' && (c < '0' || c > '9')) continue;
    std::size_t end = i;
    while (end < body.size() && std::string_view("0123456789+-.eE").find(body[end]) != std::string_view::npos) ++end;
    const std::string_view number = body.substr(i, end - i);
    // Only an exponent or more than 308 digits can leave the range of a double.
    if (number.find_first_of("eE") != std::string_view::npos || number.size() > 308) {
      const double v = std::strtod(std::string(number).c_str(), nullptr);
      if (!std::isfinite(v)) {
        out.append(body.substr(copied, i - copied));
        out.append("null");
        copied = end;
      }
    }
    i = end - 1;
  }
  if (copied == 0) return std::nullopt;
  out.append(body.substr(copied));
  return out;
}

}  // namespace

std::optional<nlohmann::json> parse_json(const std::string& body, Failure* failure) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded())
    if (auto tolerant = null_out_of_range_numbers(body)) j = nlohmann::json::parse(*tolerant, nullptr, false);
  if (j.is_discarded()) {
    if (failure) *failure = {SourceState::schema_drift, "malformed or truncated JSON"};
    return std::nullopt;
  }
  return j;
}

std::optional<double> num(const nlohmann::json& obj, std::string_view key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (it->is_number()) return it->get<double>();
  if (it->is_boolean()) return it->get<bool>() ? 1.0 : 0.0;
  if (it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() && *end == '\0' && std::isfinite(v)) return v;
  }
  return std::nullopt;
}

std::string str(const nlohmann::json& obj, std::string_view key) { return opt_str(obj, key).value_or(""); }

std::optional<std::string> opt_str(const nlohmann::json& obj, std::string_view key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  if (it->is_number()) return fmt::format("{}", it->get<double>());
  return std::nullopt;
}

void ResultBuilder::fail(Failure f) { failures_.push_back(std::move(f)); }
void ResultBuilder::succeed() { ++successes_; }

void ResultBuilder::add(model::Item item, int subquery, int rank) {
  for (auto& existing : result_.items) {
    if (existing.id == item.id) {
      existing.hits.push_back({subquery, rank, existing.source});
      return;
    }
  }
  item.hits.push_back({subquery, rank, item.source});
  result_.items.push_back(std::move(item));
}

SourceResult ResultBuilder::finish() {
  if (!failures_.empty()) {
    const auto worst = std::max_element(failures_.begin(), failures_.end(), [](const Failure& a, const Failure& b) {
      return severity(a.state) < severity(b.state);
    });
    if (successes_ == 0) {
      result_.state = worst->state;
      result_.reason = worst->reason;
    } else {
      result_.state = SourceState::partial;
      result_.reason = fmt::format("{} of {} requests failed: {}", failures_.size(), failures_.size() + successes_,
                                   worst->reason);
    }
  } else if (result_.items.empty()) {
    result_.state = SourceState::no_results;
    result_.reason = "nothing matched in the window";
  } else {
    result_.state = SourceState::ok;
  }
  return std::move(result_);
}

void engage(model::Item& item, std::string_view field, std::optional<double> value, Sign sign) {
  if (!value || !std::isfinite(*value) || std::fabs(*value) > 1e12) return;
  if (*value < 0 && sign == Sign::counts) return;
  item.engagement.push_back({std::string(field), *value});
}

std::optional<core::UnixSeconds> unix_time(std::optional<double> seconds) {
  if (!seconds || !std::isfinite(*seconds) || *seconds <= 0 || *seconds > 32503680000.0) return std::nullopt;  // year 3000
  return static_cast<core::UnixSeconds>(*seconds);
}

core::UnixSeconds clock_of(core::UnixSeconds now) { return now > 0 ? now : core::now_unix(); }

std::string headline(std::string_view text) {
  constexpr std::size_t kMax = 160;
  const auto nl = text.find('\n');
  std::string line = core::collapse_whitespace(nl == std::string_view::npos ? text : text.substr(0, nl));
  if (line.empty()) line = core::collapse_whitespace(text);  // a post that starts with a blank line
  if (line.size() <= kMax) return line;
  std::size_t cut = line.rfind(' ', kMax);
  if (cut == std::string::npos || cut < kMax / 2) cut = kMax;
  return core::truncate_utf8(std::string_view(line).substr(0, cut), cut);
}

bool outside_link(std::string_view url, std::initializer_list<std::string_view> own_hosts) {
  auto u = core::Url::parse(url);
  if (!u || (u->scheme != "http" && u->scheme != "https") || u->host.empty()) return false;
  for (std::string_view h : own_hosts) {
    if (u->host == h) return false;
    if (u->host.size() > h.size() && u->host.ends_with(h) && u->host[u->host.size() - h.size() - 1] == '.') return false;
  }
  return true;
}

std::optional<core::UnixSeconds> epoch_header(const http::Response& r, std::string_view name) {
  auto v = r.header(name);
  if (!v) return std::nullopt;
  const std::string_view t = core::trim(*v);
  std::size_t i = 0;
  core::UnixSeconds out = 0;
  for (; i < t.size() && i < 12 && t[i] >= '0' && t[i] <= '9'; ++i) out = out * 10 + (t[i] - '0');
  if (i == 0) return std::nullopt;
  return unix_time(static_cast<double>(out));
}

SourceResult Source::probe(Env& env, core::UnixSeconds now) const {
  Query q;
  q.sub_queries = {{"open source", 1.0}};
  q.window = model::Window::ending(core::start_of_day(clock_of(now)), 7);
  q.depth = model::Depth::quick;
  q.limit = 1;
  q.now = now;
  return search(q, env);
}

}  // namespace sources
