#include "frontend/moe/schedule.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/units/error.h"

namespace tgsim::moe {
namespace {

int parse_c(const std::string& text, const std::string& value) {
  try {
    std::size_t used = 0;
    const int c = std::stoi(value, &used);
    if (used == value.size() && c >= 1) return c;
  } catch (const std::exception&) {
  }
  throw InputError(fmt::format("--schedule \"{}\": C must be a positive integer (communication SMs)", text));
}

}  // namespace

std::vector<std::string> schedule_names() { return {"sequential", "fixed-split:C", "tile-overlap[:C]", "dynamic"}; }

MoeSchedule parse_schedule(const std::string& text) {
  MoeSchedule s;
  const auto colon = text.find(':');
  const std::string head = text.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (head == "sequential" && colon == std::string::npos) return s;
  if (head == "dynamic" && colon == std::string::npos) {
    s.kind = ScheduleKind::dynamic;
    s.steal = true;
    return s;
  }
  if (head == "fixed-split" && colon != std::string::npos) {
    s.kind = ScheduleKind::fixed_split;
    s.comm_sms = parse_c(text, arg);
    return s;
  }
  if (head == "tile-overlap") {
    s.kind = ScheduleKind::tile_overlap;
    s.comm_sms = colon == std::string::npos ? kDefaultCommSms : parse_c(text, arg);
    return s;
  }
  throw InputError(fmt::format("--schedule \"{}\": expected one of {}", text, fmt::join(schedule_names(), ", ")));
}

std::string to_string(const MoeSchedule& s) {
  switch (s.kind) {
    case ScheduleKind::sequential: return "sequential";
    case ScheduleKind::fixed_split: return fmt::format("fixed-split:{}", s.comm_sms);
    case ScheduleKind::tile_overlap: return fmt::format("tile-overlap:{}", s.comm_sms);
    case ScheduleKind::dynamic: return "dynamic";
  }
  return "?";
}

}  // namespace tgsim::moe
