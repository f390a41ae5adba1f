#include "mcp/server.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "app/budget.hpp"
#include "core/exit.hpp"
#include "core/json.hpp"
#include "core/log.hpp"
#include "core/redact.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/tools.hpp"
#include "render/render.hpp"
#include "sources/source.hpp"

namespace mcp {

namespace {

// Answers of one batch (protocol 2025-03-26), sent as one array when the last is in.
struct Batch {
  json responses = json::array();
  int pending = 0;
};

struct Call {
  json id;
  std::string key;      // id.dump()
  json progress_token;  // null: no progress wanted
  std::stop_source stop;
  std::shared_ptr<Batch> batch;
  std::string protocol;
  ToolCall tool;
  bool cancelled = false;  // guarded by State::mu
  double progress = 0;
  std::chrono::steady_clock::time_point last_progress;
  // Held from numbering a progress notification to sending it, so sources finishing at once on
  // several threads go out in their numbers' order (the SDK takes a lower number after a higher
  // one for an error). Not State::mu: a host slow to read must not stall the other calls.
  std::mutex progress_order;
};

// One thread of the pool; `done` is set (under State::mu) as its last step but returning.
struct Worker {
  std::thread thread;
  bool done = false;
};

// The TypeScript SDK runs notification handlers a microtask later but matches a
// response at once, so a progress notification read in the same chunk as its
// result is reported as "unknown token" and lost. A short pause between the last
// progress and the result puts them in separate reads.
constexpr std::chrono::milliseconds kProgressSettle{100};

// Bundles of discover_nominate waiting for their judgments: the newest few, each valid
// for discover::kBundleTtlSeconds.
constexpr std::size_t kMaxBundles = 16;

json text_block(std::string text) { return {{"type", "text"}, {"text", std::move(text)}}; }

json tool_error(const std::string& message) { return {{"content", json::array({text_block(message)})}, {"isError", true}}; }

}  // namespace

struct Session::State {
  std::mutex mu;
  std::condition_variable cv;  // the queue, a worker finishing
  Sink sink;
  std::shared_ptr<const app::RunContext> ctx;
  const persist::Writer* writer = nullptr;             // lives as long as the process (program::run)
  std::string protocol;                                // negotiated; empty before initialize
  std::map<std::string, std::shared_ptr<Call>> calls;  // queued or running, by id
  std::deque<std::shared_ptr<Call>> queue;             // waiting for a worker
  std::list<Worker> workers;                           // at most kMaxConcurrentCalls
  int idle = 0;                                        // workers waiting for a call
  std::list<discover::Bundle> bundles;                 // newest first
  bool closing = false;
  bool shut_down = false;  // shutdown() has run
};

namespace {

using State = Session::State;

void send(State& st, const json& message) { st.sink(serialize(message)); }

// Delivers one answer of a batch, or a lone answer. nullopt: this element has none.
void deliver(State& st, const std::shared_ptr<Batch>& batch, std::optional<json> message) {
  if (!batch) {
    if (message) send(st, *message);
    return;
  }
  json ready;
  {
    std::lock_guard lock(st.mu);
    if (message) batch->responses.push_back(std::move(*message));
    if (--batch->pending > 0 || batch->responses.empty()) return;
    ready = std::move(batch->responses);
  }
  send(st, ready);
}

void progress(State& st, Call& call, std::string message, std::optional<int> total) {
  if (call.progress_token.is_null()) return;
  std::lock_guard order(call.progress_order);
  json params;
  {
    std::lock_guard lock(st.mu);
    if (call.cancelled) return;
    call.progress += 1;
    call.last_progress = std::chrono::steady_clock::now();
    params = {{"progressToken", call.progress_token}, {"progress", call.progress}, {"message", std::move(message)}};
  }
  if (total) params["total"] = *total;
  send(st, notification("notifications/progress", std::move(params)));
}

json success(const std::string& json_text, const std::string& markdown, const std::string& protocol) {
  json structured = core::json::parse_or_discarded(core::redact::scrub(json_text));
  if (structured.is_discarded()) return tool_error("internal error: the report did not serialize");
  json content = json::array({text_block(core::redact::scrub(markdown))});
  // 2025-03-26 has no structuredContent: those clients get the JSON as text too.
  if (protocol == kOlderProtocol) content.push_back(text_block(structured.dump(2, ' ', false, json::error_handler_t::replace)));
  return {{"content", std::move(content)}, {"structuredContent", std::move(structured)}, {"isError", false}};
}

app::RunHooks discovery_hooks(State& st, const std::shared_ptr<Call>& call) {
  app::RunHooks hooks;
  hooks.stop = call->stop.get_token();
  hooks.on_source = [&st, call](const pipeline::SourceEvent& e) {
    if (!e.finished) return;
    progress(st, *call,
             fmt::format("listing {}: {}, {} item{}", e.source, model::to_string(e.state), e.items, e.items == 1 ? "" : "s"),
             std::nullopt);
  };
  // Called under the batch's lock: only format and send, never call back into it.
  hooks.on_topic = [&st, call](const discover::TopicEvent& e) {
    if (e.kind == discover::TopicEvent::Kind::finished)
      progress(
          st, *call,
          fmt::format("enriched \"{}\": {}, {} item{}", e.topic, model::to_string(e.status), e.items, e.items == 1 ? "" : "s"),
          std::nullopt);
  };
  return hooks;
}

json research(State& st, const std::shared_ptr<Call>& call, const app::RunContext& ctx) {
  const ToolCall& tc = call->tool;
  const auto& r = tc.research;
  app::RunHooks hooks;
  hooks.stop = call->stop.get_token();
  const int total =
      static_cast<int>(app::allowed_sources(r.sources).size()) * (r.entities.empty() ? 1 : static_cast<int>(r.entities.size()));
  const bool comparison = !r.entities.empty();
  hooks.on_source = [&st, call, total, comparison](const pipeline::SourceEvent& e) {
    if (!e.finished) return;
    progress(st, *call,
             fmt::format("{}{}: {}, {} item{} ({} ms)", comparison ? std::string(e.topic) + " · " : "", e.source,
                         model::to_string(e.state), e.items, e.items == 1 ? "" : "s", e.elapsed_ms),
             total);
  };
  // store: opened first, so a broken store fails before any request (as at the terminal); one
  // that does not answer within its share (a frozen server) costs only that share: the research
  // runs and answers, saying it was not recorded.
  const auto deadline = core::Deadline::in(app::run_budget(r));
  std::unique_ptr<store::Store> db;
  std::optional<std::string> store_error;
  if (tc.store) {
    app::Problem problem;
    std::string unanswered;
    db = app::open_store(ctx, *st.writer, deadline.earliest(core::Deadline::in(app::kStoreOpenShare)), &problem, &unanswered);
    if (!db && unanswered.empty()) return tool_error("store: " + problem.message);
    if (!db) store_error = std::move(unanswered);
  }
  // Request budgets hold here as at the terminal (spec section 3).
  app::Problem budget_problem;
  auto budget = app::RunBudget::open(ctx, *st.writer, db.get(), deadline, &budget_problem, store_error);
  if (!budget && !budget_problem.message.empty()) return tool_error(in_tool_terms(budget_problem.message));
  hooks.budget = budget ? budget->get() : nullptr;
  const auto started = core::now_unix();
  auto run = app::run_research(r, ctx, hooks);
  if (budget) budget->close(deadline);
  if (!run.ok()) return tool_error(in_tool_terms(run.error));
  if (db) store_error = app::remember(*db, run.reports(), started, deadline);
  // The research is the answer; a store that failed is a warning in it, not the loss of it.
  if (store_error)
    for (auto* report : run.reports()) report->warnings.push_back("store: " + app::not_recorded(*store_error));
  return success(app::render_research(app::Format::json, run), app::render_research(app::Format::md, run), call->protocol);
}

json nominate(State& st, const std::shared_ptr<Call>& call, const app::RunContext& ctx) {
  auto bundle = app::nominate(call->tool.discovery, ctx, discovery_hooks(st, call));
  if (call->stop.stop_requested()) return tool_error("cancelled");
  // The bundle stays in this server (not in a file), so the next step is a tool call.
  const std::string next = fmt::format(
      "Judge each nomination (a short name, junk or not, worthiness 0-100), then call discover_finalize with "
      "{{\"bundle_id\": \"{}\", \"judgments\": [{{\"id\": \"n1\", \"name\": \"...\", \"junk\": false, "
      "\"worthiness\": 70}}, ...]}} within an hour.",
      bundle.bundle_id);
  json doc = core::json::parse_or_discarded(discover::bundle_to_json(bundle));
  if (doc.is_object()) doc["instructions"] = next;
  std::string text = render::nominations_compact(bundle.bundle_id, bundle.nominations, "this server's memory");
  if (const auto cli_hint = text.rfind("\nJudge them, then:"); cli_hint != std::string::npos) text = text.substr(0, cli_hint + 1);
  text += "\n" + next + "\n";
  {
    std::lock_guard lock(st.mu);
    st.bundles.push_front(std::move(bundle));
    if (st.bundles.size() > kMaxBundles) st.bundles.pop_back();
  }
  return success(doc.dump(), text, call->protocol);
}

json finalize(State& st, const std::shared_ptr<Call>& call, const app::RunContext& ctx) {
  const ToolCall& tc = call->tool;
  std::optional<discover::Bundle> bundle;
  {
    std::lock_guard lock(st.mu);
    for (const auto& b : st.bundles)
      if (b.bundle_id == tc.judgments.bundle_id) bundle = b;
  }
  if (!bundle)
    return tool_error(
        fmt::format("bundle_id \"{}\" is not a bundle of this server: call discover_nominate first "
                    "(a bundle lives as long as the server, an hour at most)",
                    tc.judgments.bundle_id));
  std::string error;
  if (!app::apply_judgments(*bundle, tc.judgments, ctx.client->replaying(), "judgments", &error))
    return tool_error(in_tool_terms(error));
  const auto report = app::enrich_judged(*bundle, tc.discovery, ctx, discovery_hooks(st, call));
  return success(app::render_discovery(app::Format::json, report), app::render_discovery(app::Format::md, report),
                 call->protocol);
}

json library(State& st, const std::shared_ptr<Call>& call, const app::RunContext& ctx) {
  // The store has its own deadline; a call cancelled meanwhile gets no result, and one
  // left at shutdown is abandoned with the pool thread it holds.
  app::Problem problem;
  const auto result = app::search_library(call->tool.library, ctx, *st.writer, &problem);
  if (!result) return tool_error(problem.message);
  return success(render::library_json(*result), render::library_compact(*result), call->protocol);
}

json execute(State& st, const std::shared_ptr<Call>& call) {
  app::RunContext ctx = *st.ctx;
  if (!ctx.client->replaying()) ctx.now = core::now_unix();  // a server outlives its start day
  call->tool.discovery.replaying = ctx.client->replaying();  // only this thread reads the call's tool
  switch (call->tool.tool) {
    case Tool::research: return research(st, call, ctx);
    case Tool::discover: {
      const auto report = app::run_discovery(call->tool.discovery, ctx, discovery_hooks(st, call));
      return success(app::render_discovery(app::Format::json, report), app::render_discovery(app::Format::md, report),
                     call->protocol);
    }
    case Tool::discover_nominate: return nominate(st, call, ctx);
    case Tool::discover_finalize: return finalize(st, call, ctx);
    case Tool::library_search: return library(st, call, ctx);
  }
  return tool_error("internal error: unexpected tool");
}

void run_call(State& st, const std::shared_ptr<Call>& call) {
  json result;
  try {
    result = execute(st, call);
  } catch (const std::exception& e) {
    result = tool_error(std::string("internal error: ") + e.what());
  } catch (...) {
    result = tool_error("internal error");
  }
  std::chrono::steady_clock::time_point settle{};
  {
    std::lock_guard lock(st.mu);
    if (call->progress > 0) settle = call->last_progress + kProgressSettle;
  }
  std::this_thread::sleep_until(settle);
  bool answer = false;
  {
    std::lock_guard lock(st.mu);
    answer = !call->cancelled && !st.closing;
    st.calls.erase(call->key);
  }
  // A cancelled call gets no result (the client has forgotten the id).
  deliver(st, call->batch, answer ? std::optional<json>(response(call->id, std::move(result))) : std::nullopt);
}

// A pool thread: takes queued calls until the session closes. A call cancelled while it
// waited is dropped with no answer.
void work(std::shared_ptr<State> st, Worker* self) {
  std::unique_lock lock(st->mu);
  for (;;) {
    ++st->idle;
    st->cv.wait(lock, [&] { return st->closing || !st->queue.empty(); });
    --st->idle;
    if (st->closing) break;
    auto call = std::move(st->queue.front());
    st->queue.pop_front();
    lock.unlock();
    if (call->stop.stop_requested()) {
      {
        std::lock_guard l(st->mu);
        st->calls.erase(call->key);
      }
      deliver(*st, call->batch, std::nullopt);
    } else {
      run_call(*st, call);
    }
    lock.lock();
  }
  self->done = true;
  st->cv.notify_all();
}

json initialize_result(const std::string& version) {
  return {{"protocolVersion", version},
          {"capabilities", {{"tools", {{"listChanged", false}}}}},
          {"serverInfo", {{"name", "last30days"}, {"title", "last30days"}, {"version", L30_VERSION}}},
          {"instructions",
           "research: what people said and did about a topic in the last N days (Hacker News, Reddit, Polymarket, GitHub, "
           "arXiv, Lobsters, Stack Exchange), ranked and cited. discover: what is spiking right now; discover_nominate then "
           "discover_finalize let you judge the nominations yourself. library_search: findings of stored runs (research "
           "with store: true). Results carry the JSON report in structuredContent and a Markdown brief as text; pass a "
           "progressToken to hear each source finish. Every call answers within 60 s unless you ask for a longer budget."}};
}

}  // namespace

Session::Session(std::shared_ptr<const app::RunContext> ctx, const persist::Writer& writer, Sink sink)
    : st_(std::make_shared<State>()) {
  st_->ctx = std::move(ctx);
  st_->writer = &writer;
  st_->sink = std::move(sink);
}

Session::~Session() { shutdown(std::chrono::milliseconds(2000)); }

namespace {

void cancel(State& st, const json& request_id) {
  if (!request_id.is_string() && !request_id.is_number_integer() && !request_id.is_number_unsigned()) return;
  std::shared_ptr<Call> call;
  {
    std::lock_guard lock(st.mu);
    auto it = st.calls.find(request_id.dump());
    if (it == st.calls.end()) return;  // finished already, or never existed: nothing to do
    call = it->second;
    call->cancelled = true;
  }
  call->stop.request_stop();  // aborts its transfers (curl progress callback + multi wakeup)
  core::log::info("mcp: call {} cancelled", request_id.dump());
}

// The refusal of a request whose id is already a call's: answered with id null, so the
// call in flight keeps the only response for its id.
json duplicate_id(const std::string& key) {
  return error_response(nullptr, code::invalid_request,
                        fmt::format("request id {} is already in use by a call in flight: use a new id", key));
}

void start_call(const std::shared_ptr<State>& st, const Message& m, const std::shared_ptr<Batch>& batch) {
  const auto name = m.params.find("name");
  if (name == m.params.end() || !name->is_string())
    return deliver(*st, batch, error_response(m.id, code::invalid_params, "tools/call needs \"name\" (a string)"));
  const auto tool = find_tool(name->get<std::string>());
  if (!tool)
    return deliver(*st, batch,
                   error_response(m.id, code::invalid_params,
                                  fmt::format("unknown tool \"{}\" (tools: {})", name->get<std::string>(), tool_names())));
  json arguments = json::object();
  if (auto a = m.params.find("arguments"); a != m.params.end() && !a->is_null()) {
    if (!a->is_object())
      return deliver(*st, batch, error_response(m.id, code::invalid_params, "\"arguments\" must be an object"));
    arguments = *a;
  }
  auto call = std::make_shared<Call>();
  call->tool = tool_call(*tool, arguments, core::now_unix());
  if (!call->tool.ok) return deliver(*st, batch, response(m.id, tool_error(call->tool.error)));
  call->id = m.id;
  call->key = m.id.dump();
  call->batch = batch;
  if (auto meta = m.params.find("_meta"); meta != m.params.end() && meta->is_object())
    if (auto tok = meta->find("progressToken");
        tok != meta->end() && (tok->is_string() || tok->is_number_integer() || tok->is_number_unsigned()))
      call->progress_token = *tok;
  std::optional<json> refusal;
  {
    std::lock_guard lock(st->mu);
    if (st->closing) return;
    if (st->calls.count(call->key) > 0) {
      refusal = duplicate_id(call->key);
    } else if (st->queue.size() >= kMaxQueuedCalls) {
      refusal = error_response(m.id, code::server_busy,
                               fmt::format("the server is busy: {} calls are waiting and {} running (at most {} wait); "
                                           "try again when one has answered",
                                           st->queue.size(), kMaxConcurrentCalls, kMaxQueuedCalls));
    } else {
      call->protocol = st->protocol;
      st->calls[call->key] = call;
      st->queue.push_back(call);
      // A new thread only while the pool is not full and every thread is busy.
      if (st->idle == 0 && st->workers.size() < static_cast<std::size_t>(kMaxConcurrentCalls)) {
        try {
          auto& w = st->workers.emplace_back();
          w.thread = std::thread(work, st, &w);
        } catch (const std::system_error& e) {
          st->workers.pop_back();
          if (st->workers.empty()) {
            st->queue.pop_back();
            st->calls.erase(call->key);
            refusal = error_response(m.id, code::internal_error, std::string("cannot start the call: ") + e.what());
          }
        }
      }
    }
  }
  if (refusal) return deliver(*st, batch, std::move(*refusal));
  st->cv.notify_all();
}

void dispatch(const std::shared_ptr<State>& st, const Message& m, const std::shared_ptr<Batch>& batch) {
  switch (m.kind) {
    case Message::Kind::invalid:
      return deliver(*st, batch,
                     m.reply ? std::optional<json>(error_response(m.id, m.error_code, m.error_message)) : std::nullopt);
    case Message::Kind::response: return deliver(*st, batch, std::nullopt);  // we send no requests: nothing to match
    case Message::Kind::notification:
      if (m.method == "notifications/cancelled") {
        if (auto id = m.params.find("requestId"); id != m.params.end()) cancel(*st, *id);
      }
      return deliver(*st, batch, std::nullopt);  // initialized, progress, roots...: nothing to answer
    case Message::Kind::request: break;
  }
  std::string protocol;
  bool in_use = false;
  {
    std::lock_guard lock(st->mu);
    protocol = st->protocol;
    in_use = st->calls.count(m.id.dump()) > 0;
  }
  // One response per id: a request reusing the id of a call in flight is refused.
  if (in_use) return deliver(*st, batch, duplicate_id(m.id.dump()));
  if (m.method == "initialize") {
    if (!protocol.empty()) return deliver(*st, batch, error_response(m.id, code::invalid_request, "already initialized"));
    const auto v = m.params.find("protocolVersion");
    if (v == m.params.end() || !v->is_string())
      return deliver(*st, batch, error_response(m.id, code::invalid_params, "initialize needs \"protocolVersion\""));
    // Answer with the client's version when we speak it, else with our latest.
    const std::string asked = v->get<std::string>();
    const std::string chosen = asked == kOlderProtocol ? std::string(kOlderProtocol) : std::string(kLatestProtocol);
    {
      std::lock_guard lock(st->mu);
      st->protocol = chosen;
    }
    return deliver(*st, batch, response(m.id, initialize_result(chosen)));
  }
  if (m.method == "ping") return deliver(*st, batch, response(m.id, json::object()));
  if (protocol.empty())
    return deliver(*st, batch, error_response(m.id, code::invalid_request, "not initialized: send initialize first"));
  if (m.method == "tools/list") return deliver(*st, batch, response(m.id, {{"tools", tool_list(protocol != kOlderProtocol)}}));
  if (m.method == "tools/call") return start_call(st, m, batch);
  deliver(*st, batch, error_response(m.id, code::method_not_found, "method not found: " + m.method));
}

}  // namespace

void Session::handle_line(std::string_view text) {
  Line line = parse_line(text);
  if (line.messages.empty()) return;
  if (!line.batch) return dispatch(st_, line.messages.front(), nullptr);
  std::string protocol;
  {
    std::lock_guard lock(st_->mu);
    protocol = st_->protocol;
  }
  if (protocol != kOlderProtocol) {
    send(*st_, error_response(nullptr, code::invalid_request,
                              fmt::format("batches are not part of protocol {}", protocol.empty() ? kLatestProtocol : protocol)));
    return;
  }
  auto batch = std::make_shared<Batch>();
  batch->pending = static_cast<int>(line.messages.size());
  for (const auto& m : line.messages) dispatch(st_, m, batch);
}

int Session::shutdown(std::chrono::milliseconds grace) {
  std::vector<std::shared_ptr<Call>> calls;
  {
    std::lock_guard lock(st_->mu);
    if (st_->shut_down) return 0;
    st_->closing = true;
    for (auto& [key, call] : st_->calls) {
      call->cancelled = true;
      calls.push_back(call);
    }
    st_->queue.clear();
  }
  for (auto& c : calls) c->stop.request_stop();
  st_->cv.notify_all();
  std::unique_lock lock(st_->mu);
  st_->cv.wait_for(lock, grace, [&] {
    for (const auto& w : st_->workers)
      if (!w.done) return false;
    return true;
  });
  int left = 0;
  for (auto& w : st_->workers) {
    if (w.done) {
      w.thread.join();
    } else {
      // Ignored cancellation: abandoned, and never un-counted, so the exit skips
      // static destruction rather than race this thread's last steps. The thread owns
      // the state (and its Worker) through its shared_ptr.
      w.thread.detach();
      ++left;
    }
  }
  st_->shut_down = true;
  if (left > 0) {
    core::live_stragglers().fetch_add(left);
    core::log::warn("mcp: {} call{} ignored cancellation at shutdown and {} abandoned", left, left == 1 ? "" : "s",
                    left == 1 ? "was" : "were");
  }
  return left;
}

namespace {

// Protocol output: whole lines, one writer at a time. A closed stdout ends the writing.
// A way out like any other: scrubbed by the one redactor (the marker is JSON-safe).
class Output {
 public:
  explicit Output(int fd) : fd_(fd) {}
  void write(const std::string& raw) {
    const std::string line = core::redact::scrub(raw);
    std::lock_guard lock(mu_);
    if (broken_) return;
    std::size_t off = 0;
    while (off < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + off, line.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        broken_ = true;
        return;
      }
      off += static_cast<std::size_t>(n);
    }
  }

 private:
  std::mutex mu_;
  int fd_;
  bool broken_ = false;
};

}  // namespace

int serve(std::shared_ptr<const app::RunContext> ctx, const persist::Writer& writer) {
  // Keep fd 1 for the protocol alone: stdout now goes to stderr for anything else.
  const int proto = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (proto < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::fprintf(stderr, "last30days: mcp: cannot set up stdout\n");
    return 1;
  }
  std::signal(SIGPIPE, SIG_IGN);  // a client that went away is an EPIPE, not a death
  core::log::set_progress(false);
  auto out = std::make_shared<Output>(proto);
  Session session(std::move(ctx), writer, [out](const std::string& line) { out->write(line); });
  core::log::info("mcp: serving on stdio (protocol {} and {})", kLatestProtocol, kOlderProtocol);
  LineReader reader;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reader.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    bool too_long = false;
    while (auto line = reader.next(&too_long)) {
      if (too_long) out->write(serialize(error_response(nullptr, code::invalid_request, "message too large")));
      else session.handle_line(*line);
    }
  }
  if (auto last = reader.rest()) session.handle_line(*last);
  session.shutdown(std::chrono::milliseconds(2000));
  core::log::info("mcp: stdin closed, exiting");
  return 0;
}

}  // namespace mcp
