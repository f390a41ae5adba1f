#include "discover/topics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "core/text.hpp"
#include "core/union_find.hpp"
#include "core/url.hpp"
#include "pipeline/stages.hpp"
#include "sources/source.hpp"

namespace discover {

double item_velocity(const model::Item& item, core::UnixSeconds now) {
  const double age_days = item.published_at ? std::max(0.0, static_cast<double>(now - *item.published_at) / 86400.0) : 30.0;
  double v = sources::comparable_engagement(item.source, item.engagement) / std::sqrt(age_days + 1.0);
  if (age_days < 7.0) v *= 1.5;
  return v;
}

double topic_velocity(double sum_item_velocity, std::size_t sources) {
  return sum_item_velocity * (1.0 + 0.15 * (static_cast<double>(std::max<std::size_t>(sources, 1)) - 1.0));
}

namespace {

constexpr std::size_t kMaxClauseWords = 7;  // a short headline clause is kept whole
constexpr std::size_t kMaxNameWords = 6;    // longer ones keep their content words
constexpr std::size_t kMaxNameBytes = 60;

std::string strip_prefixes(std::string title) {
  for (std::string_view p :
       {"Show HN:", "Ask HN:", "Launch HN:", "Tell HN:", "[OC]", "PSA:", "Breaking:", "TIL that", "TIL:", "TIL"}) {
    if (core::starts_with_ci(title, p)) title = std::string(core::trim(std::string_view(title).substr(p.size())));
  }
  return title;
}

std::vector<std::string> words_of(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::string trim_punct(std::string w) {
  while (!w.empty() && std::string_view(",.;:!?\"'()[]{}").find(w.back()) != std::string_view::npos) w.pop_back();
  while (!w.empty() && std::string_view("\"'([{").find(w.front()) != std::string_view::npos) w.erase(0, 1);
  return w;
}

std::string norm_word(std::string_view w) {
  const auto t = core::tokenize(w);
  return t.empty() ? std::string() : pipeline::normalize_token(t.front());
}

}  // namespace

namespace {

// The headline's subject: prefixes dropped, cut before ':' / ' - ' / ' | ' / '?' / ', '.
std::vector<std::string> clause_words(const model::Item& it) {
  std::string title = strip_prefixes(core::collapse_whitespace(it.title));
  if (const auto* s = sources::by_id(it.source); s && s->title_opens_with_container()) {
    // "owner/repo: description": the description is the readable part.
    const auto colon = title.find(": ");
    if (colon != std::string::npos && title.substr(0, colon).find('/') != std::string::npos) title = title.substr(colon + 2);
  }
  for (std::string_view sep : {": ", " - ", " — ", " | ", " – ", "? ", ", ", " ("}) {
    const auto pos = title.find(sep);
    if (pos != std::string::npos && words_of(title.substr(0, pos)).size() >= 2) title = title.substr(0, pos);
  }
  auto words = words_of(title);
  for (auto& w : words) w = trim_punct(w);
  std::erase_if(words, [](const std::string& w) { return w.empty(); });
  while (!words.empty() && core::is_stopword(core::casefold(words.back()))) words.pop_back();
  while (words.size() > 1 && core::is_stopword(core::casefold(words.front()))) words.erase(words.begin());
  return words;
}

bool has_content(const std::vector<std::string>& words) {
  return std::any_of(words.begin(), words.end(), [](const std::string& w) {
    const auto n = norm_word(w);
    return !n.empty() && !core::is_stopword(n) && !core::is_generic(n);
  });
}

}  // namespace

std::string distill_name(const std::vector<const model::Item*>& items) {
  if (items.empty()) return {};
  // Among the topic's headlines the shortest meaningful subject names it best
  // ("OpenAI announces GPT-6" over "GPT-6 is here and it is wild").
  std::vector<std::string> words = clause_words(*items.front());
  for (std::size_t i = 1; i < items.size() && i < 5; ++i) {
    auto candidate = clause_words(*items[i]);
    if (candidate.size() >= 2 && has_content(candidate) && (candidate.size() < words.size() || !has_content(words)))
      words = std::move(candidate);
  }
  if (words.size() > kMaxClauseWords) {
    // Too long to be a name. Best: cut before a function word, so the name is
    // still a phrase ("Quantum teleportation across 100 km" of "... of deployed city fiber").
    const auto is_stop = [](const std::string& w) { return core::is_stopword(core::casefold(w)); };
    for (std::size_t cut = std::min(words.size() - 1, kMaxClauseWords); cut >= 3; --cut) {
      if (!is_stop(words[cut]) || is_stop(words[cut - 1])) continue;
      std::vector<std::string> head(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(cut));
      const auto content = std::count_if(head.begin(), head.end(), [](const std::string& w) {
        const auto n = norm_word(w);
        return !n.empty() && !core::is_stopword(n) && !core::is_generic(n);
      });
      if (content >= 2) {
        words = std::move(head);
        break;
      }
    }
  }
  if (words.size() > kMaxClauseWords) {
    // No phrase boundary: keep its content words, in order.
    std::vector<std::string> keep;
    for (const auto& w : words) {
      const std::string n = norm_word(w);
      if (!n.empty() && !core::is_stopword(n) && (!core::is_generic(n) || std::isdigit(static_cast<unsigned char>(w.front()))))
        keep.push_back(w);
      if (keep.size() == kMaxNameWords) break;
    }
    if (keep.size() >= 2) words = std::move(keep);
    else words.resize(kMaxNameWords);
  }
  std::string name;
  for (const auto& w : words) {
    if (name.size() + w.size() + 1 > kMaxNameBytes) break;
    name += (name.empty() ? "" : " ") + w;
  }
  return name.empty() ? core::truncate_utf8(strip_prefixes(items.front()->title), kMaxNameBytes) : name;
}

bool junk_shaped(std::string_view name) {
  const std::string lower = core::casefold(name);
  if (lower.find("http") != std::string::npos || lower.find("www.") != std::string::npos ||
      lower.find(".com") != std::string::npos)
    return true;
  const auto tokens = core::tokenize(name);
  std::size_t letters = 0;
  for (char c : lower) letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
  if (tokens.empty() || letters < 3) return true;
  return std::all_of(tokens.begin(), tokens.end(),
                     [](const std::string& t) { return core::is_stopword(t) || core::is_generic(t); });
}

std::vector<model::Topic> group_topics(std::vector<model::Item> items, core::UnixSeconds now, const model::Window& window) {
  pipeline::Corpus c;
  c.items = std::move(items);
  c.topic = pipeline::analyze_topic("", c.dict);
  pipeline::normalize(c);
  pipeline::window_filter(c, window);
  std::vector<double> velocity(c.items.size());
  for (std::size_t i = 0; i < c.items.size(); ++i) velocity[i] = item_velocity(c.items[i], now);
  std::vector<std::size_t> order(c.items.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return velocity[a] > velocity[b]; });
  pipeline::permute(c, order);
  std::vector<double> v_sorted(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) v_sorted[k] = velocity[order[k]];
  for (std::size_t k = 0; k < c.items.size(); ++k) c.items[k].scores.final = v_sorted[k];

