// GitHub through the REST search API (api.github.com/search/repositories and /search/issues).
#include <fmt/format.h>

#include <algorithm>

#include "core/json.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "sources/common.hpp"

namespace sources {
namespace {

using model::SourceState;
using nlohmann::json;

constexpr std::string_view kApi = "https://api.github.com";
constexpr core::UnixSeconds kDay = 86400;

std::optional<std::string> token(const Env& env) {
  auto t = env.config.get("GITHUB_TOKEN");
  if (!t || core::trim(*t).empty()) return std::nullopt;
  return std::string(core::trim(*t));
}

std::vector<http::Header> headers(const Env& env) {
  std::vector<http::Header> h = {{"Accept", "application/vnd.github+json"}, {"X-GitHub-Api-Version", "2022-11-28"}};
  if (auto t = token(env)) h.push_back({"Authorization", "Bearer " + *t});
  return h;
}

const json* object_at(const json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it != obj.end() && it->is_object() ? &*it : nullptr;
}

std::optional<std::string> login(const json& obj, std::string_view key) {
  const json* user = object_at(obj, key);
  if (!user) return std::nullopt;
  auto name = opt_str(*user, "login");
  return name && !name->empty() ? name : std::nullopt;
}

std::optional<core::UnixSeconds> created(const json& obj) { return core::parse_iso8601(str(obj, "created_at")); }

std::optional<model::Item> parse_repo(const json& r) {
  if (!r.is_object()) return std::nullopt;
  const std::string id = str(r, "id");
  const std::string full_name = str(r, "full_name");
  if (id.empty() || full_name.empty()) return std::nullopt;
  model::Item item;
  item.id = "github:repo:" + id;
  item.source = "github";
  const std::string description = core::collapse_whitespace(str(r, "description"));
  item.title = description.empty() ? full_name : full_name + ": " + description;
  item.url = str(r, "html_url");
  if (item.url.empty()) item.url = "https://github.com/" + full_name;
  item.author = login(r, "owner");
  item.container = full_name;
  item.published_at = created(r);
  engage(item, "stars", num(r, "stargazers_count"));
  engage(item, "forks", num(r, "forks_count"));

  std::string snippet = description;
  if (auto lang = opt_str(r, "language"); lang && !lang->empty()) snippet += (snippet.empty() ? "" : " \xC2\xB7 ") + *lang;
  if (auto topics = r.find("topics"); topics != r.end() && topics->is_array()) {
    std::string list;
    for (const auto& t : *topics)
      if (t.is_string()) {
        list += (list.empty() ? "" : ", ") + t.get<std::string>();
        item.tags.push_back(t.get<std::string>());
      }
    if (!list.empty()) snippet += (snippet.empty() ? "topics: " : " \xC2\xB7 topics: ") + list;
  }
  item.snippet = core::truncate_utf8(snippet, kSnippetBytes);
  return item;
}

// "https://api.github.com/repos/owner/name" -> "owner/name".
std::optional<std::string> repo_of(const std::string& repository_url) {
  const auto at = repository_url.find("/repos/");
  if (at == std::string::npos) return std::nullopt;
  const std::string rest = repository_url.substr(at + 7);
  const auto slash = rest.find('/');
  if (slash == 0 || slash == std::string::npos || slash + 1 == rest.size() || rest.find('/', slash + 1) != std::string::npos)
    return std::nullopt;
  return rest;
}

std::optional<model::Item> parse_issue(const json& i) {
  if (!i.is_object()) return std::nullopt;
  const std::string id = str(i, "id");
  const std::string title = core::collapse_whitespace(str(i, "title"));
  const std::string url = str(i, "html_url");
  if (id.empty() || title.empty() || url.empty()) return std::nullopt;
  model::Item item;
  item.id = "github:issue:" + id;
  item.source = "github";
  item.title = title;
  item.url = url;
  item.author = login(i, "user");
  item.container = repo_of(str(i, "repository_url"));
  item.published_at = created(i);
  engage(item, "comments", num(i, "comments"));
  if (const json* reactions = object_at(i, "reactions")) engage(item, "reactions", num(*reactions, "total_count"));
  // Bodies can be huge (logs, templates); the snippet only needs the start.
  item.snippet = core::truncate_utf8(markdown_to_text(core::truncate_utf8(str(i, "body"), 8 * kSnippetBytes)), kSnippetBytes);
  return item;
}

// 422 carries GitHub's own explanation: surface it.
Failure explain(const Fetched& f) {
  Failure out = *f.failure;
  if (f.response.status != 422) return out;
  auto doc = core::json::parse_or_discarded(f.response.body);
  std::string why = doc.is_discarded() ? "" : str(doc, "message");
  if (!doc.is_discarded()) {
    if (auto errs = doc.find("errors"); doc.is_object() && errs != doc.end() && errs->is_array())
      for (const auto& e : *errs)
        if (auto m = opt_str(e, "message"); m && !m->empty()) why += (why.empty() ? "" : ": ") + *m;
  }
  out.reason = why.empty() ? "HTTP 422: GitHub rejected the search query"
                           : "HTTP 422: " + core::truncate_utf8(core::collapse_whitespace(why), 200);
  return out;
}

enum class Kind { repos, issues };

// Parses one search answer into the builder; returns the failure state, if any.
std::optional<SourceState> collect(const Fetched& f, Kind kind, int subquery, const model::Window& window, ResultBuilder& out) {
  if (f.failure) {
    Failure why = explain(f);
    out.fail(why);
    return why.state;
  }
  Failure bad{};
  auto doc = parse_json(f.response.body, &bad);
  if (!doc) {
    out.fail(bad);
    return bad.state;
  }
  // incomplete_results: true (search timed out upstream) still carries usable items.
  if (!doc->is_object() || !doc->contains("items") || !(*doc)["items"].is_array()) {
    out.fail({SourceState::schema_drift, "answer has no 'items' array"});
    return SourceState::schema_drift;
  }
  out.succeed();
  int rank = 0;
  for (const auto& entry : (*doc)["items"]) {
    auto item = kind == Kind::repos ? parse_repo(entry) : parse_issue(entry);
    if (!item) continue;
    // created:> bounds only the start; a past --as-of needs the end bound too.
    if (item->published_at && !window.contains(*item->published_at)) continue;
    out.add(std::move(*item), subquery, rank++);
  }
  return std::nullopt;
}

class GitHub final : public Source {
 public:
  std::string_view id() const override { return "github"; }
  std::vector<std::string_view> hosts() const override { return {"api.github.com"}; }
  std::string_view name() const override { return "GitHub"; }
  std::vector<std::string_view> aliases() const override { return {"gh"}; }
  std::span<const IntentWeight> intent_weights() const override {
    static constexpr IntentWeight kWeights[] = {{"howto", 1.1}, {"research", 1.1}};
    return kWeights;
  }
  // An issue's repository says which project it is about; its title opens with it.
  std::optional<Container> context_container() const override { return Container{"", "repo "}; }
  std::string_view tag_word() const override { return "topic "; }
  bool title_opens_with_container() const override { return true; }
  std::span<const DomainListing> domains() const override {
    static const DomainListing kDomains[] = {{"tech", true, {}}, {"software", true, {}}};
    return kDomains;
  }
  std::span<const EngagementField> engagement() const override {
    static constexpr EngagementField kEngagement[] = {{"stars", "stars", 1.0, 300},
                                                      {"forks", "forks", 0.4, 40},
                                                      {"comments", "comments", 0.6, 20},
                                                      {"reactions", "reactions", 0.8, 20}};
    return kEngagement;
  }

