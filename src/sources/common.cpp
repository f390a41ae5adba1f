#include "sources/common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <stop_token>
#include <unordered_map>

#include "core/json.hpp"
#include "core/parallel.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "core/url.hpp"

namespace sources {

using model::SourceState;

namespace {

bool looks_like_block_page(std::string_view body) {
  const std::string_view head = body.substr(0, 64 * 1024);
  for (std::string_view marker : {"captcha", "too many requests", "rate limit", "ratelimit", "blocked", "are you a robot",
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

// Inline markdown: [text](url) and ![alt](url) keep their text; emphasis and code marks go.
std::string strip_inline(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t open = s[i] == '[' ? i : (s[i] == '!' && i + 1 < s.size() && s[i + 1] == '[' ? i + 1 : s.npos);
    if (open != s.npos) {
      const std::size_t close = s.find(']', open + 1);
      if (close != s.npos && close + 1 < s.size() && s[close + 1] == '(') {
        const std::size_t end = s.find(')', close + 2);
        if (end != s.npos && s.substr(open + 1, close - open - 1).find('\n') == s.npos) {
          out.append(s.substr(open + 1, close - open - 1));
          i = end + 1;
          continue;
        }
      }
    }
    const std::string_view two = s.substr(i, 2);
    if (two == "**" || two == "~~") {  // not "__": Python dunders are far commoner than that emphasis
      i += 2;
      continue;
    }
    if (s[i] != '`') out.push_back(s[i]);
    ++i;
  }
  return out;
}

}  // namespace

std::string retry_after_text(const http::Response& r) {
  auto ra = r.header("retry-after");
  return ra ? ", retry after " + core::printable_line(core::truncate_utf8(*ra, 40)) : std::string();
}

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
    const std::string retry = retry_after_text(r);
    return Failure{SourceState::rate_limited, retry.empty() ? std::string("HTTP 429 Too Many Requests") : "HTTP 429" + retry};
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

// One parse under the array cap (core::json's depth limit applies).
core::json::Parsed parse_capped(std::string_view body) {
  core::json::ParseOptions options;
  options.max_array_elements = kMaxArrayElements;
  return core::json::parse(body, options);
}

}  // namespace

std::string markdown_to_text(std::string_view md) {
  std::string kept;
  bool fenced = false;
  std::size_t pos = 0;
  while (pos <= md.size()) {
    std::size_t nl = md.find('\n', pos);
    if (nl == std::string_view::npos) nl = md.size();
    std::string_view line = core::trim(md.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.substr(0, 3) == "```" || line.substr(0, 3) == "~~~") {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;  // code is noise in a one-paragraph snippet
    if (!line.empty() && line.find_first_not_of("|-: ") == std::string_view::npos) continue;  // table rule
    while (!line.empty() && (line.front() == '#' || line.front() == '>')) line = core::trim(line.substr(1));
    if (line.size() > 1 && (line[0] == '-' || line[0] == '*' || line[0] == '+') && line[1] == ' ')
      line = core::trim(line.substr(2));
    if (line.substr(0, 3) == "[ ]" || line.substr(0, 3) == "[x]" || line.substr(0, 3) == "[X]") line = core::trim(line.substr(3));
    std::string text = strip_inline(line);
    if (!line.empty() && line.front() == '|') std::replace(text.begin(), text.end(), '|', ' ');  // table row
    kept.append(text);
    kept.push_back('\n');
  }
  return core::html_to_text(kept);
}

std::vector<Fetched> fetch_concurrently(Env& env, std::vector<Call> calls, std::size_t max_parallel, const StopRule& stop_after) {
  const std::size_t n = calls.size();
  std::vector<Fetched> out(n);
  if (!stop_after) {
    core::parallel_for(n, max_parallel, [&](std::size_t i) {
      out[i] = fetch(env, std::move(calls[i].url), calls[i].expect, std::move(calls[i].headers));
    });
    return out;
  }
  std::vector<std::stop_source> cancel(n);  // one per call: a stop cancels only the calls after it
  std::mutex mu;
  std::size_t cut = n;  // the first call, in call order, whose answer stopped the batch
  core::parallel_for(n, max_parallel, [&](std::size_t i) {
    {
      std::lock_guard lock(mu);
      if (i > cut) {
        out[i].sent = false;
        return;
      }
    }
    // The run's own stop still reaches every call.
    std::stop_callback forward(env.stop, [&cancel, i] { cancel[i].request_stop(); });
    Env mine{env.config, env.http, env.deadline, cancel[i].get_token()};
    out[i] = fetch(mine, std::move(calls[i].url), calls[i].expect, std::move(calls[i].headers));
    if (!stop_after(out[i])) return;
    std::lock_guard lock(mu);
    if (i >= cut) return;
    cut = i;
    for (std::size_t j = i + 1; j < n; ++j) cancel[j].request_stop();
  });
  for (std::size_t j = cut + 1; j < n; ++j) {
    out[j].response = {};
    out[j].failure.reset();
    out[j].dropped = true;
  }
  return out;
}

int sent_count(const std::vector<Fetched>& batch) {
  return static_cast<int>(std::count_if(batch.begin(), batch.end(), [](const Fetched& f) { return f.sent; }));
}

bool hopeless(const Failure& f) { return f.state == SourceState::auth_failed || f.state == SourceState::rate_limited; }

std::string thread_failure(const Failure& f) { return fmt::format("{}: {}", model::to_string(f.state), f.reason); }

std::vector<Thread> threads_per_item(const CommentQuery& q, Env& env, const ThreadRequests& how) {
  std::vector<Call> calls;
  std::vector<std::size_t> asked;  // query index of each call
  std::vector<Thread> out(q.items.size());
  for (std::size_t i = 0; i < q.items.size(); ++i) {
    const std::string_view id = platform_id(q.items[i], how.source);
    if (!how.valid(id)) {
      out[i].failure = std::string(how.not_ours);
      continue;
    }
    calls.push_back({how.url_of(id), Expect::json, {}});
    asked.push_back(i);
  }
  auto fetched = fetch_concurrently(env, std::move(calls), 4);
  for (std::size_t k = 0; k < fetched.size(); ++k) out[asked[k]] = how.parse(fetched[k], q.per_item);
  return out;
}

std::string_view platform_id(std::string_view id, std::string_view source) {
  if (id.size() <= source.size() + 1 || !id.starts_with(source) || id[source.size()] != ':') return {};
  return id.substr(source.size() + 1);
}

bool bot_author(std::string_view name) {
  name = core::trim(name);
  const std::string n = core::lower_ascii(name);
  if (n == "automoderator") return true;
  if (n.ends_with("-bot") || n.ends_with("_bot") || name.ends_with("Bot")) return true;  // RemindMeBot, repost_bot
  // "sneakpeekbot", but not a person called Talbot or a robot enthusiast.
  return n.size() >= 8 && n.ends_with("bot") && !n.ends_with("robot") && !n.ends_with("abbot");
}

std::optional<nlohmann::json> parse_json(const std::string& body, Failure* failure) {
  auto doc = parse_capped(body);
  if (!doc)
    if (auto tolerant = null_out_of_range_numbers(body)) doc = parse_capped(*tolerant);
  if (!doc) {
    if (failure) *failure = {SourceState::schema_drift, doc.too_deep ? doc.error : std::string("malformed or truncated JSON")};
    return std::nullopt;
  }
  return std::move(doc.value);
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

bool ResultBuilder::add(model::Item item, int subquery, int rank) {
  if (rank >= page_size_) return false;
  const auto [at, fresh] = index_.try_emplace(item.id, result_.items.size());
  if (!fresh) {
    auto& existing = result_.items[at->second];
    existing.hits.push_back({subquery, rank, existing.source});
    return true;
  }
  item.hits.push_back({subquery, rank, item.source});
  result_.items.push_back(std::move(item));
  return true;
}

void ResultBuilder::add_credited(model::Item item, const std::vector<int>& subqueries, std::vector<int>& ranks) {
  model::Item* kept = nullptr;  // into result_.items: nothing is appended after it is taken
  for (const int s : subqueries) {
    const int rank = ranks[static_cast<std::size_t>(s)]++;
    if (rank >= page_size_) continue;
    if (!kept) {
      // Read and moved on the first kept rank only: `kept` is set from then on, which
      // clang-tidy's use-after-move cannot see.
      const auto [at, fresh] = index_.try_emplace(item.id, result_.items.size());  // NOLINT(bugprone-use-after-move)
      if (fresh) result_.items.push_back(std::move(item));
      kept = &result_.items[at->second];
    }
    kept->hits.push_back({s, rank, kept->source});
  }
}

std::vector<int> answered_subqueries(const std::vector<std::vector<std::string>>& wanted,
                                     const std::function<bool(const std::string&)>& carries) {
  std::vector<int> all;
  int best = 0;
  std::size_t best_overlap = 0;
  for (std::size_t s = 0; s < wanted.size(); ++s) {
    const auto overlap = static_cast<std::size_t>(std::count_if(wanted[s].begin(), wanted[s].end(), carries));
    if (!wanted[s].empty() && overlap == wanted[s].size()) all.push_back(static_cast<int>(s));
    if (overlap > best_overlap) {
      best_overlap = overlap;
      best = static_cast<int>(s);
    }
  }
  if (all.empty()) all.push_back(best);
  return all;
}

SourceResult ResultBuilder::finish() {
  if (!failures_.empty()) {
    const auto worst = std::max_element(failures_.begin(), failures_.end(),
                                        [](const Failure& a, const Failure& b) { return severity(a.state) < severity(b.state); });
    if (successes_ == 0) {
      result_.state = worst->state;
      result_.reason = worst->reason;
    } else {
      result_.state = SourceState::partial;
      result_.reason =
          fmt::format("{} of {} requests failed: {}", failures_.size(), failures_.size() + successes_, worst->reason);
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
  line = core::redact::scrub_value(line);  // before the cut: a cut secret would leak its prefix
  if (line.size() <= kMax) return line;
  std::size_t cut = line.rfind(' ', kMax);
  if (cut == std::string::npos || cut < kMax / 2) cut = kMax;
  return core::truncate_utf8(std::string_view(line).substr(0, cut), cut);
}

bool outside_link(std::string_view url, std::initializer_list<std::string_view> own_hosts) {
  auto u = core::Url::parse(url);
  if (!u || (u->scheme != "http" && u->scheme != "https") || u->host.empty()) return false;
  for (std::string_view h : own_hosts)
    if (core::within_domain(u->host, h)) return false;
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
