#include "cli/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "core/log.hpp"

namespace cli {

namespace {

using Clock = core::Clock;

enum class Tone { plain, good, warn, bad, dim };

struct Row {
  std::string name;
  bool done = false;
  Tone tone = Tone::dim;
  std::string state;   // "running" until done
  std::string detail;  // "12 items"
  Clock::time_point started;
  long elapsed_ms = 0;
  int items = 0;
  bool unconfigured = false;  // shown on the one "not set up" line, not as a row
};

Tone tone_of(model::SourceState s) {
  switch (s) {
    case model::SourceState::ok: return Tone::good;
    case model::SourceState::no_results:
    case model::SourceState::skipped_unconfigured: return Tone::plain;
    case model::SourceState::partial:
    case model::SourceState::rate_limited:
    case model::SourceState::timeout: return Tone::warn;
    default: return Tone::bad;
  }
}

constexpr const char* kSpinner[] = {"|", "/", "-", "\\"};
constexpr auto kTick = std::chrono::milliseconds(100);

// Cuts to `width` columns (counting code points, which is what a terminal does
// for the text we print; wide glyphs may cost one column more).
std::string fit(const std::string& s, std::size_t width) {
  std::size_t cols = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (++cols > width) return s.substr(0, i);
  }
  return s;
}

std::string items(int n) { return fmt::format("{} item{}", n, n == 1 ? "" : "s"); }

}  // namespace

struct TerminalProgress::Impl {
  int fd = STDERR_FILENO;
  bool color = true;
  bool per_topic = false;
  std::string title;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Row> sources;
  std::vector<Row> topics;
  bool enriching = false;
  int topics_total = 0;
  Clock::time_point budget_end;
  Clock::time_point batch_start;
  double budget_seconds = 0;
  int drawn = 0;  // lines of the live block on screen
  unsigned frame = 0;
  bool finished = false;
  bool final_frame = false;  // the last redraw, in finish()
  Clock::time_point run_start = Clock::now();
  std::thread ticker;

  std::string paint(Tone t, const std::string& s) const {
    if (!color) return s;
    const char* code = t == Tone::good ? "32" : t == Tone::warn ? "33" : t == Tone::bad ? "31" : t == Tone::dim ? "2" : nullptr;
    return code ? fmt::format("\x1b[{}m{}\x1b[0m", code, s) : s;
  }

