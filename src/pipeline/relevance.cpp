// Relevance: how surely an item is about the topic, 0..1, from what a careful reader looks at.
//   - Every word of the topic, in the title, the text, or where the platform filed the item
//     (subreddit, tags, repository topics); near each other counts more than far apart.
//   - The topic as a phrase, in order ("Kevin Rose", "PostgreSQL 19", "force wipe").
//   - Names and versions are entities: a name written in lower case in a sentence is a
//     common word ("yields rose"); a version needs its name ("PG 19", not "19 lessons"); a
//     name part the corpus shows is always followed by a surname must be followed by the
//     topic's ("Kevin Warsh" is another Kevin); a different version is another release.
//   - Items that match none of the topic's entity words (or only generic words) stay
//     below the prune floor.
//   - Context feedback: a subreddit or tag that other strong matches share supports an
//     item; one that no strong match shares weakens it (pseudo-relevance feedback).
#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "core/fold.hpp"
#include "core/parallel.hpp"
#include "pipeline/stages.hpp"

namespace pipeline {

namespace {

constexpr double kSnippetShare = 0.7;  // a match in the text counts less than in the title
constexpr double kContextShare = 0.8;  // and where the platform filed it, a little less again
constexpr double kFarAway = 0.4;       // a word far from the rest of the topic in its field
constexpr double kFull = 1.0;
constexpr double kNear = 0.75;           // the topic's words close together, not in order
constexpr double kAbbreviation = 0.75;   // "PG 19" is probably PostgreSQL 19; "PostgreSQL 19" is
constexpr double kCoverageShare = 0.6;   // relevance = 0.6 coverage + 0.4 phrase
constexpr double kGenericOnlyCap = 0.1;  // under the prune floor
constexpr double kFound = 0.3;           // a word counts as found: anywhere in the title, even far
constexpr double kStrong = 0.75;         // a strong match, for context feedback
constexpr int kFeedbackMin = 4;          // strong matches with context before feedback means anything
constexpr double kUnsupported = 0.8, kSupported = 1.15;
constexpr double kYearEdition = 0.3;  // the share of a name's titles that write the year after it, for an edition
constexpr int kLearnMin = 3;          // occurrences before the corpus says how a word is written
constexpr double kLearnShare = 0.7;
constexpr double kMention = 0.6;          // the topic named after another of its kind, or as a reference: an aside
constexpr double kBracketShare = 0.9;     // the topic only as a bracketed tag: a little less than a subject
constexpr std::size_t kVersionReach = 3;  // "Postgres 18 to 19": a version a few words after its name

using Conflict = Evidence::Conflict;

struct Occ {
  std::uint16_t pos = 0, len = 0;
  std::uint16_t first = 0, last = 0;  // topic terms covered
  std::int16_t name = -1;             // synonym spelling, if any
  bool weak = false;
  bool valid = true;
  bool lower = false;  // a synonym the host wrote in lower case
  double strength() const { return weak ? kAbbreviation : kFull; }
  Conflict conflict = Conflict::none;
};

bool matches_at(const std::vector<MatchWord>& w, std::size_t p, const std::vector<TokenId>& seq) {
  if (seq.empty() || p + seq.size() > w.size()) return false;
  for (std::size_t k = 0; k < seq.size(); ++k) {
    if (w[p + k].id != seq[k]) return false;
    if (k > 0 && (w[p + k].flags & kBreak)) return false;
  }
  return true;
}

// What the corpus says about the topic's words, learned once per run.
struct Knowledge {
  std::vector<bool> proper;       // per term: a name (typed capitalised, or written so in the corpus)
  std::vector<bool> right_bound;  // term i is always followed by a name part: it needs term i+1
  std::vector<bool> left_bound;   // term i is always preceded by one: it needs term i-1
  std::vector<bool> entity;       // per term: counts as the topic's entity
  bool has_entity = false;
};

class Scorer {
 public:
  Scorer(const Topic& t, const TokenDict& d, const Knowledge& k) : topic_(t), dict_(d), know_(k) {
    // The topic's length in words, plus two ("Massive outage at Cloudflare" is near). Scripts
    // without spaces count characters.
    std::size_t half_words = 0;
    for (const auto& term : t.terms)
      if (!term.connector)
        for (TokenId id : term.forms[0]) half_words += core::is_ideograph_word(d.text(id)) ? 1 : 2;
    window_ = half_words + 4;
    for (const auto& term : t.terms) weighed_terms_ += !term.connector && term.weight > 0 ? 1 : 0;
    // Words that can open a match: most words of most items open none, and field() skips them.
    opens_.assign(d.size(), false);
    for (const auto& term : t.terms)
      for (const auto& form : term.forms)
        if (!form.empty()) opens_[form[0]] = true;
    for (const auto& s : t.spans)
      if (!s.seq.empty()) opens_[s.seq[0]] = true;
    // Adjacent topic words written as one label ("arcbrowser", "visionpro"), once per run.
    for (std::size_t a = 0; a < t.terms.size(); ++a) {
      std::string joined;
      for (std::size_t b = a; b < t.terms.size() && joined.size() < 64; ++b) {
        for (TokenId id : t.terms[b].forms[0]) joined += d.text(id);
        if (b > a) compounds_.push_back({a, b, joined});
      }
    }
  }

  bool entity_whole() const { return entity_whole_; }

