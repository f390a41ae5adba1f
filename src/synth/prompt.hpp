#pragma once
// What the model is shown. Upstream text (titles, snippets, comments) is untrusted: it goes
// only into one <data> block, one item per line as a JSON object whose strings are escaped
// (and "<", ">", "&" written \u003c \u003e \u0026, so no upstream text can close the
// block or open another). The system prompt says the block is data, never instructions.
// Nothing from the environment or the configuration is ever put in a prompt.
#include <string>
#include <vector>

#include "model/comparison.hpp"
#include "model/discovery.hpp"
#include "model/memory.hpp"
#include "model/report.hpp"
#include "synth/chat.hpp"

namespace synth {

// One citable item as the model sees it and as the verifier checks it.
struct Evidence {
  std::string id;     // a report's items[].id: what a sentence cites
  std::string group;  // the comparison entity or discovery topic it belongs to, else ""
  std::string source;
  std::string title;
  std::string url;
  std::string container;
  std::string author;
  std::string date;        // YYYY-MM-DD or ""
  std::string engagement;  // "812 points · 411 comments"
  std::vector<double> engagement_values;
  std::vector<std::string> ratio_fields_pct;  // upvote ratio and odds as "97%"
  std::string snippet;
  std::vector<std::string> comments;  // quoted comments (and folded sightings' titles)
};

// The evidence of a report: its best stories' best items, their folded sightings and quotes.
std::vector<Evidence> evidence_of(const model::Report& r, const std::string& group = "");
std::vector<Evidence> evidence_of(const model::Comparison& c);  // each entity's, one pool (ids shared once)
std::vector<Evidence> evidence_of(const model::DiscoveryReport& d);
std::vector<Evidence> evidence_of(const model::WatchRun& w);

enum class Task { research, comparison, discovery, watch };

// The JSON-encoded, escaped form of an untrusted string (with its quotes).
std::string fenced(std::string_view untrusted);

std::string system_prompt();
// The user message: the task (the topic and window as escaped strings) and the data block.
std::string user_prompt(Task task, const std::string& subject, const model::Window& window,
                        const std::vector<std::string>& groups, const std::vector<Evidence>& evidence);
// The request: both messages and the JSON schema of the answer.
ChatRequest chat_request(Task task, const std::string& subject, const model::Window& window,
                         const std::vector<std::string>& groups, const std::vector<Evidence>& evidence);
// Tokens a prompt will take, estimated before sending: one per 3 bytes (on the high side
// for English and JSON escapes), plus a few per message.
long estimate_tokens(const ChatRequest& req);

}  // namespace synth
