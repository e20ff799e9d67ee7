// Tile-graph JSON: parse, validate, and simulate the small ones (engine crashes, hangs, deadlock
// reporting) on the H100 preset.
#include "sim/engine/simulate.h"
#include "sim/graph/graph_json.h"
#include "sim/graph/validate.h"
#include "sim/hw/spec_json.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tgsim::hw::GpuSpec spec = tgsim::hw::load_gpu_preset("h100", TGSIM_SOURCE_DIR "/configs");
  const auto j = tgsim::fuzz::json(data, size);
  if (!j) return 0;
  tgsim::fuzz::expect_only_input_errors([&] {
    const auto g = tgsim::graph::parse_tile_graph(*j, "fuzz");
    tgsim::graph::validate_tile_graph(g, "fuzz");
    // Simulate only graphs that replay quickly: a fuzzer input must finish in milliseconds.
    double work = 0;
    for (const auto& k : g.kernels) {
      for (const auto& grp : k.grid) work += static_cast<double>(grp.count) * static_cast<double>(k.templates.at(static_cast<std::size_t>(grp.template_index)).nodes.size() + 1);
    }
    if (work > 20000 || g.gpus > 1) return;
    tgsim::engine::SimOptions o;
    o.critical_path = true;
    tgsim::engine::simulate(g, spec, o);
  });
  return 0;
}