  // Relevance of one item; fills its evidence.
  double score(const Features& f, Evidence& ev) {
    const std::size_t n = topic_.terms.size();
    title_.assign(n, 0.0);
    text_.assign(n, 0.0);
    context_.assign(n, 0.0);
    ev = Evidence{};
    bracketed_ = false;
    ev.terms = static_cast<std::uint8_t>(std::min<std::size_t>(weighed_terms_, 255));
    context(f, ev);
    const double title_phrase = field(f.title_words, f.title_case_free, true, title_, ev);
    ev.title_in_order = !f.title_words.empty() && window_share_ > 0 && window_ordered_;
    const Conflict title_conflict = ev.conflict;
    const double text_phrase = field(f.snippet_words, f.snippet_case_free, false, text_, ev);
    if (title_conflict != Conflict::none) ev.conflict = title_conflict;
    double covered = 0, entity = 0;
    int matched = 0, in_title = 0;
    bool specific = false, whole = true;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& term = topic_.terms[i];
      if (term.connector) continue;
      const double c = std::max({title_[i], kSnippetShare * text_[i], kContextShare * context_[i]});
      covered += term.weight * c;
      const int counts = term.weight > 0 ? 1 : 0;  // a dating year is no word of the subject ("why")
      matched += c >= kFound ? counts : 0;
      in_title += title_[i] >= kFound ? counts : 0;
      if (c >= kFound && !term.generic) specific = true;
      if (know_.entity[i]) {
        entity = std::max(entity, c);
        whole &= c >= kFound;
        if (title_[i] >= kFull) ev.title_entity = true;
      } else if (!know_.has_entity && !term.generic && title_[i] >= kFull) {
        ev.title_entity = true;
      }
    }
    ev.matched = static_cast<std::uint8_t>(matched);
    entity_whole_ = whole;
    ev.in_title = static_cast<std::uint8_t>(in_title);
    const double coverage = topic_.total_weight > 0 ? covered / topic_.total_weight : 0;
    const double phrase = std::max(title_phrase, kSnippetShare * text_phrase);
    if (title_phrase >= 1.0) ev.phrase = Evidence::Phrase::title;
    else if (text_phrase >= 1.0) ev.phrase = Evidence::Phrase::text;
    double r = topic_.content_terms <= 1 ? coverage : kCoverageShare * coverage + (1 - kCoverageShare) * phrase;
    const bool all_generic =
        std::all_of(topic_.terms.begin(), topic_.terms.end(), [](const TopicTerm& t) { return t.connector || t.generic; });
    if (ev.mention && !core::ablated("mention")) r *= kMention;
    else if (bracketed_) r *= kBracketShare;
    if ((know_.has_entity && entity < kFound) || (!know_.has_entity && !specific && !all_generic)) {
      ev.generic_only = matched > 0;
      r = std::min(r, kGenericOnlyCap);
    }
    return std::clamp(r, 0.0, 1.0);
  }

 private:
  // Finds the topic's terms in one field; returns its phrase score (0..1) and fills credit.
  double field(const std::vector<MatchWord>& w, bool case_free, bool title, std::vector<double>& credit, Evidence& ev) {
    window_share_ = 0;  // also when the field matches nothing: no item's score reads another's
    window_ordered_ = true;
    occ_.clear();
    if (w.empty()) return 0;
    const std::size_t n = topic_.terms.size();
    for (std::size_t p = 0; p < w.size(); ++p) {
      if (!opens_[w[p].id]) continue;
      for (std::size_t i = 0; i < n; ++i) {
        const auto& term = topic_.terms[i];
        for (std::size_t f = 0; f < term.forms.size(); ++f)
          if (matches_at(w, p, term.forms[f])) {
            occ_.push_back({static_cast<std::uint16_t>(p), static_cast<std::uint16_t>(term.forms[f].size()),
                            static_cast<std::uint16_t>(i), static_cast<std::uint16_t>(i), term.names[f], term.weak[f]});
            occ_.back().lower = f < term.lower.size() && term.lower[f];
          }
      }
      for (const auto& s : topic_.spans)
        if (matches_at(w, p, s.seq))
          occ_.push_back({static_cast<std::uint16_t>(p), static_cast<std::uint16_t>(s.seq.size()),
                          static_cast<std::uint16_t>(s.first), static_cast<std::uint16_t>(s.last), s.name, s.weak});
    }
    if (occ_.empty()) return 0;
    validate(w, case_free);
    if (title) ev.mention = names_another_first();
    // Credit: the best window of the field holds the topic; words outside it count less. A
    // window ends at a clause break: "Rust: how to force a secure wipe" is two statements.
    // Distances count the words that carry meaning, not function words or numbers: "Tokio 2.0
    // is out with a new runtime" is near; "the Rome derby and go top of Italy's" is not.
    // Counted in half words: an ideograph is half a word.
    content_pos_.resize(w.size());
    for (std::size_t p = 0, k = 0; p < w.size(); ++p) {
      content_pos_[p] = static_cast<std::uint16_t>(std::min<std::size_t>(k, 65535));
      k += (w[p].flags & (kStop | kNumber)) ? 0 : (w[p].flags & kIdeograph) ? 1 : 2;
    }
    auto window_end = [&](std::size_t from) {
      std::size_t end = from + 1;
      while (end < w.size() && !(w[end].flags & kBreak) && content_pos_[end] < content_pos_[from] + window_) ++end;
      return end;
    };
    double best = -1;
    std::size_t best_start = 0, best_end = 0;
    for (const auto& start : occ_) {
      if (!start.valid) continue;
      const std::size_t end = window_end(start.pos);
      double sum = 0;
      for (std::size_t i = 0; i < n; ++i)
        sum += first_in(i, start.pos, end) >= 0 ? topic_.terms[i].weight : 0;  // where, not how strong
      if (sum > best) best = sum, best_start = start.pos, best_end = end;
    }
    if (title && best >= 0 && !ev.mention) {
      ev.mention = named_as_reference(w, best_start);
      bracketed_ = !ev.mention && named_in_brackets(w);
    }
    int in_window = 0, framed = 0, last_pos = -1;
    double framed_weight = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (topic_.terms[i].connector) continue;
      const int at = first_in(i, best_start, best_end);
      if (at < 0) {
        if (!topic_.terms[i].generic) window_ordered_ = false;
        // The subreddit or tag frames the whole title: "r/italy: Rome approves a car-free centre".
        if (title && context_[i] >= 1) ++framed, framed_weight += topic_.terms[i].weight;
        continue;
      }
      in_window += topic_.terms[i].weight > 0 ? 1 : 0;  // a dating year is no word of the subject
      if (at < last_pos) window_ordered_ = false;
      last_pos = at;
    }
    if (in_window >= 1 && in_window + framed >= 2 && topic_.total_weight > 0)
      window_share_ = (best + framed_weight) / topic_.total_weight;
    for (const auto& o : occ_) {
      if (!o.valid) {
        if (o.conflict != Conflict::none && ev.conflict == Conflict::none) ev.conflict = o.conflict;
        continue;
      }
      const double c = o.strength() * (o.pos >= best_start && o.pos < best_end ? 1.0 : kFarAway);
      for (std::size_t i = o.first; i <= o.last; ++i) credit[i] = std::max(credit[i], c);
      if (o.name >= 0 && ev.form < 0) ev.form = o.name;
    }
    // The words together in any order ("Outage at Cloudflare") count for most of a phrase.
    return std::max(phrase(w), kNear * window_share_);
  }

