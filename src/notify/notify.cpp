#include "notify/notify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <random>
#include <thread>

#include "core/redact.hpp"
#include "core/text.hpp"
#include "core/url.hpp"
#include "http/smtp.hpp"

namespace notify {

namespace {

struct Spec {
  const char* name;
  const char* key;
  Kind kind;
};
constexpr Spec kSpecs[] = {{"webhook", "LAST30DAYS_NOTIFY_WEBHOOK", Kind::webhook},
                           {"slack", "LAST30DAYS_NOTIFY_SLACK", Kind::slack},
                           {"discord", "LAST30DAYS_NOTIFY_DISCORD", Kind::discord},
                           {"ntfy", "LAST30DAYS_NOTIFY_NTFY", Kind::ntfy},
                           {"email", "LAST30DAYS_NOTIFY_SMTP_URL", Kind::email}};

// The userinfo of scheme://user:password@host/...: raw, still percent-encoded.
std::pair<std::string, std::string> userinfo(const std::string& url) {
  const auto start = url.find("://");
  if (start == std::string::npos) return {};
  const auto end = url.find_first_of("/?#", start + 3);
  const std::string authority = url.substr(start + 3, end == std::string::npos ? std::string::npos : end - start - 3);
  const auto at = authority.rfind('@');
  if (at == std::string::npos) return {};
  const std::string info = authority.substr(0, at);
  const auto colon = info.find(':');
  if (colon == std::string::npos) return {info, ""};
  return {info.substr(0, colon), info.substr(colon + 1)};
}

// scheme://[userinfo@]host[:port][/path]: the parts core::Url keeps for http(s) only.
struct Parts {
  std::string scheme, host, port, path;
};
std::optional<Parts> parts(const std::string& url) {
  const auto start = url.find("://");
  if (start == std::string::npos || start == 0) return std::nullopt;
  Parts p;
  p.scheme = core::lower_ascii(url.substr(0, start));
  const auto end = url.find_first_of("/?#", start + 3);
  std::string authority = url.substr(start + 3, end == std::string::npos ? std::string::npos : end - start - 3);
  if (const auto at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string::npos) return std::nullopt;
    p.host = authority.substr(0, close + 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') p.port = authority.substr(close + 2);
  } else {
    const auto colon = authority.find(':');
    p.host = authority.substr(0, colon);
    if (colon != std::string::npos) p.port = authority.substr(colon + 1);
  }
  p.host = core::lower_ascii(p.host);
  if (end != std::string::npos) p.path = url.substr(end, url.find_first_of("?#", end) - end);
  if (p.host.empty()) return std::nullopt;
  return p;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    const auto item = core::trim(std::string_view(s).substr(start, comma - start));
    if (!item.empty()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

bool plausible_address(const std::string& a) {
  const auto at = a.find('@');
  return at != std::string::npos && at > 0 && at + 1 < a.size() && std::none_of(a.begin(), a.end(), [](char c) {
           return static_cast<unsigned char>(c) <= 0x20 || c == '<' || c == '>' || c == ',';
         });
}

// ---------------------------------------------------------------- the digest as text

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string engagement_text(const json& item) {
  std::string out;
  auto it = item.find("engagement");
  if (it == item.end() || !it->is_object()) return out;
  for (const auto& [field, value] : it->items()) {
    if (!value.is_number()) continue;
    const double v = value.get<double>();
    out += (out.empty() ? "" : " · ") +
           (v == static_cast<double>(static_cast<long long>(v)) ? fmt::format("{}", static_cast<long long>(v))
                                                                : fmt::format("{:.1f}", v)) +
           " " + field;
  }
  return out;
}

// "source · 212 points · 2026-11-29 (engagement was 60)"
std::string item_meta(const json& item) {
  std::string meta = str(item, "source");
  const auto eng = engagement_text(item);
  if (!eng.empty()) meta += " · " + eng;
  const auto date = str(item, "published_at");
  if (!date.empty()) meta += " · " + date.substr(0, 10);
  if (auto p = item.find("previous_engagement"); p != item.end() && p->is_number())
    meta += fmt::format(" (engagement was {})", p->get<double>());
  return meta;
}

struct Entry {
  std::string label;  // "new" | "surging"
  const json* item;
};

std::vector<Entry> entries(const json& run) {
  std::vector<Entry> out;
  for (const char* kind : {"new", "surging"})
    if (auto it = run.find(kind); it != run.end() && it->is_array())
      for (const auto& item : *it) out.push_back({kind, &item});
  return out;
}

int count(const json& run, const char* kind) {
  auto it = run.find(kind);
  return it != run.end() && it->is_array() ? static_cast<int>(it->size()) : 0;
}

std::string run_heading(const json& run) {
  const int fresh = count(run, "new"), surging = count(run, "surging");
  if (!run.contains("previous_run_at") || run["previous_run_at"].is_null())
    return fmt::format("{} · first run: {} item{} recorded", str(run, "topic"), fresh, fresh == 1 ? "" : "s");
  return fmt::format("{} · {} new · {} surging", str(run, "topic"), fresh, surging);
}

std::string title_line(const json& digest) {
  int fresh = 0, surging = 0, topics = 0;
  for (const auto& run : digest["runs"]) {
    fresh += count(run, "new");
    surging += count(run, "surging");
    ++topics;
  }
  return fmt::format("last30days watch: {} new, {} surging in {} topic{}", fresh, surging, topics, topics == 1 ? "" : "s");
}

std::string plain_text(const json& digest) {
  std::string out = title_line(digest) + "\n";
  for (const auto& run : digest["runs"]) {
    out += "\n== " + run_heading(run) + "\n";
    for (const auto& e : entries(run))
      out += fmt::format("  {:<8} {} — {}\n           {}\n", e.label, str(*e.item, "title"), item_meta(*e.item),
                         str(*e.item, "url"));
  }
  return out;
}

std::string first_url(const json& digest) {
  for (const auto& run : digest["runs"])
    for (const auto& e : entries(run))
      if (auto u = str(*e.item, "url"); !u.empty()) return u;
  return {};
}

bool any_surging(const json& digest) {
  for (const auto& run : digest["runs"])
    if (count(run, "surging") > 0) return true;
  return false;
}

// Cuts at a UTF-8 boundary, leaving room for an ellipsis.
std::string cut(const std::string& s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  return core::truncate_utf8(s, max_bytes > 3 ? max_bytes - 3 : 0) + "…";
}

// URLs inside <url|text> (Slack) and [text](url) (Discord) must not end the link early.
std::string link_safe_url(const std::string& url) {
  std::string out;
  for (char c : url) {
    switch (c) {
      case '|': out += "%7C"; break;
      case '<': out += "%3C"; break;
      case '>': out += "%3E"; break;
      case '(': out += "%28"; break;
      case ')': out += "%29"; break;
      case ' ': out += "%20"; break;
      default: out += c;
    }
  }
  return out;
}

// ---------------------------------------------------------------- each service's format

// Slack mrkdwn: &, < and > are control characters (docs.slack.dev, formatting message text).
std::string slack_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

json slack_message(const json& digest) {
  // Incoming webhook: "text" is the notification fallback; "blocks" the message (at most
  // 50 blocks, 3000 characters of section text).
  json blocks = json::array();
  blocks.push_back({{"type", "header"}, {"text", {{"type", "plain_text"}, {"text", cut(title_line(digest), 150)}}}});
  for (const auto& run : digest["runs"]) {
    if (blocks.size() >= 49) break;
    std::string text = "*" + slack_escape(run_heading(run)) + "*";
    for (const auto& e : entries(run)) {
      const std::string line = fmt::format("\n• _{}_ <{}|{}> — {}", e.label, link_safe_url(str(*e.item, "url")),
                                           slack_escape(str(*e.item, "title")), slack_escape(item_meta(*e.item)));
      if (text.size() + line.size() > 2900) {
        text += "\n…";
        break;
      }
      text += line;
    }
    blocks.push_back({{"type", "section"}, {"text", {{"type", "mrkdwn"}, {"text", text}}}});
  }
  return {{"text", cut(title_line(digest), 3000)}, {"blocks", blocks}, {"unfurl_links", false}, {"unfurl_media", false}};
}

// Discord markdown: escape what would format or link.
std::string discord_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\*_~`|[]()<>#@").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

json discord_message(const json& digest) {
  // Execute Webhook: content (<= 2000 chars), up to 10 embeds (title <= 256, description
  // <= 4096, all embeds together <= 6000), and no mentions parsed from upstream text.
  json embeds = json::array();
  std::size_t total = 0;
  for (const auto& run : digest["runs"]) {
    if (embeds.size() >= 10 || total > 5000) break;
    const std::string title = cut(run_heading(run), 250);
    std::string desc;
    for (const auto& e : entries(run)) {
      const std::string line =
          fmt::format("{}*{}* [{}]({}) — {}", desc.empty() ? "" : "\n", e.label, discord_escape(str(*e.item, "title")),
                      link_safe_url(str(*e.item, "url")), discord_escape(item_meta(*e.item)));
      if (desc.size() + line.size() > 3900 || total + title.size() + desc.size() + line.size() > 5800) {
        desc += "\n…";
        break;
      }
      desc += line;
    }
    total += title.size() + desc.size();
    json embed{{"title", title}, {"description", desc}};
    if (auto u = first_url(json{{"runs", json::array({run})}}); !u.empty()) embed["url"] = u;
    embeds.push_back(std::move(embed));
  }
  return {{"content", cut(title_line(digest), 2000)}, {"embeds", embeds}, {"allowed_mentions", {{"parse", json::array()}}}};
}

// ntfy: JSON publishing to the server's root with the topic in the body (docs.ntfy.sh,
// "publish as JSON"), so titles in any script need no header encoding.
json ntfy_message(const json& digest, const std::string& topic) {
  json j{{"topic", topic},
         {"title", cut(title_line(digest), 250)},
         {"message", cut(plain_text(digest), 4000)},
         {"priority", any_surging(digest) ? 4 : 3},
         {"tags", json::array({"newspaper"})}};
  if (auto u = first_url(digest); !u.empty()) j["click"] = u;
  return j;
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

bool http_url(const std::string& u) { return core::starts_with_ci(u, "https://") || core::starts_with_ci(u, "http://"); }

std::string html_body(const json& digest) {
  std::string out = "<!doctype html><html><body><h1>" + html_escape(title_line(digest)) + "</h1>";
  for (const auto& run : digest["runs"]) {
    out += "<h2>" + html_escape(run_heading(run)) + "</h2><ul>";
    for (const auto& e : entries(run)) {
      const auto url = str(*e.item, "url");
      const auto title = html_escape(str(*e.item, "title"));
      out += "<li><em>" + std::string(e.label) + "</em> " +
             (http_url(url) ? "<a href=\"" + html_escape(url) + "\">" + title + "</a>" : title) + " — " +
             html_escape(item_meta(*e.item)) + "</li>";
    }
    out += "</ul>";
  }
  return out + "</body></html>";
}

std::string wrapped_base64(const std::string& s) {
  const std::string b = core::base64_encode(s);
  std::string out;
  for (std::size_t i = 0; i < b.size(); i += 76) out += b.substr(i, 76) + "\r\n";
  return out;
}

// RFC 2047 encoded-word when the header is not plain ASCII.
std::string header_text(const std::string& s) {
  const bool ascii = std::all_of(
      s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f; });
  return ascii ? s : "=?UTF-8?B?" + core::base64_encode(s) + "?=";
}

std::string rfc5322_date(core::UnixSeconds t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return buf;
}

std::string mail(const Channel& c, const json& digest, core::UnixSeconds now) {
  std::random_device rd;
  const std::string boundary = fmt::format("l30-{:08x}{:08x}", rd(), rd());
  std::string to;
  for (const auto& t : c.to) to += (to.empty() ? "" : ", ") + t;
  const auto at = c.from.find('@');
  std::string m;
  m += "From: " + c.from + "\r\n";
  m += "To: " + to + "\r\n";
  m += "Subject: " + header_text(title_line(digest)) + "\r\n";
  m += "Date: " + rfc5322_date(now) + "\r\n";
  m += fmt::format("Message-ID: <{}.{:08x}@{}>\r\n", now, rd(), at == std::string::npos ? "last30days" : c.from.substr(at + 1));
  m += "MIME-Version: 1.0\r\n";
  m += "Content-Type: multipart/alternative; boundary=\"" + boundary + "\"\r\n\r\n";
  m += "--" + boundary + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n";
  m += wrapped_base64(plain_text(digest));
  m += "--" + boundary + "\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n";
  m += wrapped_base64(html_body(digest));
  m += "--" + boundary + "--\r\n";
  return m;
}

// ntfy's root and topic: https://ntfy.sh/mytopic -> (https://ntfy.sh/, mytopic).
std::pair<std::string, std::string> ntfy_split(const std::string& url) {
  const auto q = url.find_first_of("?#");
  std::string base = url.substr(0, q);
  while (!base.empty() && base.back() == '/') base.pop_back();
  const auto slash = base.rfind('/');
  return {base.substr(0, slash + 1), base.substr(slash + 1)};
}

// ---------------------------------------------------------------- delivery

std::optional<core::Millis> retry_after(const http::Response& r) {
  auto v = r.header("retry-after");
  if (!v) return std::nullopt;
  const std::string s(core::trim(*v));
  if (!s.empty() && s.size() < 7 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return core::Millis(std::stol(s) * 1000);
  if (auto when = core::parse_http_date(s)) return core::Millis(std::max<std::int64_t>(0, *when - core::now_unix()) * 1000);
  return std::nullopt;
}

Outcome deliver_one(const Channel& c, const json& digest, http::Client& client, core::Deadline deadline, core::UnixSeconds now,
                    int max_attempts) {
  Outcome out;
  out.channel = c.name;
  const Message msg = compose(c, digest, now);
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    if (deadline.expired()) {
      out.detail += (out.detail.empty() ? "" : "; ") + std::string("the run's deadline passed");
      break;
    }
    out.attempts = attempt;
    bool retryable = false;
    std::optional<core::Millis> asked;
    std::string why;
    if (c.kind == Kind::email) {
      http::MailRequest req;
      req.url = c.url;
      req.from = c.from;
      req.to = c.to;
      req.message = msg.body;
      req.ca_file = c.ca_file;
      req.deadline = deadline;
      const auto r = http::send_mail(req);
      if (r.ok()) {
        out.ok = true;
        out.detail = fmt::format("delivered (SMTP {})", r.code);
        return out;
      }
      if (r.code >= 400) why = fmt::format("SMTP {}{}", r.code, r.detail.empty() ? "" : ": " + r.detail);
      else if (r.error != http::NetError::none) why = fmt::format("{}: {}", http::to_string(r.error), r.detail);
      else why = fmt::format("SMTP {}", r.code);
      // 4xx in SMTP is a transient failure, 5xx a final one.
      retryable = r.code >= 400 ? r.code < 500
                                : r.error == http::NetError::timeout || r.error == http::NetError::unreachable ||
                                      r.error == http::NetError::protocol;
    } else {
      http::Request req;
      req.url = c.kind == Kind::ntfy ? ntfy_split(c.url).first : c.url;
      req.method = "POST";
      req.headers = msg.headers;
      req.headers.push_back({"Content-Type", msg.content_type});
      req.body = msg.body;
      req.timeout = core::Millis(15000);
      req.deadline = deadline;
      const auto r = client.fetch(req);
      if (r.ok()) {
        out.ok = true;
        out.detail = fmt::format("delivered (HTTP {})", r.status);
        return out;
      }
      if (!r.transport_ok()) {
        why = fmt::format("{}: {}", http::to_string(r.error), r.error_detail);
        retryable =
            r.error == http::NetError::timeout || r.error == http::NetError::unreachable || r.error == http::NetError::protocol;
      } else {
        why = fmt::format("HTTP {}", r.status);
        retryable = r.status >= 500 || r.status == 429;
        asked = retry_after(r);
        if (asked) why += fmt::format(" (Retry-After {} s)", asked->count() / 1000);
      }
    }
    out.detail = why;
    if (!retryable || attempt == max_attempts) break;
    const auto wait = asked ? *asked : core::Millis(1000L << (attempt - 1));
    if (wait + core::Millis(200) >= deadline.remaining()) {
      out.detail += "; no time left to retry before the run's deadline";
      break;
    }
    std::this_thread::sleep_for(wait);
  }
  out.detail = core::redact::scrub(out.detail);
  if (out.attempts > 1) out.detail += fmt::format(" after {} attempts", out.attempts);
  return out;
}

}  // namespace

const std::vector<std::string>& channel_names() {
  static const std::vector<std::string> names{"webhook", "slack", "discord", "ntfy", "email"};
  return names;
}

std::string mask(const std::string& url) {
  const auto u = parts(url);
  if (!u) return "****";
  return u->scheme + "://" + u->host + (u->port.empty() ? "" : ":" + u->port) + "/****";
}

std::vector<Channel> configured(const core::Config& config, std::string* error) {
  std::vector<Channel> out;
  for (const auto& spec : kSpecs) {
    const auto value = config.get(spec.key);
    if (!value || core::trim(*value).empty()) continue;
    Channel c;
    c.name = spec.name;
    c.kind = spec.kind;
    c.url = std::string(core::trim(*value));
    core::redact::add_secret(c.url);
    const auto u = parts(c.url);
    if (u && u->path.size() > 1) core::redact::add_secret(u->path);
    if (const auto q = c.url.find('?'); q != std::string::npos && c.url.size() - q > 1)
      core::redact::add_secret(c.url.substr(q + 1));
    if (u && spec.kind == Kind::ntfy) core::redact::add_secret(ntfy_split(c.url).second);
    const auto [user, password] = userinfo(c.url);
    if (!password.empty()) {
      core::redact::add_secret(password);
      core::redact::add_secret(core::url_decode(password));
    }
    c.masked = mask(c.url);
    if (spec.kind == Kind::email) {
      if (!u || (u->scheme != "smtp" && u->scheme != "smtps") || u->host.empty()) {
        *error = "LAST30DAYS_NOTIFY_SMTP_URL must be an smtp:// (STARTTLS) or smtps:// URL";
        return {};
      }
      c.from = std::string(core::trim(config.get("LAST30DAYS_NOTIFY_EMAIL_FROM").value_or("")));
      c.to = split_list(config.get("LAST30DAYS_NOTIFY_EMAIL_TO").value_or(""));
      if (!plausible_address(c.from)) {
        *error = "LAST30DAYS_NOTIFY_EMAIL_FROM must be one address (name@host) when LAST30DAYS_NOTIFY_SMTP_URL is set";
        return {};
      }
      if (c.to.empty() || !std::all_of(c.to.begin(), c.to.end(), plausible_address)) {
        *error =
            "LAST30DAYS_NOTIFY_EMAIL_TO must be comma-separated addresses (name@host) when LAST30DAYS_NOTIFY_SMTP_URL is set";
        return {};
      }
      c.ca_file = std::string(core::trim(config.get("LAST30DAYS_NOTIFY_SMTP_CA").value_or("")));
    } else {
      const bool https = u && u->scheme == "https";
      const bool local_http = u && u->scheme == "http" && http::is_loopback_host(u->host);
      if (!u || u->host.empty() || !(https || local_http)) {
        *error = fmt::format("{} must be an https:// URL (http:// only for a loopback host)", spec.key);
        return {};
      }
      if (spec.kind == Kind::ntfy && (u->path.size() <= 1 || ntfy_split(c.url).second.empty())) {
        *error = "LAST30DAYS_NOTIFY_NTFY must be a topic URL (https://ntfy.sh/your-topic)";
        return {};
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

Message compose(const Channel& c, const json& digest, core::UnixSeconds now) {
  Message m;
  m.content_type = "application/json";
  const auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  switch (c.kind) {
    case Kind::webhook: m.body = dump(digest); break;
    case Kind::slack: m.body = dump(slack_message(digest)); break;
    case Kind::discord: m.body = dump(discord_message(digest)); break;
    case Kind::ntfy: m.body = dump(ntfy_message(digest, ntfy_split(c.url).second)); break;
    case Kind::email:
      m.content_type = "message/rfc822";
      m.body = mail(c, digest, now);
      break;
  }
  return m;
}

std::vector<Outcome> deliver(const std::vector<std::pair<Channel, json>>& sends, http::Client& client, core::Deadline deadline,
                             core::UnixSeconds now, int max_attempts) {
  std::vector<Outcome> out(sends.size());
  std::vector<std::thread> threads;
  // One thread per channel (at most five), each bounded by the deadline: joined, never left behind.
  for (std::size_t i = 0; i < sends.size(); ++i)
    threads.emplace_back([&, i] { out[i] = deliver_one(sends[i].first, sends[i].second, client, deadline, now, max_attempts); });
  for (auto& t : threads) t.join();
  return out;
}

json sample_digest(core::UnixSeconds now) {
  json item{{"id", "sample-1"},
            {"source", "hackernews"},
            {"title", "A sample finding from last30days"},
            {"url", "https://example.com/last30days-sample"},
            {"published_at", core::format_iso8601(now)},
            {"engagement", {{"points", 42}, {"comments", 7}}},
            {"snippet", "This is what a watch notification looks like."}};
  json run{{"topic", "notification test"},
           {"previous_run_at", core::format_iso8601(now - 86400)},
           {"new", json::array({item})},
           {"surging", json::array()},
           {"source_status", json::object()}};
  return {{"schema_version", 1},
          {"kind", "watch"},
          {"generated_at", core::format_iso8601(now)},
          {"runs", json::array({run})},
          {"warnings", json::array()}};
}

}  // namespace notify
