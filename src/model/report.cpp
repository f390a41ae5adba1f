#include "model/report.hpp"

namespace model {

std::string_view to_string(Depth d) {
  switch (d) {
    case Depth::quick: return "quick";
    case Depth::standard: return "default";
    case Depth::deep: return "deep";
  }
  return "default";
}

Window Window::ending(core::UnixSeconds as_of_day, int days) {
  Window w;
  const auto day = core::start_of_day(as_of_day);
  w.days = days;
  w.to = day + 86399;
  w.from = day - static_cast<core::UnixSeconds>(days) * 86400;
  return w;
}

}  // namespace model

#include "model/discovery.hpp"

namespace model {

std::string_view to_string(EnrichStatus s) {
  switch (s) {
    case EnrichStatus::enriched: return "enriched";
    case EnrichStatus::nomination_only: return "nomination-only";
    case EnrichStatus::failed: return "failed";
  }
  return "failed";
}

}  // namespace model
