#include "core/url.hpp"

#include <algorithm>
#include <cctype>

#include "core/text.hpp"

namespace core {

std::optional<Url> Url::parse(std::string_view s) {
  s = trim(s);
  const auto colon = s.find("://");
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  Url u;
  u.scheme = lower_ascii(s.substr(0, colon));
  if (u.scheme != "http" && u.scheme != "https") return std::nullopt;
  std::string_view rest = s.substr(colon + 3);
  const auto end_auth = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end_auth);
  rest = end_auth == std::string_view::npos ? std::string_view{} : rest.substr(end_auth);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (authority.empty()) return std::nullopt;
  if (authority.front() == '[') {  // IPv6 literal
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    u.host = lower_ascii(authority.substr(0, close + 1));
    if (close + 1 < authority.size() && authority[close + 1] == ':') u.port = authority.substr(close + 2);
  } else {
    const auto pc = authority.rfind(':');
    u.host = lower_ascii(authority.substr(0, pc));
    if (pc != std::string_view::npos) u.port = authority.substr(pc + 1);
  }
  if (u.host.empty()) return std::nullopt;
  if (!std::all_of(u.port.begin(), u.port.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  if ((u.scheme == "http" && u.port == "80") || (u.scheme == "https" && u.port == "443")) u.port.clear();
  if (const auto hash = rest.find('#'); hash != std::string_view::npos) {
    u.fragment = rest.substr(hash + 1);
    rest = rest.substr(0, hash);
  }
  if (const auto q = rest.find('?'); q != std::string_view::npos) {
    u.query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  u.path = rest.empty() ? "/" : std::string(rest);
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
  const std::string n = lower_ascii(name);
  return n.rfind("utm_", 0) == 0 || n == "ref" || n == "ref_src" || n == "fbclid" || n == "gclid" || n == "mc_cid" ||
         n == "mc_eid" || n == "igshid" || n == "si" || n == "source" || n == "share_id";
}
}  // namespace

std::string strip_tracking(std::string_view url) {
  auto parsed = Url::parse(url);
  if (!parsed || parsed->query.empty()) return std::string(url);
  std::string query;
  bool dropped = false;
  for (auto& [k, v] : split_query(parsed->query)) {
    if (tracking_param(k)) {
      dropped = true;
      continue;
    }
    if (!query.empty()) query += '&';
    query += k + (v.empty() ? "" : "=" + v);
  }
  if (!dropped) return std::string(url);
  parsed->query = query;
  return parsed->str();
}

std::string canonical_url(std::string_view url) {
  auto parsed = Url::parse(url);
  if (!parsed) return lower_ascii(trim(url));
  Url& u = *parsed;
  for (std::string_view prefix : {"www.", "m.", "old.", "mobile.", "amp."}) {
    if (u.host.rfind(prefix, 0) == 0 && u.host.size() > prefix.size() + 3) {
      u.host.erase(0, prefix.size());
      break;
    }
  }
  if (u.host == "youtu.be" && u.path.size() > 1) {  // short links fold into watch URLs
    u.query = "v=" + u.path.substr(1);
    u.host = "youtube.com";
    u.path = "/watch";
  }
  std::string query;
  for (auto& [k, v] : split_query(u.query)) {
    if (tracking_param(k)) continue;
    if (!query.empty()) query += '&';
    query += k + (v.empty() ? "" : "=" + v);
  }
  std::string path = u.path;
  for (std::string_view index : {"/index.html", "/index.htm", "/index.php"}) {
    if (path.size() >= index.size() && path.compare(path.size() - index.size(), index.size(), index) == 0) {
      path.resize(path.size() - index.size() + 1);
      break;
    }
  }
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path == "/") path.clear();
  std::string out = u.host + (u.port.empty() ? "" : ":" + u.port) + path;
  if (!query.empty()) out += "?" + query;
  return out;
}

bool within_domain(std::string_view host, std::string_view domain) {
  return host == domain ||
         (host.size() > domain.size() && host.ends_with(domain) && host[host.size() - domain.size() - 1] == '.');
}

}  // namespace core
