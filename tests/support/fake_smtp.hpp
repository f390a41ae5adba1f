#pragma once
// A mail receiver on 127.0.0.1 (random port) for the notification tests: ESMTP with
// STARTTLS (or TLS from the first byte, as smtps://), AUTH PLAIN/LOGIN offered only once
// the session is encrypted, and faults: a temporary refusal (451 at MAIL FROM) or a
// server that accepts and never greets. It records each message it accepted.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace testing_support {

// A throw-away self-signed certificate for 127.0.0.1 and localhost, made with the openssl
// CLI in dir: {cert.pem, key.pem}. The cert is its own CA (pass it as the CA file).
std::pair<std::string, std::string> make_test_certificate(const std::string& dir);

struct ReceivedMail {
  bool tls = false;  // STARTTLS (or smtps) before AUTH and DATA
  std::string user, password;
  std::string from;
  std::vector<std::string> rcpt;
  std::string data;  // the message, dot-stuffing undone
};

class FakeSmtp {
 public:
  enum class Mode { accept, tempfail, hang };
  FakeSmtp(const std::string& cert, const std::string& key, bool implicit_tls = false);
  ~FakeSmtp();
  FakeSmtp(const FakeSmtp&) = delete;
  FakeSmtp& operator=(const FakeSmtp&) = delete;

  void set_mode(Mode m) { mode_.store(m); }
  int port() const { return port_; }
  std::vector<ReceivedMail> mails() const;
  int sessions() const { return sessions_.load(); }

 private:
  void serve(int fd);
  struct Tls;
  std::unique_ptr<Tls> tls_;
  bool implicit_tls_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<Mode> mode_{Mode::accept};
  std::atomic<int> sessions_{0};
  mutable std::mutex mu_;
  std::vector<ReceivedMail> mails_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace testing_support
