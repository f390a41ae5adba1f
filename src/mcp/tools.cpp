#include "mcp/tools.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include "core/text.hpp"
#include "discover/enrich.hpp"
#include "model/source_state.hpp"
#include "sources/source.hpp"

namespace mcp {

namespace {

constexpr std::array<std::pair<Tool, std::string_view>, 3> kTools{
    {{Tool::research, "research"}, {Tool::discover, "discover"}, {Tool::library_search, "library_search"}}};

json source_ids() {
  json ids = json::array();
  for (const auto* s : sources::all()) ids.push_back(std::string(s->id()));
  return ids;
}

json state_names() {
  json names = json::array();
  for (int i = 0; i <= static_cast<int>(model::SourceState::error); ++i)
    names.push_back(std::string(model::to_string(static_cast<model::SourceState>(i))));
  return names;
}

json window_schema() {
  return {{"type", "object"},
          {"required", {"from", "to", "days"}},
          {"properties", {{"from", {{"type", "string"}}}, {"to", {{"type", "string"}}}, {"days", {{"type", "integer"}}}}}};
}

json status_schema() {
  return {{"type", "object"},
          {"additionalProperties",
           {{"type", "object"},
            {"required", {"state", "items", "reason", "elapsed_ms"}},
            {"properties",
             {{"state", {{"type", "string"}, {"enum", state_names()}}},
              {"items", {{"type", "integer"}}},
              {"reason", {{"type", {"string", "null"}}}},
              {"elapsed_ms", {{"type", "integer"}}}}}}}};
}

json research_output_schema() {
  json item = {{"type", "object"},
               {"required", {"id", "source", "title", "url", "author", "container", "published_at", "engagement", "snippet",
                             "scores", "cluster"}},
               {"properties",
                {{"id", {{"type", "string"}}},
                 {"source", {{"type", "string"}}},
                 {"title", {{"type", "string"}}},
                 {"url", {{"type", "string"}}},
                 {"author", {{"type", {"string", "null"}}}},
                 {"published_at", {{"type", {"string", "null"}}}},
                 {"engagement", {{"type", "object"}, {"additionalProperties", {{"type", "number"}}}}},
                 {"scores", {{"type", "object"}, {"required", {"relevance", "freshness", "engagement", "final"}}}}}}};
  json cluster = {{"type", "object"},
                  {"required", {"id", "title", "score", "sources", "items", "uncertainty"}},
                  {"properties",
                   {{"title", {{"type", "string"}}},
                    {"score", {{"type", "number"}}},
                    {"sources", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                    {"items", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                    {"uncertainty", {{"type", {"string", "null"}}}}}}};
  // A topic "A vs B" is a comparison: its research objects sit under "entities".
  return {{"type", "object"},
          {"required", {"schema_version", "kind", "topic", "depth", "window", "generated_at", "warnings", "outcome"}},
          {"properties",
           {{"schema_version", {{"type", "integer"}}},
            {"kind", {{"type", "string"}, {"enum", {"research", "comparison"}}}},
            {"topic", {{"type", "string"}}},
            {"depth", {{"type", "string"}, {"enum", {"quick", "default", "deep"}}}},
            {"window", window_schema()},
            {"generated_at", {{"type", "string"}}},
            {"source_status", status_schema()},
            {"items", {{"type", "array"}, {"items", item}}},
            {"clusters", {{"type", "array"}, {"items", cluster}}},
            {"entities", {{"type", "array"}, {"items", {{"type", "object"}, {"required", {"name", "report"}}}}}},
            {"warnings", {{"type", "array"}, {"items", {{"type", "string"}}}}},
            {"outcome", {{"type", "string"}, {"enum", {"ok", "nothing-solid"}}}}}}};
}

json discovery_output_schema() {
  json result = {{"type", "object"},
                 {"required", {"rank", "name", "velocity_score", "momentum", "sources", "engagement_by_source", "evidence_urls",
                               "command", "enrichment"}},
                 {"properties",
                  {{"rank", {{"type", "integer"}}},
                   {"name", {{"type", "string"}}},
                   {"velocity_score", {{"type", "number"}}},
                   {"momentum", {{"type", "string"}}},
                   {"sources", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                   {"engagement_by_source", {{"type", "object"}, {"additionalProperties", {{"type", "number"}}}}},
                   {"evidence_urls", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                   {"command", {{"type", "string"}}},
                   {"enrichment",
                    {{"type", "object"},
                     {"required", {"status", "error", "items"}},
                     {"properties",
                      {{"status", {{"type", "string"}, {"enum", {"enriched", "nomination-only", "failed"}}}},
                       {"error", {{"type", {"string", "null"}}}},
                       {"items", {{"type", "integer"}}}}}}}}}};
  return {{"type", "object"},
          {"required", {"schema_version", "kind", "domain", "window", "generated_at", "source_status", "enrichment", "results",
                        "warnings", "outcome"}},
          {"properties",
           {{"schema_version", {{"type", "integer"}}},
            {"kind", {{"type", "string"}, {"const", "discovery"}}},
            {"domain", {{"type", "string"}}},
            {"window", window_schema()},
            {"generated_at", {{"type", "string"}}},
            {"source_status", status_schema()},
            {"enrichment", {{"type", "object"}, {"required", {"tier", "depth", "max_workers", "budget_seconds", "elapsed_ms"}}}},
            {"results", {{"type", "array"}, {"items", result}}},
            {"warnings", {{"type", "array"}, {"items", {{"type", "string"}}}}},
            {"outcome", {{"type", "string"}, {"enum", {"ok", "nothing-solid"}}}}}}};
}

json library_output_schema() {
  return {{"type", "object"},
          {"required", {"schema_version", "kind", "query", "results"}},
          {"properties",
           {{"schema_version", {{"type", "integer"}}},
            {"kind", {{"type", "string"}, {"const", "library"}}},
            {"query", {{"type", "string"}}},
            {"results",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"required", {"title", "url", "source", "first_seen", "last_seen", "sightings", "score", "snippet", "topics"}}}}}}}}};
}

struct Checker {
  const json& args;
  std::string error;

