#include "store/brief_index.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "core/file.hpp"
#include "core/text.hpp"

namespace store {

namespace {
constexpr std::size_t kMaxBrief = 4 * 1024 * 1024;
constexpr std::string_view kSuffix = "-raw.md";
constexpr std::string_view kHeading = "# last30days: ";

// The Markdown renderer escapes punctuation with a backslash; the index wants the words.
std::string unescape_md(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
    out += s[i];
  }
  return out;
}
}  // namespace

std::vector<BriefFile> scan_briefs(const std::filesystem::path& dir) {
  std::vector<BriefFile> out;
  std::error_code ec;
  const auto base = dir.lexically_normal();
  for (std::filesystem::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= kSuffix.size() || name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    out.push_back({it->path().lexically_normal().string(),
                   static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec,
                   static_cast<std::int64_t>(st.st_size)});
  }
  std::sort(out.begin(), out.end(), [](const BriefFile& a, const BriefFile& b) { return a.path < b.path; });
  return out;
}

std::optional<BriefDoc> read_brief(const BriefFile& file) {
  auto file_text = core::read_file_capped(file.path, kMaxBrief);
  if (!file_text) return std::nullopt;
  const auto& text = file_text.text;
  BriefDoc doc;
  doc.hash = core::hex64(core::fnv1a64(*text));
  doc.body = core::sanitize_utf8(*text);
  const auto eol = doc.body.find('\n');
  const std::string_view first = std::string_view(doc.body).substr(0, eol);
  if (first.rfind(kHeading, 0) == 0) {
    doc.topic = unescape_md(core::trim(first.substr(kHeading.size())));
  } else {
    const auto name = std::filesystem::path(file.path).filename().string();
    doc.topic = name.substr(0, name.size() - kSuffix.size());
  }
  doc.title = "Saved brief: " + doc.topic;
  return doc;
}

}  // namespace store