  // Subject or mention: a title that names another release or another person of the name
  // before it names the topic ("Go 1.27 dev cycle opens: what just missed Go 1.26") is about
  // that other one; the topic is its aside.
  bool names_another_first() const {
    int conflict = -1, valid = -1;
    for (const auto& o : occ_) {
      if (!o.valid && (o.conflict == Conflict::other_version || o.conflict == Conflict::other_name) &&
          (conflict < 0 || o.pos < conflict))
        conflict = o.pos;
      if (o.valid && (valid < 0 || o.pos < valid)) valid = o.pos;
    }
    return conflict >= 0 && valid > conflict;
  }

  // The topic named as a reference point for another subject: "like the UK Online Safety Act",
  // "Nach dem GDL-Streik jetzt ver.di-Warnstreik", "faster than Bun". A closed class of words
  // (comparison and sequence, in the languages the stemmer and the folding cover), read
  // through an article. Not "before": "before the vote" is how a preview is titled.
  bool named_as_reference(const std::vector<MatchWord>& w, std::size_t at) const {
    static const bool off = core::ablated("reference");
    static const std::unordered_set<std::string_view> kArticles{"the", "a",  "an", "dem", "der", "die", "das", "den",
                                                                "des", "le", "la", "les", "l",   "el",  "los", "las"};
    static const std::unordered_set<std::string_view> kReference{"like", "unlike", "after", "since", "than", "nach", "seit",
                                                                 "wie", "comme", "apres", "como", "tras", "despues",
                                                                 // a time reference: what happened during it is the subject
                                                                 "during", "amid", "wahrend", "pendant", "durante"};
    if (off) return false;
    std::size_t p = at;
    while (p > 0 && !(w[p].flags & kBreak) && kArticles.count(dict_.text(w[p - 1].id)) > 0) --p;
    return p > 0 && !(w[p].flags & kBreak) && kReference.count(dict_.text(w[p - 1].id)) > 0;
  }

  // The topic only in brackets after the title's own subject: "Tokenizer-Free Machine Translation
  // (ACL 2026)", "Verizon outage today: T-Satellite (Starlink) kept working": a tag or an aside.
  // Not a label that opens the title ("[Steam Machine] Elden Ring stutters"): that names the subject.
  bool named_in_brackets(const std::vector<MatchWord>& w) const {
    static const bool off = core::ablated("brackets");
    if (off) return false;
    std::size_t first = w.size();
    for (const auto& o : occ_) {
      if (!o.valid) continue;
      if (!(w[o.pos].flags & kBracketed)) return false;
      first = std::min<std::size_t>(first, o.pos);
    }
    for (std::size_t p = 0; p < first; ++p)
      if (!(w[p].flags & (kBracketed | kStop | kNumber))) return true;
    return false;
  }

  bool covers(const Occ& o, std::size_t i) const { return o.first <= i && i <= o.last; }

  // Position of the first valid occurrence of term i in [from, to), or -1.
  int first_in(std::size_t i, std::size_t from, std::size_t to) const {
    int at = -1;
    for (const auto& o : occ_)
      if (o.valid && covers(o, i) && o.pos >= from && o.pos < to && (at < 0 || o.pos < at)) at = o.pos;
    return at;
  }

  // Something of term i ends right where position p begins (no separator between).
  bool ends_at(const std::vector<MatchWord>& w, std::size_t i, std::size_t p, bool need_valid) const {
    if (p == 0 || p > w.size() || (p < w.size() && (w[p].flags & kBreak))) return false;
    return std::any_of(occ_.begin(), occ_.end(),
                       [&](const Occ& o) { return covers(o, i) && o.pos + o.len == p && (!need_valid || o.valid); });
  }

  bool starts_at(const std::vector<MatchWord>& w, std::size_t i, std::size_t p, bool need_valid) const {
    if (p >= w.size() || (w[p].flags & kBreak)) return false;
    return std::any_of(occ_.begin(), occ_.end(),
                       [&](const Occ& o) { return covers(o, i) && o.pos == p && (!need_valid || o.valid); });
  }