  bool allowed(std::string_view tool, std::initializer_list<std::string_view> keys) {
    for (const auto& [k, v] : args.items()) {
      if (std::find(keys.begin(), keys.end(), k) != keys.end()) continue;
      std::string list;
      for (auto key : keys) list += (list.empty() ? "" : ", ") + std::string(key);
      error = fmt::format("unknown argument \"{}\": {} takes {}", k, tool, list);
      return false;
    }
    return true;
  }
  const json* get(const char* key) const {
    auto it = args.find(key);
    return it == args.end() || it->is_null() ? nullptr : &*it;
  }
  bool string(const char* key, std::string* out, bool required = false) {
    const json* v = get(key);
    if (v == nullptr) {
      if (required) error = fmt::format("\"{}\" is required", key);
      return !required;
    }
    if (!v->is_string()) return fail(fmt::format("\"{}\" must be a string", key));
    *out = v->get<std::string>();
    return true;
  }
  bool integer(const char* key, std::optional<long long>* out) {
    const json* v = get(key);
    if (v == nullptr) return true;
    if (v->is_number_integer() || v->is_number_unsigned()) {
      *out = v->get<long long>();
      return true;
    }
    if (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>() && std::fabs(v->get<double>()) < 1e15) {
      *out = static_cast<long long>(v->get<double>());
      return true;
    }
    return fail(fmt::format("\"{}\" must be an integer", key));
  }
  bool number(const char* key, std::optional<double>* out) {
    const json* v = get(key);
    if (v == nullptr) return true;
    if (!v->is_number()) return fail(fmt::format("\"{}\" must be a number", key));
    *out = v->get<double>();
    return true;
  }
  bool fail(std::string message) {
    error = std::move(message);
    return false;
  }
};

}  // namespace

std::optional<Tool> find_tool(std::string_view name) {
  for (const auto& [tool, n] : kTools)
    if (n == name) return tool;
  return std::nullopt;
}

json tool_list(bool with_output_schemas) {
  json research = {
      {"name", "research"},
      {"title", "Research a topic (last N days)"},
      {"description",
       "What have people actually said and done about TOPIC in the last N days? Asks Hacker News, Reddit, Polymarket, "
       "GitHub, arXiv, Lobsters and Stack Exchange at once, keeps only what falls inside the window, ranks by "
       "relevance, engagement and freshness, folds cross-posts into stories. Returns the JSON report (source_status, "
       "items, clusters = stories best first, warnings, outcome) and a cited Markdown brief. Takes 5-45 s; "
       "outcome \"nothing-solid\" is an honest empty answer, not an error."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"topic", {{"type", "string"}, {"minLength", 1}, {"maxLength", 300}, {"description", "what to research, e.g. \"tokio runtime\""}}},
          {"days", {{"type", "integer"}, {"minimum", 1}, {"maximum", 365}, {"default", 30}, {"description", "window length in days"}}},
          {"as_of",
           {{"type", "string"}, {"pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}, {"description", "end of the window, YYYY-MM-DD (UTC); default today"}}},
          {"depth", {{"type", "string"}, {"enum", {"quick", "default", "deep"}}, {"default", "default"}}},
          {"sources",
           {{"type", "array"}, {"items", {{"type", "string"}, {"enum", source_ids()}}}, {"minItems", 1},
            {"description", "only these sources; default all"}}}}},
        {"required", {"topic"}},
        {"additionalProperties", false}}},
      {"annotations", {{"readOnlyHint", true}, {"openWorldHint", true}}}};
  json discover = {
      {"name", "discover"},
      {"title", "What is spiking right now"},
      {"description",
       "Discovery: nominates topics from platform listings (HN, Reddit, Lobsters, GitHub, Polymarket), enriches the best "
       "six with quick research under a wall-clock budget, and ranks them by velocity with cross-source corroboration. "
       "Returns the JSON report (results with rank, name, velocity_score, sources, evidence_urls, command) and a "
       "Markdown brief. Takes listing time (up to 25 s) plus the budget (default 240 s): pass budget_seconds to bound it."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"domain", {{"type", "string"}, {"description", "only this domain, e.g. \"ai\" or \"rust\"; default global"}}},
          {"budget_seconds",
           {{"type", "number"}, {"exclusiveMinimum", 0}, {"maximum", 3600}, {"description", "enrichment wall-clock budget; default 240"}}}}},
        {"additionalProperties", false}}},
      {"annotations", {{"readOnlyHint", true}, {"openWorldHint", true}}}};
  json library = {{"name", "library_search"},
                  {"title", "Search stored findings"},
                  {"description", "Ranked full-text search over the research store: findings of earlier runs and saved briefs."},
                  {"inputSchema",
                   {{"type", "object"},
                    {"properties",
                     {{"query", {{"type", "string"}, {"minLength", 1}}},
                      {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"default", 20}}}}},
                    {"required", {"query"}},
                    {"additionalProperties", false}}},
                  {"annotations", {{"readOnlyHint", true}}}};
  if (with_output_schemas) {
    research["outputSchema"] = research_output_schema();
    discover["outputSchema"] = discovery_output_schema();
    library["outputSchema"] = library_output_schema();
  }
  return json::array({research, discover, library});
}

