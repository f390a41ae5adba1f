// "What happened" (spec §5, §9): the verified sentences of a --summarize synthesis, at the
// top of every brief, with citations [n] to the items they rest on and the cost in tokens.
#include <fmt/format.h>

#include "render/escape.hpp"
#include "render/json_parts.hpp"
#include "render/render.hpp"

namespace render {

namespace {

std::string usage_line(const model::Synthesis& s) {
  return fmt::format("model {} · {}{} prompt + {} completion tokens · {:.1f} s", s.model, s.usage.estimated ? "~" : "",
                     s.usage.prompt_tokens, s.usage.completion_tokens, static_cast<double>(s.elapsed_ms) / 1000.0);
}

std::string dropped_line(const model::Synthesis& s) {
  if (s.dropped == 0) return {};
  std::map<std::string, int> by_check;
  for (const auto& st : s.sentences)
    if (st.failed_check) by_check[st.failed_check->substr(0, st.failed_check->find(':'))]++;
  static const std::map<std::string, std::string> kWords{{"uncited", "cited nothing"},
                                                         {"unknown-cite", "cited an item not in the report"},
                                                         {"number", "had a number in no cited item"},
                                                         {"quote", "quoted words in no cited item"},
                                                         {"name", "named someone or something in no cited item"},
                                                         {"malformed", "had no text"},
                                                         {"too-long", "was too long"}};
  std::string parts;
  for (const auto& [check, n] : by_check) {
    const auto w = kWords.find(check);
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", n, w == kWords.end() ? check : w->second);
  }
  return fmt::format("{} {} dropped by the citation check: {}", s.dropped, s.dropped == 1 ? "sentence" : "sentences", parts);
}

}  // namespace

std::string synthesis_dropped(const model::Synthesis& s) { return dropped_line(s); }

std::string synthesis_compact(const model::Synthesis& s) {
  std::string out = "What happened · " + term::text(usage_line(s)) + "\n";
  if (s.error && s.kept() == 0) {
    out += "  (no synthesis: " + term::text(*s.error) + ")\n";
  } else {
    for (const auto& st : s.sentences) {
      if (!st.verified) continue;
      std::string refs;
      for (const auto& id : st.cites) refs += fmt::format("[{}]", s.number_of(id));
      out += "  " + term::text(st.text) + " " + refs + "\n";
    }
    for (std::size_t k = 0; k < s.sources.size(); ++k)
      out += fmt::format("    [{}] {} {}\n", k + 1, term::text(s.sources[k].title), term::url(s.sources[k].url));
  }
  if (const auto d = dropped_line(s); !d.empty()) out += "  " + term::text(d) + "\n";
  return out + "\n";
}

std::string synthesis_markdown(const model::Synthesis& s, std::string_view level) {
  std::string out = fmt::format("{} What happened\n\n", level);
  if (s.error && s.kept() == 0) {
    out += "*No synthesis: " + md::text(*s.error) + "*\n\n";
  } else {
    for (const auto& st : s.sentences) {
      if (!st.verified) continue;
      std::string refs;
      for (const auto& id : st.cites) {
        const auto n = s.number_of(id);
        refs += md::link(fmt::format("[{}]", n), n > 0 ? s.sources[n - 1].url : "");
      }
      out += "- " + md::text(st.text) + " " + refs + "\n";
    }
    out += "\n";
  }
  out += "*" + md::text(usage_line(s));
  if (const auto d = dropped_line(s); !d.empty()) out += " · " + md::text(d);
  return out + "*\n\n";
}

std::string synthesis_html(const model::Synthesis& s) {
  std::string out = "<section class=\"synthesis\">\n<h2>What happened</h2>\n";
  if (s.error && s.kept() == 0) {
    out += "<p class=\"notice\">No synthesis: " + html::text(*s.error) + "</p>\n";
  } else {
    out += "<ul>\n";
    for (const auto& st : s.sentences) {
      if (!st.verified) continue;
      std::string refs;
      for (const auto& id : st.cites) {
        const auto n = s.number_of(id);
        refs += n > 0 ? html::link(s.sources[n - 1].url, fmt::format("[{}]", n)) : std::string("[?]");
      }
      out += "<li>" + html::text(st.text) + " <sup>" + refs + "</sup></li>\n";
    }
    out += "</ul>\n";
  }
  out += "<p class=\"meta\">" + html::text(usage_line(s));
  if (const auto d = dropped_line(s); !d.empty()) out += " · " + html::text(d);
  return out + "</p>\n</section>\n";
}

ojson synthesis_json(const model::Synthesis& s) {
  ojson sentences = ojson::array();
  for (const auto& st : s.sentences)
    sentences.push_back({{"text", st.text},
                         {"cites", st.cites},
                         {"verified", st.verified},
                         {"failed_check", st.failed_check ? ojson(*st.failed_check) : ojson(nullptr)}});
  ojson sources = ojson::array();
  for (std::size_t k = 0; k < s.sources.size(); ++k)
    sources.push_back({{"n", k + 1}, {"id", s.sources[k].id}, {"title", s.sources[k].title}, {"url", s.sources[k].url}});
  return {{"model", s.model},
          {"sentences", sentences},
          {"dropped", s.dropped},
          {"usage",
           {{"prompt_tokens", s.usage.prompt_tokens},
            {"completion_tokens", s.usage.completion_tokens},
            {"estimated", s.usage.estimated}}},
          {"elapsed_ms", s.elapsed_ms},
          {"error", s.error ? ojson(*s.error) : ojson(nullptr)},
          {"citations", sources}};
}

}  // namespace render
