#include "fake_smtp.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "core/text.hpp"

namespace testing_support {

std::pair<std::string, std::string> make_test_certificate(const std::string& dir) {
  const std::string cert = dir + "/cert.pem", key = dir + "/key.pem";
  const std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -keyout '" + key + "' -out '" + cert +
                          "' -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:localhost >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("openssl could not make a test certificate");
  return {cert, key};
}

struct FakeSmtp::Tls {
  SSL_CTX* ctx = nullptr;
  ~Tls() {
    if (ctx) SSL_CTX_free(ctx);
  }
};

namespace {

// One session's line I/O, in clear or over TLS.
struct Conn {
  int fd;
  SSL* ssl = nullptr;
  std::string buf;

  bool fill() {
    char tmp[4096];
    pollfd p{fd, POLLIN, 0};
    if (ssl == nullptr || SSL_pending(ssl) == 0)
      if (::poll(&p, 1, 10000) <= 0) return false;
    const int n = ssl ? SSL_read(ssl, tmp, sizeof tmp) : static_cast<int>(::recv(fd, tmp, sizeof tmp, 0));
    if (n <= 0) return false;
    buf.append(tmp, static_cast<std::size_t>(n));
    return true;
  }
  bool line(std::string* out) {
    for (;;) {
      const auto nl = buf.find("\r\n");
      if (nl != std::string::npos) {
        *out = buf.substr(0, nl);
        buf.erase(0, nl + 2);
        return true;
      }
      if (buf.size() > (1u << 20) || !fill()) return false;
    }
  }
  void send(const std::string& s) {
    if (ssl) SSL_write(ssl, s.data(), static_cast<int>(s.size()));
    else (void)!::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
  }
};

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string between_brackets(const std::string& s) {
  const auto a = s.find('<'), b = s.rfind('>');
  return a != std::string::npos && b != std::string::npos && b > a ? s.substr(a + 1, b - a - 1) : s;
}

}  // namespace

FakeSmtp::FakeSmtp(const std::string& cert, const std::string& key, bool implicit_tls)
    : tls_(std::make_unique<Tls>()), implicit_tls_(implicit_tls) {
  tls_->ctx = SSL_CTX_new(TLS_server_method());
  if (!tls_->ctx || SSL_CTX_use_certificate_chain_file(tls_->ctx, cert.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(tls_->ctx, key.c_str(), SSL_FILETYPE_PEM) != 1)
    throw std::runtime_error("FakeSmtp: cannot load the test certificate");
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 16) != 0)
    throw std::runtime_error("FakeSmtp: cannot listen");
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] {
    while (!stop_.load()) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      ++sessions_;
      std::lock_guard lock(mu_);
      threads_.emplace_back([this, fd] { serve(fd); });
    }
  });
}

FakeSmtp::~FakeSmtp() {
  stop_.store(true);
  acceptor_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
  ::close(listen_fd_);
}

std::vector<ReceivedMail> FakeSmtp::mails() const {
  std::lock_guard lock(mu_);
  return mails_;
}

void FakeSmtp::serve(int fd) {
  Conn c{fd, nullptr, {}};
  ReceivedMail mail;
  const auto start_tls = [&] {
    c.ssl = SSL_new(tls_->ctx);
    SSL_set_fd(c.ssl, fd);
    if (SSL_accept(c.ssl) != 1) return false;
    c.buf.clear();
    mail.tls = true;
    return true;
  };
  const auto finish = [&] {
    if (c.ssl) {
      SSL_shutdown(c.ssl);
      SSL_free(c.ssl);
    }
    ::close(fd);
  };
  if (mode_.load() == Mode::hang) {  // accepts, never greets, until the client leaves or the test ends
    while (!stop_.load()) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        char tmp[256];
        if (::recv(fd, tmp, sizeof tmp, 0) <= 0) break;
      }
    }
    finish();
    return;
  }
  if (implicit_tls_ && !start_tls()) return finish();
  c.send("220 fake.smtp.test ESMTP\r\n");
  std::string line;
  while (!stop_.load() && c.line(&line)) {
    const std::string cmd = upper(line.substr(0, line.find(' ')));
    if (cmd == "EHLO" || cmd == "HELO") {
      c.send(mail.tls ? "250-fake.smtp.test\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME\r\n"
                      : "250-fake.smtp.test\r\n250-STARTTLS\r\n250 8BITMIME\r\n");
    } else if (cmd == "STARTTLS" && !mail.tls) {
      c.send("220 ready\r\n");
      if (!start_tls()) return finish();
    } else if (cmd == "AUTH") {
      const std::string rest = line.size() > 5 ? line.substr(5) : "";
      const std::string mech = upper(rest.substr(0, rest.find(' ')));
      if (mech == "PLAIN") {
        std::string b64 = rest.find(' ') != std::string::npos ? rest.substr(rest.find(' ') + 1) : "";
        if (b64.empty()) {
          c.send("334 \r\n");
          if (!c.line(&b64)) break;
        }
        const std::string plain = core::base64_decode(b64);
        const auto a = plain.find('\0'), b = plain.find('\0', a + 1);
        if (a != std::string::npos && b != std::string::npos) {
          mail.user = plain.substr(a + 1, b - a - 1);
          mail.password = plain.substr(b + 1);
        }
        c.send("235 ok\r\n");
      } else if (mech == "LOGIN") {
        std::string u, p;
        c.send("334 VXNlcm5hbWU6\r\n");
        if (!c.line(&u)) break;
        c.send("334 UGFzc3dvcmQ6\r\n");
        if (!c.line(&p)) break;
        mail.user = core::base64_decode(u);
        mail.password = core::base64_decode(p);
        c.send("235 ok\r\n");
      } else {
        c.send("504 unknown mechanism\r\n");
      }
    } else if (cmd == "MAIL") {
      if (mode_.load() == Mode::tempfail) {
        c.send("451 4.3.0 try again later\r\n");
        continue;
      }
      mail.from = between_brackets(line);
      c.send("250 ok\r\n");
    } else if (cmd == "RCPT") {
      mail.rcpt.push_back(between_brackets(line));
      c.send("250 ok\r\n");
    } else if (cmd == "DATA") {
      c.send("354 end with .\r\n");
      std::string data, l;
      while (c.line(&l) && l != ".") data += (l.rfind("..", 0) == 0 ? l.substr(1) : l) + "\r\n";
      mail.data = data;
      {
        std::lock_guard lock(mu_);
        mails_.push_back(mail);
      }
      c.send("250 queued\r\n");
    } else if (cmd == "QUIT") {
      c.send("221 bye\r\n");
      break;
    } else if (cmd == "RSET" || cmd == "NOOP") {
      c.send("250 ok\r\n");
    } else {
      c.send("502 not implemented\r\n");
    }
  }
  finish();
}

}  // namespace testing_support
