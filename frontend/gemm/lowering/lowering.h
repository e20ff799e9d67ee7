// Contract: a KernelLowering turns one schedule family into the main GEMM kernel of a tile graph
// (CTA resources, templates, grid with per-CTA parameters from the Plan). It never simulates.
// Registry: one entry per Family, filled by register_builtin_lowerings().
#pragma once

#include <map>
#include <memory>
#include <string_view>

#include "frontend/gemm/plan.h"
#include "frontend/gemm/problem.h"
#include "frontend/gemm/schedule.h"
#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::gemm {

class KernelLowering {
 public:
  virtual ~KernelLowering() = default;
  virtual std::string_view name() const = 0;
  // CTAs of this family that fit on one SM (occupancy), needed to size persistent grids.
  virtual int ctas_per_sm(const Problem& p, const Schedule& s, const hw::GpuSpec& spec) const = 0;
  virtual graph::Kernel build(const Problem& p, const Schedule& s, const Plan& plan, const hw::GpuSpec& spec) const = 0;
};

class LoweringRegistry {
 public:
  void add(Family f, std::unique_ptr<KernelLowering> l) { by_family_[f] = std::move(l); }
  const KernelLowering& get(Family f) const;

 private:
  std::map<Family, std::unique_ptr<KernelLowering>> by_family_;
};

void register_builtin_lowerings(LoweringRegistry& r);

std::unique_ptr<KernelLowering> make_hopper_lowering();
std::unique_ptr<KernelLowering> make_ampere_lowering();
std::unique_ptr<KernelLowering> make_blackwell_lowering();

}  // namespace tgsim::gemm
