#include "hostile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/text.hpp"

namespace testing_support {

using model::SourceState;

http::Response reply(long status, std::string body, std::string content_type, std::vector<http::Header> headers) {
  http::Response r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = std::move(content_type);
  r.headers = std::move(headers);
  return r;
}

http::Response json_reply(std::string body, long status) { return reply(status, std::move(body)); }
http::Response xml_reply(std::string body, long status) { return reply(status, std::move(body), "application/atom+xml"); }

http::Response net_error(http::NetError error) {
  http::Response r;
  r.error = error;
  r.error_detail = "injected " + std::string(http::to_string(error));
  return r;
}

namespace {

constexpr std::size_t kHugeItems = 20000;     // 80 pages of the largest page we ask for
constexpr std::size_t kMaxReasonBytes = 300;  // a reason quotes upstream text, it does not carry it

std::string nested(std::size_t depth, std::string_view open, std::string_view close) {
  std::string out;
  out.reserve(depth * (open.size() + close.size()));
  for (std::size_t i = 0; i < depth; ++i) out += open;
  for (std::size_t i = 0; i < depth; ++i) out += close;
  return out;
}

}  // namespace

std::vector<HostileAnswer> standard_hostile_answers(Format format) {
  const bool json = format == Format::json;
  const std::string type = json ? "application/json" : "application/atom+xml";
  const std::string html = "<!DOCTYPE html><html><body><h1>Down for maintenance</h1></body></html>";
  const std::string block = "<html><body>Please verify you are human (captcha)</body></html>";
  std::vector<HostileAnswer> rows = {
      {"empty body", reply(200, "", type), SourceState::schema_drift, "empty"},
      {"whitespace body", reply(200, " \r\n\t ", type), SourceState::schema_drift, "empty"},
      {"HTML instead of data", reply(200, html, "text/html"), SourceState::schema_drift, "HTML"},
      {"HTML labelled as data", reply(200, html, type), SourceState::schema_drift, "HTML"},
      {"anti-bot page", reply(200, block, "text/html"), SourceState::rate_limited, ""},
      {"401", reply(401, R"({"message":"Bad credentials"})"), SourceState::auth_failed, "401"},
      {"403", reply(403, R"({"message":"Forbidden"})"), SourceState::auth_failed, "403"},
      {"403 rate limit",
       reply(403, R"({"message":"API rate limit exceeded"})", "application/json", {{"x-ratelimit-remaining", "0"}}),
       SourceState::rate_limited, "403"},
      {"403 block page", reply(403, "<html><head><title>Just a moment...</title></head><body>cf-chl</body></html>", "text/html"),
       SourceState::rate_limited, ""},
      {"429 with Retry-After", reply(429, R"({"message":"slow down"})", "application/json", {{"retry-after", "30"}}),
       SourceState::rate_limited, "retry after 30"},
      {"429", reply(429, "Too Many Requests", "text/plain"), SourceState::rate_limited, "429"},
      {"500", reply(500, R"({"error":"internal"})"), SourceState::unreachable, "500"},
      {"503 HTML", reply(503, "<html><body>Service Unavailable</body></html>", "text/html"), SourceState::unreachable, "503"},
      {"404", reply(404, "not found", "text/plain"), SourceState::error, "404"},
      {"wrong content type", reply(200, json ? "{}" : "<feed/>", "image/png"), SourceState::schema_drift, "image/png"},
      {"timeout", net_error(http::NetError::timeout), SourceState::timeout, ""},
      {"cancelled", net_error(http::NetError::cancelled), SourceState::timeout, ""},
      {"connection refused", net_error(http::NetError::unreachable), SourceState::unreachable, ""},
      {"TLS failure", net_error(http::NetError::tls), SourceState::unreachable, ""},
      {"dropped mid-body", net_error(http::NetError::protocol), SourceState::unreachable, ""},
      {"over the size cap", net_error(http::NetError::too_large), SourceState::error, ""},
      {"redirect to another host", net_error(http::NetError::redirect_offhost), SourceState::schema_drift, ""},
  };
  if (json) {
    rows.push_back({"malformed JSON", json_reply(R"({"items": [1, 2,, }})"), SourceState::schema_drift, "JSON"});
    rows.push_back({"JSON null", json_reply("null"), SourceState::schema_drift, ""});
    rows.push_back({"JSON number", json_reply("42"), SourceState::schema_drift, ""});
    rows.push_back({"JSON string", json_reply(R"("hits")"), SourceState::schema_drift, ""});
    rows.push_back(
        {"object of the wrong shape", json_reply(R"({"unexpected":{"nested":[1,2,3]}})"), SourceState::schema_drift, ""});
    rows.push_back({"deeply nested", json_reply(nested(20000, R"({"a":[)", "]}")), SourceState::schema_drift, ""});
    rows.push_back(
        {"huge garbage", json_reply(R"({"padding":")" + std::string(2u << 20, 'x') + "\"}"), SourceState::schema_drift, ""});
    rows.push_back({"invalid UTF-8", json_reply("{\"\xff\xfe\":\"\xc3\x28\"}"), SourceState::schema_drift, ""});
  } else {
    rows.push_back({"malformed XML", xml_reply(R"(<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>x</ti)"),
                    SourceState::schema_drift, "malformed"});
    rows.push_back({"JSON instead of XML", json_reply(R"({"entries":[]})"), SourceState::schema_drift, ""});
    rows.push_back({"RSS instead of Atom",
                    reply(200, R"(<?xml version="1.0"?><rss version="2.0"><channel/></rss>)", "application/xml"),
                    SourceState::schema_drift, ""});
    rows.push_back({"plain text", reply(200, "all good", "text/plain"), SourceState::schema_drift, ""});
    rows.push_back({"deeply nested", xml_reply(nested(20000, "<a>", "</a>")), SourceState::schema_drift, ""});
  }
  return rows;
}

