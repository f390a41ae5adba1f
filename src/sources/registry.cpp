// The source registry: one line per source, in display order.
#include <cctype>
#include <memory>
#include <utility>
#include <vector>

#include "core/text.hpp"
#include "sources/source.hpp"

namespace sources {

#define L30_SOURCES(X) \
  X(hackernews)        \
  X(reddit)            \
  X(polymarket)        \
  X(github)            \
  X(arxiv)             \
  X(lobsters)          \
  X(stackexchange)     \
  X(bluesky)           \
  X(x)                 \
  X(youtube)           \
  X(web)               \
  X(wikipedia)

#define L30_DECLARE(name) std::unique_ptr<Source> make_##name();
L30_SOURCES(L30_DECLARE)
#undef L30_DECLARE

const std::vector<const Source*>& all() {
  // Leaked on purpose: abandoned discovery workers may still call into sources at exit.
  static const auto* list = [] {
    auto* v = new std::vector<const Source*>();
#define L30_MAKE(name) v->push_back(make_##name().release());
    L30_SOURCES(L30_MAKE)
#undef L30_MAKE
    return v;
  }();
  return *list;
}

const Source* find(std::string_view id_or_alias) {
  const std::string key = core::lower_ascii(core::trim(id_or_alias));
  for (const Source* s : all()) {
    if (s->id() == key) return s;
    for (std::string_view alias : s->aliases())
      if (alias == key) return s;
  }
  return nullptr;
}

const Source* by_id(std::string_view id) {
  // The ids read once, beside their sources: the pipeline asks several times per item.
  static const auto ids = [] {
    std::vector<std::pair<std::string_view, const Source*>> v;
    for (const Source* s : all()) v.emplace_back(s->id(), s);
    return v;
  }();
  for (const auto& [sid, s] : ids)
    if (sid == id) return s;
  return nullptr;
}

std::string budget_key(std::string_view id) {
  std::string key = "LAST30DAYS_BUDGET_";
  for (char c : id)
    key += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : '_';
  return key;
}

namespace {
const EngagementField* declared(const Source& s, std::string_view field) {
  for (const auto& f : s.engagement())
    if (f.field == field) return &f;
  return nullptr;
}
}  // namespace

const EngagementField* engagement_field(std::string_view source, std::string_view field) {
  if (const Source* s = by_id(source))
    if (const auto* f = declared(*s, field)) return f;
  for (const Source* s : all())
    if (const auto* f = declared(*s, field)) return f;
  return nullptr;
}

const DomainListing* domain_listing(std::string_view source, std::string_view domain) {
  const Source* s = by_id(source);
  if (s == nullptr) return nullptr;
  for (const auto& d : s->domains())
    if (d.domain == domain) return &d;
  return nullptr;
}

double engagement_value(const std::vector<model::Engagement>& engagement, std::string_view field) {
  for (const auto& e : engagement)
    if (e.field == field) return e.value;
  return 0.0;
}

namespace {
double reactions(std::string_view source, const std::vector<model::Engagement>& engagement) {
  double total = 0;
  for (const auto& e : engagement) {
    const EngagementField* f = engagement_field(source, e.field);
    if (f == nullptr || f->reaction) total += e.value;
  }
  return total;
}
}  // namespace

double Source::comparable_engagement(const std::vector<model::Engagement>& engagement) const {
  return reactions(id(), engagement);
}

double comparable_engagement(std::string_view source, const std::vector<model::Engagement>& engagement) {
  const Source* s = by_id(source);
  return s ? s->comparable_engagement(engagement) : reactions(source, engagement);
}

}  // namespace sources