  // Stories by shared distinctive title words (the research clusterer), then the same
  // URL anywhere joins its stories.
  // Listings span many stories, so only words in half the titles count as common.
  const auto clusters = pipeline::cluster(c, 0.5);
  std::unordered_map<std::string, std::size_t> item_index;
  for (std::size_t k = 0; k < c.items.size(); ++k) item_index[c.items[k].id] = k;
  core::UnionFind uf(c.items.size());
  for (const auto& cl : clusters)
    for (std::size_t m = 1; m < cl.items.size(); ++m) uf.unite(item_index[cl.items[0]], item_index[cl.items[m]]);
  std::unordered_map<std::string, std::size_t> by_url;
  for (std::size_t k = 0; k < c.items.size(); ++k) {
    const auto& url = c.features[k].canonical_url;
    if (url.empty()) continue;
    auto [it, inserted] = by_url.try_emplace(url, k);
    if (!inserted) uf.unite(it->second, k);
  }
  std::map<std::size_t, std::vector<std::size_t>> groups;  // root -> members, fastest first
  for (std::size_t k = 0; k < c.items.size(); ++k) groups[uf.find(k)].push_back(k);

  std::vector<model::Topic> topics;
  for (auto& [root, members] : groups) {
    model::Topic t;
    double sum = 0;
    std::set<std::string> srcs, urls;
    std::vector<const model::Item*> ptrs;
    for (std::size_t k : members) {
      const auto& it = c.items[k];
      sum += v_sorted[k];
      srcs.insert(it.source);
      t.engagement_by_source[it.source] += sources::comparable_engagement(it.source, it.engagement);
      t.engagement += sources::comparable_engagement(it.source, it.engagement);
      if (urls.insert(c.features[k].canonical_url).second && t.evidence_urls.size() < 8) t.evidence_urls.push_back(it.url);
      ptrs.push_back(&it);
    }
    t.sources.assign(srcs.begin(), srcs.end());
    t.velocity = topic_velocity(sum, srcs.size());
    bool all_recent = true;
    for (const auto* p : ptrs)
      if (!p->published_at || now - *p->published_at >= 7 * 86400) all_recent = false;
    t.momentum = all_recent ? "new-this-week" : "building";
    t.name = distill_name(ptrs);
    t.junk = junk_shaped(t.name);
    for (std::size_t m = 0; m < members.size() && m < 5; ++m) {
      t.seeds.push_back(c.items[members[m]]);
      t.seeds.back().scores = {};
    }
    topics.push_back(std::move(t));
  }
  std::stable_sort(topics.begin(), topics.end(), [](const auto& a, const auto& b) { return a.velocity > b.velocity; });
  // Names must be unique: a later (slower) topic gets a distinguishing word or a number.
  std::map<std::string, int> used;
  for (std::size_t k = 0; k < topics.size(); ++k) {
    auto& t = topics[k];
    t.id = fmt::format("n{}", k + 1);
    std::string key = core::casefold(t.name);
    if (used.count(key)) {
      const auto name_tokens = core::tokenize(t.name);
      for (const auto& w : words_of(t.seeds.front().title)) {
        const std::string n = core::casefold(trim_punct(w));
        if (n.empty() || core::is_stopword(n) || core::is_generic(n) ||
            std::find(name_tokens.begin(), name_tokens.end(), n) != name_tokens.end())
          continue;
        const std::string candidate = t.name + " " + trim_punct(w);
        if (!used.count(core::casefold(candidate))) {
          t.name = candidate;
          break;
        }
      }
      for (int n = 2; used.count(core::casefold(t.name)); ++n) t.name = fmt::format("{} ({})", t.name, n);
      key = core::casefold(t.name);
    }
    used[key] = 1;
    t.why = why_line(t);
  }
  return topics;
}

namespace {
std::string short_number(double v) {
  if (v >= 1e6) return fmt::format("{:.1f}M", v / 1e6);
  if (v >= 1e4) return fmt::format("{:.0f}k", v / 1e3);
  if (v >= 1e3) return fmt::format("{:.1f}k", v / 1e3);
  return fmt::format("{:.0f}", v);
}
}  // namespace

std::string why_line(const model::Topic& t) {
  std::vector<std::string> parts;
  std::vector<std::string> loudest = t.sources;    // the strongest evidence first
  auto engagement = [&](const std::string& src) {  // a bundle read back from disk may lack a source
    auto it = t.engagement_by_source.find(src);
    return it == t.engagement_by_source.end() ? 0.0 : it->second;
  };
  std::stable_sort(loudest.begin(), loudest.end(),
                   [&](const std::string& a, const std::string& b) { return engagement(a) > engagement(b); });
  for (const auto& src : loudest) {
    double best = -1;
    const model::Item* top = nullptr;
    for (const auto& s : t.seeds) {
      if (s.source != src) continue;
      if (const double e = sources::comparable_engagement(s.source, s.engagement); e > best) best = e, top = &s;
    }
    if (top == nullptr || top->engagement.empty()) continue;
    const model::Engagement* e = &top->engagement.front();
    for (const auto& f : top->engagement)
      if (f.field == "volume24hr" || (e->field != "volume24hr" && f.value > e->value && f.field != "volume")) e = &f;
    const bool dollars = e->field.find("volume") != std::string::npos || e->field == "liquidity";
    const std::string label = e->field == "num_comments" || e->field == "comment_count"  ? "comments"
                              : e->field == "volume24hr"                                 ? "24h volume"
                              : e->field == "likeCount" || e->field == "like_count"      ? "likes"
                              : e->field == "repostCount" || e->field == "retweet_count" ? "reposts"
                                                                                         : e->field;
    parts.push_back(fmt::format("{}{} {} on {}", dollars ? "$" : "", short_number(e->value), label, src));
  }
  std::string out;
  for (std::size_t i = 0; i < parts.size() && i < 3; ++i) out += (out.empty() ? "" : ", ") + parts[i];
  out += t.sources.size() > 1 ? fmt::format("; corroborated by {} sources", t.sources.size()) : "; one source so far";
  out += t.momentum == "new-this-week" ? ", all of it this week" : ", building over more than a week";
  return out;
}

Verdict floor_verdict(const model::Topic& t) {
  double best_single = 0;
  for (const auto& [src, e] : t.engagement_by_source) best_single = std::max(best_single, e);
  const std::size_t n = t.sources.size();
  if (t.engagement < kFloorEngagement)
    return {false, fmt::format("engagement {:.0f} is under the floor of {:.0f}", t.engagement, kFloorEngagement)};
  if (t.junk && n < 2) return {false, "a generic-sounding topic needs at least 2 sources"};
  if (n < 2 && best_single < kSingleSourceEngagement)
    return {false, fmt::format("one source with {:.0f} engagement: needs a second source or {:.0f}", best_single,
                               kSingleSourceEngagement)};
  return {true, {}};
}

Selection select_topics(std::vector<model::Topic> topics, const std::vector<double>& score) {
  Selection out;
  std::vector<std::size_t> order(topics.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
  // Two topics that share two pieces of evidence are one story: the faster one stays.
  std::vector<std::set<std::string>> evidence(topics.size());
  for (std::size_t i = 0; i < topics.size(); ++i) {
    for (const auto& u : topics[i].evidence_urls) evidence[i].insert(core::canonical_url(u));
    for (const auto& u : topics[i].enrichment.top_urls) evidence[i].insert(core::canonical_url(u));
  }
  std::vector<bool> folded(topics.size(), false);
  for (std::size_t a = 0; a < order.size(); ++a) {
    if (folded[order[a]]) continue;
    for (std::size_t b = a + 1; b < order.size(); ++b) {
      if (folded[order[b]]) continue;
      std::size_t shared = 0;
      for (const auto& u : evidence[order[b]]) shared += evidence[order[a]].count(u);
      if (shared >= 2) folded[order[b]] = true;
    }
  }
  const model::Topic* weakest_best = nullptr;
  std::string weak_reason;
  for (std::size_t k : order) {
    if (folded[k]) continue;
    const Verdict v = floor_verdict(topics[k]);
    if (v.pass) {
      if (out.survivors.size() < kMaxResults) out.survivors.push_back(topics[k]);
    } else if (weakest_best == nullptr) {
      weakest_best = &topics[k];
      weak_reason = v.reason;
    }
  }
  if (out.survivors.empty() && weakest_best != nullptr) {
    out.weak_signal = model::WeakSignal{weakest_best->name, weakest_best->velocity, weakest_best->sources,
                                        weakest_best->engagement, weak_reason};
  }
  return out;
}

}  // namespace discover
