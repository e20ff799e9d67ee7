#include "frontend/validate/profile_replay.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <map>
#include <set>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "frontend/attention/lower.h"
#include "frontend/attention/request.h"
#include "frontend/elementwise.h"
#include "frontend/pytorch_kernels.h"
#include "frontend/gemm/lower.h"
#include "frontend/gemm/request.h"
#include "sim/engine/simulate.h"
#include "sim/graph/graph_size.h"
#include "sim/graph/validate.h"
#include "sim/units/error.h"

namespace tgsim::validate {
namespace {

double numel(const std::vector<std::int64_t>& d) {
  return std::accumulate(d.begin(), d.end(), 1.0, [](double a, std::int64_t b) { return a * static_cast<double>(b); });
}

// Bytes of one element of a recorded input type; 0 for scalars and non-tensors.
double element_bytes(const std::string& t) {
  if (t == "float" || t == "int") return 4;
  if (t == "c10::BFloat16" || t == "c10::Half" || t == "short") return 2;
  if (t == "double" || t == "long int" || t == "long") return 8;
  if (t == "bool" || t == "unsigned char" || t == "signed char" || t.find("Float8") != std::string::npos) return 1;
  return 0;
}

std::optional<DType> dtype_of(const std::string& t) {
  if (t == "c10::BFloat16") return DType::bf16;
  if (t == "c10::Half") return DType::fp16;
  if (t == "float") return DType::fp32;
  return std::nullopt;
}

std::string dims_text(const ProfiledOp& op) {
  std::string s;
  for (std::size_t i = 0; i < op.dims.size(); ++i) {
    if (op.dims[i].empty()) continue;
    if (!s.empty()) s += " ";
    s += fmt::format("[{}]", fmt::join(op.dims[i], ","));
  }
  return s;
}

// What the profiler (CUPTI) records of kernel i beyond the model's (end - start). A kernel the
// model times by its CTAs' span (GEMM, attention; `span_modelled`) gets launch.cupti_duration_extra,
// the set-up and tear-down CUPTI counts around the CTAs (calib_graph); the PyTorch elementwise
// classes' set-up was measured from CUPTI durations and already holds it. A kernel launched with
// programmatic dependent launch (cuBLASLt's split-K reduction) is resident and waiting at
// griddepcontrol.wait while the model's launch.pdl_kernel_gap behind its predecessor runs, and
// CUPTI times it from then (calib_graph stream_pdl: the dependent's duration spans the wait;
// traces/h200/profiles: the reduction starts 0.16 us before its GEMM ends).
Duration cupti_extra(const graph::TileGraph& g, std::size_t i, const hw::GpuSpec& spec, bool span_modelled) {
  Duration d = span_modelled ? spec.launch.cupti_duration_extra : Duration{0};
  if (i > 0 && i < g.kernels.size() && g.kernels[i].programmatic) d += spec.launch.pdl_kernel_gap;
  return d;
}

// Sets the row's predicted time to the kernel durations (end - start) of every kernel in a
// simulated graph (launch gaps excluded, as the profiler's kernel durations exclude them) and its
// tensor busy time. `window_duty` >= 0: the profile's average tensor duty, which the slow power
// limit sees (SimOptions::window_duty).
void simulate_row(const graph::TileGraph& g, const hw::GpuSpec& spec, const graph::Limits& limits, double window_duty,
                  bool span_modelled, ReplayRow& row) {
  graph::validate_tile_graph(g, g.name);
  graph::check_limits(g, limits);  // too big for the machine: the row says so
  engine::SimOptions o;
  // Inside a model step L2 holds what the previous kernels touched: mostly read-only weights and
  // small activations, few dirty lines to write back (unlike after a measurement's memset flush):
  // a decode step's GEMMs stream their weights at the clean-L2 rate (traces/h200/profiles: the
  // 32 x 4096 x 6144 GEMM runs 16.5 us there, 20 us after a flush in gemm_settled.csv).
  o.l2_starts_dirty = false;
  o.critical_path = false;
  o.window_duty = window_duty;
  const auto r = engine::simulate(g, spec, o);
  row.predicted_us = 0;
  row.tensor_busy_us = 0;
  row.power_busy_us = 0;
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    const auto& k = r.kernels[i];
    row.predicted_us += to_us(k.end - k.start) + to_us(cupti_extra(g, i, spec, span_modelled));
    row.tensor_busy_us += k.tensor_utilisation * to_us(k.end - k.start);
    row.power_busy_us += k.power_duty * to_us(k.end - k.start);
  }
}

std::string kernel_list(const ProfiledLaunch& l) {
  std::vector<std::string> names;
  for (const auto& k : l.kernels) names.push_back(normalize_kernel_name(k.name));
  return fmt::format("{}", fmt::join(names, ";"));
}

bool predict_gemm(const ProfiledLaunch& l, const hw::GpuSpec& spec, const graph::Limits& limits, double window_duty,
                  ReplayRow& row) {
  const auto& op = l.op;
  std::vector<std::int64_t> a, b;
  if (op.name == "aten::mm" && op.dims.size() >= 2) {
    a = op.dims[0];
    b = op.dims[1];
  } else if (op.name == "aten::addmm" && op.dims.size() >= 3) {
    a = op.dims[1];
    b = op.dims[2];
  } else {
    return false;
  }
  if (a.size() != 2 || b.size() != 2 || a[1] != b[0]) {
    row.reason = fmt::format("{} with shapes {}: not a plain 2-D product", op.name, dims_text(op));
    return true;
  }
  const auto t = dtype_of(op.types.empty() ? "" : op.types[0]);
  if (!t) {
    row.reason = fmt::format("{}: input type {} not modelled", op.name, op.types.empty() ? "?" : op.types[0]);
    return true;
  }
  gemm::Request req;
  req.m = a[0];
  req.k = a[1];
  req.n = b[1];
  req.dtype = *t;
  req.kernel = kernel_list(l);
  if (!l.kernels.empty()) req.launch_grid = l.kernels.front().grid;  // profiles record no cluster dims
  gemm::Resolved r;
  try {
    r = gemm::resolve(req, spec);
  } catch (const InputError& e) {
    req.kernel.clear();  // a name the importer does not know: the default schedule, said so
    r = gemm::resolve(req, spec);
    row.reason = fmt::format("default schedule (kernel name not imported: {})", e.what());
  }
  const auto lowered = gemm::lower_gemm(r.problem, r.schedule, spec);
  row.category = "gemm";
  row.schedule = lowered.schedule.name;
  simulate_row(lowered.graph, spec, limits, window_duty, true, row);
  row.simulated = true;
  return true;
}

bool predict_attention(const ProfiledLaunch& l, const hw::GpuSpec& spec, const graph::Limits& limits, double window_duty,
                       ReplayRow& row) {
  const auto& op = l.op;
  // The ops SDPA's flash and cuDNN backends record around their kernels:
  //   _flash_attention_forward(q, k, v, cum_q, cum_k, max_q, max_k, dropout, is_causal, ...),
  //     q [batch, seq_q, heads, d], k [batch, seq_kv, heads_kv, d];
  //   _cudnn_attention_forward(q, k, v, attn_bias, cum_q, cum_k, max_q, max_k, compute_lse,
  //     dropout, is_causal, ...), q [batch, heads, seq_q, d], k [batch, heads_kv, seq_kv, d].
  const bool flash = op.name == "aten::_flash_attention_forward";
  const bool cudnn = op.name == "aten::_cudnn_attention_forward";
  if (!flash && !cudnn) return false;
  if (op.dims.size() < 3 || op.dims[0].size() != 4 || op.dims[1].size() != 4) {
    row.reason = fmt::format("{} without 4-D q, k", op.name);
    return true;
  }
  attention::Request req;
  auto& p = req.problem;
  const auto& q = op.dims[0];
  const auto& k = op.dims[1];
  const std::size_t seq_axis = flash ? 1 : 2, head_axis = flash ? 2 : 1, causal_arg = flash ? 8 : 10;
  p.batch = q[0];
  p.seq_q = q[seq_axis];
  p.heads = q[head_axis];
  p.head_dim = q[3];
  p.seq_kv = k[seq_axis];
  p.heads_kv = k[head_axis];
  p.causal = op.concrete.size() > causal_arg && op.concrete[causal_arg] == "True";
  // SDPA's is_causal is aligned to the top left (the flash backend refuses seq_q != seq_kv).
  p.causal_align = attention::CausalAlign::top_left;
  const auto t = dtype_of(op.types.empty() ? "" : op.types[0]);
  if (!t) {
    row.reason = "attention input type not modelled";
    return true;
  }
  p.dtype = *t;
  req.kernel = kernel_list(l);
  const auto r = attention::resolve(req, spec);
  const auto lowered = attention::lower_attention(r.problem, r.schedule, spec);
  row.category = "attention";
  row.schedule = lowered.schedule.name;
  simulate_row(lowered.graph, spec, limits, window_duty, true, row);
  row.simulated = true;
  return true;
}

// Memory-bound ops: bytes read = the tensor inputs, bytes written = the result (the broadcast of
// the inputs; copy_ writes its first input; reductions one value per row; cat the sum).
bool predict_elementwise(const ProfiledLaunch& l, const hw::GpuSpec& spec, const graph::Limits& limits, double window_duty,
                         bool cold, ReplayRow& row) {
  static const std::set<std::string> pointwise{"aten::add", "aten::sub", "aten::mul", "aten::div", "aten::neg", "aten::pow",
                                               "aten::rsqrt", "aten::sqrt", "aten::exp", "aten::silu", "aten::gelu",
                                               "aten::relu", "aten::sigmoid", "aten::tanh", "aten::where", "aten::copy_",
                                               "aten::_softmax", "aten::masked_fill", "aten::fill_", "aten::zero_"};
  static const std::set<std::string> reductions{"aten::mean", "aten::sum", "aten::amax", "aten::max"};
  const auto& op = l.op;
  const bool cat = op.name == "aten::cat";
  if (!pointwise.count(op.name) && !reductions.count(op.name) && !cat) return false;
  double read = 0, out_elems = 0, out_bytes_per = 0, rows = 0;
  for (std::size_t i = 0; i < op.dims.size(); ++i) {
    const std::string type = i < op.types.size() ? op.types[i] : "";
    if (cat && i < op.list_dims.size() && !op.list_dims[i].empty()) {
      for (const auto& t : op.list_dims[i]) {
        read += numel(t) * 2;  // a tensor list carries no per-tensor type: 16-bit assumed (docs)
        out_elems += numel(t);
      }
      out_bytes_per = 2;
      continue;
    }
    const double eb = element_bytes(type);
    if (eb == 0 || op.dims[i].empty()) continue;
    const double n = numel(op.dims[i]);
    if (op.name == "aten::copy_" && i == 0) {  // self: written, not read
      out_elems = n;
      out_bytes_per = eb;
      continue;
    }
    read += n * eb;
    if (op.name != "aten::copy_" && n >= out_elems) {
      out_elems = n;
      out_bytes_per = std::max(out_bytes_per, eb);
    }
    if (reductions.count(op.name) && rows == 0 && !op.dims[i].empty()) rows = n / static_cast<double>(op.dims[i].back());
  }
  if (out_elems == 0) {
    row.reason = fmt::format("{}: no tensor input with a known type", op.name);
    return true;
  }
  frontend::Elementwise e;
  e.elements = out_elems;
  e.read_bytes = read;
  e.write_bytes = reductions.count(op.name) ? rows * out_bytes_per : out_elems * out_bytes_per;
  e.rows = reductions.count(op.name) ? static_cast<std::int64_t>(rows) : 0;
  // PyTorch's kernel template (vectorized, strided/broadcast, casting copy, cat, reduction) sets
  // the CTA shape and the per-element cost (frontend/pytorch_kernels.h).
  const auto& cls = frontend::pytorch_kernel_class(l.kernels.empty() ? "" : l.kernels.front().name,
                                                   reductions.count(op.name) > 0);
  frontend::apply_kernel_class(cls, spec.sm.count, e, l.kernels.empty() ? std::array<int, 3>{} : l.kernels.front().grid,
                              l.kernels.empty() ? std::array<int, 3>{} : l.kernels.front().block);
  // In a model step a reduction's input was written by the kernel just before (RMSNorm's pow).
  e.inputs_in_l2 = frontend::input_stays_in_l2(e.read_bytes, static_cast<double>(spec.l2.capacity.value));
  if (cold) frontend::apply_cold_start(cls, spec.sm.count, e);
  graph::TileGraph g;
  g.name = op.name;
  g.kernels.push_back(frontend::elementwise_kernel(op.name, e));
  row.category = "elementwise";
  row.schedule = std::string(cls.name);
  simulate_row(g, spec, limits, window_duty, false, row);
  row.simulated = true;
  return true;
}

// The tensor bytes an op touches (its inputs; a tensor list's elements as 16-bit), for cold_launches.
double op_bytes(const ProfiledOp& op) {
  double bytes = 0;
  for (std::size_t i = 0; i < op.dims.size(); ++i) {
    bytes += numel(op.dims[i]) * element_bytes(i < op.types.size() ? op.types[i] : "");
    if (i < op.list_dims.size()) {
      for (const auto& t : op.list_dims[i]) bytes += numel(t) * 2;
    }
  }
  return bytes;
}

ReplayRow predict(const ProfiledLaunch& l, const hw::GpuSpec& spec, const graph::Limits& limits, double window_duty,
                  bool cold) {
  ReplayRow row;
  row.op = l.op.name.empty() ? "(no op recorded)" : l.op.name;
  row.kernels = kernel_list(l);
  row.shape = dims_text(l.op);
  row.kernel_count = static_cast<int>(l.kernels.size());
  for (const auto& k : l.kernels) row.measured_us += k.dur_us;
  for (const auto& d : l.op.dims) {
    for (const auto x : d) {
      if (x <= 0 || x > (std::int64_t{1} << 40)) {
        row.reason = fmt::format("{}: input dimension {} out of range", row.op, x);
        return row;
      }
    }
  }
  try {
    if (predict_gemm(l, spec, limits, window_duty, row) || predict_attention(l, spec, limits, window_duty, row) ||
        predict_elementwise(l, spec, limits, window_duty, cold, row)) {
      if (!row.simulated && row.reason.empty()) row.reason = "not modelled";
      return row;
    }
    row.reason = l.op.name.empty() ? "kernel not attached to an operator" : fmt::format("{}: no frontend models it", l.op.name);
  } catch (const InputError& e) {
    row.simulated = false;
    row.reason = e.what();
  }
  return row;
}

}  // namespace

