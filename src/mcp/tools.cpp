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

constexpr std::array<std::pair<Tool, std::string_view>, 5> kTools{{{Tool::research, "research"},
                                                                   {Tool::discover, "discover"},
                                                                   {Tool::discover_nominate, "discover_nominate"},
                                                                   {Tool::discover_finalize, "discover_finalize"},
                                                                   {Tool::library_search, "library_search"}}};

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
  json item = {
      {"type", "object"},
      {"required",
       {"id", "source", "title", "url", "author", "container", "published_at", "engagement", "snippet", "scores", "cluster"}},
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
                 {"required",
                  {"rank", "name", "velocity_score", "momentum", "sources", "engagement_by_source", "evidence_urls", "command",
                   "enrichment"}},
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
          {"required",
           {"schema_version", "kind", "domain", "window", "generated_at", "source_status", "enrichment", "results", "warnings",
            "outcome"}},
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

json nominations_output_schema() {
  return {{"type", "object"},
          {"required", {"schema_version", "kind", "bundle_id", "nominations"}},
          {"properties",
           {{"schema_version", {{"type", "integer"}}},
            {"kind", {{"type", "string"}, {"const", "discovery-nominations"}}},
            {"bundle_id", {{"type", "string"}}},
            {"nominations",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"required", {"id", "name"}},
                {"properties", {{"id", {{"type", "string"}}}, {"name", {{"type", "string"}}}}}}}}}}}};
}

