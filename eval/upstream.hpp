#pragma once
// The fake internet of one evaluation case: a FakeUpstream on 127.0.0.1 that answers every
// source's real endpoints in the real formats (field names and shapes as in
// tests/fixtures/e2e and tests/fixtures/real), from the case's items.
//
// Each search answers with the items that platform's own search would return for the
// query, not with the whole corpus: what a sub-query retrieves is part of what is measured.
// The matching is deliberately independent of the engine's code (its own folding):
//   hackernews     every query word in title, url, author or story text; created_at_i filters
//   reddit         every query word in title, self text or the subreddit's name
//   github         every word in name, description or topics (repos) / title or body (issues);
//                  the created:> qualifier; sorted by stars / reactions like sort= asks
//   stackexchange  every word in title, body or tags; fromdate/todate
//   polymarket     any query word in title, description or a market question (fuzzy search)
//   arxiv          the boolean all: query the source sends, submittedDate range, newest first
//   lobsters       hottest/newest/tag listings (the source filters them itself)
//   wikipedia      no article: the cases hold none (the summary's 404, as the REST API sends it)
// Words compare case- and accent-insensitively (TeX accents and HTML entities decoded, as
// the platforms index the decoded text); a word in a script without spaces matches as a
// substring. "Zuerich" is not "Zürich" to any of them.
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "case.hpp"
#include "fake_upstream.hpp"

namespace l30eval {

// Lower-cased, accents stripped, TeX accents (\"u, {\'e}) and HTML entities decoded.
std::string search_fold(std::string_view text);
// search_fold, split on ASCII punctuation and spaces; non-ASCII letters are word characters.
std::vector<std::string> search_words(std::string_view text);
// True when every query word occurs in the document (substring for non-ASCII words).
bool matches_all(const std::vector<std::string>& doc_words, const std::string& doc_folded, const std::vector<std::string>& query);

class CaseUpstream {
 public:
  // pool: every search answers with all of the source's items its date filters allow, so the
  // ranker alone is measured (l30_eval --pool), not what the sub-queries retrieve.
  explicit CaseUpstream(const Case& c, bool pool = false);
  ~CaseUpstream();
  // LAST30DAYS_HOST_MAP for the spawned binary.
  std::string host_map() const;
  testing_support::FakeReply answer(const testing_support::FakeRequest& r) const;
  int requests() const;
  // The report ids of every item some search answered with, and of the listed Lobsters
  // stories that hold one of the sub-queries sent (the source filters its listings so): what
  // reached the ranker (recall's numerator).
  std::set<std::string> served() const;
  // The searches the binary sent, per source ("hackernews" -> {"Go 1.26", ...}).
  std::map<std::string, std::set<std::string>> asked() const;
  // The paths of the requests it had no answer for (the catch-all 404): eval_test.cpp's
  // check that every source the eval runs is answered here.
  std::vector<std::string> unanswered() const;

 private:
  void record(std::string_view source, const std::string& query, const std::vector<const CaseItem*>& items) const;

  const Case& case_;
  mutable std::mutex mu_;  // the fake answers on its own threads
  mutable std::set<std::string> served_;
  mutable std::map<std::string, std::set<std::string>> asked_;
  mutable std::vector<std::string> unanswered_;
  bool pool_ = false;
  std::unique_ptr<testing_support::FakeUpstream> fake_;
};

// Each source's answer body for a list of items, exactly as the platform would send it.
std::string hn_body(const std::vector<const CaseItem*>& items, const std::string& query);
std::string reddit_atom(const std::vector<const CaseItem*>& items, const std::string& query);
std::string arctic_body(const std::vector<const CaseItem*>& items);
std::string github_body(const std::vector<const CaseItem*>& items);
std::string stackexchange_body(const std::vector<const CaseItem*>& items);
std::string lobsters_body(const std::vector<const CaseItem*>& items);
std::string polymarket_body(const std::vector<const CaseItem*>& items);
std::string arxiv_body(const std::vector<const CaseItem*>& items, const std::string& query);

}  // namespace l30eval
