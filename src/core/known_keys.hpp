#pragma once
// Every configuration key the program reads (spec section 3): for help, the man page and
// the check of the .env file.
#include <string_view>
#include <vector>

namespace core {

struct KnownKey {
  std::string_view name;
  std::string_view meaning;
};
const std::vector<KnownKey>& known_keys();
// True for a known key, and for a LAST30DAYS_BUDGET_<SOURCE> key.
bool is_known_key(std::string_view key);

}  // namespace core
