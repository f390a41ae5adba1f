#include "pipeline/stages.hpp"

namespace pipeline {

int window_filter(Corpus& c, const model::Window& w) {
  std::vector<bool> drop(c.items.size(), false);
  int dropped = 0;
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    const auto& t = c.items[i].published_at;
    if (t && !w.contains(*t)) {
      drop[i] = true;
      ++dropped;
    }
  }
  erase_items(c, drop);
  return dropped;
}

}  // namespace pipeline
