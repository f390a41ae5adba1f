// The store's rules, once for both backends: what a run writes, what "seen" means,
// the library, the watchlist and its claims.
#include "store/store.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <thread>
#include <unordered_map>

#include "core/log.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "core/url.hpp"
#include "model/source_status_json.hpp"
#include "store/backend.hpp"
#include "store/brief_index.hpp"
#include "store/schema.hpp"

namespace store {

namespace {

// Stored values are read strictly: anything but the whole text being a number (a damaged
// row, a hand edit) is Damaged -- a store error a reader can skip the row for -- never a
// std::stoll exception that ends the run as an internal error.
[[noreturn]] void damaged(const std::string& v, const char* what) {
  throw Damaged(
      fmt::format("a damaged value in the research store: '{}' is not {}", core::printable_line(v.substr(0, 40)), what));
}
std::int64_t as_int(const std::optional<std::string>& v, std::int64_t fallback = 0) {
  if (!v || v->empty()) return fallback;
  std::int64_t out = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || end != v->data() + v->size()) damaged(*v, "an integer");
  return out;
}
double as_double(const std::optional<std::string>& v) {
  if (!v || v->empty()) return 0.0;
  char* end = nullptr;
  const double out = std::strtod(v->c_str(), &end);
  if (end != v->c_str() + v->size() || !std::isfinite(out)) damaged(*v, "a number");
  return out;
}
std::optional<core::UnixSeconds> as_time(const std::optional<std::string>& v) {
  if (!v || v->empty()) return std::nullopt;
  return as_int(v);
}
Param opt_param(const std::optional<core::UnixSeconds>& t) { return t ? Param(std::int64_t{*t}) : Param(nullptr); }

// Findings per INSERT statement: 9 parameters each stays far under SQLite's 32766 and
// PostgreSQL's 65535 parameters per statement.
constexpr std::size_t kRowsPerStatement = 250;

// Nothing upstream-supplied or configured that is a secret may reach the store.
std::string clean(std::string_view s) { return core::redact::scrub_value(core::sanitize_utf8(s)); }

// The runs table keeps source_status as the briefs print it (model/source_status_json.hpp),
// its reasons scrubbed.
std::string status_json(const std::map<std::string, model::SourceStatus>& status) {
  auto scrubbed = status;
  for (auto& [id, st] : scrubbed) st.reason = clean(st.reason);
  return model::source_status_json(scrubbed).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string join_sources(const std::vector<std::string>& sources) {
  std::string out;
  for (const auto& s : sources) out += (out.empty() ? "" : ",") + s;
  return out;
}
std::vector<std::string> split_sources(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    auto comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

void add_finding(RunInput& in, std::string_view url, std::string_view title, std::string_view source, std::string_view snippet,
                 double engagement, std::optional<core::UnixSeconds> published) {
  if (core::trim(url).empty()) return;
  const std::string key = core::canonical_url(url);
  for (auto& f : in.findings)
    if (core::canonical_url(f.url) == key) {
      f.engagement = std::max(f.engagement, engagement);
      return;
    }
  in.findings.push_back({std::string(url), std::string(title), std::string(source), std::string(snippet), engagement, published});
}

double engagement_sum(const std::vector<model::Engagement>& e) {
  double s = 0;
  for (const auto& x : e) s += x.value;
  return s;
}

// topic, days, every_hours, sources, last_run_at, next_due_at[, notify, claimed_by, claim_expires_at]
model::WatchEntry watch_row(const Row& r) {
  model::WatchEntry e;
  e.topic = r[0].value_or("");
  e.days = static_cast<int>(as_int(r[1], 30));
  e.every_hours = as_double(r[2]);
  e.sources = split_sources(r[3].value_or(""));
  e.last_run_at = as_time(r[4]);
  e.next_due_at = as_int(r[5]);
  if (r.size() > 6 && r[6]) e.notify = split_sources(*r[6]);
  if (r.size() > 8 && r[7] && r[8]) {
    e.claimed_by = *r[7];
    e.claimed_until = as_time(r[8]);
  }
  return e;
}

}  // namespace

std::pair<std::int64_t, model::LibraryHit> finding_hit(const Row& r) {
  model::LibraryHit h;
  h.kind = "finding";
  h.title = r.at(1).value_or("");
  h.url = r.at(2).value_or("");
  h.source = r.at(3).value_or("");
  h.first_seen = as_int(r.at(4));
  h.last_seen = as_int(r.at(5));
  h.sightings = static_cast<int>(as_int(r.at(6)));
  h.score = as_double(r.at(7));
  h.snippet = r.at(8).value_or("");
  if (r.size() > 10) {
    h.published_at = as_time(r.at(9));
    h.engagement = as_double(r.at(10));
  }
  return {as_int(r.at(0)), std::move(h)};
}

namespace {
// A saved brief is Markdown: its escapes (\*, \[, \_) are syntax, not text, in a snippet.
std::string markdown_unescaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && std::ispunct(static_cast<unsigned char>(s[i + 1]))) ++i;
    out += s[i];
  }
  return out;
}
}  // namespace

