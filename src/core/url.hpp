#pragma once
// Minimal absolute-URL handling: enough for host mapping, redirect checks and dedupe keys.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace core {

struct Url {
  std::string scheme;  // lower-case
  std::string host;    // lower-case, no port
  std::string port;    // empty when default
  std::string path;    // begins with '/' (or empty)
  std::string query;   // without '?'
  std::string fragment;

  static std::optional<Url> parse(std::string_view s);
  std::string str() const;
  std::string path_and_query() const;
  // Resolves a Location header (absolute, scheme-relative or path) against this URL.
  std::optional<Url> resolve(std::string_view ref) const;
};

// `host` is `domain` or one of its subdomains ("old.reddit.com" of "reddit.com", never
// "notreddit.com"). Byte comparison: both as Url::parse gives them (lower-case).
bool within_domain(std::string_view host, std::string_view domain);

// Query parameters in order, values still percent-encoded.
std::vector<std::pair<std::string, std::string>> split_query(std::string_view query);

// The same URL without tracking parameters (utm_*, fbclid...): what a brief should cite.
std::string strip_tracking(std::string_view url);

// Canonical form used to fold cross-posts: no scheme, no www./m./old., no default
// index pages, trailing slash, fragment or tracking parameters; host lower-cased.
std::string canonical_url(std::string_view url);

}  // namespace core
