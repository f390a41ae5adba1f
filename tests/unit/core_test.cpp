#include <gtest/gtest.h>

#include "core/config.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "core/url.hpp"
#include "http/host_map.hpp"

TEST(Time, ParsesTheTimestampShapesUpstreamsSend) {
  EXPECT_EQ(core::parse_iso8601("2015-01-02T21:05:46.000Z"), 1420232746);
  EXPECT_EQ(core::parse_iso8601("2022-07-22T12:06:59.000-05:00"), 1658509619);
  EXPECT_EQ(core::parse_iso8601("2026-05-29T14:14:32+00:00"), core::parse_iso8601("2026-05-29T14:14:32Z"));
  EXPECT_EQ(core::parse_iso8601("2025-05-02T15:04:43.762151Z"), core::parse_iso8601("2025-05-02T15:04:43Z"));
  EXPECT_EQ(core::parse_iso8601("2016-10-09T00:00:00-04:00"), core::parse_iso8601("2016-10-09T04:00:00Z"));
  EXPECT_EQ(core::parse_iso8601("2026-11-29"), core::parse_date("2026-11-29"));
  EXPECT_FALSE(core::parse_iso8601("2026-02-30T00:00:00Z"));
  EXPECT_FALSE(core::parse_iso8601("yesterday"));
  EXPECT_FALSE(core::parse_iso8601("2026-11-29T25:00:00Z"));
  EXPECT_FALSE(core::parse_iso8601("2026-11-29T10:00:00Zjunk"));
  EXPECT_EQ(core::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777);
  EXPECT_FALSE(core::parse_http_date("Sun, 06 Nov 1994 08:49:37 PST"));
}

