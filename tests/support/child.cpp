#include "child.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

#include "spawn.hpp"

namespace testing_support {

Child::Child(const std::vector<std::string>& args, const std::map<std::string, std::string>& env, int stderr_fd) {
  CStrings envp(child_environment(env));
  CStrings argv(args);
  int in[2], out[2], err[2] = {-1, -1};
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || (stderr_fd < 0 && pipe2(err, O_CLOEXEC))) throw std::runtime_error("pipe");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, stderr_fd >= 0 ? stderr_fd : err[1], 2);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv.get()[0], &fa, nullptr, argv.get(), envp.get());
  posix_spawn_file_actions_destroy(&fa);
  ::close(in[0]);
  ::close(out[1]);
  if (err[1] >= 0) ::close(err[1]);
  if (rc != 0) throw std::runtime_error("posix_spawn failed for " + args[0]);
  pid_ = pid;
  in_ = in[1];
  readers_.emplace_back([this, fd = out[0]] { pump(fd, &out_); });
  if (err[0] >= 0) readers_.emplace_back([this, fd = err[0]] { pump(fd, &err_); });
}

void Child::pump(int fd, std::string* sink) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    std::lock_guard lock(mu_);
    if (n <= 0) {
      if (sink == &out_) out_closed_ = true;
      break;
    }
    sink->append(buf, static_cast<std::size_t>(n));
    cv_.notify_all();
  }
  ::close(fd);
  cv_.notify_all();
}

Child::~Child() {
  if (!exit_code_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (in_ >= 0) ::close(in_);
  for (auto& t : readers_) t.join();
}

void Child::write(std::string_view bytes) {
  while (!bytes.empty() && in_ >= 0) {
    const ssize_t n = ::write(in_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void Child::close_stdin() {
  if (in_ >= 0) ::close(in_);
  in_ = -1;
}

std::optional<std::string> Child::read_line(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  const bool got = cv_.wait_for(lock, timeout, [&] { return out_.find('\n') != std::string::npos || out_closed_; });
  const auto nl = out_.find('\n');
  if (!got || nl == std::string::npos) return std::nullopt;
  std::string line = out_.substr(0, nl);
  out_.erase(0, nl + 1);
  return line;
}

std::optional<int> Child::wait(std::chrono::milliseconds timeout) {
  if (exit_code_) return exit_code_;
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      for (const char* marker : {"ThreadSanitizer", "AddressSanitizer", "LeakSanitizer", "runtime error:"})
        if (err().find(marker) != std::string::npos) ADD_FAILURE() << "sanitizer report from the child:\n" << err();
      return exit_code_;
    }
    if (std::chrono::steady_clock::now() >= until) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string Child::err() const {
  std::lock_guard lock(mu_);
  return err_;
}

std::string Child::out_rest() const {
  std::lock_guard lock(mu_);
  return out_;
}

}  // namespace testing_support