json library_output_schema() {
  return {
      {"type", "object"},
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
  bool boolean(const char* key, std::optional<bool>* out) {
    const json* v = get(key);
    if (v == nullptr) return true;
    if (!v->is_boolean()) return fail(fmt::format("\"{}\" must be true or false", key));
    *out = v->get<bool>();
    return true;
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

std::string tool_names() {
  std::string out;
  for (const auto& [tool, n] : kTools) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

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
       "relevance, engagement and freshness, folds cross-posts into stories. \"A vs B\" is a comparison unless "
       "no_compare. Returns the JSON report (source_status, items, clusters = stories best first, warnings, outcome) "
       "and a cited Markdown brief. Takes 5-45 s (deep: at most 50 s unless timeout_seconds); outcome \"nothing-solid\" "
       "is an honest empty answer, not an error. store: true records the run in the research store (library_search "
       "finds it later)."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"topic",
           {{"type", "string"},
            {"minLength", 1},
            {"maxLength", 300},
            {"description", "what to research, e.g. \"tokio runtime\""}}},
          {"days",
           {{"type", "integer"}, {"minimum", 1}, {"maximum", 365}, {"default", 30}, {"description", "window length in days"}}},
          {"as_of",
           {{"type", "string"},
            {"pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            {"description", "end of the window, YYYY-MM-DD (UTC); default today"}}},
          {"depth", {{"type", "string"}, {"enum", {"quick", "default", "deep"}}, {"default", "default"}}},
          {"sources",
           {{"type", "array"},
            {"items", {{"type", "string"}, {"enum", source_ids()}}},
            {"minItems", 1},
            {"description", "only these sources; default all"}}},
          {"no_compare",
           {{"type", "boolean"}, {"default", false}, {"description", "research \"A vs B\" as one phrase, not a comparison"}}},
          {"plan",
           {{"type", "object"},
            {"description",
             "your query plan, as SKILL.md describes: sub_queries [{text, weight}], synonyms {term: [other "
             "spellings]}, source_weights {source: weight}, intent"},
            {"properties",
             {{"intent", {{"type", "string"}}},
              {"sub_queries",
               {{"type", "array"},
                {"items",
                 {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}, {"weight", {{"type", "number"}}}}}}}}},
              {"synonyms", {{"type", "object"}, {"additionalProperties", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
              {"source_weights", {{"type", "object"}, {"additionalProperties", {{"type", "number"}}}}}}}}},
          {"store", {{"type", "boolean"}, {"default", false}, {"description", "record the run in the research store"}}},
          {"limit",
           {{"type", "integer"},
            {"minimum", 1},
            {"maximum", 100},
            {"description", "at most this many stories (and their items)"}}},
          {"timeout_seconds",
           {{"type", "number"},
            {"exclusiveMinimum", 0},
            {"maximum", 3600},
            {"description", "whole-run wall-clock cap; default 25 s quick, 45 s default, 50 s deep"}}}}},
        {"required", {"topic"}},
        {"additionalProperties", false}}},
      // store: true writes the research store (never deletes): not read-only.
      {"annotations", {{"readOnlyHint", false}, {"destructiveHint", false}, {"idempotentHint", false}, {"openWorldHint", true}}}};
  const json discovery_properties = {
      {"domain", {{"type", "string"}, {"description", "only this domain, e.g. \"ai\" or \"rust\"; default global"}}},
      {"days", {{"type", "integer"}, {"minimum", 1}, {"maximum", 365}, {"default", 7}, {"description", "window length in days"}}},
      {"sources",
       {{"type", "array"},
        {"items", {{"type", "string"}, {"enum", source_ids()}}},
        {"minItems", 1},
        {"description", "only these sources; default all"}}}};
  json discover_props = discovery_properties;
  discover_props["budget_seconds"] = {
      {"type", "number"},
      {"exclusiveMinimum", 0},
      {"maximum", 3600},
      {"description", fmt::format("enrichment wall-clock budget; default {:g}", kMcpEnrichBudgetSeconds)}};
  json discover = {
      {"name", "discover"},
      {"title", "What is spiking right now"},
      {"description",
       fmt::format("Discovery: nominates topics from platform listings (HN, Reddit, Lobsters, GitHub, Polymarket), enriches "
                   "the best six with quick research under a wall-clock budget, and ranks them by velocity with cross-source "
                   "corroboration. Returns the JSON report (results with rank, name, velocity_score, sources, evidence_urls, "
                   "command) and a Markdown brief. Takes listing time (at most {:g} s) plus the budget (default {:g} s, so "
                   "it answers within a minute): pass budget_seconds for a longer one (and a longer request timeout).",
                   kMcpListingSeconds, kMcpEnrichBudgetSeconds)},
      {"inputSchema", {{"type", "object"}, {"properties", discover_props}, {"additionalProperties", false}}},
      {"annotations", {{"readOnlyHint", true}, {"openWorldHint", true}}}};
  json nominate = {
      {"name", "discover_nominate"},
      {"title", "Nominate spiking topics for you to judge"},
      {"description",
       fmt::format("The host-judged discovery, leg 1: nominates up to 15 topics from platform listings (at most {:g} s) "
                   "and returns them as a bundle (bundle_id, nominations with id, name, velocity, evidence). Judge each "
                   "(a short name, junk or not, worthiness 0-100), then call discover_finalize with the bundle_id and "
                   "your judgments within an hour.",
                   kMcpListingSeconds)},
      {"inputSchema", {{"type", "object"}, {"properties", discovery_properties}, {"additionalProperties", false}}},
      {"annotations", {{"readOnlyHint", true}, {"openWorldHint", true}}}};
  json finalize = {
      {"name", "discover_finalize"},
      {"title", "Enrich and rank your judged nominations"},
      {"description",
       fmt::format("The host-judged discovery, leg 2: applies your judgments to a bundle of discover_nominate (junk "
                   "dropped, names and worthiness applied), enriches the best with research under the budget (default "
                   "{:g} s) and returns the discovery report, as discover does.",
                   kMcpEnrichBudgetSeconds)},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"bundle_id", {{"type", "string"}, {"minLength", 1}, {"description", "the bundle_id discover_nominate returned"}}},
          {"judgments",
           {{"type", "array"},
            {"items",
             {{"type", "object"},
              {"required", {"id"}},
              {"properties",
               {{"id", {{"type", "string"}, {"description", "a nomination's id (n1, n2, ...)"}}},
                {"name", {{"type", "string"}, {"maxLength", 96}}},
                {"junk", {{"type", "boolean"}}},
                {"worthiness", {{"type", "number"}, {"minimum", 0}, {"maximum", 100}}}}}}}}},
          {"budget_seconds",
           {{"type", "number"},
            {"exclusiveMinimum", 0},
            {"maximum", 3600},
            {"description", fmt::format("enrichment wall-clock budget; default {:g}", kMcpEnrichBudgetSeconds)}}}}},
        {"required", {"bundle_id", "judgments"}},
        {"additionalProperties", false}}},
      {"annotations", {{"readOnlyHint", true}, {"openWorldHint", true}}}};
  json library = {
      {"name", "library_search"},
      {"title", "Search stored findings"},
      {"description",
       "Ranked full-text search over the research store: findings of earlier runs (research with store: "
       "true, or --store at the terminal) and saved briefs, which it indexes first."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"query", {{"type", "string"}, {"minLength", 1}}},
          {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"default", app::kDefaultLibraryLimit}}}}},
        {"required", {"query"}},
        {"additionalProperties", false}}},
      // Indexing the saved briefs updates the store's index of them: a write, repeatable.
      {"annotations", {{"readOnlyHint", false}, {"destructiveHint", false}, {"idempotentHint", true}, {"openWorldHint", false}}}};
  if (with_output_schemas) {
    research["outputSchema"] = research_output_schema();
    discover["outputSchema"] = discovery_output_schema();
    finalize["outputSchema"] = discovery_output_schema();
    nominate["outputSchema"] = nominations_output_schema();
    library["outputSchema"] = library_output_schema();
  }
  return json::array({research, discover, nominate, finalize, library});
}

