#pragma once
// The one redactor of the process. Every way out -- the log, the Writer (saved briefs,
// --output, stdout), the --record cassette -- passes text through scrub(), and every
// credential is registered with add_secret() the moment it is known: configured ones at
// startup, run-time ones (an OAuth access token, a session JWT, a database URL's
// password) as soon as they arrive.
//
// A registered value is found in its raw form, percent-encoded (either hex case, '+' for
// space), JSON-escaped, and base64-encoded at any alignment (so "Basic base64(id:secret)"
// is caught from the secret alone). Values shorter than kMinSecretBytes are ignored:
// they cannot be told apart from ordinary text. Upstream text is scrubbed as it enters
// the pipeline (and by every truncation), so format escaping applied later by a
// renderer never hides a secret from this redactor.
//
// Text and values. scrub() runs on finished text -- a serialised JSON document, a page,
// a protocol line -- so it must never match the text's own syntax: a form of a secret
// that could ("false", "null", 1234, `": "`, a short lower-case word that may be a key
// or a tag, anything holding a quote or a backslash) is left to scrub_value(), which
// runs on values before they are embedded in any document (upstream text as it enters
// the pipeline, log lines, store values, cassette fields). A configured secret that is
// itself such a value is a configuration warning (unsafe_in_text()).
//
// Thread-safe: add_secret() and scrub() may be called from any thread at any time,
// including from abandoned workers during exit (the state is leaked on purpose).
#include <cstddef>
#include <string>
#include <string_view>

namespace core::redact {

constexpr std::size_t kMinSecretBytes = 4;
constexpr std::string_view kMarker = "[redacted]";

void add_secret(std::string_view value);
// Replaces every occurrence of every registered form that is safe in text with kMarker.
// Always terminates (matches are found in the input, never in the output) and is a
// plain copy when nothing is registered.
std::string scrub(std::string_view text);
// The same with every registered form: for a value (a field, a line), not a document.
std::string scrub_value(std::string_view value);
// Whether this form of a secret could match the syntax of a document we print.
bool unsafe_in_text(std::string_view form);

}  // namespace core::redact
