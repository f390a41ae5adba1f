#include "render/escape.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/text.hpp"
#include "core/url.hpp"

namespace render {

namespace {
constexpr std::string_view kWithheld = "(link withheld: not an http(s) URL)";

bool needs_encoding(unsigned char c) {
  return c <= 0x20 || c >= 0x7F || std::string_view("\"'<>\\^`{|}").find(static_cast<char>(c)) != std::string_view::npos;
}
}  // namespace

std::optional<std::string> web_url(std::string_view url) {
  url = core::trim(url);
  const auto parsed = core::Url::parse(url);  // http and https only
  if (!parsed) return std::nullopt;
  // A host is letters, digits, '-', '.', or an IPv6 literal; anything else is not one.
  if (!std::all_of(parsed->host.begin(), parsed->host.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-.[]:_").find(c) != std::string_view::npos;
      }))
    return std::nullopt;
  std::string out;
  out.reserve(url.size());
  for (unsigned char c : url) {
    if (needs_encoding(c)) out += fmt::format("%{:02X}", c);
    else out.push_back(static_cast<char>(c));
  }
  return out;
}

namespace term {

std::string text(std::string_view s) { return core::printable_line(s); }

std::string url(std::string_view u) {
  auto w = web_url(u);
  return w ? *w : std::string(kWithheld);
}

}  // namespace term

namespace md {

std::string text(std::string_view s) {
  const std::string line = core::printable_line(s);
  std::string out;
  out.reserve(line.size() + 8);
  for (char c : line) {
    // CommonMark lets any ASCII punctuation be backslash-escaped; these are the ones that
    // start emphasis, code, links, images, raw HTML, entities, tables or headings.
    if (std::string_view("\\`*_[]<>&|#!~").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

namespace {
// The URL as the JSON carries it (web_url: nothing a destination cannot hold raw), so a
// reader or an agent host cites the same bytes -- but for '[' and ']', encoded so that no
// reader, strict or naive, sees a link or an image inside it ("](" cannot occur). A
// destination with parentheses goes in <...>, where CommonMark reads them literally.
std::optional<std::string> md_url(std::string_view url) {
  auto w = web_url(url);
  if (!w) return std::nullopt;
  std::string out;
  for (char c : *w) {
    if (c == '[') out += "%5B";
    else if (c == ']') out += "%5D";
    else out.push_back(c);
  }
  return out;
}
}  // namespace

std::string link(std::string_view label, std::string_view url) {
  auto dest = md_url(url);
  if (!dest) return text(label);
  return "[" + text(label) + "](" + (dest->find_first_of("()") == std::string::npos ? *dest : "<" + *dest + ">") + ")";
}

std::string autolink(std::string_view url) {
  auto dest = md_url(url);
  return dest ? "<" + *dest + ">" : std::string(kWithheld);
}

std::string code(std::string_view s) {
  const std::string line = core::printable_line(s);
  std::size_t longest = 0, run = 0;
  for (char c : line) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !line.empty() && (line.front() == '`' || line.back() == '`');
  return fence + (pad ? " " : "") + line + (pad ? " " : "") + fence;
}

}  // namespace md

namespace html {

std::string text(std::string_view s) {
  const std::string line = core::printable_line(s);
  std::string out;
  out.reserve(line.size());
  for (char c : line) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string link(std::string_view url, std::string_view label) {
  auto w = web_url(url);
  if (!w) return text(label);
  return fmt::format("<a href=\"{}\" rel=\"noopener noreferrer nofollow\">{}</a>", text(*w), text(label));
}

}  // namespace html

namespace shell {

std::string arg(std::string_view s) {
  std::string out = "'";
  for (char c : core::printable_line(s)) {
    if (c == '\'') out += "'\\''";
    else out.push_back(c);
  }
  return out + "'";
}

}  // namespace shell

}  // namespace render
