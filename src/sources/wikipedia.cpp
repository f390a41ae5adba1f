// English Wikipedia through the Wikimedia REST API, keyless. Not a search engine:
// discovery reads the most-viewed articles of each day (a nomination feed) and measures
// the leaders' velocity from their own daily views; research looks up the topic's own
// article and reports its attention over the window as a signal.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/text.hpp"
#include "core/time.hpp"
#include "core/url.hpp"
#include "sources/common.hpp"

namespace sources {
namespace {

using model::SourceState;
using nlohmann::json;

constexpr std::string_view kPageviews = "https://wikimedia.org/api/rest_v1/metrics/pageviews";
constexpr std::string_view kSummary = "https://en.wikipedia.org/api/rest_v1/page/summary";
constexpr std::string_view kSite = "https://en.wikipedia.org/wiki/";
constexpr std::string_view kProject = "en.wikipedia";
constexpr core::UnixSeconds kDay = 86400;
constexpr int kMaxListingDays = 7;     // top lists read per discovery run
constexpr std::size_t kMeasured = 10;  // leaders whose own daily views are fetched

// Namespaces of English Wikipedia (and their talk pages): not articles.
bool is_namespace(std::string_view prefix) {
  static constexpr std::string_view kNamespaces[] = {"talk",
                                                     "user",
                                                     "wikipedia",
                                                     "wp",
                                                     "project",
                                                     "file",
                                                     "image",
                                                     "mediawiki",
                                                     "template",
                                                     "help",
                                                     "category",
                                                     "portal",
                                                     "draft",
                                                     "timedtext",
                                                     "module",
                                                     "special",
                                                     "media",
                                                     "book",
                                                     "education program",
                                                     "gadget",
                                                     "gadget definition",
                                                     "topic",
                                                     "event",
                                                     "mos",
                                                     "tm",
                                                     "wt",
                                                     "cat"};
  std::string p = core::lower_ascii(prefix);
  std::replace(p.begin(), p.end(), '_', ' ');
  if (p.size() > 5 && p.ends_with(" talk")) p.resize(p.size() - 5);
  for (auto n : kNamespaces)
    if (p == n) return true;
  return false;
}

// An article worth nominating: not the main page, not a namespace page, not the "-"
// placeholder the API uses for unknown titles.
bool is_article(std::string_view title) {
  if (title.empty() || title == "-" || title == "Main_Page" || title == "Main Page") return false;
  const auto colon = title.find(':');
  return colon == std::string_view::npos || !is_namespace(title.substr(0, colon));
}

std::string display_title(std::string_view article) {
  std::string t(article);
  std::replace(t.begin(), t.end(), '_', ' ');
  return core::collapse_whitespace(t);
}

// Wikipedia's own link style: only what must be escaped is.
std::string article_url(std::string_view article) {
  std::string out(kSite);
  for (unsigned char c : article) {
    if (c == ' ') out += '_';
    else if (c <= 0x20 || c >= 0x7F || std::string_view("\"#%<>?[\\]^`{|}").find(static_cast<char>(c)) != std::string_view::npos)
      out += fmt::format("%{:02X}", c);
    else out += static_cast<char>(c);
  }
  return out;
}

// The topic as a title: trimmed, spaces as underscores, first letter upper case.
std::string title_of(std::string_view topic) {
  std::string t(core::collapse_whitespace(topic));
  std::replace(t.begin(), t.end(), ' ', '_');
  if (!t.empty() && t[0] >= 'a' && t[0] <= 'z') t[0] = static_cast<char>(t[0] - 'a' + 'A');
  return t;
}

std::string compact_date(core::UnixSeconds t) {  // 20261129
  const auto c = core::civil_from_days(core::start_of_day(t) / kDay);
  return fmt::format("{:04}{:02}{:02}", c.y, c.m, c.d);
}

std::string slashed_date(core::UnixSeconds t) {  // 2026/11/29
  const auto c = core::civil_from_days(core::start_of_day(t) / kDay);
  return fmt::format("{:04}/{:02}/{:02}", c.y, c.m, c.d);
}

// "2026112900" -> that day.
std::optional<core::UnixSeconds> day_of_timestamp(std::string_view ts) {
  if (ts.size() < 8) return std::nullopt;
  return core::parse_date(fmt::format("{}-{}-{}", ts.substr(0, 4), ts.substr(4, 2), ts.substr(6, 2)));
}

const json* array_at(const json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it != obj.end() && it->is_array() ? &*it : nullptr;
}

// Daily views of one article: what the window holds against the same span before it.
struct Attention {
  double window_views = 0;
  double before_views = 0;
  double peak = 0;
  core::UnixSeconds peak_day = 0;
  int days_with_data = 0;
};

// Reads a per-article answer ({"items":[{"timestamp":"2026112900","views":123},...]}).
std::optional<Failure> read_daily(const std::string& body, const model::Window& w, Attention& a) {
  Failure bad{};
  auto doc = parse_json(body, &bad);
  if (!doc) return bad;
  const json* items = array_at(*doc, "items");
  if (!items) return Failure{SourceState::schema_drift, "answer has no 'items' array"};
  for (const auto& it : *items) {
    const auto day = day_of_timestamp(str(it, "timestamp"));
    const auto views = num(it, "views");
    if (!day || !views || *views < 0 || !std::isfinite(*views) || *views > 1e12) continue;
    if (w.contains(*day)) {
      a.window_views += *views;
      ++a.days_with_data;
      if (*views > a.peak) a.peak = *views, a.peak_day = *day;
    } else if (*day < w.from) {
      a.before_views += *views;
    }
  }
  return std::nullopt;
}

std::string human(double v) {
  if (v >= 1e6) return fmt::format("{:.1f}M", v / 1e6);
  if (v >= 1e4) return fmt::format("{:.0f}k", v / 1e3);
  if (v >= 1e3) return fmt::format("{:.1f}k", v / 1e3);
  return fmt::format("{:.0f}", v);
}

std::string attention_line(const Attention& a, int days) {
  std::string line = fmt::format("{} views over {} days", human(a.window_views), days);
  if (a.peak > 0) line += fmt::format(" (peak {} on {})", human(a.peak), core::format_date(a.peak_day));
  if (a.before_views > 0) line += fmt::format(", {:.1f}\u00D7 the {} days before", a.window_views / a.before_views, days);
  return line;
}

int span_days(const model::Window& w) { return static_cast<int>((w.to + 1 - w.from) / kDay); }

// One article's daily views over the window and the equal span before it.
std::string daily_url(std::string_view article, const model::Window& w) {
  const auto span = static_cast<core::UnixSeconds>(span_days(w)) * kDay;
  return fmt::format("{}/per-article/{}/all-access/user/{}/daily/{}/{}", kPageviews, kProject, core::url_encode(article),
                     compact_date(w.from - span), compact_date(w.to));
}

void set_attention(model::Item& item, const Attention& a, int days) {
  item.engagement.clear();
  engage(item, "views", a.window_views);
  engage(item, "views_before", a.before_views);  // present, even 0, once measured
  if (a.peak_day > 0) item.published_at = a.peak_day;
  item.snippet = attention_line(a, days);
}

class Wikipedia final : public Source {
 public:
  std::string_view id() const override { return "wikipedia"; }
  std::vector<std::string_view> hosts() const override { return {"wikimedia.org", "en.wikipedia.org"}; }
  std::string_view name() const override { return "Wikipedia"; }
  std::vector<std::string_view> aliases() const override { return {"wiki"}; }
  std::span<const DomainListing> domains() const override {
    static const DomainListing kDomains[] = {{"news", true, {}}};
    return kDomains;
  }
  std::span<const EngagementField> engagement() const override {
    static constexpr EngagementField kEngagement[] = {{"views", "views", 1.0, 100000, Shown::count, false},
                                                      {"views_before", "views the span before", 0, 0, Shown::count, false}};
    return kEngagement;
  }
  // Readers, not reactions: thousands of views above the span before, so a perennial
  // article (measured flat) counts nothing; an unmeasured one counts a quarter of its views.
  double comparable_engagement(const std::vector<model::Engagement>& e) const override {
    const bool measured = std::any_of(e.begin(), e.end(), [](const model::Engagement& x) { return x.field == "views_before"; });
    return (measured ? std::max(0.0, engagement_value(e, "views") - engagement_value(e, "views_before"))
                     : engagement_value(e, "views") / 4.0) /
           1000.0;
  }

