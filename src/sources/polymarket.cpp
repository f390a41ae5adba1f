// Polymarket prediction markets through the public Gamma API (gamma-api.polymarket.com).
// One item per event (a question with one or more markets); the /markets shape, a plain
// array of markets, is accepted too and yields one item per market.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/json.hpp"
#include "core/text.hpp"
#include "sources/common.hpp"

namespace sources {
namespace {

using nlohmann::json;

constexpr std::string_view kBase = "https://gamma-api.polymarket.com";
constexpr std::string_view kSite = "https://polymarket.com";
constexpr int kDomainListingLimit = 100;  // a domain run filters locally, so it needs a wider net

// Gamma flags are booleans, but tolerate "true"/"false" and 0/1 like its numbers.
std::optional<bool> flag(const json& obj, std::string_view key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_number()) return it->get<double>() != 0;
  if (it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    if (s == "true") return true;
    if (s == "false") return false;
  }
  return std::nullopt;
}

// A number that may also arrive as a string.
std::optional<double> number(const json& v) {
  if (v.is_number()) {
    const double d = v.get<double>();
    return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
  }
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() && *end == '\0' && std::isfinite(d)) return d;
  }
  return std::nullopt;
}

// `outcomes` and `outcomePrices` are JSON-encoded strings ("[\"Yes\", \"No\"]"); real arrays are accepted too.
json decoded_list(const json& obj, std::string_view key) {
  if (!obj.is_object()) return json::array();
  auto it = obj.find(key);
  if (it == obj.end()) return json::array();
  if (it->is_array()) return *it;
  if (it->is_string()) {
    auto inner = core::json::parse_or_discarded(it->get_ref<const std::string&>());
    if (!inner.is_discarded() && inner.is_array()) return inner;
  }
  return json::array();
}

std::optional<double> first_num(const json& obj, std::string_view a, std::string_view b) {
  if (auto v = num(obj, a)) return v;
  return num(obj, b);
}

struct Outcome {
  std::string label;
  double p = 0;  // 0..1
};

struct Market {
  std::string question;
  std::vector<Outcome> outcomes;  // in the platform's order; only well-formed prices
  std::optional<double> volume, liquidity, volume24hr;

  std::optional<double> first_price() const {
    return outcomes.empty() ? std::nullopt : std::optional<double>(outcomes.front().p);
  }
  std::optional<double> leading_price() const {
    std::optional<double> best;
    for (const auto& o : outcomes)
      if (!best || o.p > *best) best = o.p;
    return best;
  }
};

bool tradable(const json& obj) {
  return flag(obj, "closed") != std::optional<bool>(true) && flag(obj, "active") != std::optional<bool>(false) &&
         flag(obj, "archived") != std::optional<bool>(true);
}

// A market worth reporting: open, active, not archived, and with money in it.
std::optional<Market> parse_market(const json& m) {
  if (!m.is_object() || !tradable(m)) return std::nullopt;
  Market out;
  out.liquidity = first_num(m, "liquidityNum", "liquidity");
  if (out.liquidity && *out.liquidity <= 0) return std::nullopt;
  out.volume = first_num(m, "volumeNum", "volume");
  out.volume24hr = num(m, "volume24hr");
  out.question = core::collapse_whitespace(str(m, "question"));
  if (out.question.empty()) out.question = core::collapse_whitespace(str(m, "groupItemTitle"));
  const json labels = decoded_list(m, "outcomes");
  const json prices = decoded_list(m, "outcomePrices");
  for (std::size_t i = 0; i < std::min(labels.size(), prices.size()); ++i) {
    const auto p = number(prices[i]);
    if (!labels[i].is_string() || !p || *p < 0 || *p > 1) continue;
    out.outcomes.push_back({core::collapse_whitespace(labels[i].get<std::string>()), *p});
  }
  return out;
}

std::string percent(double p) {
  if (p > 0 && p < 0.005) return "<1%";
  if (p < 1 && p > 0.995) return ">99%";
  return fmt::format("{:.0f}%", p * 100);
}

std::string odds_line(const Market& m) {
  std::string out;
  for (const auto& o : m.outcomes) {
    if (!out.empty()) out += " \xC2\xB7 ";
    out += o.label + " " + percent(o.p);
  }
  return out;
}

std::string snippet(const std::string& odds, const json& obj) {
  const std::string desc = core::html_to_text(core::truncate_utf8(str(obj, "description"), 4 * kSnippetBytes));
  std::string s = odds;
  if (!s.empty() && !desc.empty()) s += " \xE2\x80\x94 ";
  s += desc;
  return core::truncate_utf8(s, kSnippetBytes);
}

