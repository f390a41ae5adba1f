#pragma once
// The one rule for text in a brief, one helper per format. Titles, names, reasons,
// snippets, angles and topics come from upstreams, host files or the user; every renderer
// line that shows such text goes through these helpers, and nothing else:
//   - text is one line: valid UTF-8, no control characters or bidi overrides, escaped for
//     its format (core::printable_line, then the format's escaping);
//   - only http(s) URLs become links; a URL is one line, percent-encoded where its format
//     needs it; anything else (javascript:, data:, vbscript:, file:, relative) is never a
//     link and is shown, if at all, as withheld.
#include <optional>
#include <string>
#include <string_view>

namespace render {

// The URL as a brief may cite it: scheme http or https with a host, and every byte that
// could break a line or a format (controls, space, quotes, <>\^`{|}, non-ASCII) percent-
// encoded. nullopt for anything that is not a web URL.
std::optional<std::string> web_url(std::string_view url);

namespace term {  // compact briefs: a terminal
std::string text(std::string_view s);
std::string url(std::string_view url);  // the web URL, or a note that the link was withheld
}  // namespace term

namespace md {                                                  // Markdown briefs, saved -raw.md files
std::string text(std::string_view s);                           // Markdown syntax and inline HTML escaped
std::string link(std::string_view text, std::string_view url);  // [text](url); the text alone if not a web URL
std::string autolink(std::string_view url);                     // <url>; a withheld note if not a web URL
std::string code(std::string_view s);                           // a code span its content cannot close
}  // namespace md

namespace html {  // the HTML page
std::string text(std::string_view s);
std::string link(std::string_view url, std::string_view text);  // <a href> only for web URLs
}  // namespace html

namespace shell {  // commands the user may paste (spec §5: discovery's follow-up command)
// One POSIX single-quoted word ('\'' for '), from printable text: safe in sh, bash and zsh.
std::string arg(std::string_view s);
}  // namespace shell

}  // namespace render
