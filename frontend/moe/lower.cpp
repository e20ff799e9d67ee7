#include "frontend/moe/lower.h"

#include <fmt/format.h>

#include "frontend/moe/expert_tiles.h"
#include "sim/units/error.h"

namespace tgsim::moe {

LoweredLayer lower_layer(const MoeLayer& l, const MoeSchedule& s, const hw::GpuSpec& gpu, const hw::SystemSpec& sys) {
  if (sys.gpu_count != l.gpus)
    throw InputError(fmt::format("system \"{}\" has {} GPUs, the layer {}", sys.name, sys.gpu_count, l.gpus));
  if (!s.comm_per_gpu.empty() && static_cast<int>(s.comm_per_gpu.size()) != l.gpus)
    throw InputError(fmt::format("--schedule {}: {} values of C for {} GPUs", to_string(s), s.comm_per_gpu.size(), l.gpus));
  LoweredLayer out;
  for (int g = 0; g < l.gpus; ++g) {
    out.cost.push_back(choose_comm_sms(l, g, gpu, sys, kCtaThreads));
    out.tiles.push_back(static_cast<std::int64_t>(tile_order(l, g).size()));
    switch (s.kind) {
      case ScheduleKind::sequential: out.comm_sms.push_back(kA2aChannels); break;
      case ScheduleKind::dynamic: out.comm_sms.push_back(out.cost.back().chosen); break;
      default:
        out.comm_sms.push_back(s.comm_per_gpu.empty() ? s.comm_sms : s.comm_per_gpu[static_cast<std::size_t>(g)]);
        break;
    }
  }
  if (s.kind == ScheduleKind::sequential) {
    out.graph = lower_sequential(l, gpu, sys);
    out.stolen.assign(static_cast<std::size_t>(l.gpus), 0);
  } else {
    out.graph = lower_persistent(l, s, out.comm_sms, gpu, sys, out.stolen);
  }
  return out;
}

}  // namespace tgsim::moe
