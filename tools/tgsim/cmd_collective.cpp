// `tgsim collective`: one NCCL-style all-to-all or ring all-reduce on a multi-GPU system
// (frontend/multigpu/collectives.h, docs/multigpu.md), with the usual text / --json / --trace.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "frontend/multigpu/collectives.h"
#include "sim/hw/system_json.h"
#include "sim/units/error.h"
#include "sim/units/parse.h"
#include "tools/tgsim/cli_common.h"

namespace tgsim::cli {

void register_collective(CLI::App& app, const Context& ctx) {
  struct Opts {
    std::string system = "2xh200";
    std::string op = "all_reduce";
    std::string bytes;
    int channels = 0;
    int threads = 0;
    std::vector<std::string> system_overrides;
    OutputOptions out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("collective", "Simulate an NCCL-style all-to-all or ring all-reduce on a multi-GPU system");
  cmd->add_option("--system", o->system, "System preset (configs/systems/, e.g. 8xh200) or spec file")->capture_default_str();
  cmd->add_option("--op", o->op, "all_reduce (bytes = the buffer) or all_to_all (bytes = per pair of GPUs)")
      ->capture_default_str()
      ->check(CLI::IsMember({"all_reduce", "all_to_all"}));
  cmd->add_option("--bytes", o->bytes, "Message size, e.g. 64MiB")->required();
  cmd->add_option("--channels", o->channels,
                  "SMs (NCCL channels) per GPU (default: all_to_all as NCCL splits the size over the system's p2p "
                  "channels, all_reduce 16)");
  cmd->add_option("--threads", o->threads,
                  "Threads per channel (default: the system's NCCL p2p kernel threads for all_to_all, else 512)")
      ->check(CLI::Range(32, 1024));
  cmd->add_option("--set-system", o->system_overrides, "Override a system field, e.g. nvlink.bandwidth=900GB/s")->take_all();
  add_output_options(*cmd, o->out);
  cmd->footer(
      "Examples:\n"
      "  tgsim collective --system 8xh200 --op all_to_all --bytes 16MiB\n"
      "  tgsim collective --system 2xh200 --op all_reduce --bytes 1GiB --json");
  cmd->callback([&ctx, o] {
    const hw::SystemSpec sys = hw::load_system_preset(o->system, ctx.config_dir(), o->system_overrides);
    const hw::GpuSpec gpu = load_gpu(ctx, GpuOptions{sys.gpu, {}});
    multigpu::CollectiveParams c;
    c.kind = o->op == "all_to_all" ? multigpu::Collective::all_to_all : multigpu::Collective::all_reduce;
    c.gpus = sys.gpu_count;
    try {
      c.bytes = parse_bytes(o->bytes).value;
    } catch (const InputError& e) {
      throw InputError(fmt::format("--bytes: {}", e.what()));
    }
    c.channels = o->channels;
    c.threads = o->threads > 0 ? o->threads : 512;
    c.threads_from_system = o->threads == 0;
    const auto plan = multigpu::plan_collective(c, gpu, sys);
    const graph::TileGraph g = multigpu::lower_collective(c, plan, gpu, sys);
    OutputOptions out = o->out;
    out.system = &sys;
    const nlohmann::json inputs = {{"command", "collective"}, {"op", o->op},       {"bytes", c.bytes},
                                   {"system", sys.name},      {"gpus", c.gpus},     {"channels", plan.channels},
                                   {"threads", plan.threads},
                                   {"chunk_bytes", plan.chunk_bytes}, {"protocol", plan.protocol}};
    const std::string preface = fmt::format("{} of {} B on {} ({} GPUs, {} channels, {} B chunks, {} protocol)\n", o->op,
                                            c.bytes, sys.name, c.gpus, plan.channels, plan.chunk_bytes, plan.protocol);
    const auto r = simulate_and_report(g, gpu, GpuOptions{sys.gpu, {}}, out, inputs, preface);
    if (!o->out.json) {
      // Bus bandwidth in NCCL's convention: all-reduce 2(N-1)/N x size / time; all-to-all (N-1) x per-pair / time.
      const double n = c.gpus, t = to_us(r.latency) * 1e-6;
      const double bus = c.kind == multigpu::Collective::all_reduce ? 2 * (n - 1) / n * static_cast<double>(c.bytes) / t
                                                                    : (n - 1) * static_cast<double>(c.bytes) / t;
      std::cout << fmt::format("bus bandwidth {:.1f} GB/s (NCCL's convention)\n", bus / 1e9);
    }
  });
}

}  // namespace tgsim::cli