HostileTable::HostileTable(const sources::Source& source, std::string route, Format format)
    : source_(source), route_(std::move(route)), format_(format), rows_(standard_hostile_answers(format)) {
  call_ = [](const sources::Source& s, sources::Env& env) {
    return s.search(make_query("rust", "2026-11-01", "2026-11-29"), env);
  };
}

HostileTable& HostileTable::valid(std::string body) {
  const std::string type = format_ == Format::json ? "application/json" : "application/atom+xml";
  rows_.push_back({"truncated", reply(200, body.substr(0, body.size() / 2), type), SourceState::schema_drift, ""});
  rows_.push_back({"valid answer", reply(200, std::move(body), type), SourceState::ok, ""});
  return *this;
}

HostileTable& HostileTable::huge(std::string head, std::function<std::string(std::size_t)> item, std::string tail,
                                 SourceState want) {
  std::string body = std::move(head);
  for (std::size_t i = 0; i < kHugeItems; ++i) body += (i ? "," : "") + item(i);
  body += tail;
  const std::string type = format_ == Format::json ? "application/json" : "application/atom+xml";
  rows_.push_back({"20,000 items", reply(200, std::move(body), type), want, ""});
  return *this;
}

HostileTable& HostileTable::also(std::string url_contains, std::string body, std::string content_type) {
  also_.emplace_back(std::move(url_contains), reply(200, std::move(body), std::move(content_type)));
  return *this;
}

HostileTable& HostileTable::config(core::Config config) {
  config_ = std::move(config);
  return *this;
}

HostileTable& HostileTable::call(Call call, int limit) {
  call_ = std::move(call);
  limit_ = limit;
  return *this;
}

HostileTable& HostileTable::listing(sources::ListingQuery query) {
  const int limit = query.limit;
  return call([q = std::move(query)](const sources::Source& s, sources::Env& env) { return s.listing(q, env); }, limit);
}