// What the tools' arguments are called on the command line, to speak the caller's terms.
constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kFlagNames{
    {{"run --discover --nominate-only again", "call discover_nominate again"},
     {"add --no-compare", "set \"no_compare\": true"},
     {"--no-compare", "\"no_compare\""},
     {"--plan", "plan"},
     {"--judgments", "judgments"},
     {"--days", "days"},
     {"--as-of", "as_of"},
     {"--search", "sources"},
     {"--enrich-budget", "budget_seconds"},
     {"--quick", "depth"},
     {"--discover", "domain"}}};

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

namespace {

// days, domain and sources, as research and the discovery tools read them.
bool read_days(Checker& c, std::optional<int>* out) {
  std::optional<long long> days;
  if (!c.integer("days", &days)) return false;
  if (!days) return true;
  if (*days < 1 || *days > 365) return c.fail(fmt::format("\"days\" must be between 1 and 365 (got {})", *days));
  *out = static_cast<int>(*days);
  return true;
}

bool read_sources(Checker& c, std::vector<std::string>* out) {
  const json* s = c.get("sources");
  if (s == nullptr) return true;
  if (!s->is_array() || s->empty()) return c.fail("\"sources\" must be a non-empty array of source ids");
  for (const auto& id : *s) {
    if (!id.is_string()) return c.fail("\"sources\" must be an array of source ids (strings)");
    const auto* src = sources::find(core::trim(id.get_ref<const std::string&>()));
    if (src == nullptr) {
      std::string known;
      for (const auto* k : sources::all()) known += (known.empty() ? "" : ", ") + std::string(k->id());
      return c.fail(fmt::format("sources: unknown source '{}' (known: {})", id.get<std::string>(), known));
    }
    if (std::find(out->begin(), out->end(), src->id()) == out->end()) out->emplace_back(src->id());
  }
  return true;
}

bool read_budget(Checker& c, std::optional<double>* out) {
  if (!c.number("budget_seconds", out)) return false;
  if (*out && (!std::isfinite(**out) || **out <= 0 || **out > discover::kMaxBudgetSeconds))
    return c.fail(fmt::format("\"budget_seconds\" must be a number of seconds in (0, {:g}]", discover::kMaxBudgetSeconds));
  return true;
}

bool read_discovery(Checker& c, app::DiscoveryRequest* r) {
  std::optional<int> days;
  if (!c.string("domain", &r->domain) || !read_days(c, &days) || !read_sources(c, &r->sources)) return false;
  if (!r->domain.empty() && core::trim(r->domain).empty())
    return c.fail("\"domain\" must not be blank (omit it for global discovery)");
  r->domain = core::printable_line(r->domain);
  r->days = days;
  // Under MCP a call answers within the SDK's default 60 s request timeout.
  r->timeout_seconds = kMcpListingSeconds;
  r->enrich_budget = kMcpEnrichBudgetSeconds;
  return true;
}

}  // namespace

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
      std::optional<int> days;
      std::optional<long long> limit;
      std::optional<bool> no_compare, store;
      if (!c.allowed("research",
                     {"topic", "days", "as_of", "depth", "sources", "no_compare", "plan", "store", "limit", "timeout_seconds"}) ||
          !c.string("topic", &topic, true) || !read_days(c, &days) || !c.string("as_of", &as_of) || !c.string("depth", &depth) ||
          !c.boolean("no_compare", &no_compare) || !c.boolean("store", &store) || !c.integer("limit", &limit) ||
          !c.number("timeout_seconds", &r.timeout_seconds) || !read_sources(c, &r.sources))
        return failed();
      if (topic.find_first_not_of(" \t\r\n") == std::string::npos) return c.fail("\"topic\" must not be empty"), failed();
      if (days) r.days = *days;
      if (!as_of.empty()) {
        const auto d = core::parse_date(as_of);
        if (!d)
          return c.fail(fmt::format("\"as_of\" must be a date YYYY-MM-DD from {} to today (got \"{}\")", core::format_date(0),
                                    as_of)),
                 failed();
        if (*d > core::start_of_day(today)) return c.fail("as_of is in the future"), failed();
        r.as_of = *d;
      }
      if (depth == "quick") r.depth = model::Depth::quick;
      else if (depth == "deep") r.depth = model::Depth::deep;
      else if (!depth.empty() && depth != "default")
        return c.fail(fmt::format("\"depth\" must be quick, default or deep (got \"{}\")", depth)), failed();
      if (limit) {
        if (*limit < 1 || *limit > 100) return c.fail("\"limit\" must be between 1 and 100 (stories)"), failed();
        r.limit = static_cast<int>(*limit);
      }
      if (r.timeout_seconds && (!std::isfinite(*r.timeout_seconds) || *r.timeout_seconds <= 0 || *r.timeout_seconds > 3600))
        return c.fail("\"timeout_seconds\" must be a number of seconds in (0, 3600]"), failed();
      // Under MCP a call answers within the SDK's default 60 s request timeout.
      if (!r.timeout_seconds && r.depth == model::Depth::deep) r.timeout_seconds = kMcpDeepSeconds;
      if (const json* plan = c.get("plan")) {
        if (!plan->is_object())
          return c.fail("\"plan\" must be an object (sub_queries, synonyms, source_weights, intent)"), failed();
        r.plan_json = plan->dump();
      }
      out.store = store.value_or(false);
      if (auto bad = app::settle_topic(topic, no_compare.value_or(false), r)) return c.fail(in_tool_terms(*bad)), failed();
      return valid();
    }
    case Tool::discover: {
      std::optional<double> budget;
      if (!c.allowed("discover", {"domain", "days", "sources", "budget_seconds"}) || !read_discovery(c, &out.discovery) ||
          !read_budget(c, &budget))
        return failed();
      if (budget) out.discovery.enrich_budget = *budget;
      return valid();
    }
    case Tool::discover_nominate: {
      if (!c.allowed("discover_nominate", {"domain", "days", "sources"}) || !read_discovery(c, &out.discovery)) return failed();
      return valid();
    }
    case Tool::discover_finalize: {
      std::optional<double> budget;
      std::string bundle_id;
      if (!c.allowed("discover_finalize", {"bundle_id", "judgments", "budget_seconds"}) ||
          !c.string("bundle_id", &bundle_id, true) || !read_budget(c, &budget))
        return failed();
      const json* rows = c.get("judgments");
      if (rows == nullptr) return c.fail("\"judgments\" is required (an array of {id, name, junk, worthiness})"), failed();
      std::string error;
      auto judgments = discover::parse_judgments(json{{"bundle_id", bundle_id}, {"judgments", *rows}}.dump(), &error);
      if (!judgments) return c.fail(in_tool_terms(error)), failed();
      out.judgments = std::move(*judgments);
      out.discovery.enrich_budget = budget.value_or(kMcpEnrichBudgetSeconds);
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