  void validate(const std::vector<MatchWord>& w, bool case_free) {
    const std::size_t n = topic_.terms.size();
    for (auto& o : occ_) {
      if (o.first != o.last) continue;  // a span: a synonym or a joined spelling of several words
      const std::size_t i = o.first;
      // A name written in lower case inside a sentence is the common word ("yields rose").
      if (know_.proper[i] && !o.lower && !case_free && o.pos > 0 && (w[o.pos].flags & kLower) && !(w[o.pos].flags & kJoined)) {
        o.valid = false;
        o.conflict = Conflict::common_word;
        continue;
      }
      const std::size_t after = o.pos + o.len;
      const bool open_after = after < w.size() && !(w[after].flags & kBreak) && !(w[after - 1].flags & kPossessive);
      // A name whose version the topic gives, followed by another number: another release.
      if (i + 1 < n && topic_.terms[i + 1].version_of == static_cast<int>(i) && open_after &&
          !starts_at(w, i + 1, after, false) && (w[after].flags & kNumber) && !version_within(w, i + 1, after)) {
        o.valid = false;
        o.conflict = Conflict::other_version;
        continue;
      }
      // A name part that always takes a surname, followed by someone else's.
      if (i + 1 < n && know_.right_bound[i] && open_after && (w[after].flags & kUpper) && !starts_at(w, i + 1, after, false)) {
        o.valid = false;
        o.conflict = Conflict::other_name;
        continue;
      }
      if (i > 0 && know_.left_bound[i] && o.pos > 1 && !(w[o.pos].flags & kBreak) && !(w[o.pos - 1].flags & kPossessive) &&
          (w[o.pos - 1].flags & kUpper) && !ends_at(w, i - 1, o.pos, false)) {
        o.valid = false;
        o.conflict = Conflict::other_name;
        continue;
      }
    }
    // A version counts only after its name (or a few words after: "Postgres 18 to 19").
    for (auto& o : occ_) {
      if (o.first != o.last || !o.valid) continue;
      const int name = topic_.terms[o.first].version_of;
      if (name < 0) continue;
      // Filed under its name (r/kubernetes: "from 1.37 to 1.38") is bound too.
      bool bound = context_[static_cast<std::size_t>(name)] >= 1 && topic_.terms[o.first].forms[0].size() > 1;
      for (const auto& m : occ_)
        if (m.valid && covers(m, static_cast<std::size_t>(name)) && m.pos + m.len <= o.pos &&
            static_cast<std::size_t>(o.pos - (m.pos + m.len)) < kVersionReach && no_break(w, m.pos + m.len, o.pos))
          bound = true;
      o.valid = bound;
    }
    // An abbreviation counts only beside another word of the topic ("PG 19", not "PG&E").
    for (auto& o : occ_) {
      if (!o.weak || !o.valid) continue;
      o.valid = (o.first > 0 && ends_at(w, o.first - 1, o.pos, true)) ||
                (std::size_t{o.last} + 1 < n && starts_at(w, o.last + 1, o.pos + o.len, true));
    }
  }

  bool no_break(const std::vector<MatchWord>& w, std::size_t from, std::size_t to) const {
    for (std::size_t p = from; p <= to && p < w.size(); ++p)
      if (w[p].flags & kBreak) return false;
    return true;
  }

  // The topic's version appears within reach after position p ("18 to 19").
  bool version_within(const std::vector<MatchWord>& w, std::size_t number_term, std::size_t p) const {
    for (std::size_t q = p; q < std::min(w.size(), p + kVersionReach); ++q) {
      if (q > p && (w[q].flags & kBreak)) return false;
      for (const auto& form : topic_.terms[number_term].forms)
        if (matches_at(w, q, form)) return true;
    }
    return false;
  }

  // The longest run of consecutive topic terms written in order, as a share of the topic.
  double phrase(const std::vector<MatchWord>& w) {
    std::sort(occ_.begin(), occ_.end(), [](const Occ& a, const Occ& b) { return a.pos < b.pos; });
    chain_.assign(occ_.size(), {0.0, 0});
    double best = 0;
    int best_terms = 0;
    for (std::size_t k = 0; k < occ_.size(); ++k) {
      const Occ& o = occ_[k];
      if (!o.valid) continue;
      double weight = 0;
      int terms = 0;
      for (std::size_t i = o.first; i <= o.last; ++i) {
        weight += o.strength() * topic_.terms[i].weight;
        terms += topic_.terms[i].connector ? 0 : 1;
      }
      std::pair<double, int> prev{0.0, 0};
      if (o.first > 0 && !(w[o.pos].flags & kBreak))
        for (std::size_t j = 0; j < k; ++j)
          if (occ_[j].valid && occ_[j].last + 1 == o.first && occ_[j].pos + occ_[j].len == o.pos &&
              chain_[j].first + 1e-9 >= prev.first)
            prev = chain_[j];
      chain_[k] = {prev.first + weight, prev.second + terms};
      if (chain_[k].first > best) best = chain_[k].first, best_terms = chain_[k].second;
    }
    // A topic of one name and generic words ("Signal app", "year 2038 problem"): the name is the
    // phrase, worth its share of the topic's weight; the generic words only add to it.
    static const bool optional = !core::ablated("optional");
    const bool enough = topic_.content_terms <= 1
                            ? best_terms >= 1
                            : best_terms >= 2 || (optional && topic_.specific_terms == 1 && best >= 1.0 - 1e-9);
    return enough && topic_.total_weight > 0 ? best / topic_.total_weight : 0.0;
  }