HostileTable& HostileTable::row(std::string name, http::Response reply, SourceState want, std::string reason_has) {
  rows_.push_back({std::move(name), std::move(reply), want, std::move(reason_has)});
  return *this;
}

HostileTable& HostileTable::expect(const std::string& name, SourceState want, std::string reason_has) {
  auto it = std::find_if(rows_.begin(), rows_.end(), [&](const HostileAnswer& a) { return a.name == name; });
  if (it == rows_.end()) {
    ADD_FAILURE() << "no hostile row named '" << name << "'";
    return *this;
  }
  it->want = want;
  it->reason_has = std::move(reason_has);
  return *this;
}

HostileTable& HostileTable::failures_become(SourceState state, std::string reason_prefix) {
  failures_become_ = state;
  failure_prefix_ = std::move(reason_prefix);
  return *this;
}

HostileTable& HostileTable::secret(std::string value) {
  secrets_.push_back(std::move(value));
  return *this;
}

void HostileTable::run() const {
  for (const auto& row : rows_) {
    SCOPED_TRACE(std::string(source_.id()) + " against \"" + row.name + "\"");
    FixtureFetcher f;
    f.on(route_, row.reply);  // first: the hostile answer wins over a broader route
    for (const auto& [needle, r] : also_) f.on(needle, r);
    TestEnv t(f, config_);
    sources::SourceResult r;
    try {
      r = call_(source_, t.env);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "the source threw: " << e.what();
      continue;
    }
    const bool failing = !model::answered(row.want);
    const SourceState want = failing && failures_become_ ? *failures_become_ : row.want;
    EXPECT_EQ(model::to_string(r.state), model::to_string(want)) << "reason: " << r.reason;

    if (r.state != SourceState::ok) {
      EXPECT_FALSE(r.reason.empty()) << "a degraded state needs a reason";
    }
    if (!row.reason_has.empty()) {
      EXPECT_NE(r.reason.find(row.reason_has), std::string::npos) << r.reason;
    }
    if (failing && failures_become_) {
      EXPECT_EQ(r.reason.rfind(failure_prefix_, 0), 0u) << r.reason;
    }
    EXPECT_LE(r.reason.size(), kMaxReasonBytes)
        << "a reason quotes upstream text, it does not carry it: " << r.reason.substr(0, 400);
    EXPECT_EQ(core::sanitize_utf8(r.reason), r.reason) << "reasons are valid UTF-8 without control characters";
    EXPECT_EQ(r.reason.find('\n'), std::string::npos) << "reasons are one line";
    for (const auto& secret : secrets_) EXPECT_EQ(r.reason.find(secret), std::string::npos) << "a secret leaked: " << r.reason;

    if (!model::answered(r.state)) {
      EXPECT_TRUE(r.items.empty()) << r.items.size() << " items from a failed source";
    }
    const std::size_t asked = std::max<std::size_t>(1, f.requests().size());
    EXPECT_LE(r.items.size(), static_cast<std::size_t>(limit_) * asked)
        << "a source keeps at most what it asked for: " << limit_ << " per request, " << asked << " requests";
    std::set<std::string> ids;
    const std::string prefix = std::string(source_.id()) + ":";
    for (const auto& it : r.items) {
      EXPECT_TRUE(ids.insert(it.id).second) << "duplicate id " << it.id;
      EXPECT_EQ(it.id.rfind(prefix, 0), 0u) << it.id;
      EXPECT_FALSE(it.title.empty()) << it.id;
      // The ranking weighs and the briefs name only declared fields: an undeclared one is ignored.
      for (const auto& e : it.engagement) {
        const auto declared = source_.engagement();
        EXPECT_TRUE(std::any_of(declared.begin(), declared.end(), [&](const auto& d) { return d.field == e.field; }))
            << it.id << " carries engagement field \"" << e.field << "\", which " << source_.id() << " does not declare";
      }
    }
  }
}

}  // namespace testing_support
