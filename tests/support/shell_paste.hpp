#pragma once
// What happens when a user pastes a command we printed into a shell: it runs under
// /bin/sh -c in an empty directory, with a stub `last30days` first on PATH that records
// its arguments. A safe command creates nothing and passes exactly the words we meant.
#include <string>
#include <vector>

namespace testing_support {

struct Pasted {
  int exit_code = -1;
  std::vector<std::string> args;     // what the stub received
  std::vector<std::string> created;  // anything that appeared in the empty directory
  std::string err;
};

Pasted paste_into_shell(const std::string& command);

}  // namespace testing_support