// What the tools' arguments are called on the command line, to speak the caller's terms.
constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kFlagNames{
    {{"add --no-compare", "set \"no_compare\": true"}, {"--no-compare", "\"no_compare\""}, {"--plan", "plan"},
     {"--days", "days"}, {"--as-of", "as_of"}, {"--search", "sources"}, {"--enrich-budget", "budget_seconds"},
     {"--quick", "depth"}, {"--discover", "domain"}}};

std::string in_tool_terms(std::string message) {
  for (const auto& [flag, arg] : kFlagNames)
    for (auto pos = message.find(flag); pos != std::string::npos; pos = message.find(flag, pos + arg.size())) {
      const auto end = pos + flag.size();
      if (end < message.size() && (std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '-')) {
        pos = end;
        continue;
      }
      message.replace(pos, flag.size(), arg);
    }
  return message;
}

ToolCall tool_call(Tool tool, const json& arguments, core::UnixSeconds today) {
  ToolCall out;
  out.tool = tool;
  Checker c{arguments, {}};
  auto failed = [&] {
    out.error = c.error;
    return out;
  };
  auto valid = [&] {
    out.ok = true;
    return out;
  };
  switch (tool) {
    case Tool::research: {
      auto& r = out.research;
      std::string topic, as_of, depth;
      std::optional<long long> days;
      if (!c.allowed("research", {"topic", "days", "as_of", "depth", "sources"}) || !c.string("topic", &topic, true) ||
          !c.integer("days", &days) || !c.string("as_of", &as_of) || !c.string("depth", &depth))
        return failed();
      if (topic.find_first_not_of(" \t\r\n") == std::string::npos) return c.fail("\"topic\" must not be empty"), failed();
      if (days) {
        if (*days < 1 || *days > 365) return c.fail("days must be between 1 and 365"), failed();
        r.days = static_cast<int>(*days);
      }
      if (!as_of.empty()) {
        const auto d = core::parse_date(as_of);
        if (!d) return c.fail(fmt::format("as_of '{}' is not a date (YYYY-MM-DD)", as_of)), failed();
        if (*d > core::start_of_day(today)) return c.fail("as_of is in the future"), failed();
        r.as_of = *d;
      }
      if (depth == "quick") r.depth = model::Depth::quick;
      else if (depth == "deep") r.depth = model::Depth::deep;
      else if (!depth.empty() && depth != "default")
        return c.fail(fmt::format("\"depth\" must be quick, default or deep (got \"{}\")", depth)), failed();
      if (const json* s = c.get("sources")) {
        if (!s->is_array() || s->empty()) return c.fail("\"sources\" must be a non-empty array of source ids"), failed();
        for (const auto& id : *s) {
          if (!id.is_string()) return c.fail("\"sources\" must be an array of source ids (strings)"), failed();
          const auto* src = sources::find(core::trim(id.get_ref<const std::string&>()));
          if (src == nullptr) {
            std::string known;
            for (const auto* k : sources::all()) known += (known.empty() ? "" : ", ") + std::string(k->id());
            return c.fail(fmt::format("sources: unknown source '{}' (known: {})", id.get<std::string>(), known)), failed();
          }
          if (std::find(r.sources.begin(), r.sources.end(), src->id()) == r.sources.end()) r.sources.emplace_back(src->id());
        }
      }
      if (auto bad = app::settle_topic(topic, false, r)) return c.fail(in_tool_terms(*bad)), failed();
      return valid();
    }
    case Tool::discover: {
      auto& r = out.discovery;
      std::optional<double> budget;
      if (!c.allowed("discover", {"domain", "budget_seconds"}) || !c.string("domain", &r.domain) || !c.number("budget_seconds", &budget))
        return failed();
      if (!r.domain.empty() && core::trim(r.domain).empty()) return c.fail("\"domain\" must not be blank (omit it for global discovery)"), failed();
      r.domain = core::printable_line(r.domain);
      if (budget) {
        if (!std::isfinite(*budget) || *budget <= 0 || *budget > discover::kMaxBudgetSeconds)
          return c.fail(fmt::format("budget_seconds must be a number of seconds in (0, {}]", discover::kMaxBudgetSeconds)), failed();
        r.enrich_budget = *budget;
      }
      return valid();
    }
    case Tool::library_search: {
      std::string query;
      std::optional<long long> limit;
      if (!c.allowed("library_search", {"query", "limit"}) || !c.string("query", &query, true) || !c.integer("limit", &limit))
        return failed();
      if (query.find_first_not_of(" \t\r\n") == std::string::npos) return c.fail("\"query\" must not be empty"), failed();
      if (limit && (*limit < 1 || *limit > 100)) return c.fail("\"limit\" must be between 1 and 100"), failed();
      out.library.query = query;
      if (limit) out.library.limit = static_cast<int>(*limit);
      return valid();
    }
  }
  return failed();
}

}  // namespace mcp