  // Research: the topic's own article (redirects followed), and its attention.
  SourceResult search(const Query& q, Env& env) const override {
    ResultBuilder out(1);  // the topic's own article
    const std::string wanted = title_of(q.sub_queries.front().text);
    if (wanted.empty() || wanted.size() > 255) {
      auto r = out.finish();
      r.reason = "no Wikipedia title to look up";
      return r;
    }
    ++out.requests();
    const Fetched summary = fetch(env, fmt::format("{}/{}?redirect=true", kSummary, core::url_encode(wanted)), Expect::json);
    if (summary.response.transport_ok() && summary.response.status == 404) {
      SourceResult r = out.finish();
      r.state = SourceState::no_results;
      r.reason = fmt::format("no English Wikipedia article titled \"{}\"", display_title(wanted));
      return r;
    }
    if (summary.failure) {
      out.fail(*summary.failure);
      return out.finish();
    }
    Failure bad{};
    auto doc = parse_json(summary.response.body, &bad);
    if (!doc || !doc->is_object()) {
      out.fail(doc ? Failure{SourceState::schema_drift, "summary is not an object"} : bad);
      return out.finish();
    }
    const std::string type = str(*doc, "type");
    std::string canonical, normalized;
    if (auto titles = doc->find("titles"); titles != doc->end() && titles->is_object()) {
      canonical = str(*titles, "canonical");
      normalized = str(*titles, "normalized");
    }
    if (canonical.empty()) canonical = title_of(str(*doc, "title"));
    if (normalized.empty()) normalized = display_title(canonical);
    if (canonical.empty()) {
      out.fail({SourceState::schema_drift, "summary names no article"});
      return out.finish();
    }
    if (type == "disambiguation") {
      SourceResult r = out.finish();
      r.state = SourceState::no_results;
      r.reason = fmt::format("\"{}\" is a disambiguation page on Wikipedia", normalized);
      return r;
    }

    ++out.requests();
    const Fetched daily = fetch(env, daily_url(canonical, q.window), Expect::json);
    if (daily.response.transport_ok() && daily.response.status == 404) {
      SourceResult r = out.finish();
      r.state = SourceState::no_results;
      r.reason = fmt::format("no page views recorded for \"{}\" in the window", normalized);
      return r;
    }
    if (daily.failure) {
      out.fail(*daily.failure);
      return out.finish();
    }
    Attention a;
    if (auto f = read_daily(daily.response.body, q.window, a)) {
      out.fail(*f);
      return out.finish();
    }
    out.succeed();
    if (a.window_views <= 0) return out.finish();
    model::Item item;
    item.id = "wikipedia:" + canonical;
    item.source = "wikipedia";
    item.title = normalized;
    item.url = article_url(canonical);
    item.container = std::string(kProject);
    set_attention(item, a, span_days(q.window));
    const std::string extract = core::collapse_whitespace(str(*doc, "extract"));
    if (!extract.empty()) item.snippet = core::truncate_utf8(item.snippet + ". " + extract, kSnippetBytes);
    out.add(std::move(item), 0, 0);
    return out.finish();
  }

