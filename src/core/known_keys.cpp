#include "core/known_keys.hpp"

namespace core {

const std::vector<KnownKey>& known_keys() {
  static const std::vector<KnownKey> keys{
      {"GITHUB_TOKEN", "raises GitHub search limits; separate issue and PR searches"},
      {"REDDIT_CLIENT_ID", "Reddit app-only OAuth (scores and comments through the JSON API)"},
      {"REDDIT_CLIENT_SECRET", "Reddit app-only OAuth, with REDDIT_CLIENT_ID"},
      {"BSKY_HANDLE", "Bluesky search (it needs a session)"},
      {"BSKY_APP_PASSWORD", "Bluesky app password, with BSKY_HANDLE"},
      {"X_BEARER_TOKEN", "X API v2 recent search"},
      {"YOUTUBE_API_KEY", "YouTube Data API (without it: yt-dlp on PATH)"},
      {"BRAVE_API_KEY", "web search through the Brave Search API"},
      {"SEARXNG_URL", "web search through your own SearXNG instance"},
      {"STACKEXCHANGE_KEY", "raises the Stack Exchange daily quota"},
      {"LAST30DAYS_MEMORY_DIR", "where --save writes (default ~/Documents/Last30Days)"},
      {"LAST30DAYS_STORE_PATH", "the research store, SQLite (default $XDG_DATA_HOME/last30days/research.db)"},
      {"LAST30DAYS_STORE_URL", "postgresql://... a shared research store (wins over the path)"},
      {"LAST30DAYS_ENRICH_BUDGET_SECONDS", "discovery's enrichment budget"},
      {"LAST30DAYS_LLM_URL", "the synthesis (summarize): an OpenAI-compatible API's base URL (.../v1)"},
      {"LAST30DAYS_LLM_MODEL", "the synthesis (summarize): the model name"},
      {"LAST30DAYS_LLM_KEY", "the synthesis (summarize): the API key (optional for a local server)"},
      {"LAST30DAYS_LLM_MAX_PROMPT_TOKENS", "the synthesis (summarize): the prompt budget, estimated before sending (12000)"},
      {"LAST30DAYS_NOTIFY_WEBHOOK", "watch notifications: a JSON webhook URL"},
      {"LAST30DAYS_NOTIFY_SLACK", "watch notifications: a Slack incoming-webhook URL"},
      {"LAST30DAYS_NOTIFY_DISCORD", "watch notifications: a Discord webhook URL"},
      {"LAST30DAYS_NOTIFY_NTFY", "watch notifications: an ntfy topic URL"},
      {"LAST30DAYS_NOTIFY_SMTP_URL", "watch notifications by email: smtp:// or smtps:// URL"},
      {"LAST30DAYS_NOTIFY_EMAIL_FROM", "watch notifications by email: the sender"},
      {"LAST30DAYS_NOTIFY_EMAIL_TO", "watch notifications by email: recipients, comma-separated"},
      {"LAST30DAYS_NOTIFY_SMTP_CA", "watch notifications by email: a PEM CA file to trust instead of the system's"},
      {"LAST30DAYS_MACHINE_ID", "this machine's name in a shared store's saved-brief index"},
      {"LAST30DAYS_BUDGET_<SOURCE>", "a daily request budget for one source (LAST30DAYS_BUDGET_YOUTUBE=20)"},
      {"LAST30DAYS_HOST_MAP", "host=base_url pairs: send a host's requests elsewhere (mirrors, tests)"},
  };
  return keys;
}

bool is_known_key(std::string_view key) {
  if (key.rfind("LAST30DAYS_BUDGET_", 0) == 0 && key.size() > 18) return true;
  for (const auto& k : known_keys())
    if (k.name == key) return true;
  return false;
}

}  // namespace core
