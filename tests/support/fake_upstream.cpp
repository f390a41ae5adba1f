#include "fake_upstream.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/text.hpp"

namespace testing_support {

using Clock = std::chrono::steady_clock;

std::string FakeRequest::param(const std::string& name) const {
  std::string_view q = query;
  while (!q.empty()) {
    auto amp = q.find('&');
    auto part = q.substr(0, amp);
    q = amp == std::string_view::npos ? std::string_view{} : q.substr(amp + 1);
    auto eq = part.find('=');
    if (part.substr(0, eq) == name) return core::url_decode(eq == std::string_view::npos ? "" : part.substr(eq + 1));
  }
  return {};
}

FakeReply FakeReply::json(std::string body, int status) {
  FakeReply r;
  r.body = std::move(body);
  r.status = status;
  return r;
}
FakeReply FakeReply::xml(std::string body, std::string type) {
  FakeReply r;
  r.body = std::move(body);
  r.content_type = std::move(type);
  return r;
}
FakeReply FakeReply::html(std::string body, int status) {
  FakeReply r;
  r.body = std::move(body);
  r.status = status;
  r.content_type = "text/html; charset=utf-8";
  return r;
}
FakeReply FakeReply::hang() {
  FakeReply r;
  r.mode = Mode::hang;
  return r;
}

std::string gzip(const std::string& in) {
  z_stream zs{};
  deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[16384];
  int ret = Z_OK;
  do {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    ret = deflate(&zs, Z_FINISH);
    out.append(buf, sizeof buf - zs.avail_out);
  } while (ret == Z_OK);
  deflateEnd(&zs);
  return out;
}

namespace {

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

struct Conn {
  int fd = -1;
  std::string in;
  std::string out;
  std::size_t out_pos = 0;
  int exchange = -1;  // index into log while a request is open
  bool hanging = false;
  bool close_after = false;
  Clock::time_point send_at{};
  bool waiting_delay = false;
  std::shared_ptr<const std::atomic<bool>> held;  // the answer waits until *held is true
  std::deque<std::string> later;                  // streamed pieces still to write, each after `gap`
  std::chrono::milliseconds gap{0};
};

}  // namespace

struct FakeUpstream::Impl {
  Handler handler;
  int listen_fd = -1;
  int wake[2] = {-1, -1};
  std::thread thread;
  std::atomic<bool> stop{false};
  mutable std::mutex mu;
  std::vector<Exchange> log;
  int accepted = 0;

  void serve() {
    std::vector<Conn> conns;
    while (!stop.load()) {
      std::vector<pollfd> fds;
      fds.push_back({listen_fd, POLLIN, 0});
      fds.push_back({wake[0], POLLIN, 0});
      int timeout = 200;
      const auto now = Clock::now();
      for (auto& c : conns) {
        short ev = POLLIN;
        if (c.held) timeout = std::min(timeout, 10);  // a released answer goes out within 10 ms
        if (!c.waiting_delay && !c.held && c.out_pos < c.out.size()) ev |= POLLOUT;
        if (c.waiting_delay) {
          auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(c.send_at - now).count();
          timeout = static_cast<int>(std::max<long long>(0, std::min<long long>(timeout, ms)));
        }
        fds.push_back({c.fd, ev, 0});
      }
      ::poll(fds.data(), fds.size(), timeout);
      if (fds[0].revents & POLLIN) {
        int fd = ::accept(listen_fd, nullptr, nullptr);
        if (fd >= 0) {
          ::fcntl(fd, F_SETFL, O_NONBLOCK);
          Conn c;
          c.fd = fd;
          conns.push_back(c);
          std::lock_guard lock(mu);
          ++accepted;
        }
      }
      for (std::size_t i = 0; i < conns.size(); ++i) {
        Conn& c = conns[i];
        const short rev = i + 2 < fds.size() && fds[i + 2].fd == c.fd ? fds[i + 2].revents : 0;
        if (c.waiting_delay && Clock::now() >= c.send_at) c.waiting_delay = false;
        if (c.held && c.held->load()) c.held.reset();
        if (rev & (POLLIN | POLLHUP | POLLERR)) {
          char buf[65536];
          ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
          if (n <= 0) {
            close_conn(c, true);
            continue;
          }
          c.in.append(buf, static_cast<std::size_t>(n));
        }
        if (c.exchange < 0) try_request(c);
        if (!c.waiting_delay && !c.held && c.out_pos < c.out.size() && (rev & POLLOUT)) {
          ssize_t n = ::send(c.fd, c.out.data() + c.out_pos, c.out.size() - c.out_pos, MSG_NOSIGNAL);
          if (n > 0) c.out_pos += static_cast<std::size_t>(n);
          if (n < 0 && errno != EAGAIN) {
            close_conn(c, true);
            continue;
          }
          if (c.out_pos == c.out.size() && !c.later.empty()) {
            c.out = std::move(c.later.front());
            c.later.pop_front();
            c.out_pos = 0;
            c.waiting_delay = true;
            c.send_at = Clock::now() + c.gap;
          } else if (c.out_pos == c.out.size()) {
            finish(c);
            if (c.close_after) close_conn(c, false);
          }
        }
      }
      std::erase_if(conns, [](const Conn& c) { return c.fd < 0; });
    }
    for (auto& c : conns) ::close(c.fd);
  }

  void finish(Conn& c) {
    if (c.exchange >= 0) {
      std::lock_guard lock(mu);
      log[static_cast<std::size_t>(c.exchange)].answered = true;
      log[static_cast<std::size_t>(c.exchange)].ended = Clock::now();
    }
    c.exchange = -1;
    c.out.clear();
    c.out_pos = 0;
  }

