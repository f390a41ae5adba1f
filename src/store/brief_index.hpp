#pragma once
// Saved briefs on disk (--save writes <slug>-raw.md): what the library indexes.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace store {

struct BriefFile {
  std::string path;        // normalised, absolute when the directory was
  std::int64_t mtime = 0;  // nanoseconds: a rewrite within the same second still counts
  std::int64_t size = 0;
};
struct BriefDoc {
  std::string hash;  // of the content: a touched but unchanged file is not re-indexed
  std::string topic;
  std::string title;
  std::string body;
};

// The saved Markdown briefs directly in dir (regular files only; links and FIFOs skipped).
std::vector<BriefFile> scan_briefs(const std::filesystem::path& dir);
// Reads one (capped); nullopt when it vanished, grew past the cap or is not a file.
std::optional<BriefDoc> read_brief(const BriefFile& file);

}  // namespace store
