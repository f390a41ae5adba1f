#include <cstdio>

#include "cli/commands.hpp"

namespace cli {

int discover_command(const Options&, RunContext&) {
  std::fprintf(stderr, "last30days: --discover is not implemented yet\n");
  return 2;
}

}  // namespace cli