  SourceResult search(const Query& q, Env& env) const override {
    const int per_page = std::clamp(q.limit, 1, 100);
    ResultBuilder out(per_page);
    const bool keyed = token(env).has_value();
    // The day before the window start, so "created:>" includes the first day.
    const std::string since = core::format_date(q.window.from - kDay);
    struct Planned {
      Kind kind;
      int subquery;
    };
    std::vector<Planned> plan;
    std::vector<Call> calls;
    auto add = [&](Kind kind, std::string_view qualifiers, std::size_t subquery) {
      const std::string terms = fmt::format("{} {}created:>{}", q.sub_queries[subquery].text, qualifiers, since);
      calls.push_back({kind == Kind::repos ? fmt::format("{}/search/repositories?q={}&sort=stars&order=desc&per_page={}", kApi,
                                                         core::url_encode(terms), per_page)
                                           : fmt::format("{}/search/issues?q={}&sort=reactions&order=desc&per_page={}", kApi,
                                                         core::url_encode(terms), per_page),
                       Expect::json, headers(env)});
      plan.push_back({kind, static_cast<int>(subquery)});
    };
    for (std::size_t i = 0; i < q.sub_queries.size(); ++i) {
      add(Kind::repos, "", i);
      // Keyless search allows 10 requests a minute: issues only for the main sub-query.
      if (!keyed && i > 0) continue;
      add(Kind::issues, "is:issue ", i);
      if (keyed) add(Kind::issues, "is:pr ", i);
    }
    // All at once (GitHub allows 100 concurrent requests; a deep keyed run sends 15): a
    // rejected token or a spent limit drops the rest, as the sequential loop's break did.
    const auto fetched = fetch_concurrently(env, std::move(calls), plan.size(),
                                            [](const Fetched& f) { return f.failure && hopeless(*f.failure); });
    out.requests() += sent_count(fetched);
    for (std::size_t k = 0; k < fetched.size() && !fetched[k].dropped; ++k)
      collect(fetched[k], plan[k].kind, plan[k].subquery, q.window, out);
    return out.finish();
  }

