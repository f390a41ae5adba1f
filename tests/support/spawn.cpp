#include "spawn.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace testing_support {

std::vector<std::string> child_environment(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos) merged[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (auto& [k, v] : env) {
    if (v.empty()) merged.erase(k);
    else merged[k] = v;
  }
  std::vector<std::string> out;
  for (auto& [k, v] : merged) out.push_back(k + "=" + v);
  return out;
}

ProcessResult run_binary(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                         std::chrono::milliseconds watchdog, const std::string& stdin_data) {
  SpawnOptions options;
  options.watchdog = watchdog;
  options.stdin_data = stdin_data;
  return run_binary(args, env, options);
}

ProcessResult run_binary(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                         const SpawnOptions& options) {
  const auto watchdog = options.watchdog;
  const std::string& stdin_data = options.stdin_data;
  CStrings envp(child_environment(env));
  CStrings argv(args);

  int out_pipe[2], err_pipe[2], in_pipe[2];
  // Close-on-exec: a child spawned concurrently from another thread must not inherit these
  // ends (it would hold this child's pipes open). dup2 in the child clears the flag.
  if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC) || pipe2(in_pipe, O_CLOEXEC)) throw std::runtime_error("pipe");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&fa, options.stdout_fd >= 0 ? options.stdout_fd : out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], in_pipe[0], in_pipe[1]})
    posix_spawn_file_actions_addclose(&fa, fd);
  if (options.close_stdout) posix_spawn_file_actions_addclose(&fa, 1);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, options.cwd.c_str());
  pid_t pid = 0;
  const auto start = std::chrono::steady_clock::now();
  // The child starts as from a shell: SIGPIPE at its default, whatever this process does.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  const int spawned = posix_spawn(&pid, argv.get()[0], &fa, &attr, argv.get(), envp.get());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  if (spawned != 0) throw std::runtime_error("posix_spawn failed for " + args[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(in_pipe[0]);
  if (!stdin_data.empty()) [[maybe_unused]]
    auto w = write(in_pipe[1], stdin_data.data(), stdin_data.size());
  close(in_pipe[1]);

  ProcessResult r;
  bool out_open = true, err_open = true;
  if (options.stdout_fd >= 0 || options.close_stdout) {
    close(out_pipe[0]);
    out_pipe[0] = -1;
    out_open = false;
  }
  const auto kill_at = start + watchdog;
  while (out_open || err_open) {
    pollfd fds[2] = {{out_open ? out_pipe[0] : -1, POLLIN, 0}, {err_open ? err_pipe[0] : -1, POLLIN, 0}};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(pid, SIGKILL);
      r.timed_out = true;
      break;
    }
    poll(fds, 2, static_cast<int>(left.count()));
    char buf[65536];
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  if (out_pipe[0] >= 0) close(out_pipe[0]);
  close(err_pipe[0]);
  if (!r.timed_out && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  // Under a sanitizer build the child is sanitized too; its reports must fail the test
  // even when it exits 0 (std::_Exit skips the sanitizer's exit-code hook).
  for (const char* marker : {"ThreadSanitizer", "AddressSanitizer", "LeakSanitizer", "runtime error:"})
    if (r.err.find(marker) != std::string::npos) ADD_FAILURE() << "sanitizer report from " << args[0] << ":\n" << r.err;
  return r;
}

ProcessResult run_last30days(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                             std::chrono::milliseconds watchdog) {
  SpawnOptions options;
  options.watchdog = watchdog;
  return run_last30days(args, env, options);
}

std::string binary_under_test() {
  const char* other = std::getenv("L30_BINARY_UNDER_TEST");
  return other != nullptr && *other != '\0' ? other : L30_BINARY;
}

ProcessResult run_last30days(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                             const SpawnOptions& options) {
  std::vector<std::string> full{binary_under_test()};
  full.insert(full.end(), args.begin(), args.end());
  return run_binary(full, env, options);
}

std::string read_file(const std::string& path) {
  std::string out;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[65536];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    std::fclose(f);
  }
  return out;
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "l30test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> TempDir::files() const {
  std::vector<std::string> out;
  for (auto& e : std::filesystem::recursive_directory_iterator(path_))
    if (e.is_regular_file()) out.push_back(std::filesystem::relative(e.path(), path_).string());
  return out;
}

}  // namespace testing_support
