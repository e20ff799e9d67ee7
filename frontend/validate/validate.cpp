#include "frontend/validate/validate.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "sim/units/error.h"

namespace tgsim::validate {

const Predictor* PredictorRegistry::find(const std::string& op) const {
  const auto it = by_op_.find(op);
  return it == by_op_.end() ? nullptr : &it->second;
}

std::vector<std::string> PredictorRegistry::ops() const {
  std::vector<std::string> out;
  for (const auto& [op, _] : by_op_) out.push_back(op);
  return out;
}

void register_builtin_predictors(PredictorRegistry& r) {
  r.add("gemm", predict_gemm);
  r.add("grouped_gemm", predict_grouped_gemm);
  r.add("attention", predict_attention);
  r.add("elementwise", predict_elementwise);
}

Duration measurement_flush_gap(const hw::GpuSpec& spec) {
  constexpr double kFlushBytes = 256.0 * 1024 * 1024;
  const double seconds = kFlushBytes / (spec.hbm.bandwidth.value * spec.hbm.efficiency);
  return from_seconds(seconds) + spec.launch.kernel_overhead;
}

void apply_row_timing(const Row& row, graph::TileGraph& g) {
  if (row.get("timing") != "cuda_graph") return;
  for (auto& k : g.kernels) k.in_cuda_graph = true;
}

engine::SimOptions measurement_options(const Row& row, const std::string& origin, const hw::GpuSpec& spec) {
  engine::SimOptions o;
  o.l2_starts_dirty = true;  // L2 flushed by writes before each repetition (docs/measurements.md)
  o.repeat_gap = measurement_flush_gap(spec);
  o.critical_path = false;
  const auto settle = row.number("settle_ms", origin);
  if (settle && *settle > 0) {
    const auto reps = row.number("reps", origin);
    const auto t = row.number("time_us", origin);
    if (reps && *reps >= 1) {
      o.from_rest_reps = static_cast<int>(*reps);
    } else if (t && *t > 0) {
      o.from_rest_reps = static_cast<int>(std::clamp(std::ceil(50000.0 / *t), 5.0, 50.0));
    } else {
      o.from_rest_reps = 5;
    }
  }
  return o;
}

Stats compute_stats(const std::vector<const RowResult*>& rows) {
  Stats s;
  s.rows = static_cast<int>(rows.size());
  double sum = 0, sum10 = 0;
  std::vector<double> x, y;
  for (const RowResult* r : rows) {
    if (!r->prediction.ok) {
      ++s.skipped;
      continue;
    }
    ++s.simulated;
    sum += r->ape_pct;
    s.max_ape_pct = std::max(s.max_ape_pct, r->ape_pct);
    x.push_back(r->prediction.predicted_us);
    y.push_back(r->measured_us);
    if (r->measured_us > 10.0) {
      ++s.rows_over_10us;
      sum10 += r->ape_pct;
      s.max_ape_over_10us_pct = std::max(s.max_ape_over_10us_pct, r->ape_pct);
    }
  }
  if (s.simulated > 0) s.mape_pct = sum / s.simulated;
  if (s.rows_over_10us > 0) s.mape_over_10us_pct = sum10 / s.rows_over_10us;
  if (x.size() >= 2) {
    const double n = static_cast<double>(x.size());
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      mx += x[i];
      my += y[i];
    }
    mx /= n;
    my /= n;
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) * (x[i] - mx);
      syy += (y[i] - my) * (y[i] - my);
    }
    s.pearson_r = sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
  }
  return s;
}

Report run_validation(const Table& table, const std::string& origin, const PredictorRegistry& registry,
                      const SpecLoader& specs, int jobs, const std::function<void(int, int)>& progress) {
  Report rep;
  rep.rows.resize(table.rows.size());
  std::atomic<std::size_t> next{0};
  std::atomic<int> done{0};
  std::mutex progress_mutex;
  std::exception_ptr failure;
  auto work = [&] {
    for (std::size_t i = next++; i < table.rows.size(); i = next++) {
      RowResult& out = rep.rows[i];
      const Row& row = table.rows[i];
      out.row = &row;
      out.op = row.get("op");
      try {
        const auto measured = row.number("time_us", origin);
        if (!measured || *measured <= 0) {
          out.prediction.skip_reason = "no positive time_us";
        } else if (const Predictor* p = registry.find(out.op)) {
          out.measured_us = *measured;
          out.prediction = (*p)(row, origin, specs);
          if (out.prediction.ok) out.ape_pct = std::abs(out.prediction.predicted_us - *measured) / *measured * 100.0;
        } else {
          out.prediction.skip_reason = fmt::format("op \"{}\" is not modelled yet (modelled: {})", out.op,
                                                   fmt::join(registry.ops(), ", "));
        }
      } catch (const InputError& e) {
        out.prediction = Prediction{};
        out.prediction.skip_reason = e.what();
      } catch (const SimulationError& e) {
        out.prediction = Prediction{};
        out.prediction.skip_reason = fmt::format("simulation failed: {}", e.what());
      } catch (...) {
        std::lock_guard lock(progress_mutex);
        if (!failure) failure = std::current_exception();
      }
      const int d = ++done;
      std::lock_guard lock(progress_mutex);
      if (progress) progress(d, static_cast<int>(table.rows.size()));
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::max(1, jobs); ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  std::vector<const RowResult*> all;
  std::map<std::string, std::vector<const RowResult*>> by_op, by_cat;
  for (const auto& r : rep.rows) {
    all.push_back(&r);
    by_op[r.op].push_back(&r);
    if (r.prediction.ok) by_cat[r.prediction.category].push_back(&r);
  }
  rep.all = compute_stats(all);
  for (auto& [op, v] : by_op) rep.by_op[op] = compute_stats(v);
  for (auto& [c, v] : by_cat) rep.by_category[c] = compute_stats(v);
  return rep;
}

}  // namespace tgsim::validate
