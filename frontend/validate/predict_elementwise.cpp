// Predicting an `elementwise` measurement row: one PyTorch memory-bound kernel (elementwise,
// casting copy, cat, row reduction) by its `kernel` name, `elements` (output elements),
// `read_bytes`, `write_bytes` and, for reductions, `rows`. `time_us` is the kernel's duration as
// the profiler (CUPTI) records it, so the prediction is the kernel's own time, without the launch
// gap. `l2`: `flushed` (default; L2 written over before the call: dirty start) or `warm` (the
// inputs were just touched: clean start).
#include <fmt/format.h>

#include "frontend/elementwise.h"
#include "frontend/pytorch_kernels.h"
#include "frontend/text.h"
#include "frontend/validate/validate.h"
#include "sim/engine/simulate.h"

namespace tgsim::validate {

Prediction predict_elementwise(const Row& row, const std::string& origin, const SpecLoader& specs) {
  Prediction p;
  const auto elements = row.number("elements", origin), read = row.number("read_bytes", origin),
             write = row.number("write_bytes", origin);
  if (!elements || !read || !write || *elements <= 0) {
    p.skip_reason = "elementwise row without elements, read_bytes and write_bytes";
    return p;
  }
  // l2: "flushed" (a memset of 256 MiB before the call), "ce_flushed" (the same by a copy-engine
  // copy, no kernel in between: modelled alike), "warm" (the op ran just before); empty: flushed.
  const std::string& l2 = row.get("l2");
  if (!l2.empty() && l2 != "flushed" && l2 != "ce_flushed" && l2 != "warm") {
    p.skip_reason = fmt::format("unknown l2 \"{}\" (flushed, ce_flushed, warm)", l2);
    return p;
  }
  const std::string gpu = row.get("gpu").empty() ? "h100" : row.get("gpu");
  const hw::GpuSpec& spec = specs(gpu);
  const auto& cls = frontend::pytorch_kernel_class(row.get("kernel"), false);
  frontend::Elementwise e;
  e.elements = *elements;
  e.read_bytes = *read;
  e.write_bytes = *write;
  if (cls.name == "reduce") {
    const auto rows = row.number("rows", origin);
    if (!rows || *rows < 1) {
      p.skip_reason = "reduction row without rows";
      return p;
    }
    e.rows = static_cast<std::int64_t>(*rows);
  }
  // the recorded launch shape ("6x1x1", "32x16x1"), when the row has it
  const auto dims3 = [](const std::string& text) { return frontend::dims3(text).value_or(std::array<int, 3>{}); };
  frontend::apply_kernel_class(cls, spec.sm.count, e, dims3(row.get("grid")), dims3(row.get("block")));
  e.inputs_in_l2 = l2 == "warm" && frontend::input_stays_in_l2(e.read_bytes, static_cast<double>(spec.l2.capacity.value));
  if (l2 != "warm") frontend::apply_cold_start(cls, spec.sm.count, e);  // the flush took its code out of L2 too
  graph::TileGraph g;
  g.name = "elementwise";
  g.kernels.push_back(frontend::elementwise_kernel(row.get("kernel").empty() ? "elementwise" : "kernel", e));
  engine::SimOptions opts;
  opts.l2_starts_dirty = l2 != "warm";
  opts.critical_path = false;
  const auto r = engine::simulate(g, spec, opts);
  p.predicted_us = to_us(r.kernels.front().end - r.kernels.front().start);
  p.ok = true;
  p.category = std::string(cls.name);
  p.schedule = fmt::format("{} ({} threads x {} elements)", cls.name, e.threads, e.elements_per_thread);
  return p;
}

}  // namespace tgsim::validate
