#include "discover/domains.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "core/text.hpp"
#include "sources/source.hpp"

namespace discover {

namespace {

struct Entry {
  std::vector<std::string_view> names;  // the first is the canonical one
  std::vector<std::string_view> terms;
};

// Terms are what a headline of the domain says. Which listings are a domain as a whole, and
// a platform's communities of it, are the sources' (Source::domains).
const std::vector<Entry>& table() {
  static const std::vector<Entry> kTable{
      {{"tech", "technology", "tech news"},
       {"apple",         "google",        "microsoft", "amazon",     "meta",        "nvidia",      "intel",
        "amd",           "tsmc",          "samsung",   "openai",     "anthropic",   "linux",       "windows",
        "macos",         "android",       "ios",       "iphone",     "pixel",       "chip",        "chips",
        "semiconductor", "gpu",           "cpu",       "startup",    "startups",    "software",    "hardware",
        "cloud",         "browser",       "firefox",   "chrome",     "open-source", "programming", "developer",
        "developers",    "database",      "ai",        "llm",        "gpt",         "robot",       "robotics",
        "quantum",       "cybersecurity", "privacy",   "encryption", "internet",    "broadband",   "5g",
        "spacex",        "tesla",         "github",    "tech",       "technology"}},
      {{"software", "programming", "coding", "dev", "developers", "software engineering"},
       {"software",  "programming", "code",        "coding",   "developer", "developers", "compiler",    "database",
        "framework", "library",     "runtime",     "rust",     "python",    "javascript", "typescript",  "golang",
        "java",      "kotlin",      "swift",       "c++",      "zig",       "lisp",       "haskell",     "linux",
        "kernel",    "sqlite",      "postgresql",  "postgres", "mysql",     "kubernetes", "docker",      "git",
        "github",    "api",         "open-source", "bytecode", "scheduler", "wasm",       "webassembly", "llvm"}},
      {{"ai", "a.i.", "artificial intelligence", "machine learning", "ml", "llm", "llms"},
       {"ai",
        "llm",
        "llms",
        "gpt",
        "openai",
        "anthropic",
        "claude",
        "gemini",
        "mistral",
        "deepseek",
        "llama",
        "chatgpt",
        "copilot",
        "neural",
        "transformer",
        "agent",
        "agents",
        "diffusion",
        "inference",
        "agi",
        "ml",
        "machine learning",
        "artificial intelligence"}},
      {{"security", "cybersecurity", "infosec", "netsec"},
       {"security", "vulnerability", "vulnerabilities", "cve", "exploit", "breach", "ransomware", "malware", "zero-day",
        "phishing", "backdoor", "hacked", "hackers", "infosec", "attack", "leak", "leaked", "patch", "spyware"}},
      {{"science", "research"},
       {"science",     "scientists", "physics",   "physicists", "biology",      "chemistry",    "nasa",
        "esa",         "space",      "quantum",   "research",   "researchers",  "study",        "astronomy",
        "astronomers", "climate",    "telescope", "genome",     "dna",          "fusion",       "mars",
        "moon",        "species",    "fossil",    "vaccine",    "neuroscience", "teleportation"}},
      {{"news", "world", "world news", "current events", "headlines"},
       {"election",  "government", "president", "minister", "parliament", "congress", "senate", "court",      "war",
        "ceasefire", "police",     "protest",   "protests", "killed",     "dies",     "died",   "earthquake", "storm",
        "hurricane", "flood",      "wildfire",  "rules",    "law",        "eu",       "un",     "fed"}},
      {{"business", "startups", "companies"},
       {"business", "company", "companies", "startup", "startups", "ceo", "ipo", "acquisition", "acquires", "merger", "layoffs",
        "revenue", "profit", "earnings", "funding", "valuation", "antitrust", "shareholders"}},
      {{"finance", "markets", "stocks", "economy", "economics", "investing"},
       {"stock",  "stocks",   "market", "markets", "fed",       "inflation", "rates",       "earnings",
        "nasdaq", "dow",      "s&p",    "economy", "recession", "tariff",    "tariffs",     "bond",
        "bonds",  "treasury", "bank",   "banks",   "ipo",       "gdp",       "jobs report", "interest"}},
      {{"crypto", "cryptocurrency", "bitcoin", "web3"},
       {"crypto", "bitcoin", "ethereum", "btc", "eth", "blockchain", "solana", "stablecoin", "defi", "token", "tokens", "nft",
        "coinbase", "binance", "etf"}},
      {{"gaming", "games", "video games", "videogames"},
       {"game", "games", "gaming", "gamers", "nintendo", "playstation", "ps5", "xbox", "steam", "switch", "valve", "esports",
        "gta", "zelda", "pokemon", "console"}},
      {{"sports", "sport"},
       {"nfl",      "nba",      "mlb",    "nhl",         "fifa",    "uefa",      "football",   "soccer",  "basketball",
        "baseball", "hockey",   "tennis", "golf",        "f1",      "formula 1", "olympics",   "olympic", "championship",
        "league",   "playoffs", "coach",  "quarterback", "striker", "world cup", "super bowl", "transfer"}},
      {{"politics", "policy", "government", "elections"},
       {"election", "elections", "congress",   "senate",      "president", "policy",      "government", "vote",        "voters",
        "supreme",  "court",     "parliament", "minister",    "democrats", "republicans", "governor",   "legislation", "bill",
        "campaign", "poll",      "polls",      "impeachment", "eu",        "rules",       "regulation", "fed"}},
  };
  return kTable;
}

std::string key_of(std::string_view typed) { return core::collapse_whitespace(core::casefold(core::trim(typed))); }

std::vector<std::string> strings(const std::vector<std::string_view>& v) { return {v.begin(), v.end()}; }

bool phrase_like(std::string_view term) { return term.find_first_of(" -&.+") != std::string_view::npos; }

}  // namespace

Domain resolve_domain(std::string_view typed) {
  Domain d;
  d.name = std::string(core::trim(typed));
  if (d.name.empty()) {
    d.global = true;
    return d;
  }
  const std::string key = key_of(typed);
  for (const auto& e : table()) {
    if (std::find(e.names.begin(), e.names.end(), key) == e.names.end()) continue;
    d.key = std::string(e.names.front());
    d.terms = strings(e.terms);
    return d;
  }
  for (const auto& t : core::tokenize(typed))
    if (!core::is_stopword(t) && !core::is_generic(t) && std::find(d.terms.begin(), d.terms.end(), t) == d.terms.end())
      d.terms.push_back(t);
  d.global = d.terms.empty();
  return d;
}

bool whole_listing(const Domain& d, std::string_view source) {
  const auto* listing = sources::domain_listing(source, d.key);
  return listing != nullptr && listing->whole;
}

std::vector<std::string> communities(const Domain& d, std::string_view source) {
  const auto* listing = sources::domain_listing(source, d.key);
  return listing ? strings(listing->communities) : std::vector<std::string>{};
}

bool selects(const Domain& d, const model::Item& item) {
  if (d.global || whole_listing(d, item.source)) return true;
  if (const auto* listing = sources::domain_listing(item.source, d.key); listing && item.container) {
    std::string_view community = *item.container;
    const auto meaning = sources::by_id(item.source)->context_container();
    if (meaning && community.starts_with(meaning->prefix)) community.remove_prefix(meaning->prefix.size());
    for (const auto& c : listing->communities)
      if (core::casefold(c) == core::casefold(community)) return true;
  }
  std::string text = item.title + " " + item.container.value_or("");
  for (const auto& t : item.tags) text += " " + t;
  text += " " + core::truncate_utf8(item.snippet, 300);
  const auto words = core::tokenize(text);
  const std::unordered_set<std::string> bag(words.begin(), words.end());
  for (const auto& t : d.terms) {
    if (phrase_like(t) ? core::contains_ci(text, t) : bag.count(t) > 0) return true;
  }
  return false;
}

std::string global_fallback_warning(const Domain& d) {
  if (!d.global || d.name.empty()) return {};
  return fmt::format("domain '{}' has no distinctive words (try tech, news, ai, science...): this is a global run", d.name);
}

}  // namespace discover
