// The relevance evaluation: runs the real binary on every labelled case against the case's
// fake internet and prints nDCG@5, P@5, wrong-entity-in-top-5 and recall (relevant stories
// the searches reached) per case and overall.
//   l30_eval [--cases DIR] [--binary PATH] [--case NAME]... [--exclude GLOB]... [--show | --show-all] [--dump DIR] [--pool]
//            [--typed lower|upper|title] [--asked TEMPLATE] [--depth quick|default|deep]
//            [--gate --min-ndcg X --min-case-ndcg X --max-wrong N]
// --typed asks each topic as a user might type it instead (ASCII letters recased): the labels
// do not change with the typing, so neither should the ranking. --asked "latest {} news" asks
// it inside words that ask for the same thing ({year}: the case's own year). --depth runs every
// case at that depth (a stranger's `--quick` asks for the same stories, only fewer of them).
// Cases run concurrently, one process each (each process keeps its own per-host politeness).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "case.hpp"
#include "metrics.hpp"
#include "scenario.hpp"
#include "spawn.hpp"
#include "upstream.hpp"

using namespace l30eval;
using nlohmann::json;

namespace {

struct Options {
  std::string cases = L30_EVAL_CASES;
  std::string binary = L30_BINARY;
  std::vector<std::string> only;
  std::vector<std::string> exclude;  // case-name globs left out ("a-*")
  bool show = false;
  std::size_t show_n = kCutoff;
  std::string dump;  // write each case's report here as <case>.json
  bool gate = false;
  bool pool = false;  // every search returns the whole candidate pool: the ranker alone
  std::string typed;  // "", "lower", "upper" or "title"
  std::string asked;  // "" or a template holding "{}"
  std::string depth;  // "" (each case's own) or quick, default, deep
  double min_ndcg = 0.90, min_case_ndcg = 0.75;
  int max_wrong = 0;
};

struct Result {
  Metrics metrics;
  Recall recall;
  std::map<std::string, std::set<std::string>> asked;  // per source, the searches sent
  std::vector<json> top;                               // the report's items, best first
  std::string error;
  long elapsed_ms = 0;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "l30_eval: " << why << "\n"
            << "usage: l30_eval [--cases DIR] [--binary PATH] [--case NAME]... [--exclude GLOB]... [--show | --show-all] [--dump "
               "DIR] [--pool]\n"
            << "                [--typed lower|upper|title] [--asked TEMPLATE] [--depth quick|default|deep]\n"
            << "                [--gate [--min-ndcg X] [--min-case-ndcg X] [--max-wrong N]]\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--cases") o.cases = value();
    else if (a == "--binary") o.binary = value();
    else if (a == "--case") o.only.push_back(value());
    else if (a == "--exclude") o.exclude.push_back(value());
    else if (a == "--show") o.show = true;
    else if (a == "--show-all") o.show = true, o.show_n = 1000;
    else if (a == "--gate") o.gate = true;
    else if (a == "--pool") o.pool = true;
    else if (a == "--dump") o.dump = value();
    else if (a == "--typed") {
      o.typed = value();
      if (o.typed != "lower" && o.typed != "upper" && o.typed != "title") usage("--typed is lower, upper or title");
    } else if (a == "--asked") {
      o.asked = value();
      if (o.asked.find("{}") == std::string::npos) usage("--asked needs a template holding {} for the topic");
    } else if (a == "--depth") {
      o.depth = value();
      if (o.depth != "quick" && o.depth != "default" && o.depth != "deep") usage("--depth is quick, default or deep");
    } else if (a == "--min-ndcg") o.min_ndcg = std::stod(value());
    else if (a == "--min-case-ndcg") o.min_case_ndcg = std::stod(value());
    else if (a == "--max-wrong") o.max_wrong = std::stoi(value());
    else usage("unknown argument " + a);
  }
  return o;
}

