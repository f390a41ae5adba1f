#include "http/cassette.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <stdexcept>

#include "core/file.hpp"
#include "core/json.hpp"
#include "core/log.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "core/url.hpp"

namespace http {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Stored as a JSON string only when that is byte-exact: an invalid sequence can be replaced
// by a U+FFFD of the same length, so the sizes alone do not tell (found by the cassette fuzzer).
bool valid_utf8(std::string_view s) { return core::sanitize_utf8(s) == s && s.find('\r') == std::string_view::npos; }

bool secret_field(std::string_view name) {
  const std::string n = core::lower_ascii(name);
  // "email": an account's address in a session answer is personal, recorded like a credential.
  for (std::string_view w : {"token", "jwt", "secret", "password", "apikey", "api_key", "authorization", "email"})
    if (n.find(w) != std::string::npos) return true;
  return false;
}

// Values are redacted before the document is serialised again (the parser bounds the depth).
void redact_json(json& j) {
  if (j.is_object()) {
    for (auto& [k, v] : j.items()) {
      if (secret_field(k) && v.is_string()) v = "REDACTED";
      else redact_json(v);
    }
  } else if (j.is_array()) {
    for (auto& v : j) redact_json(v);
  } else if (j.is_string()) {
    j = core::redact::scrub_value(j.get_ref<const std::string&>());
  }
}

// An entry holds the body in its smaller form (JSON string or base64) plus a little metadata.
std::size_t entry_cap(std::size_t max_body) { return max_body / 3 * 4 + (1u << 20); }

std::optional<Response> broken(std::string detail) {
  Response r;
  r.error = NetError::replay_miss;
  r.error_detail = "unusable recording: " + std::move(detail);
  return r;
}

// Headers worth replaying: what the engine reads. Everything else (cookies...) is dropped.
bool replayable_header(std::string_view name) {
  return name == "content-type" || name == "retry-after" || name == "location" || name.rfind("x-ratelimit-", 0) == 0 ||
         name == "content-encoding";
}

}  // namespace

bool is_secret_param(std::string_view name) {
  const std::string n = core::lower_ascii(name);
  return n == "key" || n == "api_key" || n == "apikey" || n == "token" || n == "access_token" || n == "client_secret" ||
         n == "client_id" || n == "password" || n == "sig" || n == "signature" || n.find("token") != std::string::npos ||
         n.find("secret") != std::string::npos;
}

Cassette::Cassette(std::string dir, Mode mode, std::size_t max_body, std::string_view meta)
    : dir_(std::move(dir)), mode_(mode), max_body_(max_body) {
  std::error_code ec;
  if (mode_ == Mode::record) {
    fs::create_directories(dir_, ec);
    if (ec || !fs::is_directory(dir_)) throw std::runtime_error("--record: cannot create the directory '" + dir_ + "'");
    dir_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd_ < 0) throw std::runtime_error("--record: cannot open the directory '" + dir_ + "': " + std::strerror(errno));
    std::string error;
    if (!meta.empty() && !write_entry("run.json", meta, &error)) {
      ::close(dir_fd_);
      throw std::runtime_error("--record: cannot write to '" + dir_ + "': " + error);
    }
  } else if (!fs::is_directory(dir_, ec)) {
    throw std::runtime_error("replay directory " + dir_ + " does not exist");
  }
}

Cassette::~Cassette() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

bool Cassette::write_entry(const std::string& name, std::string_view content, std::string* error) {
  static std::atomic<unsigned> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    tmp = "." + name + "." + core::hex64(rng() ^ counter.fetch_add(1)) + ".tmp";
    fd = ::openat(dir_fd_, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    *error = std::strerror(errno);
    return false;
  }
  bool ok = true;
  for (std::size_t done = 0; ok && done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ok = false;
    else done += static_cast<std::size_t>(n);
  }
  if (!ok) *error = std::strerror(errno);
  if (::close(fd) != 0 && ok) {
    ok = false;
    *error = std::strerror(errno);
  }
  // Within the directory: a symlink (or anything but a directory) at `name` is replaced, never followed.
  if (ok && ::renameat(dir_fd_, tmp.c_str(), dir_fd_, name.c_str()) != 0) {
    ok = false;
    *error = std::strerror(errno);
  }
  if (!ok) ::unlinkat(dir_fd_, tmp.c_str(), 0);
  return ok;
}

std::string Cassette::redact_url(std::string_view url) const {
  auto u = core::Url::parse(url);
  if (!u) return core::redact::scrub_value(url);
  std::string q;
  for (auto& [k, v] : core::split_query(u->query)) {
    if (!q.empty()) q += '&';
    q += k;
    if (!v.empty() || u->query.find(k + "=") != std::string::npos) q += "=" + (is_secret_param(k) ? std::string("REDACTED") : v);
  }
  u->query = q;
  u->fragment.clear();
  return core::redact::scrub_value(u->str());
}