std::pair<std::int64_t, model::LibraryHit> brief_hit(const Row& r) {
  model::LibraryHit h;
  h.kind = "brief";
  h.location = r.at(0).value_or("");
  h.url = "file://" + h.location;
  h.title = markdown_unescaped(r.at(1).value_or(""));
  h.source = "brief";
  h.topics = {r.at(2).value_or("")};
  h.first_seen = h.last_seen = as_int(r.at(3)) / 1000000000;  // mtime is in nanoseconds
  h.score = as_double(r.at(4));
  h.snippet = markdown_unescaped(r.at(5).value_or(""));
  return {0, std::move(h)};
}

int latest_version() { return migrations().back().version; }

std::string newer_store_message(int found) {
  return fmt::format(
      "the research store was made by a newer last30days (schema version {}; this build knows up to {}): "
      "upgrade last30days, or point LAST30DAYS_STORE_PATH / LAST30DAYS_STORE_URL elsewhere",
      found, latest_version());
}

std::optional<Location> locate(const core::Config& config, std::string* error) {
  namespace fs = std::filesystem;
  if (auto url = config.get("LAST30DAYS_STORE_URL")) {
    if (!core::starts_with_ci(*url, "postgresql://") && !core::starts_with_ci(*url, "postgres://")) {
      *error = "LAST30DAYS_STORE_URL must be a postgresql:// or postgres:// URI";
      return std::nullopt;
    }
    auto parsed = parse_postgres_url(*url, error);
    if (!parsed) return std::nullopt;
    if (!parsed->password.empty()) core::redact::add_secret(parsed->password);
    return Location{Location::Kind::postgres, *url, parsed->display};
  }
  fs::path path;
  if (auto p = config.get("LAST30DAYS_STORE_PATH")) {
    path = *p;
  } else if (auto x = config.get("XDG_DATA_HOME"); x && x->front() == '/') {
    path = fs::path(*x) / "last30days" / "research.db";
  } else if (auto home = config.home()) {
    path = fs::path(*home) / ".local" / "share" / "last30days" / "research.db";
  } else {
    *error = "no place for the research store: set LAST30DAYS_STORE_PATH, XDG_DATA_HOME or an absolute HOME";
    return std::nullopt;
  }
  std::error_code ec;
  const auto abs = fs::absolute(path, ec);
  if (!ec) path = abs;
  if (path.filename().empty()) {
    *error = "LAST30DAYS_STORE_PATH must name a file, not a directory";
    return std::nullopt;
  }
  return Location{Location::Kind::sqlite, path.lexically_normal().string(), path.lexically_normal().string()};
}

std::string topic_key(std::string_view topic) {
  std::string s = core::casefold(clean(topic));
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return core::collapse_whitespace(s);
}

std::string topic_key(std::string_view topic, std::string_view kind) {
  return kind == "discovery" ? "\x01" + topic_key(topic) : topic_key(topic);
}

std::string machine_identity(const core::Config& config) {
  if (auto id = config.get("LAST30DAYS_MACHINE_ID"); id && !core::trim(*id).empty()) return std::string(core::trim(*id));
  std::ifstream in("/etc/machine-id");
  std::string id;
  if (in && std::getline(in, id) && !core::trim(id).empty()) return std::string(core::trim(id));
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') return host;
  return "unknown";
}

std::string finding_key(std::string_view url) { return core::canonical_url(clean(url)); }

int TopicMemory::runs_ago(const Prior& p) const {
  return static_cast<int>(run_ids.end() - std::lower_bound(run_ids.begin(), run_ids.end(), p.first_run_id));
}

RunInput run_input(const model::Report& report, core::UnixSeconds started_at, core::UnixSeconds finished_at) {
  RunInput in;
  in.topic = report.topic;
  in.window = report.window;
  in.depth = report.depth;
  in.started_at = started_at;
  in.finished_at = finished_at;
  in.source_status = report.source_status;
  for (const auto& it : report.items) {
    add_finding(in, it.url, it.title, it.source, it.snippet, it.engagement_total(), it.published_at);
    for (const auto& s : it.also_seen) add_finding(in, s.url, s.title, s.source, "", engagement_sum(s.engagement), std::nullopt);
  }
  return in;
}

