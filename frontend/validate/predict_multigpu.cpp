// Predicting multi-GPU measurement rows: `sm_split` (the SM-split kernel family,
// frontend/multigpu/sm_split.h) and the NCCL collectives `all_to_all`, `all_reduce`
// (frontend/multigpu/collectives.h). Rows name the system by gpus and gpu: "<gpus>x<gpu>".
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frontend/multigpu/collectives.h"
#include "frontend/multigpu/sm_split.h"
#include "frontend/validate/validate.h"
#include "sim/engine/simulate.h"
#include "sim/graph/validate.h"
#include "sim/units/error.h"

namespace tgsim::validate {
namespace {

// Collects each CTA's end time (the steal plan's first pass).
class CtaEnds : public engine::TraceSink {
 public:
  bool wants_nodes(int, int) const override { return false; }
  void node(const engine::NodeSlice&) override {}
  void cta(const engine::CtaSlice& s) override {
    if (s.cta >= static_cast<std::int64_t>(end.size())) end.resize(static_cast<std::size_t>(s.cta) + 1);
    end[static_cast<std::size_t>(s.cta)] = s.end;
    first_start = std::min(first_start, s.start);
  }
  std::vector<TimePoint> end;
  TimePoint first_start = kNever;
};

std::int64_t integer(const Row& row, const std::string& column, const std::string& origin) {
  const auto v = row.number(column, origin);
  if (!v) throw InputError(fmt::format("{}:{}: missing {}", origin, row.line, column));
  return static_cast<std::int64_t>(std::llround(*v));
}

struct Machine {
  const hw::GpuSpec* gpu = nullptr;
  const hw::SystemSpec* system = nullptr;
};

Machine machine(const Row& row, const std::string& origin, const SpecLoader& specs, const SystemLoader& systems) {
  const std::string gpu = row.get("gpu").empty() ? "h200" : row.get("gpu");
  const std::int64_t gpus = row.get("gpus").empty() ? 2 : integer(row, "gpus", origin);
  Machine m;
  m.system = &systems(fmt::format("{}x{}", gpus, gpu));
  m.gpu = &specs(m.system->gpu);
  return m;
}

engine::Result run(const graph::TileGraph& g, const Machine& m, engine::TraceSink* trace = nullptr) {
  graph::validate_tile_graph(g, g.name);
  engine::SimOptions opts;
  opts.l2_starts_dirty = true;  // both GPUs' L2 flushed by a 256 MiB memset before each rep
  opts.critical_path = false;
  opts.system = m.system;
  opts.trace = trace;
  return engine::simulate(g, *m.gpu, opts);
}

Prediction predict_sm_split(const Row& row, const std::string& origin, const SpecLoader& specs,
                            const SystemLoader& systems) {
  Prediction p;
  Machine m = machine(row, origin, specs, systems);
  const hw::GpuSpec gpu = multigpu::sm_split_gpu(*m.gpu);
  m.gpu = &gpu;
  multigpu::SmSplitParams s;
  s.comm_blocks = static_cast<int>(integer(row, "comm_blocks", origin));
  s.bytes = integer(row, "bytes", origin);
  s.chunk_bytes = integer(row, "chunk_bytes", origin);
  s.tiles = integer(row, "tiles", origin);
  s.mma_per_warp_per_tile = static_cast<int>(integer(row, "mma_per_warp_per_tile", origin));
  s.mma_chains = static_cast<int>(integer(row, "mma_chains", origin));
  s.threads = static_cast<int>(integer(row, "threads", origin));
  s.steal = !row.get("steal").empty() && integer(row, "steal", origin) != 0;
  if (const auto t = parse_dtype(row.get("dtype").empty() ? "bf16" : row.get("dtype"))) s.dtype = *t;
  multigpu::SmSplitPlan plan = multigpu::plan_sm_split(s, *m.gpu);
  if (s.steal && s.comm_blocks > 0 && s.tiles > 0) {
    // Pass 1 without stealing: each communication CTA's copy end; the tile time at the
    // kernel's clock. Pass 2 hands the tiles out as the shared counter would.
    multigpu::SmSplitParams first = s;
    first.steal = false;
    if (first.comm_blocks == multigpu::sm_split_ctas(s, *m.gpu)) first.tiles = 0;
    CtaEnds ends;
    const engine::Result r1 =
        run(multigpu::lower_sm_split(first, multigpu::plan_sm_split(first, *m.gpu), *m.gpu, *m.system), m, &ends);
    std::vector<Duration> copy_end;
    for (int k = 0; k < s.comm_blocks && k < static_cast<int>(ends.end.size()); ++k) {
      copy_end.push_back(ends.end[static_cast<std::size_t>(k)] - ends.first_start);
    }
    const double hz = r1.kernels.at(0).sm_clock_mhz * 1e6;
    const Duration tile{static_cast<std::int64_t>(std::llround(multigpu::sm_split_tile_cycles(s, *m.gpu) / hz * 1e12))};
    plan = multigpu::plan_steal(s, *m.gpu, copy_end, tile);
  }
  p.predicted_us = to_us(run(multigpu::lower_sm_split(s, plan, *m.gpu, *m.system), m).latency);
  p.ok = true;
  p.category = s.tiles == 0   ? "sm_split_copy"
               : s.bytes == 0 ? "sm_split_compute"
               : s.steal      ? "sm_split_steal"
                              : "sm_split_mixed";
  p.schedule =
      fmt::format("c={} chunks of {} B, {} tiles{}", s.comm_blocks, s.chunk_bytes, s.tiles, s.steal ? " steal" : "");
  return p;
}

Prediction predict_collective(const Row& row, const std::string& origin, const SpecLoader& specs,
                              const SystemLoader& systems, multigpu::Collective kind) {
  Prediction p;
  const Machine m = machine(row, origin, specs, systems);
  multigpu::CollectiveParams c;
  c.kind = kind;
  c.gpus = m.system->gpu_count;
  c.bytes =
      kind == multigpu::Collective::all_to_all ? integer(row, "bytes_per_pair", origin) : integer(row, "bytes", origin);
  const multigpu::CollectivePlan plan = multigpu::plan_collective(c, *m.gpu, *m.system);
  p.predicted_us = to_us(run(multigpu::lower_collective(c, plan, *m.gpu, *m.system), m).latency);
  p.ok = true;
  p.category = fmt::format("{}_{}", to_string(kind), plan.protocol);
  p.schedule = fmt::format("{} channels, {} protocol, {} B chunks", plan.channels, plan.protocol, plan.chunk_bytes);
  return p;
}

}  // namespace

void register_multigpu_predictors(PredictorRegistry& r, SystemLoader systems) {
  r.add("sm_split", [systems](const Row& row, const std::string& origin, const SpecLoader& specs) {
    return predict_sm_split(row, origin, specs, systems);
  });
  r.add("all_to_all", [systems](const Row& row, const std::string& origin, const SpecLoader& specs) {
    return predict_collective(row, origin, specs, systems, multigpu::Collective::all_to_all);
  });
  r.add("all_reduce", [systems](const Row& row, const std::string& origin, const SpecLoader& specs) {
    return predict_collective(row, origin, specs, systems, multigpu::Collective::all_reduce);
  });
}

}  // namespace tgsim::validate
