#pragma once
// The one reader for files the host hands us: --plan, .env, judgments, angles, the
// discovery bundle and pending files, cassette entries, run.json. Only a regular file
// (after following symlinks) is read, and only up to a size cap: a FIFO, a device such
// as /dev/zero, a directory or a socket is refused without blocking, and a file larger
// than the cap is refused without reading it all. Thread-safe (no shared state).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace core {

// Caps by kind, one place. A cassette entry holds a body of up to the HTTP client's
// decoded cap, escaped; the client passes its own bound for those.
inline constexpr std::size_t kEnvFileCap = 64u << 10;      // .env
inline constexpr std::size_t kHostFileCap = 1u << 20;      // --plan, judgments, angles, run.json
inline constexpr std::size_t kProtocolFileCap = 8u << 20;  // discover-nominations.json, discover-pending.json

struct FileError {
  enum class Kind { missing, not_regular, too_large, unreadable };
  Kind kind;
  std::string message;  // "'PATH' is not a regular file (a FIFO)", ready to print
};

struct FileText {
  std::optional<std::string> text;  // set on success
  FileError error{FileError::Kind::missing, {}};
  explicit operator bool() const { return text.has_value(); }
};

FileText read_file_capped(const std::filesystem::path& path, std::size_t max_bytes);

// Whether two paths name one file: the same inode (through symlinks and hard links), or,
// for one that does not exist yet, the same name in the same directory. So "research.db-wal"
// before SQLite made it is still the store's WAL.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);
// Whether `path` names an entry directly inside directory `dir` (by the directory's inode).
bool inside_directory(const std::filesystem::path& path, const std::filesystem::path& dir);

}  // namespace core