RunInput run_input(const model::DiscoveryReport& report, core::UnixSeconds started_at, core::UnixSeconds finished_at) {
  RunInput in;
  in.topic = report.domain.empty() ? "discover: global" : "discover: " + report.domain;
  in.kind = "discovery";
  in.window = report.window;
  in.depth = report.enrichment.depth;
  in.started_at = started_at;
  in.finished_at = finished_at;
  in.source_status = report.source_status;
  for (const auto& t : report.results)
    for (const auto& it : t.seeds)
      add_finding(in, it.url, it.title, it.source, it.snippet, it.engagement_total(), it.published_at);
  return in;
}

Store::Store(Location where, std::unique_ptr<Backend> backend) : where_(std::move(where)), backend_(std::move(backend)) {}
Store::~Store() = default;

int Store::latest_schema_version() { return latest_version(); }

std::unique_ptr<Store> Store::open(const Location& where, const persist::Writer& writer, core::Deadline deadline,
                                   OpenOptions options) {
  (void)writer;  // the capability: only the top-level command may open the store
  std::unique_ptr<Backend> backend;
  if (where.kind == Location::Kind::sqlite) {
    const std::filesystem::path p(where.target);
    std::error_code ec;
    if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) throw Error(fmt::format("research store {}: cannot create its directory: {}", where.display, ec.message()));
    backend = open_sqlite(where.target, deadline);
  } else {
    backend = open_postgres(where.target, deadline);
  }
  const int target = options.schema_version > 0 ? std::min(options.schema_version, latest_version()) : latest_version();
  backend->migrate(target);
  return std::unique_ptr<Store>(new Store(where, std::move(backend)));
}

void Store::set_deadline(core::Deadline deadline) { backend_->set_deadline(deadline); }

int Store::schema_version() const {
  const auto rows = backend_->query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", {});
  return rows.empty() ? 0 : static_cast<int>(as_int(rows[0][0]));
}

namespace {

// One transaction; deadlocks and serialization failures are retried with jitter while
// the deadline allows.
template <typename F>
void transaction(Backend& db, bool write, F&& body) {
  thread_local std::minstd_rand rng(std::random_device{}());
  for (int attempt = 1;; ++attempt) {
    try {
      db.begin(write);
      body();
      db.commit();
      return;
    } catch (const Retry& e) {
      db.rollback();
      if (attempt >= 10) throw Error(fmt::format("{} (gave up after {} attempts)", e.what(), attempt));
      std::this_thread::sleep_for(core::Millis(5 + static_cast<long>(rng() % (10u * static_cast<unsigned>(attempt)))));
    } catch (...) {
      db.rollback();
      throw;
    }
  }
}

std::int64_t upsert_topic(Backend& db, const std::string& display, std::string_view kind = "research") {
  const auto rows =
      db.query("INSERT INTO topics(key, display) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET key = excluded.key RETURNING id",
               {topic_key(display, kind), clean(display)});
  return as_int(rows.at(0).at(0));
}

std::optional<std::int64_t> find_topic(Backend& db, std::string_view topic) {
  const auto rows = db.query("SELECT id FROM topics WHERE key = ?", {topic_key(topic)});
  if (rows.empty()) return std::nullopt;
  return as_int(rows[0][0]);
}

}  // namespace

TopicMemory Store::memory(std::string_view topic, const std::vector<std::string>& url_keys) {
  TopicMemory mem;
  int damaged_rows = 0;
  std::string first_damage;
  transaction(*backend_, false, [&] {
    mem = {};
    damaged_rows = 0;
    first_damage.clear();
    // A damaged row costs only itself: it is left out of the history, with a warning.
    const auto skip = [&](const Damaged& e) {
      if (damaged_rows++ == 0) first_damage = e.what();
    };
    const auto tid = find_topic(*backend_, topic);
    if (!tid) return;
    for (const auto& r : backend_->query("SELECT id, finished_at FROM runs WHERE topic_id = ? ORDER BY id", {*tid})) {
      try {
        const auto id = as_int(r[0]);
        const auto fin = as_int(r[1]);
        mem.run_ids.push_back(id);
        if (!mem.history.last_run_at || fin > *mem.history.last_run_at) mem.history.last_run_at = fin;
      } catch (const Damaged& e) {
        skip(e);
      }
    }
    mem.history.runs_before = static_cast<int>(mem.run_ids.size());
    for (const auto& key : url_keys) {
      if (mem.seen.count(key)) continue;
      const auto rows = backend_->query(
          "SELECT MIN(s.run_id), MAX(s.engagement) FROM findings f JOIN sightings s ON s.finding_id = f.id "
          "JOIN runs r ON r.id = s.run_id WHERE f.url_key = ? AND r.topic_id = ?",
          {key, *tid});
      if (rows.empty() || !rows[0][0]) continue;
      try {
        mem.seen[key] = Prior{as_int(rows[0][0]), as_double(rows[0][1])};
      } catch (const Damaged& e) {
        skip(e);
      }
    }
  });
  if (damaged_rows == 1) core::log::warn("{}: that row is left out of this topic's history", first_damage);
  else if (damaged_rows > 1)
    core::log::warn("{} (and {} more damaged rows): they are left out of this topic's history", first_damage, damaged_rows - 1);
  return mem;
}

