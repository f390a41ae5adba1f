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
      if (t.is_string()) {
        joined += (joined.empty() ? "" : ", ") + t.get<std::string>();
        item.tags.push_back(t.get<std::string>());
      }
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

// The wrapper's "items" array, or nullptr.
const json* items_of(const json& doc) {
  if (!doc.is_object()) return nullptr;
  auto it = doc.find("items");
  return it != doc.end() && it->is_array() ? &*it : nullptr;
}

// ---- comments: the top answers of several questions in one request ----

bool question_id(std::string_view id) {
  return !id.empty() && id.size() <= 12 && std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<model::Comment> parse_answer(const json& a) {
  if (!a.is_object()) return std::nullopt;
  const std::string text = core::html_to_text(core::truncate_utf8(str(a, "body"), 8 * kCommentBytes));
  if (text.empty()) return std::nullopt;
  model::Comment c;
  if (auto owner = a.find("owner"); owner != a.end() && owner->is_object()) {
    // A deleted account stays an answer, without a name ("user_type": "does_not_exist").
    const std::string name = core::html_to_text(str(*owner, "display_name"));
    if (!name.empty() && str(*owner, "user_type") != "does_not_exist") c.author = name;
  }
  if (c.author && bot_author(*c.author)) return std::nullopt;
  c.text = core::truncate_utf8(text, kCommentBytes);
  if (auto score = num(a, "score"); score && std::isfinite(*score)) c.score = *score;
  if (const std::string id = str(a, "answer_id"); question_id(id)) c.url = fmt::format("https://{}.com/a/{}", kSite, id);
  return c;
}

// One search answer: its document or failure, and whether the API said to stop asking
// (throttled, key rejected, told to back off, daily quota spent).
struct Answer {
  std::optional<json> doc;  // holds an 'items' array when there is no failure
  std::optional<Failure> failure;
  bool stop = false;
  std::string stop_reason;
  bool quota_gone = false;
};

Answer read(const Fetched& f) {
  Answer a;
  Failure bad{};
  if (f.response.error == http::NetError::none && !f.response.body.empty()) a.doc = parse_json(f.response.body, &bad);
  // Errors come as HTTP 400/403/502 with a JSON wrapper that says more than the status.
  if (a.doc)
    if (auto err = error_wrapper(*a.doc)) a.failure = *err;
  if (!a.failure && f.failure) a.failure = *f.failure;
  if (a.failure) {
    // Throttled or key rejected: every further request would fail the same way.
    if (hopeless(*a.failure)) a.stop = true, a.stop_reason = a.failure->reason;
    return a;
  }
  if (!a.doc) {
    a.failure = bad;
    return a;
  }
  if (items_of(*a.doc) == nullptr) {
    a.failure = Failure{SourceState::schema_drift, "answer has no 'items' array"};
    return a;
  }
  if (auto backoff = num(*a.doc, "backoff"); backoff && *backoff > 0) {
    a.stop = true;
    a.stop_reason = fmt::format("asked to back off {} s", static_cast<long long>(std::ceil(std::min(*backoff, 1e6))));
  } else if (auto left = num(*a.doc, "quota_remaining"); left && *left <= 0) {
    a.stop = true;
    a.stop_reason = "daily request quota used up (quota_remaining 0)";
    a.quota_gone = true;
  }
  return a;
}

class StackExchange final : public Source {
 public:
  std::string_view id() const override { return "stackexchange"; }
  std::vector<std::string_view> hosts() const override { return {"api.stackexchange.com"}; }
  std::string_view name() const override { return "Stack Exchange"; }
  std::vector<std::string_view> aliases() const override { return {"so", "stackoverflow"}; }
  std::string_view spoken_names() const override { return "Stack Overflow Stack Exchange"; }
  std::span<const IntentWeight> intent_weights() const override {
    static constexpr IntentWeight kWeights[] = {{"howto", 1.3}, {"comparison", 1.1}};
    return kWeights;
  }
  std::span<const EngagementField> engagement() const override {
    static constexpr EngagementField kEngagement[] = {{"score", "score", 1.0, 10},
                                                      {"answer_count", "answers", 0.8, 3},
                                                      {"view_count", "views", 0.25, 2000, Shown::count, false}};
    return kEngagement;
  }
  CommentWords comment_words() const override { return {"an answer", "vote", "votes"}; }  // comments are answers

  std::string advice(model::SourceState state, const core::Config& c, std::string_view env_file) const override {
    if (!c.get("STACKEXCHANGE_KEY"))
      return fmt::format("keyless: 300 requests a day — set STACKEXCHANGE_KEY in {} for 10,000", env_file);
    if (state == model::SourceState::auth_failed)
      return "STACKEXCHANGE_KEY was rejected: check the key at stackapps.com/apps/oauth";
    return {};
  }
  std::vector<std::string_view> config_keys() const override { return {"STACKEXCHANGE_KEY"}; }

  SourceResult search(const Query& q, Env& env) const override {
    const int pagesize = std::clamp(q.limit, 1, 100);
    ResultBuilder out(pagesize);
    const auto key = env.config.get("STACKEXCHANGE_KEY");
    std::vector<Call> calls;
    for (const auto& sq : q.sub_queries) {
      std::string url = fmt::format(
          "{}/search/advanced?order=desc&sort=relevance&q={}&fromdate={}&todate={}&site={}&pagesize={}&filter=withbody", kBase,
          core::url_encode(sq.text), q.window.from, q.window.to, kSite, pagesize);
      if (key && !key->empty()) url += "&key=" + core::url_encode(*key);
      calls.push_back({std::move(url)});
    }
    const auto fetched = fetch_concurrently(env, std::move(calls), 6, [](const Fetched& f) { return read(f).stop; });
    out.requests() += sent_count(fetched);
    std::string stop_reason;  // set once the API tells us to stop asking
    std::size_t unasked = 0;
    bool quota_gone = false;
    for (std::size_t i = 0; i < fetched.size(); ++i) {
      if (fetched[i].dropped) {
        unasked = fetched.size() - i;
        break;
      }
      Answer a = read(fetched[i]);
      if (a.stop) stop_reason = a.stop_reason, quota_gone = a.quota_gone;
      if (a.failure) {
        out.fail(*a.failure);
        continue;
      }
      out.succeed();
      int rank = 0;
      for (const auto& it : *items_of(*a.doc))
        if (auto item = parse_question(it, kSite)) out.add(std::move(*item), static_cast<int>(i), rank++);
    }

    SourceResult result = out.finish();
    if (unasked > 0 &&
        (result.state == SourceState::ok || result.state == SourceState::no_results || result.state == SourceState::partial)) {
      std::string why = fmt::format("{}; {} of {} sub-queries left out", stop_reason, unasked, q.sub_queries.size());
      if (result.state == SourceState::partial) why += "; " + result.reason;
      // Out of quota with nothing found: the search could not be made, not "nothing matched".
      result.state = quota_gone && result.items.empty() ? SourceState::rate_limited : SourceState::partial;
      result.reason = std::move(why);
    }
    hide_key(key, result.reason);
    return result;
  }

  bool has_comments() const override { return true; }

  // /questions/{a;b;c}/answers sorted by votes: one request for every question of the run.
  std::vector<Thread> comments(const CommentQuery& q, Env& env) const override {
    std::vector<Thread> out(q.items.size());
    std::string ids;
    for (std::size_t i = 0; i < q.items.size(); ++i) {
      const std::string_view id = platform_id(q.items[i], "stackexchange");
      if (!question_id(id)) out[i].failure = "not a Stack Exchange question id";
      else ids += (ids.empty() ? "" : ";") + std::string(id);
    }
    if (ids.empty()) return out;
    const auto key = env.config.get("STACKEXCHANGE_KEY");
    std::string url = fmt::format("{}/questions/{}/answers?order=desc&sort=votes&site={}&pagesize=100&filter=withbody", kBase,
                                  core::url_encode(ids), kSite);
    if (key && !key->empty()) url += "&key=" + core::url_encode(*key);
    const Fetched f = fetch(env, url, Expect::json);
    auto fail_all = [&](const Failure& why) {
      std::string reason = thread_failure(why);
      hide_key(key, reason);
      for (auto& t : out)
        if (!t.failure) t.failure = reason;
      return out;
    };
    Failure bad{};
    std::optional<json> doc;
    if (f.response.error == http::NetError::none && !f.response.body.empty()) doc = parse_json(f.response.body, &bad);
    if (doc)
      if (auto err = error_wrapper(*doc)) return fail_all(*err);
    if (f.failure) return fail_all(*f.failure);
    if (!doc) return fail_all(bad);
    const json* answers = items_of(*doc);
    if (answers == nullptr) return fail_all({SourceState::schema_drift, "answer has no 'items' array"});
    for (std::size_t i = 0; i < q.items.size(); ++i) {
      if (out[i].failure) continue;
      const std::string_view id = platform_id(q.items[i], "stackexchange");
      for (const auto& a : *answers) {  // already by votes, best first
        if (out[i].comments.size() >= static_cast<std::size_t>(q.per_item)) break;
        if (str(a, "question_id") != id) continue;
        if (auto c = parse_answer(a)) out[i].comments.push_back(std::move(*c));
      }
    }
    return out;
  }

 private:
  // Upstream messages are quoted in reasons; never let one carry the key along.
  static void hide_key(const std::optional<std::string>& key, std::string& reason) {
    if (key && key->size() >= 4)
      for (auto pos = reason.find(*key); pos != std::string::npos; pos = reason.find(*key, pos))
        reason.replace(pos, key->size(), "***");
  }
};

}  // namespace

std::unique_ptr<Source> make_stackexchange() { return std::make_unique<StackExchange>(); }

}  // namespace sources
