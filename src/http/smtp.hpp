#pragma once
// Mail submission through libcurl (SMTP with STARTTLS, or SMTPS), beside the HTTP client:
// curl stays behind src/http/. One blocking call on the caller's thread, bounded by the
// request's deadline and stopped by its stop token; certificates are always verified.
#include <stop_token>
#include <string>
#include <vector>

#include "core/deadline.hpp"
#include "http/types.hpp"

namespace http {

struct MailRequest {
  std::string url;  // smtp://[user:password@]host[:port] or smtps://...
  std::string from;
  std::vector<std::string> to;
  std::string message;  // the whole RFC 5322 message, CRLF line ends
  std::string ca_file;  // PEM bundle to trust instead of the system's (empty: the system's)
  core::Millis timeout{30000};
  core::Deadline deadline = core::Deadline::never();
  std::stop_token stop;
};

struct MailResult {
  NetError error = NetError::none;
  long code = 0;  // the server's last reply code (250 when accepted)
  std::string detail;
  bool ok() const { return error == NetError::none && code >= 200 && code < 300; }
};

// smtp:// to a host other than loopback must upgrade with STARTTLS (the password never
// travels in clear); to loopback (a local relay) STARTTLS is used when offered.
bool smtp_requires_tls(const std::string& url);
bool is_loopback_host(const std::string& host);

MailResult send_mail(const MailRequest& request);

}  // namespace http
