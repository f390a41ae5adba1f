#include "proc/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/children.hpp"

#if !defined(__GLIBC__) || !__GLIBC_PREREQ(2, 34)
#error "proc needs posix_spawn_file_actions_addclosefrom_np (glibc 2.34): no descriptor may leak into a child"
#endif

namespace proc {

namespace {

// Owns a descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// A close-on-exec pipe whose ends are >= 3, so that the child's dup2 onto 0/1/2 can
// never clobber another end (a process started with stdin closed gets fd 0 from pipe2).
bool make_pipe(Fd& read_end, Fd& write_end, int extra_flags = 0) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC | extra_flags) != 0) return false;
  for (int& fd : p) {
    if (fd >= 3) continue;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    ::close(fd);
    fd = moved;
  }
  read_end.reset(p[0]);
  write_end.reset(p[1]);
  return p[0] >= 0 && p[1] >= 0;
}

int poll_timeout(const core::Deadline& d, int cap_ms) {
  return static_cast<int>(std::min<long long>(d.remaining().count() + 1, cap_ms));
}

std::vector<char*> c_strings(const std::vector<std::string>& in, std::vector<std::string>& storage) {
  storage = in;
  std::vector<char*> out;
  for (auto& s : storage) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// True once the leader has exited; leaves it a zombie so that its pid (the group id)
// stays reserved until we have killed the rest of the group.
bool leader_exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

}  // namespace

Result run_lines(const Options& o, const std::function<bool(std::string_view)>& on_line) {
  Result r;
  if (o.argv.empty()) {
    r.error = "no program given";
    return r;
  }
  if (o.stop.stop_requested()) {
    r.end = End::cancelled;
    return r;
  }
  if (o.deadline.expired()) {
    r.end = End::deadline;
    return r;
  }
  Fd in_r, in_w, out_r, out_w, err_r, err_w, wake_r, wake_w;
  if (!make_pipe(in_r, in_w) || !make_pipe(out_r, out_w) || !make_pipe(err_r, err_w) || !make_pipe(wake_r, wake_w, O_NONBLOCK)) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_r.get(), 0);
  posix_spawn_file_actions_adddup2(&fa, out_w.get(), 1);
  posix_spawn_file_actions_adddup2(&fa, err_w.get(), 2);
  // Whatever another thread (curl, a cassette, a second child's pipes) has open stays out.
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);  // a new group led by the child
  sigset_t mask;
  sigemptyset(&mask);
  posix_spawnattr_setsigmask(&attr, &mask);
  sigset_t defaults;
  sigfillset(&defaults);
  sigdelset(&defaults, SIGKILL);
  sigdelset(&defaults, SIGSTOP);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  std::vector<std::string> argv_storage, env_storage;
  auto argv = c_strings(o.argv, argv_storage);
  auto envp = c_strings(o.env, env_storage);
  pid_t pid = 0;
  int rc = 0;
  {
    // glibc's posix_spawn is clone(CLONE_VM|CLONE_VFORK)+exec: nothing async-signal-unsafe
    // runs in the child, however many threads this process has.
    auto lock = core::children::lock_for_spawn();
    if (!lock.owns_lock()) {
      rc = ECANCELED;
    } else {
      core::children::install_signal_handlers();
      rc = posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), envp.data());
      if (rc == 0 && !core::children::add(pid)) {
        ::killpg(pid, SIGKILL);
        int st = 0;
        while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
        rc = EAGAIN;
      }
    }
  }
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  in_r.reset();
  out_w.reset();
  err_w.reset();
  in_w.reset();  // the child reads EOF from stdin
  if (rc != 0) {
    r.error = rc == ECANCELED ? std::string("the process is exiting") : std::string(std::strerror(rc));
    return r;
  }

  std::stop_callback on_stop(o.stop, [fd = wake_w.get()] {
    const char c = 'x';
    [[maybe_unused]] const auto n = ::write(fd, &c, 1);
  });

  bool killed = false;
  auto kill_group = [&](End why) {
    if (killed) return;
    ::killpg(pid, SIGKILL);
    killed = true;
    r.end = why;
  };
  auto check_limits = [&] {
    if (o.stop.stop_requested()) kill_group(End::cancelled);
    else if (o.deadline.expired()) kill_group(End::deadline);
  };

  std::string pending;
  std::size_t total = 0;
  bool out_open = true, err_open = true;
  char buf[65536];
  auto deliver = [&](std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++r.lines;
    if (!on_line(line)) kill_group(End::enough);
  };
  while ((out_open || err_open) && !killed) {
    pollfd fds[3] = {
        {out_open ? out_r.get() : -1, POLLIN, 0}, {err_open ? err_r.get() : -1, POLLIN, 0}, {wake_r.get(), POLLIN, 0}};
    const int n = ::poll(fds, 3, poll_timeout(o.deadline, 60000));
    if (n < 0 && errno != EINTR) {
      r.error = std::string("poll: ") + std::strerror(errno);
      kill_group(End::cancelled);
      break;
    }
    check_limits();
    if (killed) break;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t got = ::read(out_r.get(), buf, sizeof buf);
      if (got <= 0 && !(got < 0 && (errno == EINTR || errno == EAGAIN))) {
        out_open = false;
        if (!pending.empty()) deliver(pending);
        pending.clear();
      } else if (got > 0) {
        total += static_cast<std::size_t>(got);
        pending.append(buf, static_cast<std::size_t>(got));
        std::size_t start = 0;
        for (std::size_t nl; !killed && (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
          deliver(std::string_view(pending).substr(start, nl - start));
        pending.erase(0, start);
        if (!killed && (pending.size() > o.max_line_bytes || total > o.max_stdout_bytes)) kill_group(End::too_large);
      }
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t got = ::read(err_r.get(), buf, sizeof buf);
      if (got <= 0 && !(got < 0 && (errno == EINTR || errno == EAGAIN))) {
        err_open = false;
      } else if (got > 0 && r.stderr_text.size() < o.max_stderr_bytes) {
        r.stderr_text.append(buf, std::min(static_cast<std::size_t>(got), o.max_stderr_bytes - r.stderr_text.size()));
      }
    }
  }
  // Output closed: give the leader until the deadline to exit on its own.
  while (!killed && !leader_exited(pid)) {
    pollfd w{wake_r.get(), POLLIN, 0};
    ::poll(&w, 1, poll_timeout(o.deadline, 20));
    check_limits();
  }
  // Sweep whatever else is left in the group while the zombie leader still holds its id,
  // then unregister, then reap.
  ::killpg(pid, SIGKILL);
  core::children::remove(pid);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (!killed) {
    r.end = End::exited;
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  }
  return r;
}

std::optional<std::string> find_in_path(std::string_view name, std::string_view path_value) {
  if (name.empty() || name.find('/') != std::string_view::npos) return std::nullopt;
  while (true) {
    const auto colon = path_value.find(':');
    const std::string_view dir = path_value.substr(0, colon);
    if (!dir.empty() && dir.front() == '/') {
      std::string candidate(dir);
      if (candidate.back() != '/') candidate += '/';
      candidate += name;
      struct stat st {};
      if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (colon == std::string_view::npos) return std::nullopt;
    path_value.remove_prefix(colon + 1);
  }
}

}  // namespace proc