  // Terms named by the item's context labels: a label word ("swift-concurrency"), the topic's
  // words joined ("ArcBrowser"), or a label that starts or ends with a topic word ("playrust").
  void context(const Features& f, Evidence& ev) {
    const std::size_t n = topic_.terms.size();
    for (std::size_t l = 0; l < f.context_words.size(); ++l) {
      const auto& words = f.context_words[l];
      label_.assign(n, false);
      for (std::size_t i = 0; i < n; ++i) {
        const auto& term = topic_.terms[i];
        if (term.connector) continue;
        for (std::size_t fi = 0; fi < term.forms.size() && !label_[i]; ++fi) {
          if (term.weak[fi]) continue;
          for (std::size_t p = 0; p < words.size() && !label_[i]; ++p) {
            if (!matches_at(words, p, term.forms[fi])) continue;
            // A version in a label still needs its name before it ("postgresql-19").
            if (term.version_of >= 0 && !(p > 0 && label_has(words, static_cast<std::size_t>(term.version_of), p))) continue;
            label_[i] = true;
          }
        }
      }
      const std::string& whole = dict_.text(f.context_labels[l]);
      for (std::size_t i = 0; i < n; ++i) {
        const auto& term = topic_.terms[i];
        if (term.connector || term.number || label_[i]) continue;
        for (std::size_t fi = 0; fi < term.forms.size(); ++fi) {
          if (term.weak[fi] || term.forms[fi].size() != 1) continue;
          const std::string& form = dict_.text(term.forms[fi][0]);
          if (form.size() < 4 || whole.size() < form.size() + 3) continue;
          if (whole.compare(0, form.size(), form) == 0 || whole.compare(whole.size() - form.size(), form.size(), form) == 0)
            label_[i] = true;
        }
      }
      for (const auto& c : compounds_)
        if (c.text == whole)
          for (std::size_t i = c.first; i <= c.last; ++i) label_[i] = true;
      const auto covered = static_cast<std::size_t>(std::count(label_.begin(), label_.end(), true));
      if (covered == 0) continue;
      for (std::size_t i = 0; i < n; ++i)
        if (label_[i]) context_[i] = 1;
      if (ev.context < 0) ev.context = static_cast<std::int16_t>(l);
      // The label names the whole topic ("ArcBrowser", "zurich"), not just one of its words.
      bool whole_topic = true;
      for (std::size_t i = 0; i < n; ++i) {
        const auto& term = topic_.terms[i];
        if (!term.connector && !term.generic && term.version_of < 0 && !label_[i]) whole_topic = false;
      }
      if (whole_topic) ev.context_names_topic = true;
    }
  }

  bool label_has(const std::vector<MatchWord>& words, std::size_t term, std::size_t before) const {
    for (const auto& form : topic_.terms[term].forms)
      if (before >= form.size() && matches_at(words, before - form.size(), form)) return true;
    return false;
  }

  const Topic& topic_;
  const TokenDict& dict_;
  const Knowledge& know_;
  std::vector<Occ> occ_;
  std::vector<std::pair<double, int>> chain_;
  std::vector<double> title_, text_, context_;
  std::vector<bool> label_;
  std::vector<bool> opens_;  // per token id: the first word of a topic term's form or of a span
  struct Compound {
    std::size_t first, last;
    std::string text;
  };
  std::vector<Compound> compounds_;
  std::vector<std::uint16_t> content_pos_;
  std::size_t window_ = 4;
  std::size_t weighed_terms_ = 0;  // the words a "why" counts
  bool entity_whole_ = false;      // the last item scored holds every entity word (it may lack qualifiers)
  double window_share_ = 0;        // the last field's best window, as a share of the topic's weight
  bool bracketed_ = false;         // the last item's title names the topic only in brackets
  bool window_ordered_ = false;    // ... and it holds every specific word, in the topic's order
};

// How the corpus writes the topic's words: capitalised (a name, though typed in lower case),
// and whether a name part is always followed (or preceded) by another name.
Knowledge learn(const Corpus& c) {
  const Topic& t = c.topic;
  const std::size_t n = t.terms.size();
  Knowledge k;
  k.proper.assign(n, false);
  k.right_bound.assign(n, false);
  k.left_bound.assign(n, false);
  k.entity.assign(n, false);
  struct Counts {
    int upper = 0, lower = 0;             // mid-sentence spellings
    int named_after = 0, free_after = 0;  // followed by a capitalised word other than the next term
    int named_before = 0, free_before = 0;
    int partner_after = 0, partner_before = 0;  // by the topic's own next (previous) name
    int text_upper = 0, text_lower = 0;         // mid-sentence spellings in the items' texts
  };
  std::vector<Counts> counts(n);
  std::vector<bool> counted(c.dict.size(), false);  // per token id: some term below looks at it
  for (const auto& term : t.terms)
    if (!term.connector && !term.number && term.forms[0].size() == 1) counted[term.forms[0][0]] = true;
  for (const auto& f : c.features) {
    if (f.title_case_free) continue;
    const auto& w = f.title_words;
    for (std::size_t p = 0; p < w.size(); ++p) {
      if (!counted[w[p].id]) continue;
      for (std::size_t i = 0; i < n; ++i) {
        const auto& term = t.terms[i];
        if (term.connector || term.number || term.forms[0].size() != 1 || w[p].id != term.forms[0][0]) continue;
        auto& ct = counts[i];
        if (p > 0 && !(w[p].flags & kBreak)) {
          ct.upper += (w[p].flags & kUpper) ? 1 : 0;
          ct.lower += (w[p].flags & kLower) ? 1 : 0;
        }
        const bool next_is_partner =
            i + 1 < n && !t.terms[i + 1].forms[0].empty() && p + 1 < w.size() && w[p + 1].id == t.terms[i + 1].forms[0][0];
        if (p + 1 < w.size() && !(w[p + 1].flags & kBreak) && !(w[p].flags & kPossessive))
          (!next_is_partner ? (w[p + 1].flags & kUpper ? ct.named_after : ct.free_after) : ct.partner_after) += 1;
        const bool prev_is_partner =
            i > 0 && !t.terms[i - 1].forms[0].empty() && p > 0 && w[p - 1].id == t.terms[i - 1].forms[0].back();
        if (p > 1 && !(w[p].flags & kBreak) && !(w[p - 1].flags & kPossessive))
          (!prev_is_partner ? (w[p - 1].flags & kUpper ? ct.named_before : ct.free_before) : ct.partner_before) += 1;
      }
    }
  }
  // The texts' spellings too: a name that few titles write mid-sentence ("Bun 2.0" opens most of
  // them, and "messy bun 2.0" is a hair tutorial) is written capitalised throughout the release
  // notes and benchmarks. Read only for the words the titles leave undecided: most topics are
  // typed with their names capitalised, and a text has ten times a title's words.
  const auto share = [](int yes, int no) { return yes >= kLearnMin && yes >= kLearnShare * (yes + no); };
  static const bool texts = !core::ablated("text-case");
  std::vector<bool> undecided(c.dict.size(), false);
  bool any_undecided = false;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& term = t.terms[i];
    if (term.connector || term.number || term.generic || term.forms[0].size() != 1) continue;
    if ((term.proper && !term.case_unsure) || share(counts[i].upper, counts[i].lower)) continue;
    undecided[term.forms[0][0]] = any_undecided = texts;
  }
  for (const auto& f : c.features) {
    if (!any_undecided || f.snippet_case_free) continue;
    const auto& w = f.snippet_words;
    for (std::size_t p = 1; p < w.size(); ++p) {
      if (!undecided[w[p].id] || (w[p].flags & kBreak)) continue;
      for (std::size_t i = 0; i < n; ++i) {
        const auto& term = t.terms[i];
        if (term.connector || term.number || term.forms[0].size() != 1 || w[p].id != term.forms[0][0]) continue;
        counts[i].text_upper += (w[p].flags & kUpper) ? 1 : 0;
        counts[i].text_lower += (w[p].flags & kLower) ? 1 : 0;
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto& term = t.terms[i];
    const auto& ct = counts[i];
    // A capital typed in a topic whose case says little ("Starlink Outage") gives way to the
    // corpus's lower case ("the outage") in the titles.
    const bool typed = term.proper && !(term.case_unsure && share(ct.lower, ct.upper));
    // The texts can show a name the titles are too few to show; they never unmake one the titles
    // show: prose uses the common word more freely than headlines do ("the double helix").
    const bool written = share(ct.upper, ct.lower) || share(ct.upper + ct.text_upper, ct.lower + ct.text_lower);
    k.proper[i] = typed || (!term.connector && !term.number && !term.generic && written);
  }
  // Binding only between two names written next to each other in the topic. A first name the
  // corpus nearly always writes before a name (its partner counted: "Adam Smith" fifteen times)
  // and once before another ("Sen. Adam Schiff") is bound too: that once is someone else.
  static const bool partners = !core::ablated("bind");
  const auto bound = [&](int named, int free, int partner) {
    return share(named, free) || (partners && named >= 1 && share(named + partner, free));
  };
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (!k.proper[i] || !k.proper[i + 1]) continue;
    k.right_bound[i] = bound(counts[i].named_after, counts[i].free_after, counts[i].partner_after);
    k.left_bound[i + 1] = bound(counts[i + 1].named_before, counts[i + 1].free_before, counts[i + 1].partner_before);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto& term = t.terms[i];
    k.entity[i] = !term.connector && !term.number &&
                  (k.proper[i] || term.shaped || (i + 1 < n && t.terms[i + 1].version_of == static_cast<int>(i)));
    k.has_entity |= k.entity[i];
  }
  return k;
}