TEST(Time, FormatsAndRoundTripsDates) {
  EXPECT_EQ(core::format_iso8601(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(core::format_iso8601(1420232746), "2015-01-02T21:05:46Z");
  EXPECT_EQ(core::format_date(*core::parse_date("2024-02-29")), "2024-02-29");
  EXPECT_FALSE(core::parse_date("2023-02-29"));
  EXPECT_FALSE(core::parse_date("2026-1-01"));
}

TEST(Text, TokenizesUnicodeAndCode) {
  EXPECT_EQ(core::tokenize("Why aren’t we using SSH?"), (std::vector<std::string>{"why", "arent", "we", "using", "ssh"}));
  EXPECT_EQ(core::tokenize("C++ and C# in 2026"), (std::vector<std::string>{"c++", "and", "c#", "in", "2026"}));
  EXPECT_EQ(core::tokenize("Создать ссылки"), (std::vector<std::string>{"создать", "ссылки"}));
  EXPECT_EQ(core::tokenize("Straße"), (std::vector<std::string>{"strasse"}));
}

TEST(Text, StripsHtmlAndDecodesEntities) {
  EXPECT_EQ(core::html_to_text("<p>Fish &amp; chips &quot;now&quot;</p><script>alert(1)</script><p>x</p>"),
            "Fish & chips \"now\" x");
  EXPECT_EQ(core::html_to_text("no markup"), "no markup");
}

TEST(Text, DecodesXmlEscapesOnly) {
  EXPECT_EQ(core::decode_xml_escapes("Vec&lt;T&gt; &amp; &quot;it&#39;s&#x27;"), "Vec<T> & \"it's'");
  EXPECT_EQ(core::decode_xml_escapes("?a=1&copy=2&amp;b"), "?a=1&copy=2&b");  // not HTML's &copy
  EXPECT_EQ(core::decode_xml_escapes("&amp;lt; & &"), "&lt; & &");            // one pass
  EXPECT_EQ(core::decode_xml_escapes("&am"), "&am");
}

TEST(Text, SanitizesUtf8AndControlCharacters) {
  EXPECT_EQ(core::sanitize_utf8("ok\xff\x1b[31mred"), "ok\xEF\xBF\xBD[31mred");
  EXPECT_EQ(core::truncate_utf8("héllo wörld", 2), "h\xE2\x80\xA6");  // never splits é
}

TEST(Text, GenericWordsAndNumbers) {
  EXPECT_TRUE(core::is_generic("new"));
  EXPECT_TRUE(core::is_generic("2026"));
  EXPECT_FALSE(core::is_generic("tokio"));
  EXPECT_TRUE(core::is_stopword("the"));
}

TEST(Url, CanonicalFormFoldsCrossPosts) {
  EXPECT_EQ(core::canonical_url("https://www.Example.com/post/?utm_source=hn&id=3#top"), "example.com/post?id=3");
  EXPECT_EQ(core::canonical_url("http://example.com/post"), core::canonical_url("https://example.com/post/"));
  EXPECT_EQ(core::canonical_url("https://youtu.be/abc123"), core::canonical_url("https://www.youtube.com/watch?v=abc123"));
  EXPECT_NE(core::canonical_url("https://example.com/a"), core::canonical_url("https://example.com/b"));
}

TEST(Url, StripsTrackingParametersOnly) {
  EXPECT_EQ(core::strip_tracking("https://tokio.rs/blog/x?utm_source=reddit&utm_medium=social"), "https://tokio.rs/blog/x");
  EXPECT_EQ(core::strip_tracking("https://example.com/watch?v=1&fbclid=abc"), "https://example.com/watch?v=1");
  EXPECT_EQ(core::strip_tracking("https://example.com/a?b=c"), "https://example.com/a?b=c");
}

TEST(Url, WithinDomainIsTheDomainOrASubdomain) {
  EXPECT_TRUE(core::within_domain("reddit.com", "reddit.com"));
  EXPECT_TRUE(core::within_domain("old.reddit.com", "reddit.com"));
  EXPECT_TRUE(core::within_domain("morel.us-east.host.bsky.network", "bsky.network"));
  EXPECT_FALSE(core::within_domain("notreddit.com", "reddit.com"));  // a look-alike
  EXPECT_FALSE(core::within_domain("reddit.com.evil.example", "reddit.com"));
  EXPECT_FALSE(core::within_domain("com", "reddit.com"));
  EXPECT_FALSE(core::within_domain("", "reddit.com"));
}

TEST(Url, ResolvesRedirectTargets) {
  auto base = core::Url::parse("https://api.example.com/a/b?x=1");
  ASSERT_TRUE(base);
  EXPECT_EQ(base->resolve("/c")->str(), "https://api.example.com/c");
  EXPECT_EQ(base->resolve("d?y=2")->str(), "https://api.example.com/a/d?y=2");
  EXPECT_EQ(base->resolve("//other.org/z")->host, "other.org");
  EXPECT_FALSE(core::Url::parse("javascript:alert(1)"));
}

TEST(HostMap, RewritesMappedHostsOnly) {
  std::string err;
  auto m = http::HostMap::parse("hn.algolia.com=http://127.0.0.1:9000/hn, www.reddit.com=http://127.0.0.1:9000/r/", &err);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(m->rewrite("https://hn.algolia.com/api/v1/search?query=x"), "http://127.0.0.1:9000/hn/api/v1/search?query=x");
  EXPECT_EQ(m->rewrite("http://www.reddit.com/search.rss?q=a"), "http://127.0.0.1:9000/r/search.rss?q=a");
  EXPECT_EQ(m->rewrite("https://api.github.com/x"), "https://api.github.com/x");
  EXPECT_FALSE(http::HostMap::parse("nonsense", &err));
  EXPECT_FALSE(http::HostMap::parse("a.com=ftp://x", &err));
}

// Issue 22 item 17: a byte order mark before the first key used to become part of it.
TEST(Config, AByteOrderMarkDoesNotHideTheFirstKey) {
  auto file = core::Config::parse_env_file("\xEF\xBB\xBFGITHUB_TOKEN=abc123\r\nBRAVE_API_KEY=def456\n");
  EXPECT_EQ(file["GITHUB_TOKEN"], "abc123");
  EXPECT_EQ(file["BRAVE_API_KEY"], "def456");
  EXPECT_EQ(file.size(), 2u);
}

TEST(Config, EnvFileParsingAndPrecedence) {
  auto file = core::Config::parse_env_file("# comment\nGITHUB_TOKEN=abc123 # trailing\nexport BRAVE_API_KEY=\"q w\"\nBROKEN\n");
  EXPECT_EQ(file["GITHUB_TOKEN"], "abc123");
  EXPECT_EQ(file["BRAVE_API_KEY"], "q w");
  EXPECT_EQ(file.count("BROKEN"), 0u);
  core::Config cfg({{"GITHUB_TOKEN", "from-env"}}, file);
  EXPECT_EQ(cfg.get("GITHUB_TOKEN"), "from-env");  // environment beats the file
  EXPECT_EQ(cfg.get("BRAVE_API_KEY"), "q w");
  EXPECT_FALSE(cfg.get("X_BEARER_TOKEN"));
  core::Config dir({{"XDG_CONFIG_HOME", "/cfg"}, {"HOME", "/home/u"}}, {});
  EXPECT_EQ(dir.env_file_path(), "/cfg/last30days/.env");
  core::Config home({{"HOME", "/home/u"}}, {});
  EXPECT_EQ(home.env_file_path(), "/home/u/.config/last30days/.env");
}

TEST(Config, NoConfigDirWithoutAnAbsoluteHome) {
  // The old fallback read /tmp/.config/last30days/.env: a file anyone can plant.
  EXPECT_FALSE(core::Config({}, {}).config_dir());
  EXPECT_FALSE(core::Config({{"HOME", "relative/home"}}, {}).env_file_path());
  EXPECT_FALSE(core::Config({{"HOME", "relative"}, {"XDG_CONFIG_HOME", "also/relative"}}, {}).config_dir());
  EXPECT_EQ(core::Config({{"XDG_CONFIG_HOME", "/x"}}, {}).config_dir(), "/x/last30days");
  // Where the file lives cannot come from the file.
  EXPECT_FALSE(core::Config({}, {{"HOME", "/planted"}}).config_dir());
}

TEST(Config, ACredentialWithAControlCharacterIsNamed) {
  EXPECT_FALSE(core::Config({{"GITHUB_TOKEN", "ghp_fine"}}, {}).malformed_credential());
  EXPECT_EQ(core::Config({{"GITHUB_TOKEN", "ghp_x\r\nX-Injected: 1"}}, {}).malformed_credential(), "GITHUB_TOKEN");
  EXPECT_EQ(core::Config({}, {{"STACKEXCHANGE_KEY", std::string("k\0ey", 4)}}).malformed_credential(), "STACKEXCHANGE_KEY");
  EXPECT_FALSE(core::Config({{"LAST30DAYS_HOST_MAP", "a=b\n"}}, {}).malformed_credential()) << "only credentials";
}