namespace {
std::vector<std::string> item_keys(const model::Item& it) {
  std::vector<std::string> keys{finding_key(it.url)};
  for (const auto& s : it.also_seen) keys.push_back(finding_key(s.url));
  return keys;
}
}  // namespace

void Store::annotate(model::Report& report) {
  std::vector<std::string> keys;
  for (const auto& it : report.items)
    for (auto& k : item_keys(it)) keys.push_back(std::move(k));
  const auto mem = memory(report.topic, keys);
  report.history = mem.history;
  for (auto& it : report.items) {
    int ago = 0;
    for (const auto& k : item_keys(it))
      if (auto p = mem.seen.find(k); p != mem.seen.end()) ago = std::max(ago, mem.runs_ago(p->second));
    it.seen_before = ago;
  }
}

std::vector<std::int64_t> Store::record(const std::vector<RunInput>& runs, const WatchCommit* watch) {
  std::vector<std::int64_t> ids;
  transaction(*backend_, true, [&] {
    ids.clear();
    for (const auto& run : runs) {
      const auto tid = upsert_topic(*backend_, run.topic, run.kind);
      // Findings in one fixed order (by key), so concurrent writers cannot deadlock; one
      // sighting per finding per run, with the run's highest engagement for it.
      std::map<std::string, FindingInput> findings;
      for (const auto& f : run.findings) {
        auto [it, fresh] = findings.try_emplace(finding_key(f.url), f);
        if (!fresh) it->second.engagement = std::max(it->second.engagement, f.engagement);
      }
      const auto run_id = as_int(
          backend_
              ->query("INSERT INTO runs(topic_id, kind, window_from, window_to, days, depth, started_at, finished_at, "
                      "source_status, findings) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                      {tid, run.kind, std::int64_t{run.window.from}, std::int64_t{run.window.to}, std::int64_t{run.window.days},
                       std::string(model::to_string(run.depth)), std::int64_t{run.started_at}, std::int64_t{run.finished_at},
                       status_json(run.source_status), static_cast<std::int64_t>(findings.size())})
              .at(0)
              .at(0));
      // Many rows per statement: a server round trip per finding was the insert rate's
      // limit. Rows stay in key order within and across statements (the lock order above).
      for (auto next = findings.begin(); next != findings.end();) {
        std::string upsert =
            "INSERT INTO findings(url_key, url, title, source, snippet, published_at, first_seen, last_seen, sightings, "
            "max_engagement) "
            "VALUES ";
        std::string sight = "INSERT INTO sightings(finding_id, run_id, engagement) VALUES ";
        std::vector<Param> params;
        std::vector<const std::pair<const std::string, FindingInput>*> chunk;
        for (; next != findings.end() && chunk.size() < kRowsPerStatement; ++next) {
          const auto& [key, f] = *next;
          upsert += chunk.empty() ? "(?, ?, ?, ?, ?, ?, ?, ?, 1, ?)" : ", (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)";
          sight += chunk.empty() ? "(?, ?, ?)" : ", (?, ?, ?)";
          params.insert(params.end(),
                        {key, clean(f.url), clean(f.title), clean(f.source), clean(f.snippet), opt_param(f.published_at),
                         std::int64_t{run.finished_at}, std::int64_t{run.finished_at}, f.engagement});
          chunk.push_back(&*next);
        }
        upsert +=
            " ON CONFLICT(url_key) DO UPDATE SET "
            "url = excluded.url, title = excluded.title, source = excluded.source, "
            "snippet = CASE WHEN excluded.snippet = '' THEN findings.snippet ELSE excluded.snippet END, "
            "published_at = COALESCE(findings.published_at, excluded.published_at), "
            "last_seen = CASE WHEN excluded.last_seen > findings.last_seen THEN excluded.last_seen ELSE findings.last_seen END, "
            "sightings = findings.sightings + 1, "
            "max_engagement = CASE WHEN excluded.max_engagement > findings.max_engagement THEN excluded.max_engagement "
            "ELSE findings.max_engagement END RETURNING url_key, id";
        if (backend_->chains_inserts()) {
          // One statement: the upsert's ids go straight into the sightings, each joined to
          // its finding's engagement by key (RETURNING's order is not promised).
          std::string chained = "WITH up AS (" + upsert +
                                ") INSERT INTO sightings(finding_id, run_id, engagement) "
                                "SELECT up.id, ?, v.e FROM up JOIN (VALUES ";
          params.emplace_back(run_id);
          for (const auto* entry : chunk) {
            chained += entry == chunk.front() ? "(?, CAST(? AS DOUBLE PRECISION))" : ", (?, ?)";
            params.insert(params.end(), {entry->first, entry->second.engagement});
          }
          chained += ") v(k, e) ON v.k = up.url_key RETURNING finding_id";
          if (backend_->query(chained, params).size() != chunk.size())
            throw Error("research store: a finding was written but its id did not come back");
          continue;
        }
        // RETURNING's order is not promised: match the ids back by key.
        std::unordered_map<std::string, std::int64_t> id_of;
        for (const auto& row : backend_->query(upsert, params)) id_of[row.at(0).value_or("")] = as_int(row.at(1));
        std::vector<Param> sightings;
        for (const auto* entry : chunk) {
          const auto id = id_of.find(entry->first);
          if (id == id_of.end()) throw Error("research store: a finding was written but its id did not come back");
          sightings.insert(sightings.end(), {id->second, run_id, entry->second.engagement});
        }
        backend_->query(sight, sightings);
      }
      // A stored run of a watched topic counts as a run of it.
      if (watch && runs.size() == 1) {
        const auto done = backend_->query(
            "UPDATE watchlist SET last_run_at = ?, next_due_at = ? + CAST(every_hours * 3600 AS BIGINT), claimed_by = NULL, "
            "claim_expires_at = NULL WHERE topic_id = ? AND claimed_by = ? RETURNING topic_id",
            {std::int64_t{run.finished_at}, std::int64_t{run.finished_at}, tid, watch->claimant});
        if (done.empty())
          throw LeaseLost(
              fmt::format("the claim on \"{}\" expired and another process took it; this run was not recorded", run.topic));
        if (!watch->run_json.empty())
          for (const auto& channel : watch->notify_channels)
            backend_->query("INSERT INTO notify_pending(channel, topic_id, created_at, run) VALUES (?, ?, ?, ?)",
                            {channel, tid, std::int64_t{run.finished_at}, clean(watch->run_json)});
      } else {
        backend_->query(
            "UPDATE watchlist SET last_run_at = ?, next_due_at = ? + CAST(every_hours * 3600 AS BIGINT) WHERE topic_id = ?",
            {std::int64_t{run.finished_at}, std::int64_t{run.finished_at}, tid});
      }
      ids.push_back(run_id);
    }
  });
  return ids;
}