  void close_conn(Conn& c, bool by_client) {
    if (c.exchange >= 0 && by_client) {
      std::lock_guard lock(mu);
      auto& ex = log[static_cast<std::size_t>(c.exchange)];
      if (!ex.answered) {
        ex.closed_by_client = true;
        ex.ended = Clock::now();
      }
    }
    ::close(c.fd);
    c.fd = -1;
  }

  void try_request(Conn& c) {
    const auto end = c.in.find("\r\n\r\n");
    if (end == std::string::npos) return;
    FakeRequest req;
    std::istringstream head(c.in.substr(0, end));
    std::string line;
    std::getline(head, line);
    std::istringstream rl(line);
    rl >> req.method >> req.target;
    while (std::getline(head, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      req.headers[core::lower_ascii(line.substr(0, colon))] = std::string(core::trim(line.substr(colon + 1)));
    }
    std::size_t body_len = 0;
    if (auto it = req.headers.find("content-length"); it != req.headers.end()) body_len = std::stoul(it->second);
    if (c.in.size() < end + 4 + body_len) return;
    req.body = c.in.substr(end + 4, body_len);
    c.in.erase(0, end + 4 + body_len);
    const auto q = req.target.find('?');
    req.path = req.target.substr(0, q);
    req.query = q == std::string::npos ? "" : req.target.substr(q + 1);

    FakeReply reply = handler(req);
    {
      std::lock_guard lock(mu);
      Exchange ex;
      ex.request = req;
      ex.received = Clock::now();
      ex.hung = reply.mode == FakeReply::Mode::hang;
      log.push_back(std::move(ex));
      c.exchange = static_cast<int>(log.size() - 1);
    }
    if (reply.mode == FakeReply::Mode::hang) return;  // never answer; watch for the client's close
    if (reply.mode == FakeReply::Mode::close) {
      close_conn(c, false);
      return;
    }
    if (!reply.chunks.empty()) {
      int one = 1;
      ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // each piece its own segment
      std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " " + reason(reply.status) + "\r\n";
      out += "Content-Type: " + reply.content_type + "\r\nTransfer-Encoding: chunked\r\n";
      for (auto& [k, v] : reply.headers) out += k + ": " + v + "\r\n";
      c.out = out + "\r\n";
      c.out_pos = 0;
      c.gap = reply.chunk_gap;
      for (const auto& piece : reply.chunks) {
        if (piece.empty()) continue;  // an empty chunk would end the body early
        char size[32];
        std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
        c.later.push_back(size + piece + "\r\n");
      }
      c.later.push_back("0\r\n\r\n");
      return;
    }
    std::string body = reply.gzip ? gzip(reply.body) : reply.body;
    std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " " + reason(reply.status) + "\r\n";
    out += "Content-Type: " + reply.content_type + "\r\n";
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    if (reply.gzip) out += "Content-Encoding: gzip\r\n";
    for (auto& [k, v] : reply.headers) out += k + ": " + v + "\r\n";
    out += "\r\n";
    out += body;
    c.out = std::move(out);
    c.out_pos = 0;
    if (reply.delay.count() > 0) {
      c.waiting_delay = true;
      c.send_at = Clock::now() + reply.delay;
    }
    if (reply.release && !reply.release->load()) c.held = reply.release;
  }
};

FakeUpstream::FakeUpstream(Handler handler) : impl_(std::make_unique<Impl>()) {
  impl_->handler = std::move(handler);
  impl_->listen_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(impl_->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(impl_->listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(impl_->listen_fd, 128) != 0)
    throw std::runtime_error("fake upstream: bind/listen failed");
  socklen_t len = sizeof addr;
  ::getsockname(impl_->listen_fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  ::fcntl(impl_->listen_fd, F_SETFL, O_NONBLOCK);
  if (::pipe(impl_->wake) != 0) throw std::runtime_error("pipe");
  impl_->thread = std::thread([this] { impl_->serve(); });
}

FakeUpstream::~FakeUpstream() {
  impl_->stop.store(true);
  [[maybe_unused]] auto n = ::write(impl_->wake[1], "x", 1);
  impl_->thread.join();
  ::close(impl_->listen_fd);
  ::close(impl_->wake[0]);
  ::close(impl_->wake[1]);
}

std::string FakeUpstream::base() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::string FakeUpstream::host_map(const std::vector<std::pair<std::string, std::string>>& host_to_prefix) const {
  std::string out;
  for (auto& [host, prefix] : host_to_prefix) {
    if (!out.empty()) out += ",";
    out += host + "=" + base() + prefix;
  }
  return out;
}

std::vector<Exchange> FakeUpstream::log() const {
  std::lock_guard lock(impl_->mu);
  return impl_->log;
}

int FakeUpstream::open_hung() const {
  std::lock_guard lock(impl_->mu);
  int n = 0;
  for (auto& e : impl_->log) n += e.hung && !e.closed_by_client ? 1 : 0;
  return n;
}

int FakeUpstream::closed_hung() const {
  std::lock_guard lock(impl_->mu);
  int n = 0;
  for (auto& e : impl_->log) n += e.hung && e.closed_by_client ? 1 : 0;
  return n;
}

int FakeUpstream::connections() const {
  std::lock_guard lock(impl_->mu);
  return impl_->accepted;
}

std::string fixture(const std::string& relative) {
  std::ifstream f(std::string(L30_FIXTURE_DIR) + "/" + relative, std::ios::binary);
  if (!f) throw std::runtime_error("missing fixture " + relative);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace testing_support
