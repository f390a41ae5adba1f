#pragma once
// Watch notifications (spec §3 LAST30DAYS_NOTIFY_*, §7): one message per channel per
// `watch run`, built from the `watch` digest object (the JSON `watch run --emit json`
// prints), sent through the HTTP client (webhook, Slack, Discord, ntfy) or by mail
// (http/smtp.hpp). Channel URLs are secrets: registered with the redactor when read,
// shown only masked.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/deadline.hpp"
#include "core/time.hpp"
#include "http/client.hpp"

namespace notify {

using json = nlohmann::ordered_json;

enum class Kind { webhook, slack, discord, ntfy, email };

struct Channel {
  std::string name;  // "webhook", "slack", "discord", "ntfy", "email"
  Kind kind = Kind::webhook;
  std::string url;     // a secret
  std::string masked;  // scheme://host/**** : what may be shown
  std::string from;    // email
  std::vector<std::string> to;
  std::string ca_file;  // email: LAST30DAYS_NOTIFY_SMTP_CA
};

// The channel names, in the order they are listed.
const std::vector<std::string>& channel_names();

// Every configured channel. A malformed setting is *error (a message naming the key,
// never its value) and an empty list: the caller exits 2.
std::vector<Channel> configured(const core::Config& config, std::string* error);

// scheme://host[:port]/**** (no user, password, path or query).
std::string mask(const std::string& url);

// What goes on the wire for one channel.
struct Message {
  std::string content_type;
  std::string body;                   // HTTP body, or the whole mail
  std::vector<http::Header> headers;  // HTTP only
};
// digest: {"schema_version", "kind": "watch", "generated_at", "runs": [...]}. The mail's
// Date and Message-ID come from `now`.
Message compose(const Channel& channel, const json& digest, core::UnixSeconds now);

struct Outcome {
  std::string channel;
  bool ok = false;
  int attempts = 0;
  std::string detail;  // "delivered (HTTP 200)", or why not
};

// Sends each (channel, digest) in parallel, each with up to `max_attempts` tries:
// transport errors, 5xx and 429 are retried after a backoff (1 s, 2 s, ...) or the
// Retry-After the receiver asked for, while the deadline allows; other answers are final.
std::vector<Outcome> deliver(const std::vector<std::pair<Channel, json>>& sends, http::Client& client, core::Deadline deadline,
                             core::UnixSeconds now, int max_attempts = 3);

// A digest with one sample run, for `watch notify test CHANNEL`.
json sample_digest(core::UnixSeconds now);

}  // namespace notify
