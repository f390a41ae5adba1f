#pragma once
// source_status (spec §5) as JSON: the one serialisation, shared by the JSON briefs
// (ordered_json) and the discovery protocol files (json), so the field contract cannot
// drift between them. The protocol reads it back field by field (discover/protocol.cpp).
#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "model/source_state.hpp"

namespace model {

// {"<id>": {"state", "items", "reason" (null when empty), "elapsed_ms"[, "comments"]}};
// "comments" {"threads", "failed", "reason"} only when comment threads were fetched.
template <typename Json = nlohmann::ordered_json>
Json source_status_json(const std::map<std::string, SourceStatus>& status) {
  Json out = Json::object();
  for (const auto& [id, st] : status)
    out[id] = {{"state", std::string(to_string(st.state))},
               {"items", st.items},
               {"reason", st.reason.empty() ? Json(nullptr) : Json(st.reason)},
               {"elapsed_ms", st.elapsed_ms}};
  for (const auto& [id, st] : status)
    if (st.comment_threads > 0)
      out[id]["comments"] = {{"threads", st.comment_threads},
                             {"failed", st.comment_failures},
                             {"reason", st.comments_reason.empty() ? Json(nullptr) : Json(st.comments_reason)}};
  return out;
}

}  // namespace model