// The title says it the way the topic does: its entity, and its words close together in its
// order (or as the phrase). Such items show which sense of the words the user means.
bool says_it(const Evidence& ev) { return ev.title_entity && (ev.title_in_order || ev.phrase == Evidence::Phrase::title); }

// Pseudo-relevance feedback over context labels: where do the strong matches live?
void context_feedback(Corpus& c, std::vector<double>& rel) {
  std::unordered_map<TokenId, std::pair<int, int>> labels;  // label -> (items, strong items)
  std::vector<bool> strong(c.items.size());
  int strong_with_context = 0;
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    const auto& f = c.features[i];
    strong[i] = rel[i] >= kStrong && says_it(f.evidence);
    if (f.context_labels.empty()) continue;
    strong_with_context += strong[i] ? 1 : 0;
    for (TokenId l : f.context_labels) {
      auto& [items, good] = labels[l];
      ++items;
      good += strong[i] ? 1 : 0;
    }
  }
  // Feedback needs a profile: enough strong matches with context, and concentrated (one label
  // holds at least half of them). News spread over many subreddits says nothing.
  int top_label = 0;
  for (const auto& [label, counts] : labels) top_label = std::max(top_label, counts.second);
  if (strong_with_context < kFeedbackMin || 2 * top_label < strong_with_context) return;
  for (std::size_t i = 0; i < c.items.size(); ++i) {
    auto& f = c.features[i];
    if (f.context_labels.empty() || strong[i]) continue;
    int others = 0;
    for (TokenId l : f.context_labels) others = std::max(others, labels[l].second);
    if (f.evidence.context_names_topic) others = std::max(others, 1);  // its label names the topic itself
    f.evidence.support = static_cast<std::int8_t>(std::min(others, 2));
    if (others == 0) rel[i] *= kUnsupported;
    else if (others >= 2) rel[i] = std::min(1.0, rel[i] * kSupported);
  }
}

// Pseudo-relevance feedback over words: the strong matches show which sense of the topic's
// words the user means by the words they share (an editor's "neovim" and "keymap", a
// congressman's "NDAA" and "Pentagon"). Those words, weighted by how much more often they occur
// in the strong matches than in the pool (Robertson/Sparck Jones), are the run's sense profile,
// learned per run. An item that shares the profile is more surely about the topic, though it
// lacks a qualifier; one that shares none of it is less sure, though it holds every word.
constexpr int kSenseMinFeedback = 3;
constexpr std::size_t kSenseTerms = 30;
constexpr std::size_t kSenseSnippetWords = 40;
constexpr double kSenseLift = 0.5;        // full evidence lifts a partial match halfway to certain
constexpr double kSenseFull = 0.5;        // ... full: half the strong matches' mean evidence
constexpr double kSenseDrop = 0.2;        // none at all, in an item with text to judge, takes a fifth off
constexpr std::size_t kSenseJudged = 12;  // words an item needs before sharing none of the profile means anything

double rsj(double a, double f, double b, double n) {
  return std::log((a + 0.5) / (f - a + 0.5)) - std::log((b - a + 0.5) / (n - f - (b - a) + 0.5));
}