std::string Cassette::redact_body(std::string_view body, std::string_view content_type) const {
  if (content_type.find("json") != std::string_view::npos) {
    // Too deep for the parser: kept as text, scrubbed like any other body.
    json j = core::json::parse_or_discarded(body);
    if (!j.is_discarded()) {
      redact_json(j);
      return core::redact::scrub(j.dump(-1, ' ', false, json::error_handler_t::replace));
    }
  }
  if (content_type.find("x-www-form-urlencoded") != std::string_view::npos) {
    std::string out;
    for (auto& [k, v] : core::split_query(body)) {
      if (!out.empty()) out += '&';
      out += k + "=" + (is_secret_param(k) ? std::string("REDACTED") : v);
    }
    return core::redact::scrub_value(out);
  }
  // Not a document we serialise: every form goes, even one that looks like syntax.
  return core::redact::scrub_value(body);
}

std::string Cassette::key(std::string_view method, std::string_view url, std::string_view body) const {
  const std::string canon = std::string(method) + " " + redact_url(url) + "\n" + core::redact::scrub(body);
  return core::hex64(core::fnv1a64(canon));
}

std::optional<Response> Cassette::replay(std::string_view method, std::string_view url, std::string_view body) {
  const std::string k = key(method, url, body);
  int n = 0;
  {
    std::lock_guard lock(mu_);
    n = seq_[k]++;
  }
  fs::path p;
  for (; n >= 0; --n) {
    p = fs::path(dir_) / (k + "-" + std::to_string(n) + ".json");
    if (fs::exists(p)) break;
  }
  if (n < 0) return std::nullopt;
  const auto text = core::read_file_capped(p, entry_cap(max_body_));
  if (!text) return broken(text.error.message);
  const auto parsed = core::json::parse(*text.text);
  const auto bad = [&p](std::string_view what) {
    return broken("recording " + p.filename().string() + ": " + std::string(what));
  };
  if (parsed.too_deep) return bad(parsed.error);
  if (!parsed || !parsed.value->is_object()) return bad("not a JSON object");
  const json& j = *parsed.value;
  const auto r = j.find("response");
  if (r == j.end() || !r->is_object()) return bad("no 'response' object");
  Response out;
  const auto field = [&r](const char* name) { return r->find(name) == r->end() ? nullptr : &*r->find(name); };
  if (const json* v = field("status"); !v || !v->is_number_integer() || v->get<long long>() < 0 || v->get<long long>() > 999)
    return bad("'status' must be an HTTP status code");
  out.status = (*r)["status"].get<long>();
  for (const char* name : {"content_type", "error_detail", "error", "body", "body_base64"})
    if (const json* v = field(name); v && !v->is_string()) return bad("string fields must be strings");
  out.content_type = r->value("content_type", "");
  out.error_detail = r->value("error_detail", "");
  const std::string err = r->value("error", "none");
  for (int e = 0; e <= static_cast<int>(NetError::internal); ++e)
    if (to_string(static_cast<NetError>(e)) == err) out.error = static_cast<NetError>(e);
  if (const json* hs = field("headers")) {
    if (!hs->is_array()) return bad("'headers' must be an array");
    for (const auto& h : *hs) {
      if (!h.is_array() || h.size() != 2 || !h[0].is_string() || !h[1].is_string()) return bad("each header is [name, value]");
      out.headers.push_back({h[0].get<std::string>(), h[1].get<std::string>()});
    }
  }
  if (const json* b64 = field("body_base64")) out.body = core::base64_decode(b64->get<std::string>());
  else out.body = r->value("body", "");
  if (out.body.size() > max_body_) {
    Response big;
    big.error = NetError::too_large;
    big.error_detail = "response body over the size cap";
    return big;
  }
  out.final_url = std::string(url);
  return out;
}

void Cassette::record(std::string_view method, std::string_view url, std::string_view body, const Response& resp) {
  const std::string k = key(method, url, body);
  int n = 0;
  {
    std::lock_guard lock(mu_);
    n = seq_[k]++;
  }
  json headers = json::array();
  for (const auto& h : resp.headers)
    if (replayable_header(h.name)) headers.push_back({h.name, core::redact::scrub_value(h.value)});
  json r = {{"status", resp.status},
            {"error", std::string(to_string(resp.error))},
            {"error_detail", core::redact::scrub_value(resp.error_detail)},
            {"content_type", resp.content_type},
            {"headers", headers}};
  const std::string clean = redact_body(resp.body, resp.content_type);
  // Whichever form is smaller, so an entry never exceeds entry_cap() for a body under the cap.
  std::string b64 = core::base64_encode(clean);
  if (valid_utf8(clean) && json(clean).dump(-1, ' ', false, json::error_handler_t::replace).size() <= b64.size() + 2)
    r["body"] = clean;
  else r["body_base64"] = std::move(b64);
  json doc = {{"request", {{"method", std::string(method)}, {"url", redact_url(url)}, {"body", redact_body(body, "")}}},
              {"response", r}};
  const std::string name = k + "-" + std::to_string(n) + ".json";
  std::string error;
  if (!write_entry(name, doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n", &error))
    core::log::warn("--record: cannot write {}: {}", (fs::path(dir_) / name).string(), error);
}

}  // namespace http
