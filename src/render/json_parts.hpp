#pragma once
// JSON pieces shared by the research and the watch documents (one shape for an item).
#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "model/item.hpp"
#include "model/memory.hpp"
#include "model/source_state.hpp"
#include "model/synthesis.hpp"

namespace render {

using ojson = nlohmann::ordered_json;

ojson item_json(const model::Item& it);
ojson status_json(const std::map<std::string, model::SourceStatus>& source_status);
ojson synthesis_json(const model::Synthesis& s);
// Request budgets (doctor, watch list): {"day", "sources": [{source, key, limit, set_by,
// env_limit, store_limit, spent_today, request_cost}]}.
ojson budgets_json(const std::vector<model::BudgetStatus>& budgets, core::UnixSeconds now);
// The printed document: 2-space indent, invalid UTF-8 replaced, one trailing newline.
std::string dump(const ojson& doc);

}  // namespace render