  // One repository search: 1 of the 10 a keyless minute allows.
  SourceResult probe(Env& env, core::UnixSeconds now) const override {
    ListingQuery q;
    q.window = model::Window::ending(core::start_of_day(clock_of(now)), 7);
    q.limit = 1;
    SourceResult r = listing(q, env);
    if (r.state == SourceState::no_results) r.state = SourceState::ok, r.reason.clear();
    return r;
  }

  std::string advice(SourceState state, const core::Config& c, std::string_view env_file) const override {
    const bool keyed = c.get("GITHUB_TOKEN").has_value();
    if (state == SourceState::auth_failed && keyed)
      return "GITHUB_TOKEN was rejected: create a new token at github.com/settings/tokens";
    if (!keyed) return fmt::format("GitHub unauthenticated: 10 searches/min — set GITHUB_TOKEN in {}", env_file);
    return {};
  }
  std::vector<std::string_view> config_keys() const override { return {"GITHUB_TOKEN"}; }

  bool has_listing() const override { return true; }

  // Fastest-rising new repositories: most-starred among those created in the last week.
  SourceResult listing(const ListingQuery& q, Env& env) const override {
    const int per_page = std::clamp(q.limit, 1, 100);
    ResultBuilder out(per_page);
    const std::string since = core::format_date(q.window.to - 7 * kDay);
    std::string terms = "created:>" + since;
    if (!q.domain_terms.empty() && !core::trim(q.domain_terms.front()).empty())
      terms = std::string(core::trim(q.domain_terms.front())) + " " + terms;
    const std::string url =
        fmt::format("{}/search/repositories?q={}&sort=stars&order=desc&per_page={}", kApi, core::url_encode(terms), per_page);
    ++out.requests();
    collect(fetch(env, url, Expect::json, headers(env)), Kind::repos, 0, q.window, out);
    return out.finish();
  }
};

}  // namespace

std::unique_ptr<Source> make_github() { return std::make_unique<GitHub>(); }

}  // namespace sources
