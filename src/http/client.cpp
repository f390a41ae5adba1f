#include "http/client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "core/text.hpp"
#include "core/time.hpp"
#include "core/url.hpp"
#include "http/cassette.hpp"

namespace http {

using core::Clock;
using core::Millis;

std::string_view to_string(NetError e) {
  switch (e) {
    case NetError::none: return "none";
    case NetError::timeout: return "timeout";
    case NetError::cancelled: return "cancelled";
    case NetError::unreachable: return "unreachable";
    case NetError::tls: return "tls";
    case NetError::too_large: return "too_large";
    case NetError::redirect_offhost: return "redirect_offhost";
    case NetError::too_many_redirects: return "too_many_redirects";
    case NetError::protocol: return "protocol";
    case NetError::replay_miss: return "replay_miss";
    case NetError::politeness: return "politeness";
    case NetError::internal: return "internal";
  }
  return "internal";
}

std::optional<std::string> Response::header(std::string_view name) const {
  for (const auto& h : headers)
    if (h.name == name) return h.value;
  return std::nullopt;
}

std::string default_user_agent() {
  return std::string("last30days/") + L30_VERSION + " (research CLI; +https://github.com/last30days/last30days-cpp) libcurl/" +
         curl_version_info(CURLVERSION_NOW)->version;
}

namespace {

// One exchange in flight. Shared between the waiting caller and the loop thread.
struct Transfer {
  std::string url;  // physical, after the host map
  std::string method;
  std::string body;
  std::vector<Header> headers;
  Clock::time_point not_before;
  Clock::time_point hard_deadline;
  long timeout_ms = 0;
  std::atomic<bool> cancel{false};
  std::size_t max_body = 0;
  std::size_t max_decoded = 0;
  std::function<bool(std::string_view)> on_body;  // streaming (Request::on_body)
  bool keep_streamed = false;                     // --record: the cassette needs the body too

  // Loop thread only.
  CURL* easy = nullptr;
  curl_slist* header_list = nullptr;
  std::string received;
  std::size_t streamed = 0;  // bytes handed to on_body
  std::vector<Header> received_headers;
  bool too_large = false;
  char errbuf[CURL_ERROR_SIZE] = {};

  // Completion.
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Response result;
};

size_t on_write(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  long status = 0;
  if (t->on_body) curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 200 && status < 300) {
    t->streamed += len;
    if (t->streamed > t->max_decoded || !t->on_body(std::string_view(data, len))) {
      t->too_large = true;
      return 0;
    }
    if (t->keep_streamed) t->received.append(data, len);  // bounded by max_decoded above
    return len;
  }
  if (t->received.size() + len > t->max_decoded) {
    t->too_large = true;
    return 0;  // CURLE_WRITE_ERROR aborts the transfer
  }
  t->received.append(data, len);
  return len;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  std::string_view line(data, len);
  if (line.rfind("HTTP/", 0) == 0) {
    t->received_headers.clear();  // a new response (after 100-continue)
    return len;
  }
  const auto colon = line.find(':');
  if (colon != std::string_view::npos)
    t->received_headers.push_back(
        {core::lower_ascii(core::trim(line.substr(0, colon))), std::string(core::trim(line.substr(colon + 1)))});
  return len;
}

int on_progress(void* user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->cancel.load(std::memory_order_relaxed)) return 1;
  if (static_cast<size_t>(std::max(dltotal, dlnow)) > t->max_body) {
    t->too_large = true;
    return 1;
  }
  return 0;
}

NetError classify(CURLcode code, bool too_large, bool cancelled) {
  if (too_large) return NetError::too_large;
  switch (code) {
    case CURLE_OK: return NetError::none;
    case CURLE_OPERATION_TIMEDOUT: return NetError::timeout;
    case CURLE_ABORTED_BY_CALLBACK: return cancelled ? NetError::cancelled : NetError::internal;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_UNSUPPORTED_PROTOCOL: return NetError::unreachable;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE: return NetError::tls;
    case CURLE_FILESIZE_EXCEEDED: return NetError::too_large;
    default: return NetError::protocol;
  }
}

std::string media_type(const char* ct) {
  if (ct == nullptr) return {};
  std::string_view v(ct);
  return core::lower_ascii(core::trim(v.substr(0, v.find(';'))));
}

std::optional<Millis> retry_after(const Response& r) {
  auto v = r.header("retry-after");
  if (!v) return std::nullopt;
  const std::string s(core::trim(*v));
  if (!s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }) && s.size() < 9)
    return Millis(std::stol(s) * 1000);
  if (auto when = core::parse_http_date(s)) return Millis(std::max<std::int64_t>(0, *when - core::now_unix()) * 1000);
  return std::nullopt;
}

bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f; });
}

// Sleeps until the time passes or the stop token fires. False when stopped.
bool wait_for(Millis d, const std::stop_token& stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  return !cv.wait_for(lock, stop, d, [] { return false; });
}

}  // namespace

struct Client::Impl {
  ClientOptions opts;
  std::unique_ptr<Cassette> cassette;
  bool replay = false;

  CURLM* multi = nullptr;
  std::thread loop;

  mutable std::mutex mu;  // guards queue, shutdown, spacing, stats
  std::vector<std::shared_ptr<Transfer>> queue;
  bool shutdown = false;
  std::map<std::string, Clock::time_point> next_slot;
  ClientStats counters;

  // Loop thread only.
  std::list<std::shared_ptr<Transfer>> pending;
  std::map<CURL*, std::shared_ptr<Transfer>> active;

  explicit Impl(ClientOptions o) : opts(std::move(o)) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });  // never cleaned up: stragglers may live on
    if (opts.user_agent.empty()) opts.user_agent = default_user_agent();
    if (!opts.replay_dir.empty()) {
      cassette = std::make_unique<Cassette>(opts.replay_dir, Cassette::Mode::replay, opts.max_decoded_bytes);
      replay = true;
    } else if (!opts.record_dir.empty()) {
      cassette = std::make_unique<Cassette>(opts.record_dir, Cassette::Mode::record, opts.max_decoded_bytes, opts.record_meta);
    }
    multi = curl_multi_init();
    if (multi == nullptr) throw std::runtime_error("curl_multi_init failed");
    loop = std::thread([this] { run(); });
  }

  ~Impl() {
    {
      std::lock_guard lock(mu);
      shutdown = true;
    }
    curl_multi_wakeup(multi);
    if (loop.joinable()) loop.join();
    curl_multi_cleanup(multi);
  }

  static void complete(const std::shared_ptr<Transfer>& t, Response r) {
    {
      std::lock_guard lock(t->mu);
      t->result = std::move(r);
      t->done = true;
    }
    t->cv.notify_all();
  }

  static Response failure(NetError e, std::string detail) {
    Response r;
    r.error = e;
    r.error_detail = std::move(detail);
    return r;
  }

  void start(const std::shared_ptr<Transfer>& t) {
    CURL* e = curl_easy_init();
    if (e == nullptr) {
      complete(t, failure(NetError::internal, "curl_easy_init failed"));
      return;
    }
    t->easy = e;
    // Rounded up: curl's timer must not end a transfer before the deadline it stands for.
    const auto left = std::chrono::ceil<Millis>(t->hard_deadline - Clock::now()).count();
    const long timeout = std::max<long>(1, static_cast<long>(std::min<long long>(left, t->timeout_ms)));
    curl_easy_setopt(e, CURLOPT_URL, t->url.c_str());
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
#if LIBCURL_VERSION_NUM >= 0x075700
    curl_easy_setopt(e, CURLOPT_QUICK_EXIT, 1L);  // never wait for a resolver thread on cleanup
#endif
    curl_easy_setopt(e, CURLOPT_USERAGENT, opts.user_agent.c_str());
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);  // redirects are policy, handled above curl
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, std::min<long>(timeout, static_cast<long>(opts.connect_timeout.count())));
    curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(t->max_body));
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get());
    curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(e, CURLOPT_XFERINFODATA, t.get());
    curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
    for (const auto& h : t->headers) t->header_list = curl_slist_append(t->header_list, (h.name + ": " + h.value).c_str());
    if (t->header_list != nullptr) curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->header_list);
    if (t->method == "POST") {
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, static_cast<long>(t->body.size()));
      curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, t->body.c_str());
    } else if (t->method != "GET") {
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, t->method.c_str());
    }
    if (curl_multi_add_handle(multi, e) != CURLM_OK) {
      release(t);
      complete(t, failure(NetError::internal, "curl_multi_add_handle failed"));
      return;
    }
    active.emplace(e, t);
    std::lock_guard lock(mu);
    ++counters.started;
    ++counters.in_flight;
  }

  void release(const std::shared_ptr<Transfer>& t) {
    if (t->easy != nullptr) curl_easy_cleanup(t->easy);  // closes the socket of an unfinished transfer
    if (t->header_list != nullptr) curl_slist_free_all(t->header_list);
    t->easy = nullptr;
    t->header_list = nullptr;
  }

  // Removes an unfinished transfer from curl at once: the connection is closed, not drained.
  void abort_active(CURL* e, NetError why, const char* detail) {
    auto it = active.find(e);
    if (it == active.end()) return;
    auto t = it->second;
    active.erase(it);
    curl_multi_remove_handle(multi, e);
    release(t);
    {
      std::lock_guard lock(mu);
      ++counters.aborted;
      --counters.in_flight;
    }
    complete(t, failure(why, detail));
  }

  void finish(CURL* e, CURLcode code) {
    auto it = active.find(e);
    if (it == active.end()) return;
    auto t = it->second;
    active.erase(it);
    Response r;
    r.error = classify(code, t->too_large, t->cancel.load());
    if (r.error != NetError::none) r.error_detail = t->errbuf[0] != '\0' ? t->errbuf : curl_easy_strerror(code);
    if (r.error == NetError::too_large) r.error_detail = "response body over the size cap";
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r.status);
    char* ct = nullptr;
    curl_easy_getinfo(e, CURLINFO_CONTENT_TYPE, &ct);
    r.content_type = media_type(ct);
    if (r.error == NetError::none) r.body = std::move(t->received);
    r.headers = std::move(t->received_headers);
    curl_multi_remove_handle(multi, e);
    release(t);
    {
      std::lock_guard lock(mu);
      // curl may notice the cancel flag in its progress callback before the loop does.
      ++(r.error == NetError::cancelled ? counters.aborted : counters.finished);
      --counters.in_flight;
    }
    complete(t, std::move(r));
  }

  void run() {
    for (;;) {
      std::vector<std::shared_ptr<Transfer>> incoming;
      bool stopping = false;
      {
        std::lock_guard lock(mu);
        incoming.swap(queue);
        stopping = shutdown;
      }
      for (auto& t : incoming) pending.push_back(std::move(t));
      if (stopping) {
        std::vector<CURL*> handles;
        for (auto& [e, t] : active) handles.push_back(e);
        for (CURL* e : handles) abort_active(e, NetError::cancelled, "client shut down");
        for (auto& t : pending) complete(t, failure(NetError::cancelled, "client shut down"));
        pending.clear();
        return;
      }
      auto now = Clock::now();
      for (auto it = pending.begin(); it != pending.end();) {
        auto& t = *it;
        if (t->cancel.load()) {
          complete(t, failure(NetError::cancelled, "cancelled before start"));
        } else if (now >= t->hard_deadline) {
          complete(t, failure(NetError::timeout, "deadline passed while waiting for a slot"));
        } else if (now >= t->not_before) {
          start(t);
        } else {
          ++it;
          continue;
        }
        it = pending.erase(it);
      }
      std::vector<std::pair<CURL*, bool>> expired;
      for (auto& [e, t] : active) {
        if (t->cancel.load()) expired.emplace_back(e, true);
        else if (now >= t->hard_deadline) expired.emplace_back(e, false);
      }
      for (auto [e, cancelled] : expired)
        abort_active(e, cancelled ? NetError::cancelled : NetError::timeout,
                     cancelled ? "cancelled in flight" : "deadline reached in flight");

      int running = 0;
      curl_multi_perform(multi, &running);
      int left = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi, &left))
        if (msg->msg == CURLMSG_DONE) finish(msg->easy_handle, msg->data.result);

      long wait_ms = 1000;
      long curl_ms = -1;
      curl_multi_timeout(multi, &curl_ms);
      if (curl_ms >= 0) wait_ms = std::min(wait_ms, curl_ms);
      now = Clock::now();
      auto until = [&](Clock::time_point tp) {
        return std::max<long>(0, static_cast<long>(std::chrono::duration_cast<Millis>(tp - now).count()) + 1);
      };
      for (auto& t : pending) wait_ms = std::min({wait_ms, until(t->not_before), until(t->hard_deadline)});
      for (auto& [e, t] : active) wait_ms = std::min(wait_ms, until(t->hard_deadline));
      curl_multi_poll(multi, nullptr, 0, static_cast<int>(wait_ms), nullptr);
    }
  }

  // One exchange on the network: no policy.
  Response network(const Request& req, const std::string& logical_url) {
    auto t = std::make_shared<Transfer>();
    t->url = opts.host_map.rewrite(logical_url);
    t->method = req.method;
    t->body = req.body;
    t->headers = req.headers;
    t->max_body = opts.max_body_bytes;
    t->max_decoded = opts.max_decoded_bytes;
    t->on_body = req.on_body;
    t->keep_streamed = req.on_body && cassette != nullptr;
    t->timeout_ms = static_cast<long>(req.timeout.count());
    const auto now = Clock::now();
    t->hard_deadline = std::min(now + req.timeout, req.deadline.when());
    t->not_before = now;
    const auto host = core::Url::parse(logical_url);
    {
      std::lock_guard lock(mu);
      for (const auto& s : opts.spacing) {
        if (!host || !core::within_domain(host->host, s.host_suffix)) continue;
        auto& slot = next_slot[s.host_suffix];
        const auto when = std::max(now, slot);
        if (when >= req.deadline.when()) {
          return failure(NetError::politeness, "one request per " + std::to_string(s.interval.count() / 1000.0).substr(0, 3) +
                                                   " s to " + s.host_suffix + " would not fit before the deadline");
        }
        t->not_before = when;
        slot = when + s.interval;
      }
      if (shutdown) return failure(NetError::cancelled, "client shut down");
      queue.push_back(t);
    }
    curl_multi_wakeup(multi);
    // Cancellation reaches the transfer itself: the flag stops curl's progress
    // callback and the wakeup makes the loop remove the handle right away.
    std::stop_callback on_stop(req.stop, [this, t] {
      t->cancel.store(true);
      curl_multi_wakeup(multi);
    });
    std::unique_lock lock(t->mu);
    t->cv.wait(lock, [&] { return t->done; });
    return std::move(t->result);
  }

  Response exchange(const Request& req, const std::string& logical_url) {
    if (replay) {
      auto r = cassette->replay(req.method, logical_url, req.body);
      if (!r) return failure(NetError::replay_miss, "no recording for " + cassette->redact_url(logical_url));
      if (req.on_body && r->status >= 200 && r->status < 300) {
        if (!req.on_body(r->body)) return failure(NetError::too_large, "response body over the size cap");
        r->body.clear();
      }
      return *r;
    }
    Response r = network(req, logical_url);
    if (cassette && r.error != NetError::cancelled) cassette->record(req.method, logical_url, req.body, r);
    if (req.on_body && r.status >= 200 && r.status < 300) r.body.clear();  // the copy was the cassette's
    return r;
  }

  Response fetch(const Request& req) {
    const auto origin = core::Url::parse(req.url);
    if (!origin) return failure(NetError::internal, "invalid URL");
    // A CR or LF in a header would start a new header (or request) on the wire.
    for (const auto& h : req.headers)
      if (has_control(h.name) || has_control(h.value))
        return failure(NetError::internal,
                       "request header '" + core::sanitize_utf8(h.name).substr(0, 40) + "' holds a control character");
    std::string current = req.url;
    int redirects = 0;
    int attempts = 0;
    bool retried_5xx = false;
    bool retried_429 = false;
    for (;;) {
      if (req.stop.stop_requested()) return failure(NetError::cancelled, "cancelled");
      if (req.deadline.expired()) return failure(NetError::timeout, "deadline reached");
      Response r = exchange(req, current);
      r.attempts = ++attempts;
      r.final_url = current;
      if (!r.transport_ok()) return r;
      if (r.status >= 300 && r.status < 400 && r.status != 304) {
        const auto loc = r.header("location");
        const auto next = loc ? core::Url::parse(current)->resolve(*loc) : std::nullopt;
        if (!next) return r;
        if (next->host != origin->host) {
          r.error = NetError::redirect_offhost;
          r.error_detail = "redirected to another host (" + next->host + ")";
          return r;
        }
        if (++redirects > opts.max_redirects) {
          r.error = NetError::too_many_redirects;
          r.error_detail = "more than " + std::to_string(opts.max_redirects) + " redirects";
          return r;
        }
        current = next->str();
        continue;
      }
      if (r.status >= 500 && !retried_5xx && req.deadline.remaining() > opts.retry_backoff + Millis(500)) {
        retried_5xx = true;
        if (!replay && !wait_for(opts.retry_backoff, req.stop)) return failure(NetError::cancelled, "cancelled");
        continue;
      }
      if (r.status == 429 && !retried_429) {
        const auto wait = retry_after(r);
        if (wait && *wait + Millis(500) < req.deadline.remaining()) {
          retried_429 = true;
          if (!replay && !wait_for(*wait, req.stop)) return failure(NetError::cancelled, "cancelled");
          continue;
        }
      }
      return r;
    }
  }
};

Client::Client(ClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Client::~Client() = default;

Response Client::fetch(const Request& request) {
  const auto t0 = Clock::now();
  Response r = impl_->fetch(request);
  r.elapsed = std::chrono::duration_cast<Millis>(Clock::now() - t0);
  return r;
}

ClientStats Client::stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->counters;
}

bool Client::replaying() const { return impl_->replay; }

}  // namespace http
