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

// "C" or "C0,C1,...": fills comm_sms (the first) and, for a list, comm_per_gpu.
void parse_cs(MoeSchedule& s, const std::string& text, const std::string& value) {
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = value.find(',', from);
    s.comm_per_gpu.push_back(parse_c(text, value.substr(from, comma == std::string::npos ? comma : comma - from)));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  s.comm_sms = s.comm_per_gpu.front();
  if (s.comm_per_gpu.size() == 1) s.comm_per_gpu.clear();
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
    parse_cs(s, text, arg);
    return s;
  }
  if (head == "tile-overlap") {
    s.kind = ScheduleKind::tile_overlap;
    s.comm_sms = kDefaultCommSms;
    if (colon != std::string::npos) parse_cs(s, text, arg);
    return s;
  }
  throw InputError(fmt::format("--schedule \"{}\": expected one of {}", text, fmt::join(schedule_names(), ", ")));
}

std::string to_string(const MoeSchedule& s) {
  const std::string c = s.comm_per_gpu.empty() ? std::to_string(s.comm_sms) : fmt::format("{}", fmt::join(s.comm_per_gpu, ","));
  switch (s.kind) {
    case ScheduleKind::sequential: return "sequential";
    case ScheduleKind::fixed_split: return fmt::format("fixed-split:{}", c);
    case ScheduleKind::tile_overlap: return fmt::format("tile-overlap:{}", c);
    case ScheduleKind::dynamic: return "dynamic";
  }
  return "?";
}

}  // namespace tgsim::moe
