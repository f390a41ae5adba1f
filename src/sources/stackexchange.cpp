// Stack Exchange API 2.3 (api.stackexchange.com), /search/advanced on Stack Overflow.
// The API meters by IP (300 requests/day without a key) and may ask clients to
// back off; both stop further requests in this run.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/text.hpp"
#include "sources/common.hpp"

namespace sources {
namespace {

using model::SourceState;
using nlohmann::json;

constexpr std::string_view kBase = "https://api.stackexchange.com/2.3";
constexpr std::string_view kSite = "stackoverflow";

// Counts this large are corrupt data, not engagement.

std::optional<model::Item> parse_question(const json& q, std::string_view site) {
  if (!q.is_object()) return std::nullopt;
  const std::string id = str(q, "question_id");
  // Titles and names arrive HTML-encoded ("&quot;", "&#39;", "&amp;").
  const std::string title = core::html_to_text(str(q, "title"));
  if (id.empty() || title.empty()) return std::nullopt;
  model::Item item;
  item.id = "stackexchange:" + id;
  item.source = "stackexchange";
  item.title = title;
  item.url = str(q, "link");
  if (item.url.empty()) item.url = fmt::format("https://{}.com/questions/{}", site, id);
  if (auto owner = q.find("owner"); owner != q.end() && owner->is_object()) {
    const std::string name = core::html_to_text(str(*owner, "display_name"));
    if (!name.empty()) item.author = name;
  }
  item.container = std::string(site);
  item.published_at = unix_time(num(q, "creation_date"));
  engage(item, "score", num(q, "score"), Sign::net_score);
  engage(item, "answer_count", num(q, "answer_count"));
  engage(item, "view_count", num(q, "view_count"));

  std::string prefix;
  if (auto tags = q.find("tags"); tags != q.end() && tags->is_array()) {
    std::string joined;
    for (const auto& t : *tags)
      if (t.is_string()) joined += (joined.empty() ? "" : ", ") + t.get<std::string>();
    if (!joined.empty()) prefix = "[" + joined + "] ";
  }
  if (auto answered = q.find("is_answered"); answered != q.end() && answered->is_boolean())
    prefix += answered->get<bool>() ? "answered. " : "unanswered. ";
  item.snippet = core::truncate_utf8(prefix + core::html_to_text(str(q, "body")), kSnippetBytes);
  while (!item.snippet.empty() && item.snippet.back() == ' ') item.snippet.pop_back();
  return item;
}

// The API's error wrapper: {"error_id":502,"error_message":"...","error_name":"throttle_violation"}.
std::optional<Failure> error_wrapper(const json& doc) {
  if (!doc.is_object() || !doc.contains("error_id")) return std::nullopt;
  const std::string name = str(doc, "error_name");
  const std::string message = str(doc, "error_message");
  const std::string reason =
      fmt::format("{}: {}", name.empty() ? "error " + str(doc, "error_id") : name, core::truncate_utf8(message, 200));
  if (name == "throttle_violation") return Failure{SourceState::rate_limited, reason};
  if (name == "access_denied" || name == "access_token_required" || name == "invalid_access_token" ||
      name == "access_token_compromised" || name == "key_required")
    return Failure{SourceState::auth_failed, reason};
  if (name == "temporarily_unavailable") return Failure{SourceState::unreachable, reason};
  return Failure{SourceState::error, reason};
}

class StackExchange final : public Source {
 public:
  std::string_view id() const override { return "stackexchange"; }
  std::string_view name() const override { return "Stack Exchange"; }

  std::string advice(model::SourceState state, const core::Config& c, std::string_view env_file) const override {
    if (!c.get("STACKEXCHANGE_KEY"))
      return fmt::format("keyless: 300 requests a day — set STACKEXCHANGE_KEY in {} for 10,000", env_file);
    if (state == model::SourceState::auth_failed) return "STACKEXCHANGE_KEY was rejected: check the key at stackapps.com/apps/oauth";
    return {};
  }
  std::vector<std::string_view> config_keys() const override { return {"STACKEXCHANGE_KEY"}; }

