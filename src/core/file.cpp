#include "core/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace core {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

FileText fail(FileError::Kind kind, std::string message) {
  FileText out;
  out.error = {kind, std::move(message)};
  return out;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

FileText read_file_capped(const std::filesystem::path& path, std::size_t max_bytes) {
  const std::string p = path.string();
  // O_NONBLOCK: opening a FIFO for reading must not wait for a writer. Nothing is read
  // before fstat says the file is regular, so the flag changes nothing else.
  Fd f{::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) {
    const int err = errno;
    return fail(err == ENOENT || err == ENOTDIR ? FileError::Kind::missing : FileError::Kind::unreadable,
                fmt::format("cannot read '{}': {}", p, std::strerror(err)));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    return fail(FileError::Kind::unreadable, fmt::format("cannot read '{}': {}", p, std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    return fail(FileError::Kind::not_regular, fmt::format("cannot read '{}': {}, not a regular file", p, kind_of(st.st_mode)));
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    return fail(FileError::Kind::too_large,
                fmt::format("cannot read '{}': {} bytes is over the {} byte limit", p, st.st_size, max_bytes));
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  // One byte past the cap: a file that grew since fstat is still refused, never truncated.
  for (;;) {
    if (got == text.size()) {
      if (text.size() > max_bytes) break;
      text.resize(std::min(max_bytes + 1, std::max<std::size_t>(text.size() * 2, 4096)));
    }
    const ssize_t n = ::read(f.fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(FileError::Kind::unreadable, fmt::format("cannot read '{}': {}", p, std::strerror(errno)));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > max_bytes)
    return fail(FileError::Kind::too_large, fmt::format("cannot read '{}': over the {} byte limit", p, max_bytes));
  text.resize(got);
  FileText out;
  out.text = std::move(text);
  return out;
}

}  // namespace core

namespace core {

namespace {

struct Identity {
  dev_t dev = 0;
  ino_t ino = 0;
  std::string name;  // set for a path that does not exist: its name in directory (dev, ino)
  bool known = false;
  bool operator==(const Identity& o) const { return known && o.known && dev == o.dev && ino == o.ino && name == o.name; }
};

Identity identity(const std::filesystem::path& path) {
  Identity id;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id = {st.st_dev, st.st_ino, {}, true};
    return id;
  }
  const auto parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (::stat(parent.c_str(), &st) == 0 && path.has_filename()) id = {st.st_dev, st.st_ino, path.filename().string(), true};
  return id;
}

}  // namespace

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) { return identity(a) == identity(b); }

bool inside_directory(const std::filesystem::path& path, const std::filesystem::path& dir) {
  // A symlink at the path is judged by the file it leads to, as the writer follows it.
  std::error_code ec;
  auto real = std::filesystem::weakly_canonical(path, ec);
  if (ec) real = path;
  const auto parent = real.has_parent_path() ? real.parent_path() : std::filesystem::path(".");
  const Identity p = identity(parent), d = identity(dir);
  return p.known && p.name.empty() && p == d;
}

}  // namespace core
