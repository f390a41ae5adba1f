// The source registry: one line per source, in display order.
#include <memory>

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
  std::string_view id = key;
  if (key == "hn") id = "hackernews";
  else if (key == "so" || key == "stackoverflow") id = "stackexchange";
  else if (key == "gh") id = "github";
  else if (key == "pm") id = "polymarket";
  else if (key == "bsky") id = "bluesky";
  else if (key == "twitter") id = "x";
  else if (key == "yt") id = "youtube";
  else if (key == "wiki") id = "wikipedia";
  for (const Source* s : all())
    if (s->id() == id) return s;
  return nullptr;
}

}  // namespace sources
