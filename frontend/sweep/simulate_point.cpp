#include "frontend/sweep/simulate_point.h"

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

}  // namespace tgsim::sweep