void sense_feedback(Corpus& c, std::vector<double>& rel, const std::vector<bool>& entity_whole) {
  const std::size_t n = c.items.size();
  std::vector<bool> feedback(n, false);
  int f_count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    feedback[i] = rel[i] >= kStrong && says_it(c.features[i].evidence);
    f_count += feedback[i] ? 1 : 0;
  }
  if (f_count < kSenseMinFeedback) return;
  // The topic's own words say nothing about its sense.
  std::vector<bool> eligible(c.dict.size(), true);
  for (const auto& term : c.topic.terms)
    for (const auto& form : term.forms)
      for (TokenId id : form) eligible[id] = false;
  for (const auto& s : c.topic.spans)
    for (TokenId id : s.seq) eligible[id] = false;
  for (TokenId id : c.topic.tokens) eligible[id] = false;
  std::vector<bool> short_word(c.dict.size());  // under 3 bytes, looked up once per word, not per occurrence
  for (TokenId id = 0; id < c.dict.size(); ++id) short_word[id] = c.dict.text(id).size() < 3;
  // Calls fn once per distinct eligible word of item i: title, the text's first words, labels.
  // stamp[id] == mark: seen in this item already.
  auto each_word = [&](std::vector<std::uint32_t>& stamp, std::size_t i, std::uint32_t mark, auto&& fn) {
    const auto& feat = c.features[i];
    auto visit = [&](const MatchWord& w) {
      if ((w.flags & (kStop | kNumber)) || !eligible[w.id] || stamp[w.id] == mark) return;
      if (!(w.flags & kIdeograph) && short_word[w.id]) return;
      stamp[w.id] = mark;
      fn(w.id);
    };
    for (const auto& w : feat.title_words) visit(w);
    for (std::size_t k = 0; k < feat.snippet_words.size() && k < kSenseSnippetWords; ++k) visit(feat.snippet_words[k]);
    for (TokenId l : feat.context_labels)
      if (l < eligible.size() && eligible[l] && stamp[l] != mark) stamp[l] = mark, fn(l);
  };
  // Both passes run chunks of items on threads (core::parallel_chunks), each chunk with stamps of
  // its own; the first counts into the chunk's own df and fdf, summed after in chunk order
  // (integers: the one pass's counts). The second writes its own items' sense and words only.
  // At most eight chunks: each holds three vectors the dictionary's size.
  const std::size_t chunk = std::max<std::size_t>(2048, (n + 7) / 8);
  const std::size_t threads = core::cpu_threads();  // read once: both passes cut the same chunks
  std::vector<std::vector<int>> df_of((n + chunk - 1) / chunk), fdf_of(df_of.size());
  core::parallel_chunks(n, chunk, threads, [&](std::size_t k, std::size_t begin, std::size_t end) {
    std::vector<std::uint32_t> stamp(c.dict.size(), ~0u);
    auto& df = df_of[k];
    auto& fdf = fdf_of[k];
    df.assign(c.dict.size(), 0);
    fdf.assign(c.dict.size(), 0);
    for (std::size_t i = begin; i < end; ++i)
      each_word(stamp, i, static_cast<std::uint32_t>(i), [&](TokenId id) {
        ++df[id];
        fdf[id] += feedback[i] ? 1 : 0;
      });
  });
  std::vector<int> df(c.dict.size(), 0), fdf(c.dict.size(), 0);
  for (std::size_t k = 0; k < df_of.size(); ++k)
    for (TokenId id = 0; id < df_of[k].size(); ++id) {
      df[id] += df_of[k][id];
      fdf[id] += fdf_of[k][id];
    }
  const double nn = static_cast<double>(n), ff = static_cast<double>(f_count);
  std::vector<std::pair<double, TokenId>> ranked;
  for (TokenId id = 0; id < df.size(); ++id) {
    if (fdf[id] < 2) continue;
    const double w = rsj(fdf[id], ff, df[id], nn);
    if (w > 0) ranked.push_back({w, id});
  }
  std::sort(ranked.begin(), ranked.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (ranked.size() > kSenseTerms) ranked.resize(kSenseTerms);
  if (ranked.empty()) return;
  std::vector<bool> profile(c.dict.size(), false);
  // Each profile word's two weights, computed once instead of at every occurrence.
  std::vector<double> weight(c.dict.size()), weight_out(c.dict.size());  // weight_out: one strong match left out
  for (const auto& [w, id] : ranked) {
    profile[id] = true;
    weight[id] = rsj(fdf[id], ff, df[id], nn);
    weight_out[id] = fdf[id] >= 2 ? rsj(fdf[id] - 1, ff - 1, df[id] - 1, nn - 1) : 0.0;
  }
  // Each item's evidence; a strong match is measured against the others (leave one out).
  std::vector<double> sense(n, 0.0);
  std::vector<std::size_t> words(n, 0);
  core::parallel_chunks(n, chunk, threads, [&](std::size_t, std::size_t begin, std::size_t end) {
    std::vector<std::uint32_t> stamp(c.dict.size(), ~0u);
    for (std::size_t i = begin; i < end; ++i)
      each_word(stamp, i, static_cast<std::uint32_t>(i), [&](TokenId id) {
        ++words[i];
        if (!profile[id]) return;
        sense[i] += std::max(0.0, feedback[i] ? weight_out[id] : weight[id]);
      });
  });
  double ref = 0;
  for (std::size_t i = 0; i < n; ++i) ref += feedback[i] ? sense[i] : 0.0;
  ref /= ff;
  if (ref <= 0) return;
  // The strong matches define the sense: they are not judged by it. A partial match is lifted
  // only when every entity word is there (what it lacks are qualifiers: "Signal" without
  // "app"), never for a missing or miswritten name; and only an item with text enough to judge
  // is marked down for sharing nothing.
  for (std::size_t i = 0; i < n; ++i) {
    auto& ev = c.features[i].evidence;
    if (feedback[i] || ev.generic_only || rel[i] < kRelevanceFloor) continue;
    const double share = std::min(1.0, sense[i] / (kSenseFull * ref));
    ev.sense = static_cast<std::int8_t>(share >= 1 ? 2 : share > 0 ? 1 : 0);
    if (share > 0 && entity_whole[i]) rel[i] += (1 - rel[i]) * kSenseLift * share;
    else if (share == 0 && words[i] >= kSenseJudged) rel[i] -= rel[i] * kSenseDrop;
    rel[i] = std::clamp(rel[i], 0.0, 1.0);
  }
}

