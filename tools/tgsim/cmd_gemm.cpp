// `tgsim gemm` (simulate one GEMM) and `tgsim lower gemm` (write its tile graph).
#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "frontend/gemm/default_schedule.h"
#include "frontend/gemm/lower.h"
#include "frontend/gemm/request.h"
#include "frontend/gemm/schedule_json.h"
#include "frontend/text.h"
#include "sim/graph/graph_json.h"
#include "sim/units/error.h"
#include "tools/tgsim/cli_common.h"

namespace tgsim::cli {
namespace {

struct GemmArgs {
  gemm::Request req;
  std::string dtype = "bf16";
  std::string out_dtype;
  std::string order = "row";
  std::string launch_grid;
  std::string launch_cluster;
};

void add_gemm_options(CLI::App& cmd, GemmArgs& a) {
  cmd.add_option("--m", a.req.m, "Rows of C (tokens, in the row-major view)")->required()->check(CLI::PositiveNumber);
  cmd.add_option("--n", a.req.n, "Columns of C")->required()->check(CLI::PositiveNumber);
  cmd.add_option("--k", a.req.k, "Reduction dimension")->required()->check(CLI::PositiveNumber);
  cmd.add_option("--groups", a.req.groups,
                 "Grouped GEMM (MoE experts): this many problems of M x N x K, each with its own weights, in one launch")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  cmd.add_option("--dtype", a.dtype, "Input type: fp32, tf32, fp16, bf16, fp8_e4m3, fp8_e5m2")->capture_default_str();
  cmd.add_option("--out-dtype", a.out_dtype, "Output type (default: the library's choice for --dtype)");
  cmd.add_option("--order", a.order,
                 "row: M, N, K as PyTorch states them (cuBLAS runs m=N, n=M); col: as cuBLAS is called")
      ->capture_default_str()
      ->check(CLI::IsMember({"row", "col"}));
  auto* kernel = cmd.add_option("--kernel", a.req.kernel, "Kernel name from a profile (nvjet, xmma, CUTLASS; docs/kernel-names.md)");
  cmd.add_option("--schedule", a.req.schedule_file, "Schedule JSON file (docs/gemm.md)")->excludes(kernel);
  cmd.add_option("--launch-grid", a.launch_grid,
                 "Recorded grid XxYxZ of --kernel, as validate's grid column (xmma kernels take their persistence from it)")
      ->needs(kernel);
  cmd.add_option("--launch-cluster", a.launch_cluster,
                 "Recorded cluster XxYxZ of --kernel, as validate's cluster column (xmma kernels take their cluster from it)")
      ->needs(kernel);
}

std::array<int, 3> launch_dims(const std::string& flag, const std::string& text) {
  if (text.empty()) return {0, 0, 0};
  const auto d = frontend::dims3(text);
  if (!d || (*d)[0] < 1 || (*d)[1] < 1 || (*d)[2] < 1)
    throw InputError(fmt::format("{}: expected XxYxZ with positive integers (e.g. 64x2x1), got \"{}\"", flag, text));
  return *d;
}

void finish_args(GemmArgs& a) {
  auto t = parse_dtype(a.dtype);
  if (!t) throw InputError(fmt::format("--dtype: unknown type \"{}\"", a.dtype));
  a.req.dtype = *t;
  if (!a.out_dtype.empty()) {
    auto o = parse_dtype(a.out_dtype);
    if (!o) throw InputError(fmt::format("--out-dtype: unknown type \"{}\"", a.out_dtype));
    a.req.out_dtype = *o;
  }
  a.req.row_major = a.order == "row";
  a.req.launch_grid = launch_dims("--launch-grid", a.launch_grid);
  a.req.launch_cluster = launch_dims("--launch-cluster", a.launch_cluster);
}

nlohmann::json describe(const GemmArgs& a, const gemm::Resolved& r) {
  return {{"command", "gemm"},
          {"M", a.req.m},
          {"N", a.req.n},
          {"K", a.req.k},
          {"groups", a.req.groups},
          {"order", a.order},
          {"dtype", to_string(r.problem.a_type)},
          {"out_dtype", to_string(r.problem.c_type)},
          {"library_mnk", {r.problem.m, r.problem.n, r.problem.k}},
          {"schedule_source", r.schedule_source},
          {"schedule", gemm::to_json(r.schedule)},
          {"notes", r.notes}};
}

// Simulates every candidate schedule and keeps the fastest; prints the runner-up table to stderr.
gemm::Schedule autotune(const gemm::Problem& p, const hw::GpuSpec& spec, const OutputOptions& out) {
  const auto candidates = gemm::candidate_schedules(p, spec);
  std::vector<std::pair<double, gemm::Schedule>> results;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    std::cerr << fmt::format("\rautotune: {}/{} {}", i + 1, candidates.size(), candidates[i].name) << std::flush;
    try {
      const auto lowered = gemm::lower_gemm(p, candidates[i], spec);
      results.emplace_back(to_us(simulate(lowered.graph, spec, out).latency), lowered.schedule);
    } catch (const InputError&) {
      continue;  // a candidate that does not fit this GPU
    }
  }
  std::cerr << "\n";
  if (results.empty()) throw InputError("autotune: no candidate schedule fits this GPU");
  std::stable_sort(results.begin(), results.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::cerr << fmt::format("{:<4} {:<40} {:>12} {:>10}\n", "rank", "schedule", "latency_us", "TFLOPS");
  for (std::size_t i = 0; i < std::min<std::size_t>(results.size(), 10); ++i) {
    std::cerr << fmt::format("{:<4} {:<40} {:>12.3f} {:>10.1f}\n", i + 1, results[i].second.name, results[i].first,
                             p.flops() / results[i].first * 1e-6);
  }
  return results.front().second;
}

}  // namespace

void register_gemm(CLI::App& app, const Context& ctx) {
  struct Opts {
    GemmArgs gemm;
    GpuOptions gpu;
    OutputOptions out;
    bool autotune = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("gemm", "Simulate one GEMM C[M,N] = A[M,K] B[K,N] with a kernel, schedule or the default rule");
  add_gemm_options(*cmd, o->gemm);
  cmd->add_flag("--autotune", o->autotune, "Simulate the candidate schedules and use the fastest (table on stderr)");
  add_gpu_options(*cmd, o->gpu);
  add_output_options(*cmd, o->out);
  cmd->callback([&ctx, o] {
    finish_args(o->gemm);
    const hw::GpuSpec spec = load_gpu(ctx, o->gpu);
    gemm::Resolved r = gemm::resolve(o->gemm.req, spec);
    if (o->autotune) {
      r.schedule = autotune(r.problem, spec, o->out);
      r.schedule_source = "autotune";
    }
    const auto lowered = gemm::lower_gemm(r.problem, r.schedule, spec);
    r.schedule = lowered.schedule;
    r.notes.insert(r.notes.end(), lowered.notes.begin(), lowered.notes.end());
    const std::string preface = fmt::format("GEMM {}{}x{}x{} {} ({} order; library m,n,k = {},{},{})\nschedule     {} ({})\n",
                                            r.problem.groups > 1 ? fmt::format("{} groups x ", r.problem.groups) : "",
                                            o->gemm.req.m, o->gemm.req.n, o->gemm.req.k, o->gemm.dtype, o->gemm.order,
                                            r.problem.m, r.problem.n, r.problem.k, r.schedule.name, r.schedule_source);
    const auto res = simulate_and_report(lowered.graph, spec, o->gpu, o->out, describe(o->gemm, r), preface);
    if (!o->out.json) {
      std::cout << fmt::format("throughput   {:.1f} TFLOP/s\n", r.problem.flops() / to_us(res.latency) * 1e-6);
      for (const auto& n : r.notes) std::cout << "note: " << n << "\n";
    }
  });
}

CLI::App* register_lower(CLI::App& app, const Context& ctx) {
  auto* lower = app.add_subcommand("lower", "Write the tile graph a frontend builds, without simulating it");
  lower->require_subcommand(1);
  struct Opts {
    GemmArgs gemm;
    GpuOptions gpu;
    std::string out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = lower->add_subcommand("gemm", "Lower a GEMM to a tile graph (then: tgsim run-graph FILE)");
  add_gemm_options(*cmd, o->gemm);
  add_gpu_options(*cmd, o->gpu);
  cmd->add_option("--out", o->out, "Output tile-graph JSON file")->required();
  cmd->callback([&ctx, o] {
    finish_args(o->gemm);
    const hw::GpuSpec spec = load_gpu(ctx, o->gpu);
    const gemm::Resolved r = gemm::resolve(o->gemm.req, spec);
    const auto lowered = gemm::lower_gemm(r.problem, r.schedule, spec);
    graph::write_tile_graph(lowered.graph, o->out);
    std::cout << fmt::format("wrote {} ({} kernels, schedule {})\n", o->out, lowered.graph.kernels.size(), r.schedule.name);
  });
  return lower;
}

}  // namespace tgsim::cli
