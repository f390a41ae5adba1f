// Watch notifications through the real binary, to real receivers started here on
// 127.0.0.1: an HTTP server recording webhook, Slack, Discord and ntfy requests, and a
// mail server speaking STARTTLS (or smtps) with a throw-away certificate that libcurl
// verifies through LAST30DAYS_NOTIFY_SMTP_CA. Receivers that fail (500, 429 with
// Retry-After, a hang, a 451) are bounded, reported and retried at the next run.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <mutex>

#include "core/text.hpp"
#include "fake_smtp.hpp"
#include "fake_upstream.hpp"
#include "hn_world.hpp"
#include "pg_cluster.hpp"

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::vector<Story> kDay1 = {{"101", "Zig comptime explained", "https://zig.example/comptime", 10, 5},
                                  {"102", "Zig comptime generics in practice", "https://blog.example/zig-generics", 100, 8}};
// A day later: 101 went from 10 to 40 (surging), 102 from 100 to 150 (not doubled), 103 is new.
const std::vector<Story> kDay2 = {{"101", "Zig comptime explained", "https://zig.example/comptime", 40, 29},
                                  {"102", "Zig comptime generics in practice", "https://blog.example/zig-generics", 150, 32},
                                  {"103", "Zig comptime and the build system", "https://zig.example/build", 30, 2}};

// The secret part of each channel's configuration.
const char* kHookToken = "hooktok-3f9a1c77e2";
const char* kSlackToken = "slacktok-T01B02-9d8e7f6a5b";
const char* kDiscordToken = "discordtok-112233-zyxwv";
const char* kNtfyTopic = "ntfytopic-c0ffee-4242";
const char* kSmtpPassword = "mail:pass@word-5e6f";  // ':' and '@' percent-encoded in the URL
const char* kSmtpPasswordEncoded = "mail%3Apass%40word-5e6f";

// One HTTP receiver for the four HTTP channels; each path can be told how to answer.
class Receivers {
 public:
  Receivers() : http_([this](const FakeRequest& r) { return answer(r); }) {}
  void set(const std::string& channel, std::function<FakeReply()> reply) {
    std::lock_guard lock(mu_);
    replies_[channel] = std::move(reply);
  }
  std::vector<FakeRequest> got(const std::string& channel) const {
    std::vector<FakeRequest> out;
    for (const auto& e : http_.log())
      if (channel_of(e.request.path) == channel) out.push_back(e.request);
    return out;
  }
  std::vector<Exchange> exchanges(const std::string& channel) const {
    std::vector<Exchange> out;
    for (const auto& e : http_.log())
      if (channel_of(e.request.path) == channel) out.push_back(e);
    return out;
  }
  std::map<std::string, std::string> env() const {
    return {{"LAST30DAYS_NOTIFY_WEBHOOK", http_.base() + "/hook/" + kHookToken},
            {"LAST30DAYS_NOTIFY_SLACK", http_.base() + "/services/" + kSlackToken},
            {"LAST30DAYS_NOTIFY_DISCORD", http_.base() + "/api/webhooks/" + kDiscordToken},
            {"LAST30DAYS_NOTIFY_NTFY", http_.base() + "/ntfy/" + kNtfyTopic}};
  }
  std::string base() const { return http_.base(); }

 private:
  static std::string channel_of(const std::string& path) {
    if (path.rfind("/hook/", 0) == 0) return "webhook";
    if (path.rfind("/services/", 0) == 0) return "slack";
    if (path.rfind("/api/webhooks/", 0) == 0) return "discord";
    if (path.rfind("/ntfy", 0) == 0) return "ntfy";
    return "other";
  }
  FakeReply answer(const FakeRequest& r) {
    std::lock_guard lock(mu_);
    auto it = replies_.find(channel_of(r.path));
    if (it != replies_.end()) return it->second();
    return FakeReply::json("{}", 200);
  }
  mutable std::mutex mu_;
  std::map<std::string, std::function<FakeReply()>> replies_;
  FakeUpstream http_;
};

