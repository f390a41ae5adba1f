#include "proc_test_support.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace testing_support {

std::vector<pid_t> live_members(pid_t pgid) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(entry.path() / "stat");
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string stat = ss.str();
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (!(rest >> state >> ppid >> pgrp)) continue;
    if (pgrp == pgid && state != 'Z' && state != 'X') out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

bool group_gone_within(pid_t pgid, int ms) {
  for (int waited = 0;; waited += 5) {
    if (live_members(pgid).empty()) return true;
    if (waited >= ms) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace testing_support
