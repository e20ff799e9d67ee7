// `tgsim run-graph FILE.json`: simulate a tile graph written by hand, by another tool or by
// `tgsim lower`. Graphs spanning several GPUs need `--system` (configs/systems/).
#include <memory>

#include "sim/graph/graph_json.h"
#include "sim/hw/system_json.h"
#include "tools/tgsim/cli_common.h"

namespace tgsim::cli {

void register_run_graph(CLI::App& app, const Context& ctx) {
  struct Opts {
    std::string file;
    std::string system;
    GpuOptions gpu;
    OutputOptions out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("run-graph", "Simulate a tile-graph JSON file (format: docs/tile-graph-format.md)");
  cmd->add_option("FILE", o->file, "Tile graph (.json)")->required();
  add_gpu_options(*cmd, o->gpu);
  add_output_options(*cmd, o->out);
  cmd->add_option(
      "--system", o->system,
      "Multi-GPU system preset (configs/systems/, e.g. 2xh200) or a spec file path; its GPU unless --gpu is given");
  cmd->callback([&ctx, o, cmd] {
    const graph::TileGraph g = graph::read_tile_graph(o->file);
    nlohmann::json inputs = {{"command", "run-graph"}, {"graph", o->file}};
    std::unique_ptr<hw::SystemSpec> system;
    GpuOptions gpu = o->gpu;
    if (!o->system.empty()) {
      system = std::make_unique<hw::SystemSpec>(hw::load_system_preset(o->system, ctx.config_dir()));
      if (cmd->count("--gpu") == 0) gpu.gpu = system->gpu;
      inputs["system"] = hw::to_json(*system);
    }
    OutputOptions out = o->out;
    out.system = system.get();
    const hw::GpuSpec spec = load_gpu(ctx, gpu);
    simulate_and_report(g, spec, gpu, out, inputs, system ? "system: " + system->full_name + "\n" : "");
  });
}

}  // namespace tgsim::cli
