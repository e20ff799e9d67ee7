#include "frontend/sweep/simulate_point.h"

#include <utility>

#include "sim/engine/simulate.h"
#include "sim/graph/graph_size.h"
#include "sim/graph/validate.h"

namespace tgsim::sweep {

engine::Result simulate_point(const graph::TileGraph& g, const hw::GpuSpec& spec, const graph::Limits& limits) {
  graph::validate_tile_graph(g, g.name);
  graph::check_limits(g, limits);  // a point too big for the machine is an error row
  engine::SimOptions opts;
  opts.l2_starts_dirty = true;  // the CLI's default --l2-start dirty
  opts.critical_path = false;
  return engine::simulate(g, spec, opts);
}

Outcome simulate_outcome(const graph::TileGraph& g, const hw::GpuSpec& spec, const graph::Limits& limits, double flops,
                         std::string schedule) {
  const engine::Result res = simulate_point(g, spec, limits);
  Outcome o;
  o.latency_us = to_us(res.latency);
  if (o.latency_us > 0 && flops > 0) o.tflops = flops / o.latency_us * 1e-6;
  o.bottleneck = res.bottleneck;
  o.schedule = std::move(schedule);
  return o;
}

}  // namespace tgsim::sweep