// updatedAt is the last activity on the market, which is what "happened in the window" means here.
std::optional<core::UnixSeconds> activity_time(const json& obj) {
  for (std::string_view key : {"updatedAt", "startDate", "creationDate", "createdAt"})
    if (auto t = core::parse_iso8601(str(obj, key))) return t;
  return std::nullopt;
}

std::optional<double> sum(const std::vector<Market>& ms, std::optional<double> Market::*field) {
  std::optional<double> total;
  for (const auto& m : ms)
    if (m.*field) total = total.value_or(0) + *(m.*field);
  return total;
}

std::optional<model::Item> parse_event(const json& e) {
  if (!e.is_object() || !tradable(e)) return std::nullopt;
  const std::string id = str(e, "id");
  const std::string title = core::collapse_whitespace(str(e, "title"));
  const std::string slug = str(e, "slug");
  if (id.empty() || title.empty() || slug.empty()) return std::nullopt;

  std::vector<Market> kept;
  const auto markets = e.find("markets");
  const bool has_markets = markets != e.end() && markets->is_array();
  if (has_markets) {
    for (const auto& m : *markets)
      if (auto pm = parse_market(m)) kept.push_back(std::move(*pm));
    if (kept.empty()) return std::nullopt;
  } else if (auto liq = num(e, "liquidity"); liq && *liq <= 0) {
    return std::nullopt;
  }

  model::Item item;
  item.id = "polymarket:" + id;
  item.source = "polymarket";
  item.title = title;
  item.url = fmt::format("{}/event/{}", kSite, slug);
  item.container = "Polymarket";
  item.published_at = activity_time(e);

  std::string odds;
  std::optional<double> lead;
  if (kept.size() == 1) {
    odds = odds_line(kept.front());
    lead = kept.front().leading_price();
  } else if (kept.size() > 1) {
    // A multi-market event is one question per candidate: rank candidates by their first ("Yes") price.
    std::stable_sort(kept.begin(), kept.end(), [](const Market& a, const Market& b) {
      return a.first_price().value_or(-1) > b.first_price().value_or(-1);
    });
    int shown = 0;
    for (const auto& m : kept) {
      if (shown == 3 || !m.first_price() || m.question.empty()) continue;
      if (!odds.empty()) odds += " \xC2\xB7 ";
      odds += fmt::format("{}: {} {}", m.question, m.outcomes.front().label, percent(m.outcomes.front().p));
      ++shown;
    }
    lead = kept.front().first_price();
  }
  item.snippet = snippet(odds, e);

  auto volume = num(e, "volume");
  auto liquidity = num(e, "liquidity");
  auto volume24 = num(e, "volume24hr");
  if (!volume) volume = sum(kept, &Market::volume);
  if (!liquidity) liquidity = sum(kept, &Market::liquidity);
  if (!volume24) volume24 = sum(kept, &Market::volume24hr);
  engage(item, "volume", volume);
  engage(item, "liquidity", liquidity);
  engage(item, "volume24hr", volume24);
  engage(item, "odds", lead);
  return item;
}

// The /markets shape: the market itself, its parent event (if any) nested under "events".
std::optional<model::Item> parse_market_item(const json& m) {
  if (!m.is_object()) return std::nullopt;
  const std::string id = str(m, "id");
  auto market = parse_market(m);
  if (id.empty() || !market || market->question.empty()) return std::nullopt;
  const json* parent = nullptr;
  if (auto ev = m.find("events"); ev != m.end() && ev->is_array() && !ev->empty() && ev->front().is_object())
    parent = &ev->front();
  if (parent && !tradable(*parent)) return std::nullopt;

  const std::string event_slug = parent ? str(*parent, "slug") : "";
  const std::string slug = str(m, "slug");
  model::Item item;
  if (!event_slug.empty())
    item.url =
        slug.empty() ? fmt::format("{}/event/{}", kSite, event_slug) : fmt::format("{}/event/{}/{}", kSite, event_slug, slug);
  else if (!slug.empty()) item.url = fmt::format("{}/market/{}", kSite, slug);
  else return std::nullopt;
  item.id = "polymarket:market:" + id;
  item.source = "polymarket";
  item.title = market->question;
  item.container = "Polymarket";
  item.published_at = activity_time(m);
  item.snippet = snippet(odds_line(*market), m);
  engage(item, "volume", market->volume);
  engage(item, "liquidity", market->liquidity);
  engage(item, "volume24hr", market->volume24hr);
  engage(item, "odds", market->leading_price());
  return item;
}

