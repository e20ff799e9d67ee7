// `tgsim gpus`: the GPU presets with their key figures.
#include <iostream>

#include <fmt/format.h>

#include "sim/hw/spec_json.h"
#include "tools/tgsim/cli_common.h"

namespace tgsim::cli {

void register_gpus(CLI::App& app, const Context& ctx) {
  auto* cmd = app.add_subcommand("gpus", "List the GPU presets (configs/gpus/*.json) with their key figures");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print the resolved specs as JSON");
  cmd->callback([&ctx, json] {
    const auto dir = ctx.config_dir();
    nlohmann::json all = nlohmann::json::object();
    if (!*json) {
      std::cout << fmt::format("{:<6} {:<28} {:>4} {:>9} {:>12} {:>12} {:>9} {:>10}\n", "name", "GPU", "SMs", "boost",
                               "BF16 dense", "HBM", "L2", "L2 BW");
    }
    for (const auto& name : hw::list_gpu_presets(dir)) {
      const hw::GpuSpec s = hw::load_gpu_preset(name, dir);
      if (*json) {
        all[name] = hw::to_json(s);
        continue;
      }
      double bf16 = 0;
      for (const auto& [inst, by_type] : s.tensor.flops_per_cycle) {
        if (auto it = by_type.find(DType::bf16); it != by_type.end()) bf16 = std::max(bf16, it->second);
      }
      std::cout << fmt::format("{:<6} {:<28} {:>4} {:>6.0f}MHz {:>7.0f}TFLOPS {:>7.2f}TB/s {:>6.1f}MB {:>7.1f}TB/s\n",
                               name, s.full_name, s.sm.count, s.clock.boost.value / 1e6,
                               bf16 * s.sm.count * s.clock.boost.value * 1e-12, s.hbm.bandwidth.value * 1e-12,
                               static_cast<double>(s.l2.capacity.value) / 1e6, s.l2.bandwidth.value * 1e-12);
    }
    if (*json) std::cout << all.dump(2) << "\n";
  });
}

}  // namespace tgsim::cli