// Morphology: the run's words that share a topic word's Snowball stem count as that word
// ("migrating", "migrated", "migration" for "migrate"; "passkey" for "passkeys"). Only words
// that open with the stem's first letters are stemmed, so the cost is a scan of the run's
// vocabulary, not a stemmer call per word.
constexpr std::size_t kStemMin = 4;  // shorter words have too many unrelated neighbours

void add_word_forms(Corpus& c, const Knowledge& know) {
  for (std::size_t i = 0; i < c.topic.terms.size(); ++i) {
    auto& term = c.topic.terms[i];
    if (term.connector || term.number || term.forms.empty() || term.forms[0].size() != 1) continue;
    // A name (typed so, or so written in the corpus) has no other forms: "Cooking" is not Tim
    // Cook, "Signals" not the Signal app.
    static const bool names_too = core::ablated("name-stems");
    if (!names_too && know.proper[i]) continue;
    const std::string word = c.dict.text(term.forms[0][0]);
    if (word.size() < kStemMin || !std::all_of(word.begin(), word.end(), [](char ch) { return ch >= 'a' && ch <= 'z'; }))
      continue;
    const std::string stem = core::english_stem(word);
    if (stem.size() < kStemMin) continue;
    const std::string_view prefix(stem.data(), kStemMin);
    for (TokenId id = 0; id < c.dict.size(); ++id) {
      const std::string& cand = c.dict.text(id);
      if (cand.size() < stem.size() || cand.compare(0, prefix.size(), prefix) != 0 || cand == word) continue;
      if (!std::all_of(cand.begin(), cand.end(), [](char ch) { return ch >= 'a' && ch <= 'z'; })) continue;
      if (core::english_stem(cand) != stem) continue;
      if (std::any_of(term.forms.begin(), term.forms.end(), [&](const auto& f) { return f.size() == 1 && f[0] == id; })) continue;
      term.forms.push_back({id});
      term.weak.push_back(false);
      term.names.push_back(-1);
    }
  }
}

}  // namespace

bool strong_match(const model::Item& it, const Features& f) { return it.scores.relevance >= kStrong && says_it(f.evidence); }

// A year after a name (or its version) that the items rarely write after it dates the question
// ("Steam Machine 2026", "... in 2026", "Go 1.26 2026"); one they write with it names an edition
// ("ACL 2026"). A dating year says nothing of the subject (the window already dates every
// item): it weighs nothing, and an item that holds it elsewhere ("Pokémon GO Tour 2026") gains
// nothing by it.
void weigh_years(Corpus& c) {
  Topic& t = c.topic;
  for (std::size_t i = 1; i < t.terms.size(); ++i) {
    auto& year = t.terms[i];
    if (!year.number || year.forms[0].size() != 1 || year.weight == 0) continue;
    if (!is_year(c.dict.text(year.forms[0][0]))) continue;
    // The name it follows, over a function word: "Steam Machine 2026", "Steam Machine in 2026";
    // or the version ("Go 1.26 2026": its last word, "26").
    std::size_t at = i - 1;
    while (at > 0 && t.terms[at].connector) --at;
    const auto& name = t.terms[at];
    static const bool versions = !core::ablated("version-year");
    const bool version = versions && name.number && name.version_of >= 0;
    if (name.connector || (name.number && !version) || (name.forms[0].size() != 1 && !version)) continue;
    const TokenId name_id = name.forms[0].back(), year_id = year.forms[0][0];
    int named = 0, dated = 0;
    for (const auto& f : c.features)
      for (std::size_t p = 0; p < f.title_words.size(); ++p) {
        if (f.title_words[p].id != name_id) continue;
        ++named;
        std::size_t q = p + 1;
        while (q < f.title_words.size() && (f.title_words[q].flags & kStop)) ++q;
        dated += q < f.title_words.size() && f.title_words[q].id == year_id ? 1 : 0;
      }
    if (named < kLearnMin || dated >= kYearEdition * named) continue;
    t.total_weight -= year.weight;
    year.weight = 0;
    if (!year.generic) --t.specific_terms;
    year.generic = true;
  }
}

void score_relevance(Corpus& c) {
  if (c.topic.content_terms == 0) {
    for (auto& it : c.items) it.scores.relevance = 0;
    return;
  }
  if (!core::ablated("dated-year")) weigh_years(c);
  const Knowledge know = learn(c);  // reads each term's own form only
  if (!core::ablated("stem")) add_word_forms(c, know);
  const Scorer scorer(c.topic, c.dict, know);
  std::vector<double> rel(c.items.size());
  std::vector<char> whole_of(c.items.size());  // not bits: two threads write neighbours
  // An item's score reads its own features and the run's topic, dictionary and knowledge
  // only (the scorer's scratch starts afresh per item), so chunks of items score on two
  // threads, each with its own copy of the scorer, and give what one pass gives.
  core::parallel_chunks(c.items.size(), 1024, core::cpu_threads(), [&](std::size_t, std::size_t begin, std::size_t end) {
    Scorer local = scorer;
    for (std::size_t i = begin; i < end; ++i) {
      rel[i] = local.score(c.features[i], c.features[i].evidence);
      whole_of[i] = local.entity_whole();
    }
  });
  const std::vector<bool> whole(whole_of.begin(), whole_of.end());
  context_feedback(c, rel);
  if (!core::ablated("sense")) sense_feedback(c, rel, whole);
  for (std::size_t i = 0; i < c.items.size(); ++i) c.items[i].scores.relevance = rel[i];
}

}  // namespace pipeline
