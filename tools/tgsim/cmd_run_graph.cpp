// `tgsim run-graph FILE.json`: simulate a tile graph written by hand, by another tool or by
// `tgsim lower`.
#include <memory>

#include "sim/graph/graph_json.h"
#include "tools/tgsim/cli_common.h"

namespace tgsim::cli {

void register_run_graph(CLI::App& app, const Context& ctx) {
  struct Opts {
    std::string file;
    GpuOptions gpu;
    OutputOptions out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("run-graph", "Simulate a tile-graph JSON file (format: docs/tile-graph-format.md)");
  cmd->add_option("FILE", o->file, "Tile graph (.json)")->required();
  add_gpu_options(*cmd, o->gpu);
  add_output_options(*cmd, o->out);
  cmd->callback([&ctx, o] {
    const graph::TileGraph g = graph::read_tile_graph(o->file);
    const hw::GpuSpec spec = load_gpu(ctx, o->gpu);
    simulate_and_report(g, spec, o->gpu, o->out, {{"command", "run-graph"}, {"graph", o->file}}, "");
  });
}

}  // namespace tgsim::cli