std::int64_t Store::record_report(const model::Report& report, core::UnixSeconds started_at, core::UnixSeconds finished_at) {
  return record({run_input(report, started_at, finished_at)}).at(0);
}

model::LibraryResult Store::search(std::string_view query, int limit) {
  model::LibraryResult out;
  out.query = std::string(query);
  auto words = core::tokenize(query);
  if (words.size() > 16) words.resize(16);
  if (words.empty() || limit <= 0) return out;
  std::vector<std::pair<std::int64_t, model::LibraryHit>> hits;
  transaction(*backend_, false, [&] {
    hits = backend_->search(words, limit);
    for (auto& [id, h] : hits) {
      if (id == 0) continue;
      for (const auto& r : backend_->query(
               "SELECT DISTINCT t.display FROM sightings s JOIN runs r ON r.id = s.run_id JOIN topics t ON t.id = r.topic_id "
               "WHERE s.finding_id = ? ORDER BY t.display",
               {id}))
        h.topics.push_back(r[0].value_or(""));
    }
  });
  std::stable_sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) { return a.second.score > b.second.score; });
  for (auto& [id, h] : hits) {
    if (static_cast<int>(out.results.size()) >= limit) break;
    out.results.push_back(std::move(h));
  }
  return out;
}

Store::SyncStats Store::sync_briefs(const std::filesystem::path& dir, core::UnixSeconds now, const std::string& origin) {
  SyncStats stats;
  const auto files = scan_briefs(dir);
  transaction(*backend_, true, [&] {
    stats = {};
    const std::string prefix = dir.lexically_normal().string() + "/";
    // This machine's rows; rows from before briefs had an origin ('') are adopted when
    // the file is here, and otherwise left alone (they may be another machine's).
    std::map<std::string, Row> stored, legacy;
    for (auto& r :
         backend_->query("SELECT path, mtime, size, hash, origin FROM briefs WHERE origin = ? OR origin = ''", {origin}))
      if (r[0] && r[0]->rfind(prefix, 0) == 0) (r[4].value_or("") == origin ? stored : legacy)[*r[0]] = r;
    for (const auto& f : files) {
      ++stats.scanned;
      auto it = stored.find(f.path);
      if (it == stored.end() && !origin.empty()) {
        if (auto old = legacy.find(f.path); old != legacy.end()) {
          backend_->query("DELETE FROM briefs WHERE origin = ? AND path = ?", {origin, f.path});
          backend_->query("UPDATE briefs SET origin = ? WHERE origin = '' AND path = ?", {origin, f.path});
          it = stored.emplace(f.path, old->second).first;
        }
      }
      if (it != stored.end()) {
        const Row row = it->second;
        stored.erase(it);
        if (as_int(row[1]) == f.mtime && as_int(row[2]) == f.size) continue;  // unchanged: not even read
        auto doc = read_brief(f);
        if (!doc) continue;
        if (doc->hash == row[3].value_or("")) {
          backend_->query("UPDATE briefs SET mtime = ?, size = ? WHERE origin = ? AND path = ?",
                          {f.mtime, f.size, origin, f.path});
          continue;
        }
        backend_->query(
            "UPDATE briefs SET mtime = ?, size = ?, hash = ?, topic = ?, title = ?, body = ?, indexed_at = ? WHERE origin = ? "
            "AND path = ?",
            {f.mtime, f.size, doc->hash, clean(doc->topic), clean(doc->title), clean(doc->body), std::int64_t{now}, origin,
             f.path});
        ++stats.indexed;
        continue;
      }
      auto doc = read_brief(f);
      if (!doc) continue;
      backend_->query(
          "INSERT INTO briefs(origin, path, mtime, size, hash, topic, title, body, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
          "?)",
          {origin, f.path, f.mtime, f.size, doc->hash, clean(doc->topic), clean(doc->title), clean(doc->body),
           std::int64_t{now}});
      ++stats.indexed;
    }
    for (const auto& [path, row] : stored) {
      backend_->query("DELETE FROM briefs WHERE origin = ? AND path = ?", {origin, path});
      ++stats.removed;
    }
  });
  return stats;
}

