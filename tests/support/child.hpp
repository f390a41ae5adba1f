#pragma once
// A running child process to converse with: write its stdin line by line, read its
// stdout lines as they come, close stdin, time its exit. stderr goes to a pipe that
// is collected, or to a descriptor the test gives (a pseudo-terminal).
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace testing_support {

class Child {
 public:
  // stderr_fd >= 0: the child's stderr is that descriptor (not closed here).
  Child(const std::vector<std::string>& args, const std::map<std::string, std::string>& env, int stderr_fd = -1);
  ~Child();  // kills a child still running
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  void write(std::string_view bytes);
  void close_stdin();
  // The next stdout line (without "\n") within the timeout.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout);
  // Exit code, or nullopt when it did not exit in time (then it is killed).
  std::optional<int> wait(std::chrono::milliseconds timeout);
  std::string err() const;          // stderr so far (pipe mode)
  int pid() const { return pid_; }  // to signal it
  std::string out_rest() const;     // stdout not yet returned by read_line

 private:
  void pump(int fd, std::string* sink);
  int pid_ = -1;
  int in_ = -1;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string out_, err_;
  bool out_closed_ = false;
  std::vector<std::thread> readers_;
  std::optional<int> exit_code_;
};

}  // namespace testing_support
