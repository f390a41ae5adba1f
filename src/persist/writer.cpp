#include "persist/writer.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "core/log.hpp"
#include "core/redact.hpp"

namespace persist {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int err) { return std::strerror(err); }

// Writes all of it. EPIPE is reported as such: the reader went away. On a non-blocking
// descriptor (a FIFO) a reader that takes nothing for `stall` is an error.
Output::Result write_all(int fd, std::string_view data, std::string* error, std::chrono::milliseconds stall = {}) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) return Output::Result::reader_gone;
    if (n < 0 && errno == EAGAIN && stall.count() > 0) {
      pollfd p{fd, POLLOUT, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(stall.count()));
      if (ready > 0 || (ready < 0 && errno == EINTR)) continue;
      *error = fmt::format("its reader took nothing for {} s", stall.count() / 1000.0);
      return Output::Result::failed;
    }
    if (n <= 0) {
      *error = errno_text(n < 0 ? errno : EIO);
      return Output::Result::failed;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return Output::Result::ok;
}

// A temp file beside the target: a name nobody can predict or pre-create (O_EXCL), so a
// shared directory cannot hand us someone else's file or symlink.
int create_temp(const fs::path& dir, const std::string& base, std::string* path) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 16; ++attempt) {
    const auto ticks = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
    *path = (dir / fmt::format(".{}.tmp-{:x}-{:x}", base, static_cast<unsigned>(::getpid()), ticks ^ (counter++ * 0x9E3779B9ULL)))
                .string();
    const int fd = ::open(path->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

Output::Output(Output&& other) noexcept
    : kind_(other.kind_),
      name_(std::move(other.name_)),
      fd_(other.fd_),
      stall_wait_(other.stall_wait_),
      temp_(std::move(other.temp_)),
      final_(std::move(other.final_)),
      done_(other.done_) {
  other.fd_ = -1;
  other.temp_.clear();
  other.done_ = true;
}

Output::~Output() {
  if (fd_ >= 0 && kind_ != Kind::stdout_fd) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

Output::Result Output::write(std::string_view content, std::string* error) {
  if (done_) {
    *error = "already written";
    return Result::failed;
  }
  done_ = true;
  const std::string clean = core::redact::scrub(content);
  if (kind_ == Kind::stdout_fd) {
    std::fflush(stdout);  // whatever stdio holds goes first
    return write_all(fd_, clean, error);
  }
  if (kind_ == Kind::replace) {
    const fs::path target(final_);
    fd_ = create_temp(target.parent_path().empty() ? fs::path(".") : target.parent_path(), target.filename().string(), &temp_);
    if (fd_ < 0) {
      *error = errno_text(errno);
      temp_.clear();
      return Result::failed;
    }
    struct stat old {};
    if (::stat(final_.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {  // keep what the file was
      ::fchmod(fd_, old.st_mode & 07777);
      if (::geteuid() == 0 && ::fchown(fd_, old.st_uid, old.st_gid) != 0) {
        // Best effort: a file system without owners keeps ours.
      }
    }
  }
  Result r = write_all(fd_, clean, error, stall_wait_);
  if (r == Result::ok && kind_ == Kind::replace && ::fsync(fd_) != 0) {
    *error = errno_text(errno);
    r = Result::failed;
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && r == Result::ok) {  // NFS and full disks report late
    *error = errno_text(errno);
    r = Result::failed;
  }
  if (r == Result::ok && kind_ == Kind::replace) {
    if (::rename(temp_.c_str(), final_.c_str()) != 0) {
      *error = errno_text(errno);
      r = Result::failed;
    } else {
      temp_.clear();
    }
  }
  return r;
}

namespace {

// A FIFO without a reader blocks open(O_WRONLY) forever: open it non-blocking instead
// (ENXIO while nobody reads) and retry until `wait` has passed.
int open_fifo(const std::string& p, std::chrono::milliseconds wait, std::string* error) {
  const auto until = std::chrono::steady_clock::now() + wait;
  for (;;) {
    const int fd = ::open(p.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) return fd;
    if (errno != ENXIO) {
      *error = errno_text(errno);
      return -1;
    }
    if (std::chrono::steady_clock::now() >= until) {
      *error = fmt::format("it is a FIFO and nothing opened it for reading within {} s", wait.count() / 1000.0);
      return -1;
    }
    ::usleep(20000);
  }
}

}  // namespace

std::optional<Output> Writer::open(const fs::path& path, Parents parents, std::string* error,
                                   std::chrono::milliseconds reader_wait) const {
  const std::string p = path.string();
  if (p == "-") {
    const int flags = ::fcntl(STDOUT_FILENO, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) {
      *error = "stdout is closed";
      return std::nullopt;
    }
    Output out(Output::Kind::stdout_fd, "stdout");
    out.fd_ = STDOUT_FILENO;
    return out;
  }
  if (p.empty()) {
    *error = "empty path";
    return std::nullopt;
  }
  struct stat target {};
  const bool exists = ::stat(p.c_str(), &target) == 0;  // follows symlinks
  struct stat link {};
  const bool is_link = ::lstat(p.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  if (exists && S_ISDIR(target.st_mode)) {
    *error = "it is a directory";
    return std::nullopt;
  }
  // A device, a FIFO, a pipe, or a symlink to nothing yet: written through, never replaced.
  if ((exists && !S_ISREG(target.st_mode)) || (is_link && !exists)) {
    const bool fifo = exists && S_ISFIFO(target.st_mode);
    const int fd = fifo ? open_fifo(p, reader_wait, error)
                        : ::open(p.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (exists ? 0 : O_CREAT | O_TRUNC), 0666);
    if (fd < 0) {
      if (!fifo) *error = errno_text(errno);
      return std::nullopt;
    }
    Output out(Output::Kind::through, p);
    out.fd_ = fd;
    if (fifo) out.stall_wait_ = reader_wait;
    return out;
  }
  std::error_code ec;
  const fs::path final_path = is_link ? fs::canonical(path, ec) : path;
  if (ec) {
    *error = ec.message();
    return std::nullopt;
  }
  if (exists && ::access(final_path.c_str(), W_OK) != 0) {
    *error = errno_text(errno);
    return std::nullopt;
  }
  fs::path dir = final_path.parent_path();
  if (dir.empty()) dir = ".";
  if (parents == Parents::create) fs::create_directories(dir, ec);
  if (!fs::is_directory(dir, ec)) {
    *error = fmt::format("directory '{}' does not exist", dir.string());
    return std::nullopt;
  }
  // Proves now that a temp file can be made beside the target, and keeps nothing: the
  // real one is made at write time, so a run killed meanwhile leaves no litter.
  std::string probe;
  const int fd = create_temp(dir, final_path.filename().string(), &probe);
  if (fd < 0) {
    *error = fmt::format("cannot create a file in '{}': {}", dir.string(), errno_text(errno));
    return std::nullopt;
  }
  ::close(fd);
  ::unlink(probe.c_str());
  Output out(Output::Kind::replace, p);
  out.final_ = final_path.string();
  return out;
}

bool Writer::write(const fs::path& path, std::string_view content, Parents parents) const {
  std::string error;
  auto out = open(path, parents, &error);
  if (out && out->write(content, &error) != Output::Result::failed) return true;
  core::log::warn("cannot write {}: {}", path.string(), error);
  return false;
}

}  // namespace persist