std::vector<bool> cold_launches(const std::vector<ProfiledLaunch>& launches, double l2_bytes) {
  std::map<std::string, double> last;  // kernel name -> data through L2 until its last launch
  double traffic = 0;
  std::vector<bool> cold(launches.size());
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const std::string name = launches[i].kernels.empty() ? std::string() : launches[i].kernels.front().name;
    const auto it = last.find(name);
    cold[i] = it == last.end() || traffic - it->second > l2_bytes;
    traffic += op_bytes(launches[i].op);
    last[name] = traffic;
  }
  return cold;
}

ReplayReport replay_profile(const std::vector<ProfiledLaunch>& launches, const hw::GpuSpec& spec, int jobs,
                            const std::function<void(int, int)>& progress, const graph::Limits& limits) {
  ReplayReport rep;
  rep.rows.resize(launches.size());
  // Pass 1: every kernel alone. Pass 2: the kernels that use the tensor pipes again, with the
  // profile's average tensor duty as the slow power limit's window (a GEMM between memory-bound
  // kernels runs at a higher clock than one running back to back; docs/model.md).
  const std::vector<bool> cold = cold_launches(launches, static_cast<double>(spec.l2.capacity.value));
  std::vector<std::size_t> todo(launches.size());
  for (std::size_t i = 0; i < todo.size(); ++i) todo[i] = i;
  std::mutex progress_mutex;
  int done = 0;
  const int total = static_cast<int>(launches.size());
  const auto pass = [&](const std::vector<std::size_t>& items, double window_duty, int progress_total) {
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
      for (std::size_t j = next++; j < items.size(); j = next++) {
        rep.rows[items[j]] = predict(launches[items[j]], spec, limits, window_duty, cold[items[j]]);
        if (progress) {
          std::lock_guard lock(progress_mutex);
          progress(++done, progress_total);
        }
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::max(1, jobs); ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  };
  double busy = 0, span = 0;
  std::vector<std::size_t> tensor_rows;
  pass(todo, -1, total);
  for (std::size_t i = 0; i < rep.rows.size(); ++i) {
    const auto& r = rep.rows[i];
    span += r.simulated ? r.predicted_us : r.measured_us;
    busy += r.power_busy_us;
    if (r.tensor_busy_us > 0) tensor_rows.push_back(i);
  }
  if (!tensor_rows.empty() && span > 0) {
    done = 0;
    pass(tensor_rows, busy / span, static_cast<int>(tensor_rows.size()));
  }
  for (const auto& r : rep.rows) {
    rep.measured_total_us += r.measured_us;
    if (r.simulated) {
      rep.measured_covered_us += r.measured_us;
      rep.predicted_covered_us += r.predicted_us;
    }
  }
  rep.predicted_total_us = rep.predicted_covered_us + (rep.measured_total_us - rep.measured_covered_us);
  rep.coverage_pct = rep.measured_total_us > 0 ? 100.0 * rep.measured_covered_us / rep.measured_total_us : 0;
  rep.covered_error_pct =
      rep.measured_covered_us > 0 ? 100.0 * (rep.predicted_covered_us - rep.measured_covered_us) / rep.measured_covered_us : 0;
  return rep;
}

}  // namespace tgsim::validate
