#include "core/exit.hpp"

#include <cstdio>
#include <cstdlib>

#include "core/children.hpp"

namespace core {

std::atomic<int>& live_stragglers() {
  static std::atomic<int>* counter = new std::atomic<int>(0);  // leaked: read during exit
  return *counter;
}

void exit_process(int code) {
  children::kill_all_for_exit();  // no child process group outlives the run, stragglers or not
  std::fflush(stdout);
  std::fflush(stderr);
  if (live_stragglers().load() > 0) std::_Exit(code);
  std::exit(code);
}

}  // namespace core