  bool has_listing() const override { return true; }

  // Discovery: the most-viewed articles of each finished day in the window, the leaders
  // measured against the span before the window.
  SourceResult listing(const ListingQuery& q, Env& env) const override {
    ResultBuilder out(std::max(q.limit, 1));
    const core::UnixSeconds today = core::start_of_day(clock_of(q.now));
    struct Seen {
      double views = 0;
      core::UnixSeconds last_day = 0;
      double best = 0;
      core::UnixSeconds best_day = 0;
    };
    std::map<std::string, Seen> seen;
    // The days' lists go together. A day's list appears some hours after it ends: when the
    // newest is not out yet it is skipped and one more day is read, as a day-by-day loop would.
    const core::UnixSeconds first_day = std::min(core::start_of_day(q.window.to), today - kDay);
    auto days_from = [&](core::UnixSeconds from, int count) {
      std::vector<core::UnixSeconds> days;
      for (core::UnixSeconds day = from; day >= q.window.from && static_cast<int>(days.size()) < count; day -= kDay)
        days.push_back(day);
      return days;
    };
    auto top_lists = [&](const std::vector<core::UnixSeconds>& days) {
      std::vector<Call> calls;
      for (const auto day : days)
        calls.push_back({fmt::format("{}/top/{}/all-access/{}", kPageviews, kProject, slashed_date(day))});
      auto fetched = fetch_concurrently(env, std::move(calls));
      out.requests() += sent_count(fetched);
      return fetched;
    };
    std::vector<core::UnixSeconds> days = days_from(first_day, kMaxListingDays);
    std::vector<Fetched> lists = top_lists(days);
    const auto unpublished = [](const Fetched& f) { return f.response.transport_ok() && f.response.status == 404; };
    if (!lists.empty() && unpublished(lists.front())) {
      days.erase(days.begin());
      lists.erase(lists.begin());
      const auto more = days_from(first_day - kMaxListingDays * kDay, 1);
      if (!more.empty()) {
        days.push_back(more.front());
        lists.push_back(std::move(top_lists(more).front()));
      }
    }
    for (std::size_t d = 0; d < lists.size(); ++d) {
      const Fetched& f = lists[d];
      const core::UnixSeconds day = days[d];
      if (f.failure) {
        out.fail(unpublished(f) ? Failure{SourceState::error, "no top list for " + core::format_date(day)} : *f.failure);
        continue;
      }
      Failure bad{};
      auto doc = parse_json(f.response.body, &bad);
      const json* items = doc ? array_at(*doc, "items") : nullptr;
      if (!items) {
        out.fail(doc ? Failure{SourceState::schema_drift, "answer has no 'items' array"} : bad);
        continue;
      }
      out.succeed();
      for (const auto& entry : *items) {
        const json* articles = array_at(entry, "articles");
        if (!articles) continue;
        for (const auto& a : *articles) {
          const std::string title = str(a, "article");
          const auto views = num(a, "views");
          if (!is_article(title) || !views || *views <= 0 || *views > 1e12 || title.size() > 255) continue;
          auto& s = seen[title];
          s.views += *views;
          s.last_day = std::max(s.last_day, day);
          if (*views > s.best) s.best = *views, s.best_day = day;
        }
      }
    }
    std::vector<std::pair<std::string, Seen>> ranked(seen.begin(), seen.end());
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second.views > b.second.views; });
    if (ranked.size() > static_cast<std::size_t>(std::max(q.limit, 1)))
      ranked.resize(static_cast<std::size_t>(std::max(q.limit, 1)));