struct Mailer {
  TempDir dir;
  std::pair<std::string, std::string> cert = make_test_certificate(dir.path());
  FakeSmtp smtp{cert.first, cert.second};
  std::map<std::string, std::string> env() const {
    return {{"LAST30DAYS_NOTIFY_SMTP_URL",
             "smtp://alice:" + std::string(kSmtpPasswordEncoded) + "@127.0.0.1:" + std::to_string(smtp.port())},
            {"LAST30DAYS_NOTIFY_EMAIL_FROM", "watch@example.org"},
            {"LAST30DAYS_NOTIFY_EMAIL_TO", "me@example.org, team@example.org"},
            {"LAST30DAYS_NOTIFY_SMTP_CA", cert.first}};
  }
};

std::map<std::string, std::string> merged(std::map<std::string, std::string> a, const std::map<std::string, std::string>& b) {
  for (const auto& [k, v] : b) a[k] = v;
  return a;
}

json body_json(const FakeRequest& r) {
  auto j = json::parse(r.body, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.body;
  return j;
}

// Every text/* part of a MIME message, base64 decoded.
std::map<std::string, std::string> mime_parts(const std::string& data) {
  std::map<std::string, std::string> out;
  std::size_t pos = 0;
  while ((pos = data.find("Content-Type: text/", pos)) != std::string::npos) {
    const auto type_end = data.find(';', pos);
    const std::string type = data.substr(pos + 19, type_end - pos - 19);  // after "Content-Type: text/"
    const auto body = data.find("\r\n\r\n", pos);
    const auto next = data.find("\r\n--", body);
    std::string b64;
    for (char c : data.substr(body + 4, next - body - 4))
      if (c != '\r' && c != '\n') b64 += c;
    out[type] = core::base64_decode(b64);
    pos = next;
  }
  return out;
}

// A day passes for the watchlist: every topic is due again.
void a_day_passes(const HnWorld& w) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(w.default_db().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE watchlist SET next_due_at = next_due_at - 86400, last_run_at = last_run_at - 86400", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
}

std::string store_bytes(const HnWorld& w) {
  std::string all;
  for (const char* ext : {"", "-wal", "-shm"}) all += read_file(w.default_db() + ext);
  return all;
}

void expect_no_secret(const std::string& where, const std::string& text) {
  for (const char* s : {kHookToken, kSlackToken, kDiscordToken, kNtfyTopic, kSmtpPassword, kSmtpPasswordEncoded})
    EXPECT_EQ(text.find(s), std::string::npos) << s << " leaked into " << where;
}

std::vector<std::string> item_titles(const json& run, const char* kind) {
  std::vector<std::string> out;
  for (const auto& it : run[kind]) out.push_back(it["title"]);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(WatchNotify, TwoRunsADayApartSendOneMessagePerChannelThenSilence) {
  HnWorld w;
  Receivers rx;
  Mailer mail;
  const auto env = merged(rx.env(), mail.env());
  w.set(kDay1);
  ASSERT_EQ(w.run({"watch", "add", "zig comptime", "--search", "hn"}, env).exit_code, 0);

  // Day 1: the first run records everything, and everything is news.
  auto day1 = w.run({"watch", "run"}, env);
  ASSERT_EQ(day1.exit_code, 0) << day1.err;
  EXPECT_NE(day1.out.find("first run: 2 items recorded"), std::string::npos) << day1.out;
  for (const char* c : {"webhook", "slack", "discord", "ntfy"}) ASSERT_EQ(rx.got(c).size(), 1u) << c;
  ASSERT_EQ(mail.smtp.mails().size(), 1u);

  {  // The generic webhook: the `watch` digest, as `watch run --emit json` prints it.
    const auto r = rx.got("webhook")[0];
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.headers.at("content-type"), "application/json");
    const auto j = body_json(r);
    EXPECT_EQ(j["schema_version"], 1);
    EXPECT_EQ(j["kind"], "watch");
    ASSERT_EQ(j["runs"].size(), 1u);
    EXPECT_EQ(j["runs"][0]["topic"], "zig comptime");
    EXPECT_TRUE(j["runs"][0]["previous_run_at"].is_null());
    EXPECT_EQ(item_titles(j["runs"][0], "new"),
              (std::vector<std::string>{"Zig comptime explained", "Zig comptime generics in practice"}));
    for (const char* f : {"new", "surging", "source_status"}) EXPECT_TRUE(j["runs"][0].contains(f)) << f;
  }
  {  // Slack incoming webhook: "text" (the notification fallback) and Block Kit blocks with mrkdwn links.
    const auto j = body_json(rx.got("slack")[0]);
    ASSERT_TRUE(j["text"].is_string());
    ASSERT_TRUE(j["blocks"].is_array());
    EXPECT_LE(j["blocks"].size(), 50u);
    EXPECT_EQ(j["blocks"][0]["type"], "header");
    EXPECT_EQ(j["blocks"][0]["text"]["type"], "plain_text");
    const auto& section = j["blocks"][1];
    EXPECT_EQ(section["type"], "section");
    EXPECT_EQ(section["text"]["type"], "mrkdwn");
    const std::string text = section["text"]["text"];
    EXPECT_LE(text.size(), 3000u);
    EXPECT_NE(text.find("<https://zig.example/comptime|Zig comptime explained>"), std::string::npos) << text;
  }
  {  // Discord execute-webhook: content (<= 2000), embeds with markdown links, no mentions parsed.
    const auto j = body_json(rx.got("discord")[0]);
    ASSERT_TRUE(j["content"].is_string());
    EXPECT_LE(j["content"].get<std::string>().size(), 2000u);
    ASSERT_EQ(j["embeds"].size(), 1u);
    EXPECT_LE(j["embeds"][0]["title"].get<std::string>().size(), 256u);
    const std::string desc = j["embeds"][0]["description"];
    EXPECT_NE(desc.find("[Zig comptime explained](https://zig.example/comptime)"), std::string::npos) << desc;
    EXPECT_EQ(j["allowed_mentions"], json({{"parse", json::array()}}));
  }
  {  // ntfy, published as JSON to the server root with the topic in the body.
    const auto r = rx.got("ntfy")[0];
    EXPECT_EQ(r.path, "/ntfy/");
    const auto j = body_json(r);
    EXPECT_EQ(j["topic"], kNtfyTopic);
    EXPECT_TRUE(j["title"].is_string());
    EXPECT_NE(j["message"].get<std::string>().find("Zig comptime explained"), std::string::npos);
    EXPECT_TRUE(j["priority"].is_number_integer());
    EXPECT_TRUE(j["click"].get<std::string>().rfind("https://", 0) == 0) << j.dump();
  }
  {  // Email: STARTTLS before AUTH, both recipients, a plain-text and an HTML part.
    const auto m = mail.smtp.mails()[0];
    EXPECT_TRUE(m.tls) << "the session was upgraded with STARTTLS before AUTH and DATA";
    EXPECT_EQ(m.user, "alice");
    EXPECT_EQ(m.password, kSmtpPassword);
    EXPECT_EQ(m.from, "watch@example.org");
    EXPECT_EQ(m.rcpt, (std::vector<std::string>{"me@example.org", "team@example.org"}));
    EXPECT_NE(m.data.find("multipart/alternative"), std::string::npos);
    const auto parts = mime_parts(m.data);
    ASSERT_TRUE(parts.count("plain")) << m.data;
    ASSERT_TRUE(parts.count("html")) << m.data;
    EXPECT_NE(parts.at("plain").find("Zig comptime generics in practice"), std::string::npos);
    EXPECT_NE(parts.at("html").find("<a href=\"https://zig.example/comptime\">Zig comptime explained</a>"), std::string::npos)
        << parts.at("html");
  }

  // Day 2: one new story and one that surged, in one message per channel.
  a_day_passes(w);
  w.set(kDay2);
  auto day2 = w.run({"watch", "run"}, env);
  ASSERT_EQ(day2.exit_code, 0) << day2.err;
  EXPECT_NE(day2.out.find("1 new · 1 surging"), std::string::npos) << day2.out;
  for (const char* c : {"webhook", "slack", "discord", "ntfy"}) ASSERT_EQ(rx.got(c).size(), 2u) << c;
  ASSERT_EQ(mail.smtp.mails().size(), 2u);
  const auto j2 = body_json(rx.got("webhook")[1]);
  ASSERT_EQ(j2["runs"].size(), 1u);
  EXPECT_EQ(item_titles(j2["runs"][0], "new"), std::vector<std::string>{"Zig comptime and the build system"});
  EXPECT_EQ(item_titles(j2["runs"][0], "surging"), std::vector<std::string>{"Zig comptime explained"});
  EXPECT_EQ(j2["runs"][0]["surging"][0]["previous_engagement"], 10);
  EXPECT_NE(body_json(rx.got("slack")[1]).dump().find("surging"), std::string::npos);
  EXPECT_NE(mime_parts(mail.smtp.mails()[1].data).at("plain").find("Zig comptime and the build system"), std::string::npos);

  // Day 3: nothing new: no message, no output, exit 0.
  a_day_passes(w);
  auto day3 = w.run({"watch", "run"}, env);
  EXPECT_EQ(day3.exit_code, 0) << day3.err;
  EXPECT_EQ(day3.out, "");
  for (const char* c : {"webhook", "slack", "discord", "ntfy"}) EXPECT_EQ(rx.got(c).size(), 2u) << c;
  EXPECT_EQ(mail.smtp.mails().size(), 2u);
  auto all = w.run({"watch", "run", "--all"}, env);
  EXPECT_NE(all.out.find("nothing new since the previous run"), std::string::npos) << "--all keeps listing: " << all.out;

  auto list = w.run({"watch", "list"}, env);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("slack " + rx.base() + "/**** · last delivery "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(" ok: delivered (SMTP 250)"), std::string::npos) << list.out;
  auto list_json = parse(w.run({"watch", "list", "--emit", "json"}, env));
  ASSERT_EQ(list_json["notifications"].size(), 5u);
  for (const auto& c : list_json["notifications"]) EXPECT_EQ(c["ok"], true) << c.dump();

  for (const auto* r : {&day1, &day2, &day3, &all, &list}) {
    expect_no_secret("stdout", r->out);
    expect_no_secret("stderr", r->err);
  }
  expect_no_secret("the store", store_bytes(w));
}

TEST(WatchNotify, FailedDeliveriesAreBoundedReportedAndRetriedAtTheNextRun) {
  HnWorld w;
  Receivers rx;
  Mailer mail;
  const auto env = merged(rx.env(), mail.env());
  rx.set("webhook", [] { return FakeReply::json("{\"error\":\"down\"}", 500); });
  rx.set("slack", [] {
    auto r = FakeReply::json("rate limited", 429);
    r.headers.push_back({"Retry-After", "1"});
    return r;
  });
  rx.set("discord", [] { return FakeReply::hang(); });
  mail.smtp.set_mode(FakeSmtp::Mode::tempfail);
  w.set(kDay1);
  ASSERT_EQ(w.run({"watch", "add", "zig comptime", "--search", "hn"}, env).exit_code, 0);

  auto run = w.run({"watch", "run", "--timeout", "5"}, env);
  EXPECT_EQ(run.exit_code, 1) << "a failed delivery is the exit code's business";
  EXPECT_NE(run.out.find("first run: 2 items recorded"), std::string::npos) << "the digest is still printed: " << run.out;
  EXPECT_LT(run.elapsed, 25s) << "deliveries are bounded by the run's timeout";
  EXPECT_NE(run.err.find("notification to webhook (" + rx.base() + "/****) failed: HTTP 500"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("notification to slack"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("HTTP 429 (Retry-After 1 s)"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("notification to discord"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("notification to email"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("SMTP 451"), std::string::npos) << run.err;
  EXPECT_GE(rx.got("webhook").size(), 2u) << "a 500 is retried";
  const auto slack = rx.exchanges("slack");
  ASSERT_GE(slack.size(), 2u) << "a 429 is retried";
  EXPECT_GE(slack[1].received - slack[0].received, 900ms) << "after the Retry-After it asked for";
  EXPECT_EQ(rx.got("ntfy").size(), 1u) << "a healthy channel is not held back by the others";

  auto list = w.run({"watch", "list"}, env);
  EXPECT_NE(list.out.find("webhook " + rx.base() + "/**** · last delivery "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("FAILED: HTTP 500"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("1 digest waiting"), std::string::npos) << list.out;

  // The receivers recover; nothing is new and nothing is due, yet the undelivered news goes out.
  rx.set("webhook", [] { return FakeReply::json("{}", 200); });
  rx.set("slack", [] { return FakeReply::json("ok", 200); });
  rx.set("discord", [] { return FakeReply::json("", 204); });
  mail.smtp.set_mode(FakeSmtp::Mode::accept);
  const auto ntfy_before = rx.got("ntfy").size();
  auto retry = w.run({"watch", "run"}, env);
  EXPECT_EQ(retry.exit_code, 0) << retry.err;
  EXPECT_EQ(retry.out, "") << "nothing new: nothing printed";
  const auto last_hook = rx.got("webhook").back();
  const auto j = body_json(last_hook);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(item_titles(j["runs"][0], "new"),
            (std::vector<std::string>{"Zig comptime explained", "Zig comptime generics in practice"}));
  EXPECT_EQ(rx.got("slack").back().method, "POST");
  EXPECT_EQ(body_json(rx.got("slack").back())["blocks"][1]["type"], "section");
  EXPECT_EQ(mail.smtp.mails().size(), 1u);
  EXPECT_EQ(rx.got("ntfy").size(), ntfy_before) << "ntfy had its message: it gets no second one";
  auto again = w.run({"watch", "run"}, env);
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_EQ(mail.smtp.mails().size(), 1u) << "delivered once, sent once";
  auto ok = parse(w.run({"watch", "list", "--emit", "json"}, env));
  for (const auto& c : ok["notifications"]) {
    EXPECT_EQ(c["ok"], true) << c.dump();
    EXPECT_EQ(c["pending"], 0) << c.dump();
  }
  for (const auto* r : {&run, &list, &retry}) {
    expect_no_secret("stdout", r->out);
    expect_no_secret("stderr", r->err);
  }
  expect_no_secret("the store", store_bytes(w));
}

TEST(WatchNotify, AHungMailServerAndAnUnverifiableCertificateAreBoundedFailures) {
  HnWorld w;
  Mailer mail;
  auto env = mail.env();
  mail.smtp.set_mode(FakeSmtp::Mode::hang);
  auto hung = w.run({"watch", "notify", "test", "email", "--timeout", "3"}, env);
  EXPECT_EQ(hung.exit_code, 1);
  EXPECT_LT(hung.elapsed, 15s);
  EXPECT_NE(hung.err.find("was not delivered"), std::string::npos) << hung.err;

  mail.smtp.set_mode(FakeSmtp::Mode::accept);
  env["LAST30DAYS_NOTIFY_SMTP_CA"] = "";  // the system's CAs do not know the test certificate
  auto untrusted = w.run({"watch", "notify", "test", "email", "--timeout", "5"}, env);
  EXPECT_EQ(untrusted.exit_code, 1);
  EXPECT_NE(untrusted.err.find("tls"), std::string::npos) << "libcurl verified the certificate: " << untrusted.err;
  EXPECT_TRUE(mail.smtp.mails().empty());

  // smtps://: TLS from the first byte.
  FakeSmtp smtps(mail.cert.first, mail.cert.second, true);
  env = mail.env();
  env["LAST30DAYS_NOTIFY_SMTP_URL"] =
      "smtps://alice:" + std::string(kSmtpPasswordEncoded) + "@127.0.0.1:" + std::to_string(smtps.port());
  auto sent = w.run({"watch", "notify", "test", "email"}, env);
  EXPECT_EQ(sent.exit_code, 0) << sent.err;
  EXPECT_NE(sent.out.find("sent a sample to email (smtps://127.0.0.1:"), std::string::npos) << sent.out;
  ASSERT_EQ(smtps.mails().size(), 1u);
  EXPECT_TRUE(smtps.mails()[0].tls);
  EXPECT_EQ(smtps.mails()[0].password, kSmtpPassword);
  for (const auto* r : {&hung, &untrusted, &sent}) {
    expect_no_secret("stdout", r->out);
    expect_no_secret("stderr", r->err);
  }
}

TEST(WatchNotify, NotifyTestSendsASampleAndChannelSettingsAreChecked) {
  HnWorld w;
  Receivers rx;
  auto sent = w.run({"watch", "notify", "test", "discord"}, rx.env());
  ASSERT_EQ(sent.exit_code, 0) << sent.err;
  EXPECT_EQ(sent.out.rfind("sent a sample to discord (" + rx.base() + "/****): delivered (HTTP 200)", 0), 0u) << sent.out;
  ASSERT_EQ(rx.got("discord").size(), 1u);
  EXPECT_NE(body_json(rx.got("discord")[0])["embeds"][0]["description"].get<std::string>().find("A sample finding"),
            std::string::npos);
  EXPECT_TRUE(rx.got("slack").empty()) << "only the channel asked for";
  auto missing = w.run({"watch", "notify", "test", "email"}, rx.env());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("not configured"), std::string::npos) << missing.err;

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"LAST30DAYS_NOTIFY_SLACK",
       "http://hooks.slack.example/services/" + std::string(kSlackToken)},  // http:// only for loopback
      {"LAST30DAYS_NOTIFY_WEBHOOK", "ftp://127.0.0.1/" + std::string(kHookToken)},
      {"LAST30DAYS_NOTIFY_NTFY", "https://ntfy.example/"},
      {"LAST30DAYS_NOTIFY_SMTP_URL", "http://127.0.0.1/" + std::string(kSmtpPasswordEncoded)}};
  for (const auto& [key, value] : bad) {
    auto r = w.run({"watch", "run"}, {{key, value}});
    EXPECT_EQ(r.exit_code, 2) << key;
    EXPECT_NE(r.err.find(key), std::string::npos) << r.err;
    expect_no_secret("stderr", r.err);
    EXPECT_TRUE(r.out.empty());
  }
  for (const auto& args : std::vector<std::vector<std::string>>{{"watch", "notify"},
                                                                {"watch", "notify", "test", "pager"},
                                                                {"watch", "add", "x", "--notify", "pager"},
                                                                {"tokio", "--notify", "slack"}}) {
    auto r = w.run(args, rx.env());
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(args);
  }
}

TEST(WatchNotify, PerTopicOverridesChooseTheChannels) {
  HnWorld w;
  Receivers rx;
  w.set(kDay1);
  ASSERT_EQ(w.run({"watch", "add", "zig comptime", "--search", "hn", "--notify", "slack"}, rx.env()).exit_code, 0);
  ASSERT_EQ(w.run({"watch", "add", "zig allocators", "--search", "hn", "--notify", "none"}, rx.env()).exit_code, 0);
  ASSERT_EQ(w.run({"watch", "add", "zig build", "--search", "hn"}, rx.env()).exit_code, 0);
  auto run = w.run({"watch", "run", "--emit", "json"}, rx.env());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(parse(run)["runs"].size(), 3u);
  ASSERT_EQ(rx.got("slack").size(), 1u) << "one message batching the topics";
  const std::string slack = rx.got("slack")[0].body;
  EXPECT_NE(slack.find("zig comptime"), std::string::npos);
  EXPECT_NE(slack.find("zig build"), std::string::npos);
  EXPECT_EQ(slack.find("zig allocators"), std::string::npos) << "--notify none";
  ASSERT_EQ(rx.got("webhook").size(), 1u);
  const auto hook = body_json(rx.got("webhook")[0]);
  ASSERT_EQ(hook["runs"].size(), 1u) << hook.dump();
  EXPECT_EQ(hook["runs"][0]["topic"], "zig build");
}

// Issue 22 item 6: a digest that could not be written records nothing, so the news is
// not lost (the next run reports it again).
TEST(WatchNotify, ADigestThatCannotBeWrittenLosesNoNews) {
  HnWorld w;
  Receivers rx;
  w.set(kDay1);
  ASSERT_EQ(w.run({"watch", "add", "zig comptime", "--search", "hn"}, rx.env()).exit_code, 0);
  const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);  // only ever this test's stdout
  ASSERT_GE(full, 0);
  SpawnOptions so;
  so.stdout_fd = full;
  auto e = merged(w.env(), rx.env());
  auto lost = run_last30days({"watch", "run"}, e, so);
  ::close(full);
  EXPECT_EQ(lost.exit_code, 1);
  EXPECT_NE(lost.err.find("nothing was recorded"), std::string::npos) << lost.err;
  EXPECT_TRUE(rx.got("webhook").empty()) << "nothing is sent before the digest was written";
  EXPECT_EQ(sqlite_value(w.default_db(), "SELECT count(*) FROM runs"), "0");
  auto next = w.run({"watch", "run", "--emit", "json"}, rx.env());
  ASSERT_EQ(next.exit_code, 0) << next.err;
  const auto j = parse(next);
  ASSERT_EQ(j["runs"].size(), 1u) << "the topic is still due: " << next.out;
  EXPECT_EQ(j["runs"][0]["new"].size(), 2u) << "its news is still new";
  EXPECT_EQ(rx.got("webhook").size(), 1u);
}