// The topic as typed another way: ASCII letters only ("Zürich" keeps its "ü").
std::string retyped(std::string topic, const std::string& how) {
  bool word_start = true;
  for (char& ch : topic) {
    const auto u = static_cast<unsigned char>(ch);
    if (how == "lower" || (how == "title" && !word_start)) ch = static_cast<char>(std::tolower(u));
    else if (how == "upper" || how == "title") ch = static_cast<char>(std::toupper(u));
    word_start = ch == ' ';
  }
  return topic;
}

// The topic inside words that ask for the same thing: "latest {} news", "{} {year}".
std::string asked_as(const std::string& how, const Case& c) {
  std::string out = how;
  const auto put = [&out](std::string_view key, const std::string& with) {
    for (auto at = out.find(key); at != std::string::npos; at = out.find(key, at + with.size()))
      out.replace(at, key.size(), with);
  };
  put("{year}", c.as_of.substr(0, 4));
  put("{}", c.topic);
  return out;
}

Result run_case(const Case& c, const std::string& binary, const std::string& dump, bool pool) {
  Result r;
  CaseUpstream upstream(c, pool);
  testing_support::TempDir home;
  const auto env = testing_support::isolated_env(home, upstream.host_map());
  std::vector<std::string> args{binary,   c.topic, "--as-of", c.as_of, "--days", std::to_string(c.days),
                                "--emit", "json",  "--quiet"};
  if (c.depth == "quick") args.push_back("--quick");
  if (c.depth == "deep") args.push_back("--deep");
  if (c.plan) args.insert(args.end(), {"--plan", c.plan->dump()});
  const auto p = testing_support::run_binary(args, env, std::chrono::seconds(60));
  r.elapsed_ms = static_cast<long>(p.elapsed.count());
  r.recall = recall(c, upstream.served());
  r.asked = upstream.asked();
  if (p.exit_code != 0) {
    r.error = fmt::format("exit {}: {}", p.exit_code, p.err.substr(0, 300));
    return r;
  }
  if (!dump.empty()) {
    std::filesystem::create_directories(dump);
    std::ofstream(dump + "/" + c.name + ".json") << p.out;
    std::ofstream(dump + "/" + c.name + ".stderr") << p.err;
  }
  const json report = json::parse(p.out, nullptr, false);
  if (report.is_discarded() || !report.contains("items")) {
    r.error = "stdout is not a research report";
    return r;
  }
  std::vector<std::string> ranked;
  for (const auto& it : report["items"]) {
    ranked.push_back(it.value("id", ""));
    r.top.push_back(it);
  }
  r.metrics = score(c, ranked);
  if (!r.metrics.unknown.empty()) r.error = "unlabelled report items: " + r.metrics.unknown.front();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::vector<Case> cases;
  try {
    for (auto& c : load_cases(o.cases)) {
      const bool excluded = std::any_of(o.exclude.begin(), o.exclude.end(),
                                        [&](const std::string& g) { return fnmatch(g.c_str(), c.name.c_str(), 0) == 0; });
      if (!excluded && (o.only.empty() || std::find(o.only.begin(), o.only.end(), c.name) != o.only.end()))
        cases.push_back(std::move(c));
    }
    if (!o.typed.empty())
      for (auto& c : cases) c.topic = retyped(c.topic, o.typed);
    if (!o.asked.empty())
      for (auto& c : cases) c.topic = asked_as(o.asked, c);
    if (!o.depth.empty())
      for (auto& c : cases) c.depth = o.depth;
  } catch (const std::exception& e) {
    std::cerr << "l30_eval: " << e.what() << "\n";
    return 2;
  }
  if (cases.empty()) usage("no cases");

  std::vector<Result> results(cases.size());
  {
    std::vector<std::thread> workers;
    for (std::size_t i = 0; i < cases.size(); ++i)
      workers.emplace_back([&, i] {
        try {
          results[i] = run_case(cases[i], o.binary, o.dump, o.pool);
        } catch (const std::exception& e) {
          results[i].error = e.what();
        }
      });
    for (auto& w : workers) w.join();
  }

  fmt::print("{:<28} {:<34} {:>7} {:>5} {:>7} {:>13}\n", "case", "class", "nDCG@5", "P@5", "wrong@5", "recall");
  double sum_ndcg = 0, sum_p = 0, min_ndcg = 1, sum_recall = 0;
  int wrong = 0, errors = 0, reached = 0, relevant = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const auto& r = results[i];
    fmt::print("{:<28} {:<34} {:>7.3f} {:>5.2f} {:>7} {:>7} {:>5.2f}{}\n", c.name, c.cls.substr(0, 34), r.metrics.ndcg,
               r.metrics.precision, r.metrics.wrong, fmt::format("{}/{}", r.recall.reached, r.recall.relevant), r.recall.ratio(),
               r.error.empty() ? "" : "  ERROR " + r.error);
    sum_ndcg += r.metrics.ndcg;
    sum_p += r.metrics.precision;
    min_ndcg = std::min(min_ndcg, r.metrics.ndcg);
    wrong += r.metrics.wrong;
    errors += r.error.empty() ? 0 : 1;
    sum_recall += r.recall.ratio();
    reached += r.recall.reached;
    relevant += r.recall.relevant;
    if (o.show) {
      fmt::print("    topic \"{}\"\n", c.topic);
      for (const auto& [source, queries] : r.asked) {
        std::string list;
        for (const auto& q : queries) list += (list.empty() ? "" : " | ") + q;
        fmt::print("    asked {}: {}\n", source, list);
      }
      if (!r.recall.missed.empty()) {
        std::string list;
        for (const auto& id : r.recall.missed) list += (list.empty() ? "" : " ") + id;
        fmt::print("    never served (relevant): {}\n", list);
      }
      for (std::size_t k = 0; k < std::min(o.show_n, r.top.size()); ++k) {
        const auto& it = r.top[k];
        const CaseItem* labelled = c.find(it.value("id", ""));
        fmt::print("    {} {}{:<28} {:5.1f} {:.70}\n", labelled ? std::to_string(labelled->label.grade) : "?",
                   labelled && labelled->label.wrong_entity ? "W " : "  ", it.value("id", ""),
                   it.contains("scores") ? it["scores"].value("final", 0.0) : 0.0, it.value("title", ""));
        if (it.contains("why") && it["why"].is_string()) fmt::print("          why: {}\n", it["why"].get<std::string>());
      }
    }
  }
  const double n = static_cast<double>(cases.size());
  fmt::print("{:<63} {:>7.3f} {:>5.2f} {:>7} {:>7} {:>5.2f}\n",
             fmt::format("overall (mean of {} cases; lowest case {:.3f})", cases.size(), min_ndcg), sum_ndcg / n, sum_p / n,
             wrong, fmt::format("{}/{}", reached, relevant), sum_recall / n);
  fmt::print("recall: {}/{} relevant stories served over all cases ({:.2f}); mean per case {:.2f}\n", reached, relevant,
             relevant ? static_cast<double>(reached) / relevant : 1.0, sum_recall / n);
  if (!o.gate) return errors ? 1 : 0;
  bool pass = errors == 0;
  if (sum_ndcg / n < o.min_ndcg) pass = false, fmt::print("gate: overall nDCG@5 {:.3f} < {:.2f}\n", sum_ndcg / n, o.min_ndcg);
  if (min_ndcg < o.min_case_ndcg) pass = false, fmt::print("gate: a case scored {:.3f} < {:.2f}\n", min_ndcg, o.min_case_ndcg);
  if (wrong > o.max_wrong) pass = false, fmt::print("gate: {} wrong-entity items in top fives > {}\n", wrong, o.max_wrong);
  if (errors) fmt::print("gate: {} cases failed to run\n", errors);
  fmt::print("gate: {}\n", pass ? "pass" : "FAIL");
  return pass ? 0 : 1;
}
