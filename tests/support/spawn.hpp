#pragma once
// Runs the real last30days binary as a child process and captures everything.
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace testing_support {

struct ProcessResult {
  int exit_code = -1;      // -1 when killed by the watchdog
  bool timed_out = false;  // the watchdog had to kill it
  std::string out;
  std::string err;
  std::chrono::milliseconds elapsed{0};
};

struct SpawnOptions {
  std::chrono::milliseconds watchdog{60000};
  std::string stdin_data;
  std::string cwd;            // empty: the test's own working directory
  int stdout_fd = -1;         // >= 0: the child's stdout is this descriptor (not captured)
  bool close_stdout = false;  // the child starts with descriptor 1 closed
};

// A NULL-terminated char* array for posix_spawn (argv, envp) that owns its strings.
class CStrings {
 public:
  explicit CStrings(std::vector<std::string> strings) : strings_(std::move(strings)) {
    for (auto& s : strings_) ptrs_.push_back(s.data());
    ptrs_.push_back(nullptr);
  }
  char* const* get() { return ptrs_.data(); }

 private:
  std::vector<std::string> strings_;
  std::vector<char*> ptrs_;
};

// The parent's environment with env applied: entries override/extend, an empty value unsets.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& env);

// env entries override/extend the parent's environment; an empty value unsets.
ProcessResult run_binary(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                         const SpawnOptions& options);
ProcessResult run_binary(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                         std::chrono::milliseconds watchdog = std::chrono::milliseconds(60000),
                         const std::string& stdin_data = "");

// The binary the process tests run: L30_BINARY_UNDER_TEST when set (another build, an older
// one, to see a regression test fail there), else this build's last30days.
std::string binary_under_test();

ProcessResult run_last30days(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                             std::chrono::milliseconds watchdog = std::chrono::milliseconds(60000));
ProcessResult run_last30days(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                             const SpawnOptions& options);

// The whole file, or "" when it cannot be read.
std::string read_file(const std::string& path);

// A fresh temporary directory, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::vector<std::string> files() const;  // every regular file below, relative

 private:
  std::string path_;
};

}  // namespace testing_support