  std::size_t width() const {
    winsize ws{};
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10) return ws.ws_col - 1;
    return 79;
  }

  std::string row_line(const Row& r, std::size_t name_width) const {
    const long ms =
        r.done ? r.elapsed_ms : static_cast<long>(std::chrono::duration_cast<core::Millis>(Clock::now() - r.started).count());
    const std::string mark = r.done ? (r.tone == Tone::good ? "+" : r.tone == Tone::plain ? "-" : "!") : kSpinner[frame % 4];
    std::string name = fit(r.name, name_width);
    // Pad by code points so the columns line up after multi-byte names.
    std::size_t cols = 0;
    for (unsigned char c : name) cols += (c & 0xC0) != 0x80;
    name.append(name_width > cols ? name_width - cols : 0, ' ');
    return fmt::format("  {} {} {} {:>10} {:>6.1f} s", paint(r.tone, mark), name, paint(r.tone, fmt::format("{:<20}", r.state)),
                       r.detail, static_cast<double>(ms) / 1000.0);
  }

  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    const std::size_t w = width();
    out.push_back(paint(Tone::dim, fit(title, w)));
    if (!sources.empty() && enriching) out.push_back("listings");
    std::string not_set_up;
    int answered = 0, asked = 0, found = 0;
    for (const auto& r : sources) {
      if (r.unconfigured) {
        not_set_up += (not_set_up.empty() ? "" : ", ") + r.name;
        continue;
      }
      ++asked;
      answered += r.done ? 1 : 0;
      found += r.items;
      out.push_back(row_line(r, per_topic ? 30 : 14));
    }
    if (!not_set_up.empty()) out.push_back(paint(Tone::dim, "  - not set up: " + not_set_up));
    // The whole run in one line; once every source is in, the run ranks and reads the
    // best items' comment threads, which can take seconds: say so rather than freeze.
    if (!enriching && asked > 0) {
      const double secs = std::chrono::duration<double>(Clock::now() - run_start).count();
      const std::string sources_done = fmt::format("{} of {} source{} done", answered, asked, asked == 1 ? "" : "s");
      if (answered < asked) out.push_back(fmt::format("{} · {} · {:.1f} s", sources_done, items(found), secs));
      else if (!final_frame)
        out.push_back(fmt::format("{} {} · {} · ranking, reading comment threads · {:.1f} s", kSpinner[frame % 4], sources_done,
                                  items(found), secs));
      else out.push_back(fmt::format("{} · {} · {:.1f} s", sources_done, items(found), secs));
    }
    if (enriching) {
      int done = 0, running = 0;
      for (const auto& t : topics) (t.done ? done : running) += 1;
      const auto now = Clock::now();
      if (done == topics_total || now >= budget_end)
        out.push_back(fmt::format("enrichment: {} of {} done in {:.1f} s ({:.0f} s budget)", done, topics_total,
                                  std::chrono::duration<double>(std::min(now, budget_end) - batch_start).count(),
                                  budget_seconds));
      else
        out.push_back(fmt::format("enrichment: {} of {} done, {} running, {:.0f} s of {:.0f} s budget left", done, topics_total,
                                  running, std::chrono::duration<double>(budget_end - now).count(), budget_seconds));
      for (const auto& r : topics) out.push_back(row_line(r, 36));
    }
    for (auto& l : out) l = fit(l, w + (color ? 32 : 0));  // colour codes take no columns
    return out;
  }

  // Moves to the top of the live block and clears it: what follows replaces it.
  void erase_locked(std::string& buf) const {
    if (drawn > 0) buf += fmt::format("\r\x1b[{}A", drawn);
    buf += "\r\x1b[J";
  }

  void redraw_locked(const std::string& above = {}) {
    std::string buf;
    erase_locked(buf);
    buf += above;
    const auto ls = lines();
    for (const auto& l : ls) buf += l + "\n";
    drawn = static_cast<int>(ls.size());
    write_all(buf);
  }

  void write_all(const std::string& buf) const {
    std::size_t off = 0;
    while (off < buf.size()) {
      const ssize_t n = ::write(fd, buf.data() + off, buf.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      off += static_cast<std::size_t>(n);
    }
  }

  void on_source(const pipeline::SourceEvent& e) {
    std::lock_guard lock(mu);
    if (finished) return;
    const std::string name =
        per_topic && !e.topic.empty() ? std::string(e.topic) + " · " + std::string(e.source) : std::string(e.source);
    auto it = std::find_if(sources.begin(), sources.end(), [&](const Row& r) { return r.name == name; });
    if (it == sources.end()) {
      sources.push_back({name, false, Tone::dim, "running", "", Clock::now(), 0});
      it = sources.end() - 1;
    }
    if (e.finished) {
      it->done = true;
      it->tone = tone_of(e.state);
      it->state = std::string(model::to_string(e.state));
      it->detail = items(e.items);
      it->elapsed_ms = e.elapsed_ms;
      it->items = e.items;
      it->unconfigured = e.state == model::SourceState::skipped_unconfigured;
    }
    redraw_locked();
  }

  void on_topic(const discover::TopicEvent& e) {
    std::lock_guard lock(mu);
    if (finished) return;
    switch (e.kind) {
      case discover::TopicEvent::Kind::batch_started:
        enriching = true;
        topics_total = e.total;
        budget_end = e.deadline;
        batch_start = Clock::now();
        budget_seconds = std::chrono::duration<double>(e.deadline - Clock::now()).count();
        break;
      case discover::TopicEvent::Kind::started:
        topics.push_back({"\"" + std::string(e.topic) + "\"", false, Tone::dim, "running", "", Clock::now(), 0});
        break;
      case discover::TopicEvent::Kind::finished:
        for (auto& r : topics)
          if (!r.done && r.name == "\"" + std::string(e.topic) + "\"") {
            r.done = true;
            r.tone = e.status == model::EnrichStatus::enriched ? Tone::good : Tone::bad;
            r.state = std::string(model::to_string(e.status));
            r.detail = items(e.items);
            r.elapsed_ms = static_cast<long>(std::chrono::duration_cast<core::Millis>(Clock::now() - r.started).count());
            break;
          }
        break;
    }
    redraw_locked();
  }

  void tick() {
    std::unique_lock lock(mu);
    while (!finished) {
      cv.wait_for(lock, kTick);
      if (finished) break;
      ++frame;
      redraw_locked();
    }
  }
};

std::unique_ptr<TerminalProgress> TerminalProgress::start(const Options& o, const core::Config& config, std::string title,
                                                          bool per_topic) {
  if (o.quiet || isatty(STDERR_FILENO) == 0) return nullptr;
  const auto term = config.get("TERM");
  if (term && *term == "dumb") return nullptr;
  auto impl = std::make_unique<Impl>();
  const auto no_color = config.get("NO_COLOR");
  impl->color = !(no_color && !no_color->empty());
  impl->title = std::move(title);
  impl->per_topic = per_topic;
  std::unique_ptr<TerminalProgress> p(new TerminalProgress(std::move(impl)));
  return p;
}

TerminalProgress::TerminalProgress(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  core::log::set_progress(false);  // this display replaces the plain progress lines
  {
    std::lock_guard lock(impl_->mu);
    impl_->redraw_locked();
  }
  Impl* im = impl_.get();
  core::log::set_line_sink([im](std::string_view line) {
    std::lock_guard lock(im->mu);
    if (im->finished) {
      im->write_all(std::string(line));
      return;
    }
    im->redraw_locked(std::string(line));
  });
  impl_->ticker = std::thread([im] { im->tick(); });
}

TerminalProgress::~TerminalProgress() { finish(); }

app::RunHooks TerminalProgress::hooks() {
  app::RunHooks h;
  Impl* im = impl_.get();
  h.on_source = [im](const pipeline::SourceEvent& e) { im->on_source(e); };
  h.on_topic = [im](const discover::TopicEvent& e) { im->on_topic(e); };
  return h;
}

void TerminalProgress::finish() {
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->finished) return;
    impl_->final_frame = true;
    impl_->redraw_locked();
    impl_->finished = true;
  }
  impl_->cv.notify_all();
  if (impl_->ticker.joinable()) impl_->ticker.join();
  core::log::set_line_sink(nullptr);
}

}  // namespace cli
