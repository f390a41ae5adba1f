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
// Thread-safe: add_secret() and scrub() may be called from any thread at any time,
// including from abandoned workers during exit (the state is leaked on purpose).
#include <cstddef>
#include <string>
#include <string_view>

namespace core::redact {

constexpr std::size_t kMinSecretBytes = 4;
constexpr std::string_view kMarker = "[redacted]";

void add_secret(std::string_view value);
// Replaces every occurrence of every registered form with kMarker. Always terminates
// (matches are found in the input, never in the output) and is a plain copy when
// nothing is registered.
std::string scrub(std::string_view text);

}  // namespace core::redact