bool Store::watch_add(const model::WatchEntry& entry, core::UnixSeconds now) {
  bool added = false;
  transaction(*backend_, true, [&] {
    const auto tid = upsert_topic(*backend_, entry.topic);
    added = backend_->query("SELECT 1 FROM watchlist WHERE topic_id = ?", {tid}).empty();
    // New: due now. Updated: due every_hours after its last run (now if it never ran).
    backend_->query(
        "INSERT INTO watchlist(topic_id, days, every_hours, sources, added_at, last_run_at, next_due_at, notify) "
        "VALUES (?, ?, ?, ?, ?, (SELECT MAX(finished_at) FROM runs WHERE topic_id = ?), ?, ?) "
        "ON CONFLICT(topic_id) DO UPDATE SET days = excluded.days, every_hours = excluded.every_hours, sources = "
        "excluded.sources, "
        "notify = excluded.notify, "
        "next_due_at = COALESCE(watchlist.last_run_at + CAST(excluded.every_hours * 3600 AS BIGINT), excluded.next_due_at)",
        {tid, std::int64_t{entry.days}, entry.every_hours, join_sources(entry.sources), std::int64_t{now}, tid, std::int64_t{now},
         entry.notify ? Param(join_sources(*entry.notify)) : Param(nullptr)});
  });
  return added;
}

bool Store::watch_remove(std::string_view topic) {
  bool removed = false;
  transaction(*backend_, true, [&] {
    removed = !backend_
                   ->query("DELETE FROM watchlist WHERE topic_id = (SELECT id FROM topics WHERE key = ?) RETURNING topic_id",
                           {topic_key(topic)})
                   .empty();
  });
  return removed;
}

