// Text as relevance matching sees it (core/fold).
#include <gtest/gtest.h>

#include "core/fold.hpp"

using core::fold_for_match;
using core::match_words;

TEST(Fold, OneNameWhateverTheFeedWrites) {
  for (const char* written : {"Zürich", "Zurich", "ZÜRICH", "Z\\\"urich", "Z{\\\"u}rich", "Z\\\"{u}rich", "Z&uuml;rich",
                              "Z&#252;rich", "Z&#xFC;rich", "Zu\xCC\x88rich" /* decomposed */})
    EXPECT_EQ(fold_for_match(written), "zurich") << written;
  EXPECT_EQ(fold_for_match("Zuerich"), "zuerich") << "a spelling, not an accent: the topic side adds it";
  EXPECT_EQ(fold_for_match("Ørsted Straße Łódź Æsir"), "orsted strasse lodz aesir");
  EXPECT_EQ(fold_for_match("Schr\\\"odinger's \\c{c}a"), "schrodinger's ca");
  EXPECT_NE(fold_for_match("see \\cite{x}").find("cite"), std::string::npos) << "a TeX command is not an accent";
  EXPECT_EQ(fold_for_match("R&D &amp; Q&A &bogus; &#0; &#xD800;"), "r&d & q&a &bogus; &#0; &#xd800;")
      << "only real entities decode";
  EXPECT_EQ(fold_for_match(std::string("\xFF\xFE ok", 5)), "\xEF\xBF\xBD\xEF\xBF\xBD ok") << "bad UTF-8 stays valid UTF-8";
}

TEST(Fold, UmlautSpellingIsOfferedOnlyForUmlauts) {
  EXPECT_EQ(core::umlaut_spelling("Zürich"), "zuerich");
  EXPECT_EQ(core::umlaut_spelling("Köln"), "koeln");
  EXPECT_FALSE(core::umlaut_spelling("Zurich"));
  EXPECT_FALSE(core::umlaut_spelling("São"));
}

TEST(Fold, WordsKeepHowTheyWereWritten) {
  const auto w = match_words("Kevin Rose's podcast: the return of rose gardens");
  ASSERT_EQ(w.size(), 8u);
  EXPECT_EQ(w[1].text, "rose");
  EXPECT_TRUE(w[0].upper && w[1].upper && w[1].possessive);
  EXPECT_TRUE(w[2].lower && !w[2].clause_break);
  EXPECT_TRUE(w[3].clause_break) << "the colon separates two statements";
  EXPECT_TRUE(w[6].lower) << "the common word";

  const auto ids = match_words("llama.cpp, tokio-rs/tokio and c++ or c#; don't stop");
  std::vector<std::string> texts;
  for (const auto& x : ids) texts.push_back(x.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"llama", "cpp", "tokio", "rs", "tokio", "and", "c++", "or", "c#", "dont", "stop"}));
  EXPECT_TRUE(ids[0].joined && ids[1].joined && ids[2].joined && ids[4].joined);
  EXPECT_FALSE(ids[5].joined);
  EXPECT_TRUE(ids[9].clause_break);

  const auto jp = match_words("東京湾で地震");
  ASSERT_EQ(jp.size(), 6u) << "one ideograph per word, so a phrase matches inside a run";
  EXPECT_EQ(jp[0].text, "東");
  EXPECT_TRUE(jp[0].ideograph && !jp[0].kana);
  EXPECT_TRUE(jp[3].kana) << "で is a particle";
  EXPECT_TRUE(core::is_ideograph_word("東"));
  EXPECT_FALSE(core::is_ideograph_word("東京"));
  EXPECT_TRUE(match_words("").empty());
  EXPECT_TRUE(match_words(" - : ; ").empty());
}

TEST(Fold, TitleCaseSaysNothingAboutNames) {
  EXPECT_TRUE(core::case_uninformative(match_words("Kevin Warsh Confirmed As Fed Chair; Bond Yields Rose")));
  EXPECT_TRUE(core::case_uninformative(match_words("ZÜRICH HB: ALL TRAINS CANCELLED")));
  EXPECT_FALSE(core::case_uninformative(match_words("Treasury yields rose after Kevin Warsh signalled faster cuts")));
  EXPECT_FALSE(core::case_uninformative(match_words("Rose Byrne and Kevin Bacon to star in Apple TV+ thriller")));
}

TEST(Fold, AHeadlineSeparatorIsABreakOfItsOwnKind) {
  const auto w = match_words("Deadlock: the patch - notes (beta) are out! Now");
  auto find = [&](const std::string& t) {
    for (const auto& x : w)
      if (x.text == t) return x;
    return core::Word{};
  };
  EXPECT_TRUE(find("the").clause_break);
  EXPECT_TRUE(find("the").headline_break) << "a colon after a name";
  EXPECT_TRUE(find("notes").headline_break) << "a spaced dash";
  EXPECT_TRUE(find("beta").clause_break);
  EXPECT_FALSE(find("beta").headline_break) << "a bracket is a plain break";
  EXPECT_FALSE(find("now").headline_break) << "an exclamation ends a sentence";
  EXPECT_FALSE(find("patch").clause_break);
}

TEST(Fold, CapitalsAreRemembered) {
  const auto w = match_words("ACL tear vs Acl and GDL-Streik, U.S. A");
  ASSERT_EQ(w.size(), 10u);
  EXPECT_TRUE(w[0].all_caps);
  EXPECT_FALSE(w[1].all_caps);
  EXPECT_FALSE(w[3].all_caps) << "Titlecase";
  EXPECT_TRUE(w[5].all_caps) << "GDL of GDL-Streik";
  EXPECT_FALSE(w[6].all_caps);
  EXPECT_FALSE(w[7].all_caps) << "one letter is not an acronym";
  EXPECT_FALSE(w[9].all_caps);
}

TEST(Fold, EnglishStemsJoinAWordsForms) {
  EXPECT_EQ(core::english_stem("migrating"), core::english_stem("migrate"));
  EXPECT_EQ(core::english_stem("migrated"), core::english_stem("migration"));
  EXPECT_EQ(core::english_stem("passkeys"), core::english_stem("passkey"));
  EXPECT_NE(core::english_stem("election"), core::english_stem("electric"));
  EXPECT_EQ(core::english_stem(""), "");
}

// Initials and titles end no sentence: "Rep. Adam Smith" is one name, as are "John F. Kennedy"
// and "U.S. Senate"; a period after an ordinary word still ends one.
TEST(Fold, AnAbbreviationsPeriodEndsNoSentence) {
  auto breaks = [](std::string_view text) {
    std::string out;
    for (const auto& w : match_words(text)) out += (w.clause_break ? "|" : " ") + w.text;
    return out;
  };
  EXPECT_EQ(breaks("Rep. Adam Smith and Sen. Adam Schiff"), " rep adam smith and sen adam schiff");
  EXPECT_EQ(breaks("John F. Kennedy in the U.S. Senate"), " john f kennedy in the u s senate");
  EXPECT_EQ(breaks("St. Louis votes. Dr. Who returns"), " st louis votes|dr who returns");
  EXPECT_EQ(breaks("It shipped in 2026. The reviews are in. Apple said so"),
            " it shipped in 2026|the reviews are in|apple said so");
  EXPECT_EQ(breaks("Rep. the people"), " rep|the people") << "a title needs a name after it";
  EXPECT_EQ(breaks("Use REST. Then"), " use rest|then") << "an acronym is a word, not an initial";
}
