// Pieces every tgsim subcommand shares: where configs live, loading a GPU preset with --set
// overrides, simulating a graph and printing/writing the result (text, --json, --trace).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "sim/engine/result.h"
#include "sim/graph/graph_size.h"
#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"
#include "sim/hw/system_spec.h"

namespace tgsim::cli {

struct GpuOptions {
  std::string gpu = "h100";
  std::vector<std::string> overrides;  // --set key=value
};

struct OutputOptions {
  bool json = false;
  std::string trace;           // Chrome/Perfetto trace file
  int trace_sms = 4;           // SMs per GPU whose tile ops are traced (-1: all)
  std::string l2_model = "tile_lru";
  std::string l2_start = "dirty";  // dirty | clean
  const hw::SystemSpec* system = nullptr;  // multi-GPU graphs (run-graph --system); not owned
  double max_nodes = 2e9;          // --max-nodes: node executions a run may take (0: no limit)
  std::string max_memory;          // --max-memory: e.g. 8GB; empty: half the machine's memory
};

// The limits of `out` (--max-nodes, --max-memory) for graph::check_limits.
graph::Limits limits_of(const OutputOptions& out);
// From the flags' values (max_memory empty: half of RAM); InputError naming --max-memory.
graph::Limits make_limits(double max_nodes, const std::string& max_memory);
// Adds --max-nodes / --max-memory to a command that does not take the output options.
void add_limit_options(CLI::App& cmd, double& max_nodes, std::string& max_memory);

// Program-wide settings, owned by main and handed to every subcommand (no globals).
struct Context {
  std::string config_dir_flag;  // --config-dir
  // configs/ folder: --config-dir, else $TGSIM_CONFIG_DIR, else the source tree's configs/.
  std::filesystem::path config_dir() const;
};

void add_gpu_options(CLI::App& cmd, GpuOptions& o);
void add_output_options(CLI::App& cmd, OutputOptions& o);

hw::GpuSpec load_gpu(const Context& ctx, const GpuOptions& o);

// Validates, simulates and reports one graph. `inputs` describes what was simulated (goes into
// the JSON report); `preface` is printed before the text report.
engine::Result simulate_and_report(const graph::TileGraph& g, const hw::GpuSpec& spec, const GpuOptions& gpu,
                                   const OutputOptions& out, const nlohmann::json& inputs, const std::string& preface);

// Runs a simulation without printing (validate, autotune, sweeps).
engine::Result simulate(const graph::TileGraph& g, const hw::GpuSpec& spec, const OutputOptions& out);

void register_gpus(CLI::App& app, const Context& ctx);
void register_run_graph(CLI::App& app, const Context& ctx);
void register_gemm(CLI::App& app, const Context& ctx);
// Returns the `lower` subcommand so other frontends add theirs to it.
CLI::App* register_lower(CLI::App& app, const Context& ctx);
void register_attention(CLI::App& app, const Context& ctx);
void register_llm(CLI::App& app, const Context& ctx);
void register_collective(CLI::App& app, const Context& ctx);
void register_moe(CLI::App& app, const Context& ctx);

// `tgsim validate --profile` (cmd_validate_profile.cpp).
struct ProfileValidationOptions {
  std::string profile;
  std::string gpu = "h200";
  std::vector<std::string> overrides;
  bool json = false;
  std::string rows_out;
  int jobs = 1;
  graph::Limits limits = graph::default_limits();
};
void run_profile_validation(const Context& ctx, const ProfileValidationOptions& o);
void register_lower_attention(CLI::App& lower, const Context& ctx);
void register_validate(CLI::App& app, const Context& ctx);
void register_sweep(CLI::App& app, const Context& ctx);

// A run stopped by SIGINT/SIGTERM after saving its work (tgsim sweep); main prints the message
// and exits with 130, the shell's code for Ctrl-C.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tgsim::cli