std::vector<model::WatchEntry> Store::watch_list() {
  std::vector<model::WatchEntry> out;
  transaction(*backend_, false, [&] {
    out.clear();
    for (const auto& r : backend_->query(
             "SELECT t.display, w.days, w.every_hours, w.sources, w.last_run_at, w.next_due_at, w.notify, w.claimed_by, "
             "w.claim_expires_at FROM watchlist w JOIN topics t ON t.id = w.topic_id ORDER BY t.key",
             {}))
      out.push_back(watch_row(r));
  });
  return out;
}

std::optional<model::WatchEntry> Store::watch_claim(const std::string& claimant, core::UnixSeconds now, long lease_seconds,
                                                    bool all, core::UnixSeconds since) {
  std::optional<model::WatchEntry> out;
  const std::string sql = fmt::format(
      "UPDATE watchlist SET claimed_by = ?, claim_expires_at = ? WHERE topic_id = ("
      "SELECT topic_id FROM watchlist WHERE (next_due_at <= ? OR (? = 1 AND (last_run_at IS NULL OR last_run_at <= ?))) "
      "AND (claimed_by IS NULL OR claim_expires_at <= ?) ORDER BY next_due_at, topic_id LIMIT 1{}) "
      "RETURNING topic_id, days, every_hours, sources, last_run_at, next_due_at, notify",
      backend_->skip_locked());
  transaction(*backend_, true, [&] {
    out.reset();
    const auto rows = backend_->query(sql, {claimant, std::int64_t{now + lease_seconds}, std::int64_t{now},
                                            std::int64_t{all ? 1 : 0}, std::int64_t{since}, std::int64_t{now}});
    if (rows.empty()) return;
    Row r = rows[0];
    const auto display = backend_->query("SELECT display FROM topics WHERE id = ?", {as_int(r[0])});
    r[0] = display.empty() ? std::optional<std::string>("") : display[0][0];
    out = watch_row(r);
  });
  return out;
}

void Store::watch_release(const std::string& claimant, std::string_view topic) {
  transaction(*backend_, true, [&] {
    backend_->query(
        "UPDATE watchlist SET claimed_by = NULL, claim_expires_at = NULL "
        "WHERE topic_id = (SELECT id FROM topics WHERE key = ?) AND claimed_by = ?",
        {topic_key(topic), claimant});
  });
}

std::vector<model::TopicSummary> Store::topics() {
  std::vector<model::TopicSummary> out;
  transaction(*backend_, false, [&] {
    out.clear();
    for (const auto& r : backend_->query(
             "SELECT t.display, t.key, COUNT(r.id), MAX(r.finished_at) FROM topics t JOIN runs r ON r.topic_id = t.id "
             "GROUP BY t.id, t.display, t.key ORDER BY MAX(r.finished_at) DESC, t.key",
             {})) {
      model::TopicSummary t;
      t.topic = r[0].value_or("");
      t.kind = r[1].value_or("").rfind('\x01', 0) == 0 ? "discovery" : "research";
      t.runs = static_cast<int>(as_int(r[2]));
      t.last_run_at = as_time(r[3]);
      out.push_back(std::move(t));
    }
  });
  return out;
}

bool Store::forget(std::string_view topic) {
  bool found = false;
  transaction(*backend_, true, [&] {
    // A research topic by that name first, else the discovery run of that name.
    auto rows = backend_->query("SELECT id FROM topics WHERE key = ?", {topic_key(topic)});
    if (rows.empty()) rows = backend_->query("SELECT id FROM topics WHERE key = ?", {topic_key(topic, "discovery")});
    found = !rows.empty();
    if (!found) return;
    const std::int64_t tid = as_int(rows[0][0]);
    // The findings only this topic holds go with it (their full-text rows by trigger).
    const auto touched = backend_->query(
        "SELECT DISTINCT s.finding_id FROM sightings s JOIN runs r ON r.id = s.run_id WHERE r.topic_id = ? ORDER BY s.finding_id",
        {tid});
    backend_->query("DELETE FROM sightings WHERE run_id IN (SELECT id FROM runs WHERE topic_id = ?)", {tid});
    // A finding no other topic saw goes; one still held elsewhere loses this topic's sightings.
    for (const auto& r : touched) {
      const std::int64_t fid = as_int(r[0]);
      const auto left = as_int(backend_->query("SELECT COUNT(*) FROM sightings WHERE finding_id = ?", {fid}).at(0).at(0));
      if (left == 0) backend_->query("DELETE FROM findings WHERE id = ?", {fid});
      else backend_->query("UPDATE findings SET sightings = ? WHERE id = ?", {left, fid});
    }
    backend_->query("DELETE FROM runs WHERE topic_id = ?", {tid});
    backend_->query("DELETE FROM notify_pending WHERE topic_id = ?", {tid});
    backend_->query("DELETE FROM watchlist WHERE topic_id = ?", {tid});
    backend_->query("DELETE FROM topics WHERE id = ?", {tid});
  });
  return found;
}

