#include "shell_paste.hpp"

#include <filesystem>
#include <fstream>

#include "spawn.hpp"

namespace testing_support {

namespace fs = std::filesystem;

Pasted paste_into_shell(const std::string& command) {
  TempDir work, stub;
  fs::create_directories(stub.path() + "/bin");
  const std::string record = stub.path() + "/args";
  {
    std::ofstream script(stub.path() + "/bin/last30days");
    script << "#!/bin/sh\n: > \"$L30_PASTE_RECORD\"\nfor a in \"$@\"; do printf '%s\\0' \"$a\" >> \"$L30_PASTE_RECORD\"; done\n";
  }
  fs::permissions(stub.path() + "/bin/last30days", fs::perms::owner_all);
  auto r = run_binary({"/bin/sh", "-c", "cd '" + work.path() + "' || exit 99\n" + command},
                      {{"PATH", stub.path() + "/bin:/usr/bin:/bin"}, {"L30_PASTE_RECORD", record}, {"HOME", work.path()}},
                      std::chrono::milliseconds(10000));
  Pasted out;
  out.exit_code = r.exit_code;
  out.err = r.err;
  const std::string raw = read_file(record);
  for (std::size_t start = 0; start < raw.size();) {
    const auto end = raw.find('\0', start);
    out.args.push_back(raw.substr(start, end - start));
    start = end == std::string::npos ? raw.size() : end + 1;
  }
  for (const auto& e : fs::recursive_directory_iterator(work.path())) out.created.push_back(e.path().filename().string());
  return out;
}

}  // namespace testing_support
