#include "http/smtp.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>

#include "core/text.hpp"
#include "core/url.hpp"

namespace http {

namespace {

struct Upload {
  const std::string* data;
  std::size_t offset = 0;
  const MailRequest* request;
  bool stopped = false;
};

size_t on_read(char* buffer, size_t size, size_t n, void* user) {
  auto* u = static_cast<Upload*>(user);
  const std::size_t room = size * n;
  const std::size_t left = u->data->size() - u->offset;
  const std::size_t len = std::min(room, left);
  std::copy_n(u->data->data() + u->offset, len, buffer);
  u->offset += len;
  return len;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* u = static_cast<Upload*>(user);
  if (u->request->stop.stop_requested() || u->request->deadline.expired()) {
    u->stopped = true;
    return 1;
  }
  return 0;
}

size_t on_discard(char*, size_t size, size_t n, void*) { return size * n; }

}  // namespace

bool is_loopback_host(const std::string& host) {
  std::string h = core::lower_ascii(host);
  if (!h.empty() && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  return h == "localhost" || h == "::1" || h.rfind("127.", 0) == 0;
}

namespace {
// scheme and host of scheme://[userinfo@]host[:port]/... (core::Url parses http(s) only).
std::pair<std::string, std::string> scheme_host(const std::string& url) {
  const auto start = url.find("://");
  if (start == std::string::npos) return {};
  const auto end = url.find_first_of("/?#", start + 3);
  std::string authority = url.substr(start + 3, end == std::string::npos ? std::string::npos : end - start - 3);
  if (const auto at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  std::string host = authority;
  if (!host.empty() && host.front() == '[') host = host.substr(0, host.find(']') + 1);
  else host = host.substr(0, host.find(':'));
  return {core::lower_ascii(url.substr(0, start)), host};
}
}  // namespace

bool smtp_requires_tls(const std::string& url) {
  const auto [scheme, host] = scheme_host(url);
  return scheme != "smtp" || !is_loopback_host(host);
}

MailResult send_mail(const MailRequest& req) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  MailResult out;
  const auto [scheme, host] = scheme_host(req.url);
  if ((scheme != "smtp" && scheme != "smtps") || host.empty()) {
    out.error = NetError::internal;
    out.detail = "not an smtp:// or smtps:// URL";
    return out;
  }
  const auto left = req.deadline.remaining();
  if (left <= core::Millis(0)) {
    out.error = NetError::timeout;
    out.detail = "deadline reached";
    return out;
  }
  CURL* e = curl_easy_init();
  if (e == nullptr) {
    out.error = NetError::internal;
    out.detail = "curl_easy_init failed";
    return out;
  }
  const long timeout = std::max<long>(1, static_cast<long>(std::min(left, req.timeout).count()));
  char errbuf[CURL_ERROR_SIZE] = {};
  Upload upload{&req.message, 0, &req};
  curl_slist* rcpt = nullptr;
  for (const auto& to : req.to) rcpt = curl_slist_append(rcpt, ("<" + to + ">").c_str());
  curl_easy_setopt(e, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  // smtps:// is TLS from the first byte; smtp:// must upgrade unless it is a local relay.
  curl_easy_setopt(e, CURLOPT_USE_SSL, smtp_requires_tls(req.url) ? CURLUSESSL_ALL : CURLUSESSL_TRY);
  curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!req.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, req.ca_file.c_str());
  curl_easy_setopt(e, CURLOPT_MAIL_FROM, ("<" + req.from + ">").c_str());
  curl_easy_setopt(e, CURLOPT_MAIL_RCPT, rcpt);
  curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(req.message.size()));
  curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
  curl_easy_setopt(e, CURLOPT_READDATA, &upload);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_discard);
  curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(e, CURLOPT_XFERINFODATA, &upload);
  curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, std::min<long>(timeout, 10000L));
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
  const CURLcode rc = curl_easy_perform(e);
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &out.code);
  curl_slist_free_all(rcpt);
  curl_easy_cleanup(e);
  if (rc != CURLE_OK) {
    switch (rc) {
      case CURLE_OPERATION_TIMEDOUT: out.error = NetError::timeout; break;
      case CURLE_ABORTED_BY_CALLBACK: out.error = req.stop.stop_requested() ? NetError::cancelled : NetError::timeout; break;
      case CURLE_COULDNT_RESOLVE_HOST:
      case CURLE_COULDNT_CONNECT: out.error = NetError::unreachable; break;
      case CURLE_USE_SSL_FAILED:
      case CURLE_SSL_CONNECT_ERROR:
      case CURLE_PEER_FAILED_VERIFICATION:
      case CURLE_SSL_CACERT_BADFILE: out.error = NetError::tls; break;
      default: out.error = NetError::protocol; break;
    }
    out.detail = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
    if (rc == CURLE_USE_SSL_FAILED)
      out.detail = "the server does not offer STARTTLS (required for smtp:// to a host other than loopback)";
  }
  return out;
}

}  // namespace http
