// tgsim: a tile-graph GPU performance simulator. main parses, dispatches to a subcommand, and
// turns errors into one line and an exit code: 2 for bad input, 3 for a run that deadlocked.
#include <iostream>

#include <CLI/CLI.hpp>

#include "sim/units/error.h"
#include "tools/tgsim/cli_common.h"

int main(int argc, char** argv) {
  tgsim::cli::Context ctx;
  CLI::App app{"tgsim " TGSIM_VERSION " - predicts GPU kernel latency by replaying warp-level tile graphs on a "
               "discrete-event model of the GPU (A100, H100, H200, B200)."};
  app.set_version_flag("--version", "tgsim " TGSIM_VERSION);
  app.require_subcommand(1);
  app.add_option("--config-dir", ctx.config_dir_flag,
                 "Folder holding gpus/, graphs/... (default: $TGSIM_CONFIG_DIR or the source tree's configs/)");
  app.footer(
      "Examples:\n"
      "  tgsim gpus\n"
      "  tgsim gemm --gpu h200 --m 4096 --n 4096 --k 4096 --dtype bf16\n"
      "  tgsim gemm --gpu h100 --m 8192 --n 8192 --k 8192 --kernel nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT\n"
      "  tgsim attention --gpu h100 --batch 4 --heads 32 --heads-kv 8 --seq-q 4096 --head-dim 128 --causal\n"
      "  tgsim llm --model llama3-8b --gpu h100 --phase prefill --seq 2048\n"
      "  tgsim moe --system 4xh100 --model qwen3-30b-a3b --tokens 2048 --schedule dynamic\n"
      "  tgsim run-graph configs/graphs/pipeline.json --gpu h100 --trace pipeline.trace.json\n"
      "  tgsim validate --measurements traces/h200/gemm.csv --plot validation.png\n"
      "  tgsim validate --profile traces/h200/profiles/llama8b_prefill_b1_s2048_2l.json --gpu h200\n"
      "  tgsim sweep configs/sweeps/gemm_tiles_h100.json --out tiles.csv --jobs 2\n"
      "Exit codes: 0 ok, 2 bad input (message names the file, JSON path or flag), 3 simulation deadlock.");
  tgsim::cli::register_gpus(app, ctx);
  tgsim::cli::register_run_graph(app, ctx);
  tgsim::cli::register_gemm(app, ctx);
  tgsim::cli::register_attention(app, ctx);
  tgsim::cli::register_llm(app, ctx);
  tgsim::cli::register_collective(app, ctx);
  tgsim::cli::register_moe(app, ctx);
  CLI::App* lower = tgsim::cli::register_lower(app, ctx);
  tgsim::cli::register_lower_attention(*lower, ctx);
  tgsim::cli::register_validate(app, ctx);
  tgsim::cli::register_sweep(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other input error (CLI11's own exit() prints two).
    std::cerr << "tgsim: error: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const tgsim::InputError& e) {
    std::cerr << "tgsim: error: " << e.what() << "\n";
    return 2;
  } catch (const tgsim::SimulationError& e) {
    std::cerr << "tgsim: simulation failed: " << e.what() << "\n";
    return 3;
  } catch (const tgsim::cli::Interrupted& e) {
    std::cerr << "tgsim: " << e.what() << "\n";
    return 130;
  } catch (const std::exception& e) {
    std::cerr << "tgsim: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
