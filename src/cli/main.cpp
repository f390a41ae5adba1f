#include <cstdio>
#include <exception>

#include "cli/app.hpp"
#include "core/exit.hpp"

int main(int argc, char** argv) {
  int code = 1;
  try {
    code = cli::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "last30days: internal error: %s\n", e.what());
    code = 1;
  } catch (...) {
    std::fprintf(stderr, "last30days: internal error\n");
    code = 1;
  }
  core::exit_process(code);
}