  SourceResult search(const Query& q, Env& env) const override {
    ResultBuilder out;
    const auto key = env.config.get("STACKEXCHANGE_KEY");
    const int pagesize = std::clamp(q.limit, 1, 100);
    std::string stop_reason;  // set once the API tells us to stop asking
    std::size_t unasked = 0;
    bool quota_gone = false;

    for (std::size_t i = 0; i < q.sub_queries.size(); ++i) {
      if (!stop_reason.empty()) {
        unasked = q.sub_queries.size() - i;
        break;
      }
      std::string url = fmt::format(
          "{}/search/advanced?order=desc&sort=relevance&q={}&fromdate={}&todate={}&site={}&pagesize={}&filter=withbody",
          kBase, core::url_encode(q.sub_queries[i].text), q.window.from, q.window.to, kSite, pagesize);
      if (key && !key->empty()) url += "&key=" + core::url_encode(*key);
      ++out.requests();
      const Fetched f = fetch(env, url, Expect::json);

      Failure bad{};
      std::optional<json> doc;
      if (f.response.error == http::NetError::none && !f.response.body.empty()) doc = parse_json(f.response.body, &bad);
      // Errors come as HTTP 400/403/502 with a JSON wrapper that says more than the status.
      if (doc) {
        if (auto err = error_wrapper(*doc)) {
          out.fail(*err);
          // Throttled or key rejected: every further request would fail the same way.
          if (err->state == SourceState::rate_limited || err->state == SourceState::auth_failed)
            stop_reason = err->reason;
          continue;
        }
      }
      if (f.failure) {
        out.fail(*f.failure);
        if (f.failure->state == SourceState::rate_limited || f.failure->state == SourceState::auth_failed)
          stop_reason = f.failure->reason;
        continue;
      }
      if (!doc) {
        out.fail(bad);
        continue;
      }
      auto items = doc->find("items");
      if (!doc->is_object() || items == doc->end() || !items->is_array()) {
        out.fail({SourceState::schema_drift, "answer has no 'items' array"});
        continue;
      }
      out.succeed();
      int rank = 0;
      for (const auto& it : *items)
        if (auto item = parse_question(it, kSite)) out.add(std::move(*item), static_cast<int>(i), rank++);

      if (auto backoff = num(*doc, "backoff"); backoff && *backoff > 0) {
        stop_reason = fmt::format("asked to back off {} s", static_cast<long long>(std::ceil(std::min(*backoff, 1e6))));
      } else if (auto left = num(*doc, "quota_remaining"); left && *left <= 0) {
        stop_reason = "daily request quota used up (quota_remaining 0)";
        quota_gone = true;
      }
    }

    SourceResult result = out.finish();
    if (unasked > 0 && (result.state == SourceState::ok || result.state == SourceState::no_results ||
                        result.state == SourceState::partial)) {
      std::string why = fmt::format("{}; {} of {} sub-queries not asked", stop_reason, unasked, q.sub_queries.size());
      if (result.state == SourceState::partial) why += "; " + result.reason;
      // Out of quota with nothing found: the search could not be made, not "nothing matched".
      result.state = quota_gone && result.items.empty() ? SourceState::rate_limited : SourceState::partial;
      result.reason = std::move(why);
    }
    // Upstream messages are quoted in reasons; never let one carry the key along.
    if (key && key->size() >= 4)
      for (auto pos = result.reason.find(*key); pos != std::string::npos; pos = result.reason.find(*key, pos))
        result.reason.replace(pos, key->size(), "***");
    return result;
  }
};

}  // namespace

std::unique_ptr<Source> make_stackexchange() { return std::make_unique<StackExchange>(); }

}  // namespace sources
