#include "core/url.hpp"

#include <algorithm>
#include <cctype>

#include "core/text.hpp"

namespace core {

namespace {

// Url::parse's reading of a URL as views into it: scheme and host not yet lower-cased, the
// default port already dropped, the path "/" when there is none. canonical_url builds its key
// from these without the strings of a Url.
struct Parts {
  std::string_view scheme, host, port, path, query, fragment;
};

std::optional<Parts> parts(std::string_view s) {
  s = trim(s);
  const auto colon = s.find("://");
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  Parts u;
  u.scheme = s.substr(0, colon);
  const bool http = equals_ci(u.scheme, "http");
  if (!http && !equals_ci(u.scheme, "https")) return std::nullopt;
  std::string_view rest = s.substr(colon + 3);
  const auto end_auth = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end_auth);
  rest = end_auth == std::string_view::npos ? std::string_view{} : rest.substr(end_auth);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (authority.empty()) return std::nullopt;
  if (authority.front() == '[') {  // IPv6 literal
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    u.host = authority.substr(0, close + 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') u.port = authority.substr(close + 2);
  } else {
    const auto pc = authority.rfind(':');
    u.host = authority.substr(0, pc);
    if (pc != std::string_view::npos) u.port = authority.substr(pc + 1);
  }
  if (u.host.empty()) return std::nullopt;
  if (!std::all_of(u.port.begin(), u.port.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  if ((http && u.port == "80") || (!http && u.port == "443")) u.port = {};
  if (const auto hash = rest.find('#'); hash != std::string_view::npos) {
    u.fragment = rest.substr(hash + 1);
    rest = rest.substr(0, hash);
  }
  if (const auto q = rest.find('?'); q != std::string_view::npos) {
    u.query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  u.path = rest.empty() ? std::string_view("/") : rest;
  return u;
}

}  // namespace

std::optional<Url> Url::parse(std::string_view s) {
  const auto p = parts(s);
  if (!p) return std::nullopt;
  Url u;
  u.scheme = lower_ascii(p->scheme);
  u.host = lower_ascii(p->host);
  u.port = p->port;
  u.path = p->path;
  u.query = p->query;
  u.fragment = p->fragment;
  return u;
}

std::string Url::path_and_query() const { return path + (query.empty() ? "" : "?" + query); }

std::string Url::str() const {
  std::string out = scheme + "://" + host;
  if (!port.empty()) out += ":" + port;
  out += path_and_query();
  if (!fragment.empty()) out += "#" + fragment;
  return out;
}

std::optional<Url> Url::resolve(std::string_view ref) const {
  ref = trim(ref);
  if (ref.empty()) return std::nullopt;
  if (ref.find("://") != std::string_view::npos) return parse(ref);
  if (ref.substr(0, 2) == "//") return parse(scheme + ":" + std::string(ref));
  Url out = *this;
  out.fragment.clear();
  out.query.clear();
  std::string r(ref);
  if (const auto hash = r.find('#'); hash != std::string::npos) r.resize(hash);
  if (const auto q = r.find('?'); q != std::string::npos) {
    out.query = r.substr(q + 1);
    r.resize(q);
  }
  if (r.empty()) return out;
  if (r.front() == '/') {
    out.path = r;
  } else {
    const auto slash = path.rfind('/');
    out.path = (slash == std::string::npos ? "/" : path.substr(0, slash + 1)) + r;
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> split_query(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!query.empty()) {
    const auto amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (part.empty()) continue;
    const auto eq = part.find('=');
    out.emplace_back(std::string(part.substr(0, eq)),
                     eq == std::string_view::npos ? std::string{} : std::string(part.substr(eq + 1)));
  }
  return out;
}

namespace {
bool tracking_param(std::string_view name) {
  if (starts_with_ci(name, "utm_")) return true;
  for (std::string_view n : {"ref", "ref_src", "fbclid", "gclid", "mc_cid", "mc_eid", "igshid", "si", "source", "share_id"})
    if (equals_ci(name, n)) return true;
  return false;
}

// The query without tracking parameters, as split_query reads it (empty parts dropped, "k="
// written "k").
std::string untracked_query(std::string_view query, bool* dropped) {
  std::string out;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (part.empty()) continue;
    const auto eq = part.find('=');
    const std::string_view k = part.substr(0, eq), v = eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1);
    if (tracking_param(k)) {
      if (dropped) *dropped = true;
      continue;
    }
    if (!out.empty()) out += '&';
    out += k;
    if (!v.empty()) {
      out += '=';
      out += v;
    }
  }
  return out;
}
}  // namespace

std::string strip_tracking(std::string_view url) {
  if (url.find('?') == std::string_view::npos) return std::string(url);  // no query: nothing to strip
  auto parsed = Url::parse(url);
  if (!parsed || parsed->query.empty()) return std::string(url);
  bool dropped = false;
  std::string query = untracked_query(parsed->query, &dropped);
  if (!dropped) return std::string(url);
  parsed->query = std::move(query);
  return parsed->str();
}

std::string canonical_url(std::string_view url) {
  const auto parsed = parts(url);
  if (!parsed) return lower_ascii(trim(url));
  const Parts& u = *parsed;
  std::string host = lower_ascii(u.host);
  std::string_view path = u.path;
  std::string youtube_query;
  std::string_view query = u.query;
  for (std::string_view prefix : {"www.", "m.", "old.", "mobile.", "amp."}) {
    if (host.rfind(prefix, 0) == 0 && host.size() > prefix.size() + 3) {
      host.erase(0, prefix.size());
      break;
    }
  }
  if (host == "youtu.be" && path.size() > 1) {  // short links fold into watch URLs
    youtube_query = "v=" + std::string(path.substr(1));
    query = youtube_query;
    host = "youtube.com";
    path = "/watch";
  }
  for (std::string_view index : {"/index.html", "/index.htm", "/index.php"}) {
    if (path.ends_with(index)) {
      path.remove_suffix(index.size() - 1);
      break;
    }
  }
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/") path = {};
  std::string out = std::move(host);
  if (!u.port.empty()) {
    out += ':';
    out += u.port;
  }
  out += path;
  if (const std::string q = untracked_query(query, nullptr); !q.empty()) {
    out += '?';
    out += q;
  }
  return out;
}

bool within_domain(std::string_view host, std::string_view domain) {
  return host == domain ||
         (host.size() > domain.size() && host.ends_with(domain) && host[host.size() - domain.size() - 1] == '.');
}

}  // namespace core