std::vector<PendingDigest> Store::notify_pending(std::string_view channel) {
  std::vector<PendingDigest> out;
  transaction(*backend_, false, [&] {
    out.clear();
    for (const auto& r :
         backend_->query("SELECT id, run FROM notify_pending WHERE channel = ? ORDER BY id", {std::string(channel)}))
      out.push_back({as_int(r[0]), r[1].value_or("")});
  });
  return out;
}

void Store::notify_done(std::string_view channel, const std::vector<std::int64_t>& delivered, core::UnixSeconds at, bool ok,
                        std::string_view detail) {
  transaction(*backend_, true, [&] {
    for (auto id : delivered) backend_->query("DELETE FROM notify_pending WHERE id = ?", {id});
    backend_->query(
        "INSERT INTO notify_log(channel, at, ok, detail) VALUES (?, ?, ?, ?) ON CONFLICT(channel) DO UPDATE SET "
        "at = excluded.at, ok = excluded.ok, detail = excluded.detail",
        {std::string(channel), std::int64_t{at}, std::int64_t{ok ? 1 : 0}, clean(detail)});
  });
}

std::vector<model::DeliveryLog> Store::notify_log() {
  std::vector<model::DeliveryLog> out;
  transaction(*backend_, false, [&] {
    out.clear();
    for (const auto& r : backend_->query(
             "SELECT l.channel, l.at, l.ok, l.detail, (SELECT COUNT(*) FROM notify_pending p WHERE p.channel = l.channel) "
             "FROM notify_log l ORDER BY l.channel",
             {}))
      out.push_back({r[0].value_or(""), as_int(r[1]), as_int(r[2]) != 0, r[3].value_or(""), static_cast<int>(as_int(r[4]))});
  });
  return out;
}

long Store::budget_spent(std::string_view source, std::string_view day) {
  long spent = 0;
  transaction(*backend_, false, [&] {
    const auto rows =
        backend_->query("SELECT spent FROM budget_spend WHERE source = ? AND day = ?", {std::string(source), std::string(day)});
    spent = rows.empty() ? 0 : static_cast<long>(as_int(rows[0][0]));
  });
  return spent;
}

void Store::budget_add(std::string_view source, std::string_view day, long requests) {
  if (requests <= 0) return;
  transaction(*backend_, true, [&] {
    backend_->query(
        "INSERT INTO budget_spend(source, day, spent) VALUES (?, ?, ?) ON CONFLICT(source, day) DO UPDATE SET "
        "spent = budget_spend.spent + excluded.spent",
        {std::string(source), std::string(day), std::int64_t{requests}});
  });
}

std::map<std::string, long> Store::budget_day(std::string_view day) {
  std::map<std::string, long> out;
  transaction(*backend_, false, [&] {
    out.clear();
    for (const auto& r : backend_->query("SELECT source, spent FROM budget_spend WHERE day = ?", {std::string(day)}))
      out[r[0].value_or("")] = static_cast<long>(as_int(r[1]));
  });
  return out;
}

std::map<std::string, long> Store::budget_limits() {
  std::map<std::string, long> out;
  transaction(*backend_, false, [&] {
    out.clear();
    for (const auto& r : backend_->query("SELECT source, requests FROM budget_limit", {}))
      out[r[0].value_or("")] = static_cast<long>(as_int(r[1]));
  });
  return out;
}

bool Store::budget_set(std::string_view source, std::optional<long> requests, core::UnixSeconds now) {
  bool had = false;
  transaction(*backend_, true, [&] {
    had = !backend_->query("SELECT 1 FROM budget_limit WHERE source = ?", {std::string(source)}).empty();
    if (!requests) {
      backend_->query("DELETE FROM budget_limit WHERE source = ?", {std::string(source)});
      return;
    }
    backend_->query(
        "INSERT INTO budget_limit(source, requests, set_at) VALUES (?, ?, ?) ON CONFLICT(source) DO UPDATE SET "
        "requests = excluded.requests, set_at = excluded.set_at",
        {std::string(source), std::int64_t{*requests}, std::int64_t{now}});
  });
  return had;
}

}  // namespace store