bool is_market(const json& obj) {
  return obj.is_object() && obj.contains("question") && !obj.contains("markets") && !obj.contains("title");
}

// Parses a /public-search object or an /events or /markets array into the builder;
// max_items caps what is kept.
void collect(const Fetched& f, int subquery, ResultBuilder& out,
             std::size_t max_items = std::numeric_limits<std::size_t>::max()) {
  if (f.failure) return out.fail(*f.failure);
  Failure bad{};
  auto doc = parse_json(f.response.body, &bad);
  if (!doc) return out.fail(bad);
  const json* list = nullptr;
  if (doc->is_array()) {
    list = &*doc;
  } else if (doc->is_object()) {
    auto ev = doc->find("events");
    if (ev != doc->end() && ev->is_array()) {
      list = &*ev;
    } else if ((ev == doc->end() || ev->is_null()) && (doc->contains("pagination") || doc->contains("tags"))) {
      // public-search leaves "events" out (or null) when nothing matched.
      out.succeed();
      return;
    }
  }
  if (!list) return out.fail({model::SourceState::schema_drift, "answer has no 'events' list"});
  out.succeed();
  int rank = 0;
  std::size_t kept = 0;
  for (const auto& entry : *list) {
    if (kept >= max_items) break;
    auto item = is_market(entry) ? parse_market_item(entry) : parse_event(entry);
    if (!item) continue;
    out.add(std::move(*item), subquery, rank++);
    ++kept;
  }
}

int clamp_limit(int n) { return std::clamp(n, 1, 100); }

class Polymarket final : public Source {
 public:
  std::string_view id() const override { return "polymarket"; }
  std::vector<std::string_view> hosts() const override { return {"gamma-api.polymarket.com"}; }
  std::string_view name() const override { return "Polymarket"; }
  std::vector<std::string_view> aliases() const override { return {"pm"}; }
  // A market answers "will it happen", the rest "what happened": markets lead only on predictions.
  std::span<const IntentWeight> intent_weights() const override {
    static constexpr IntentWeight kWeights[] = {{"howto", 0.5},      {"prediction", 1.5}, {"research", 0.6},
                                                {"comparison", 0.8}, {"product", 0.8},    {"news", 0.8}};
    return kWeights;
  }
  std::span<const DomainListing> domains() const override {
    static const DomainListing kDomains[] = {{"news", true, {}}};
    return kDomains;
  }
  std::span<const EngagementField> engagement() const override {
    static constexpr EngagementField kEngagement[] = {{"volume", "volume", 0.6, 500000, Shown::dollars},
                                                      {"volume24hr", "24h volume", 0.5, 50000, Shown::dollars},
                                                      {"liquidity", "liquidity", 0.3, 50000, Shown::dollars},
                                                      {"odds", "odds", 0, 0, Shown::percent, false}};
    return kEngagement;
  }
  // Dollars, not reactions: $1000 of 24 h volume counts one ($10000 of total volume without a 24 h figure).
  double comparable_engagement(const std::vector<model::Engagement>& e) const override {
    const double v24 = engagement_value(e, "volume24hr");
    return v24 > 0 ? v24 / 1000.0 : engagement_value(e, "volume") / 10000.0;
  }

  SourceResult search(const Query& q, Env& env) const override {
    ResultBuilder out(clamp_limit(q.limit));
    std::vector<Call> calls;
    for (const auto& sq : q.sub_queries)
      calls.push_back({fmt::format("{}/public-search?q={}&events_status=active&limit_per_type={}", kBase,
                                   core::url_encode(sq.text), clamp_limit(q.limit))});
    const auto fetched = fetch_concurrently(env, std::move(calls));
    out.requests() += sent_count(fetched);
    for (std::size_t i = 0; i < fetched.size(); ++i) collect(fetched[i], static_cast<int>(i), out);
    return out.finish();
  }

  bool has_listing() const override { return true; }

  SourceResult listing(const ListingQuery& q, Env& env) const override {
    // Discovery selects a domain's events (discover/domains.cpp): a domain run casts a wider net.
    const int limit = q.domain_terms.empty() ? clamp_limit(q.limit) : kDomainListingLimit;
    ResultBuilder out(limit);
    const std::string url =
        fmt::format("{}/events?active=true&closed=false&order=volume24hr&ascending=false&limit={}", kBase, limit);
    ++out.requests();
    collect(fetch(env, url, Expect::json), 0, out, static_cast<std::size_t>(limit));
    return out.finish();
  }
};

}  // namespace

std::unique_ptr<Source> make_polymarket() { return std::make_unique<Polymarket>(); }

}  // namespace sources
