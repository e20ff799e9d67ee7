// `tgsim validate`: predict every measured row with the simulator and compare. One predictor per
// `op` (registry below); rows whose op has none, or that a predictor cannot handle, are skipped
// with the reason, never dropped silently.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frontend/validate/measurements.h"
#include "sim/engine/simulator.h"
#include "sim/hw/gpu_spec.h"
#include "sim/hw/system_spec.h"

namespace tgsim::validate {

// What a predictor needs besides the row: specs by GPU name (loaded once, with --set applied).
using SpecLoader = std::function<const hw::GpuSpec&(const std::string& gpu)>;

struct Prediction {
  bool ok = false;
  std::string skip_reason;
  double predicted_us = 0;
  std::string category;  // e.g. square, skinny, k_heavy, fp8, split_k (for the report's table)
  std::string schedule;  // what was simulated
};

using Predictor = std::function<Prediction(const Row& row, const std::string& origin, const SpecLoader& specs)>;

class PredictorRegistry {
 public:
  void add(std::string op, Predictor p) { by_op_[std::move(op)] = std::move(p); }
  const Predictor* find(const std::string& op) const;
  std::vector<std::string> ops() const;

 private:
  std::map<std::string, Predictor> by_op_;
};

void register_builtin_predictors(PredictorRegistry& r);

// Multi-GPU predictors (sm_split, all_to_all, all_reduce; predict_multigpu.cpp) also need
// system specs: rows with gpus/gpu select the preset "<gpus>x<gpu>" (configs/systems/).
using SystemLoader = std::function<const hw::SystemSpec&(const std::string& name)>;
void register_multigpu_predictors(PredictorRegistry& r, SystemLoader systems);
Prediction predict_gemm(const Row& row, const std::string& origin, const SpecLoader& specs);
Prediction predict_grouped_gemm(const Row& row, const std::string& origin, const SpecLoader& specs);
Prediction predict_attention(const Row& row, const std::string& origin, const SpecLoader& specs);
// The idle gap a measured repetition sees between runs: the 256 MiB L2 flush of
// docs/measurements.md written at the HBM's streaming rate, plus one launch. What the slow power
// limit averages the run's activity with (SimOptions::repeat_gap).
Duration measurement_flush_gap(const hw::GpuSpec& spec);
// The simulator options for predicting one measured row: L2 full of the flush's dirty lines, the
// flush's gap between repetitions, and for a row measured from a rested card (`settle_ms` > 0:
// the GPU idled that long before the row's reps) the repetitions it took (`reps`; else the
// tools/bench rule clamp(ceil(50 ms / time_us), 5, 50)), so the slow power limit engages only as
// it did in that measurement (SimOptions::from_rest_reps).
engine::SimOptions measurement_options(const Row& row, const std::string& origin, const hw::GpuSpec& spec);
// A row whose `timing` is cuda_graph was timed as one CUDA-graph replay between events: its
// kernels are marked in_cuda_graph (the first pays launch.graph_launch_overhead, the others
// launch.graph_kernel_overhead after their predecessor).
void apply_row_timing(const Row& row, graph::TileGraph& g);
Prediction predict_elementwise(const Row& row, const std::string& origin, const SpecLoader& specs);

struct RowResult {
  const Row* row = nullptr;
  std::string op;
  Prediction prediction;
  double measured_us = 0;
  double ape_pct = 0;
};

struct Stats {
  int rows = 0;
  int simulated = 0;
  int skipped = 0;
  double mape_pct = 0;
  double max_ape_pct = 0;
  double pearson_r = 0;
  int rows_over_10us = 0;
  double mape_over_10us_pct = 0;
  double max_ape_over_10us_pct = 0;
};

Stats compute_stats(const std::vector<const RowResult*>& rows);

struct Report {
  std::vector<RowResult> rows;
  Stats all;
  std::map<std::string, Stats> by_op;
  std::map<std::string, Stats> by_category;
};

// Predicts every row (in parallel on `jobs` threads; results in row order). `progress` is called
// after each row with (done, total).
Report run_validation(const Table& table, const std::string& origin, const PredictorRegistry& registry,
                      const SpecLoader& specs, int jobs, const std::function<void(int, int)>& progress);

}  // namespace tgsim::validate
