#include "core/time.hpp"

#include <fmt/format.h>
#include <array>
#include <cctype>
#include <chrono>

namespace core {

// Howard Hinnant's public-domain civil calendar formulas.
std::int64_t days_from_civil(int y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

Civil civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return Civil{static_cast<int>(y + (m <= 2 ? 1 : 0)), m, d};
}

namespace {

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

unsigned days_in_month(int y, unsigned m) {
  static constexpr std::array<unsigned, 12> kDays{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

bool valid_date(int y, int m, int d) {
  return y >= 1970 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 &&
         static_cast<unsigned>(d) <= days_in_month(y, static_cast<unsigned>(m));
}

}  // namespace

std::optional<UnixSeconds> parse_date(std::string_view s) {
  int y = 0, m = 0, d = 0;
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  if (!digits(s, 0, 4, y) || !digits(s, 5, 2, m) || !digits(s, 8, 2, d)) return std::nullopt;
  if (!valid_date(y, m, d)) return std::nullopt;
  return days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)) * 86400;
}

std::optional<UnixSeconds> parse_iso8601(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.size() < 10) return std::nullopt;
  auto day = parse_date(s.substr(0, 10));
  if (!day) return std::nullopt;
  if (s.size() == 10) return day;
  if (s[10] != 'T' && s[10] != 't' && s[10] != ' ') return std::nullopt;
  int hh = 0, mi = 0, ss = 0;
  if (!digits(s, 11, 2, hh) || s.size() < 16 || s[13] != ':' || !digits(s, 14, 2, mi)) return std::nullopt;
  std::size_t pos = 16;
  if (pos < s.size() && s[pos] == ':') {
    if (!digits(s, pos + 1, 2, ss)) return std::nullopt;
    pos += 3;
  }
  if (hh > 23 || mi > 59 || ss > 60) return std::nullopt;
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
    ++pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
  }
  std::int64_t offset = 0;
  if (pos < s.size()) {
    const char c = s[pos];
    if ((c == 'Z' || c == 'z') && pos + 1 == s.size()) {
      offset = 0;
    } else if (c == '+' || c == '-') {
      int oh = 0, om = 0;
      if (!digits(s, pos + 1, 2, oh)) return std::nullopt;
      std::size_t p = pos + 3;
      if (p < s.size() && s[p] == ':') ++p;
      if (p < s.size()) {
        if (!digits(s, p, 2, om)) return std::nullopt;
        p += 2;
      }
      if (p != s.size() || oh > 23 || om > 59) return std::nullopt;
      offset = (oh * 3600 + om * 60) * (c == '-' ? -1 : 1);
    } else {
      return std::nullopt;
    }
  }
  return *day + hh * 3600 + mi * 60 + ss - offset;
}

std::optional<UnixSeconds> parse_http_date(std::string_view s) {
  // "Sun, 06 Nov 1994 08:49:37 GMT"
  static constexpr std::array<std::string_view, 12> kMonths{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto comma = s.find(", ");
  if (comma == std::string_view::npos) return std::nullopt;
  s.remove_prefix(comma + 2);
  if (s.size() < 24) return std::nullopt;
  int d = 0, y = 0, hh = 0, mi = 0, ss = 0;
  if (!digits(s, 0, 2, d) || !digits(s, 7, 4, y) || !digits(s, 12, 2, hh) || !digits(s, 15, 2, mi) || !digits(s, 18, 2, ss))
    return std::nullopt;
  unsigned m = 0;
  for (unsigned i = 0; i < kMonths.size(); ++i)
    if (s.substr(3, 3) == kMonths[i]) m = i + 1;
  if (m == 0 || !valid_date(y, static_cast<int>(m), d) || s.substr(21, 3) != "GMT") return std::nullopt;
  return days_from_civil(y, m, static_cast<unsigned>(d)) * 86400 + hh * 3600 + mi * 60 + ss;
}

std::string format_iso8601(UnixSeconds t) {
  const std::int64_t days = t >= 0 ? t / 86400 : (t - 86399) / 86400;
  const std::int64_t rem = t - days * 86400;
  const Civil c = civil_from_days(days);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", c.y, c.m, c.d, rem / 3600, rem % 3600 / 60, rem % 60);
}

std::string format_date(UnixSeconds t) { return format_iso8601(t).substr(0, 10); }

UnixSeconds now_unix() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

UnixSeconds start_of_day(UnixSeconds t) {
  const std::int64_t days = t >= 0 ? t / 86400 : (t - 86399) / 86400;
  return days * 86400;
}

}  // namespace core
