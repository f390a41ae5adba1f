#pragma once
// The store's schema as numbered migrations, each in both dialects. A store records the
// versions it has applied (schema_migrations); opening applies the missing ones in one
// transaction and refuses a store whose version is newer than this build knows.
#include <string_view>
#include <vector>

namespace store {

struct Migration {
  int version;
  std::string_view what;
  std::string_view sqlite;
  std::string_view postgres;
};

const std::vector<Migration>& migrations();

}  // namespace store
