#pragma once
// UTC calendar arithmetic and the timestamp formats upstream APIs use.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace core {

using UnixSeconds = std::int64_t;

std::int64_t days_from_civil(int y, unsigned m, unsigned d);
struct Civil {
  int y;
  unsigned m;
  unsigned d;
};
Civil civil_from_days(std::int64_t days);

// "YYYY-MM-DD" only; rejects impossible dates. Returns the UTC midnight.
std::optional<UnixSeconds> parse_date(std::string_view s);
// ISO-8601 / RFC 3339: date, optional time, fraction, Z or ±hh[:mm] offset.
std::optional<UnixSeconds> parse_iso8601(std::string_view s);
// RFC 7231 IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT").
std::optional<UnixSeconds> parse_http_date(std::string_view s);

std::string format_iso8601(UnixSeconds t);  // 2026-11-29T19:23:35Z
std::string format_date(UnixSeconds t);     // 2026-11-29

UnixSeconds now_unix();
UnixSeconds start_of_day(UnixSeconds t);

}  // namespace core