    const model::Window measured{std::max(q.window.from, today - kMaxListingDays * kDay), today - 1, kMaxListingDays};
    // The leaders' daily views, together; the first that cannot be read stops the measuring
    // (the ones after it keep their top-list numbers).
    auto measure = [&measured](const Fetched& daily, Attention& a) {
      std::optional<Failure> why = daily.failure;
      if (!why) why = read_daily(daily.response.body, measured, a);
      return why;
    };
    std::vector<Call> measures;
    for (std::size_t i = 0; i < ranked.size() && i < kMeasured; ++i) measures.push_back({daily_url(ranked[i].first, measured)});
    const auto dailies = fetch_concurrently(env, std::move(measures), 6, [&](const Fetched& f) {
      Attention scratch;
      return measure(f, scratch).has_value();
    });
    out.requests() += sent_count(dailies);
    std::string measure_failure;
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      const std::string& title = ranked[i].first;
      const Seen& s = ranked[i].second;
      model::Item item;
      item.id = "wikipedia:" + title;
      item.source = "wikipedia";
      item.title = display_title(title);
      item.url = article_url(title);
      item.container = std::string(kProject);
      item.published_at = s.best_day;
      engage(item, "views", s.views);
      item.snippet =
          fmt::format("among the most-read articles on {} (peak {} views)", core::format_date(s.best_day), human(s.best));
      if (i < dailies.size() && !dailies[i].dropped) {
        Attention a;
        if (auto why = measure(dailies[i], a)) measure_failure = why->reason;  // keep the top-list numbers
        else if (a.window_views > 0) set_attention(item, a, span_days(measured));
      }
      out.add(std::move(item), 0, static_cast<int>(i));
    }
    SourceResult r = out.finish();
    if (!measure_failure.empty() && r.state == SourceState::ok) {
      r.state = SourceState::partial;
      r.reason = "daily views unavailable, velocity from the top lists only: " + measure_failure;
    }
    return r;
  }

  SourceResult probe(Env& env, core::UnixSeconds now) const override {
    ResultBuilder out(1);
    ++out.requests();
    // Two days back: always published.
    const Fetched f = fetch(
        env,
        fmt::format("{}/top/{}/all-access/{}", kPageviews, kProject, slashed_date(core::start_of_day(clock_of(now)) - 2 * kDay)),
        Expect::json);
    if (f.failure) {
      out.fail(*f.failure);
      return out.finish();
    }
    Failure bad{};
    auto doc = parse_json(f.response.body, &bad);
    if (!doc || !array_at(*doc, "items")) {
      out.fail(doc ? Failure{SourceState::schema_drift, "answer has no 'items' array"} : bad);
      return out.finish();
    }
    out.succeed();
    SourceResult r = out.finish();
    if (r.state == SourceState::no_results) r.state = SourceState::ok, r.reason.clear();
    return r;
  }
};

}  // namespace

std::unique_ptr<Source> make_wikipedia() { return std::make_unique<Wikipedia>(); }

}  // namespace sources
