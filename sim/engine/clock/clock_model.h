// Contract: a clock model gives the SM clock a kernel runs at. GPUs do not hold their boost
// clock under dense tensor-core load: they hit the power limit and slow down. The model sees what
// the kernel did in a first pass at boost (its tensor-pipe duty), never the graph.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/hw/gpu_spec.h"

namespace tgsim::engine {

// What a kernel asked of the chip, measured in a simulation pass at the boost clock.
struct KernelActivity {
  double tensor_duty = 0;  // tensor-pipe busy time / (kernel time x SMs)
  bool eight_bit = false;  // most tensor work is fp8/int8
  // Tensor-pipe busy time of the whole run / ((run time + idle between repetitions) x SMs): what
  // the slow power controller averages. Negative: not known (taken as tensor_duty).
  double window_duty = -1;
  // Seconds of this load before the measured repetition ends, for a run that starts from a card at
  // rest (the slow limit has not engaged before clock.sustained_onset, scaled by the load).
  // Negative: steady state (the card has run this load for long).
  double time_under_load = -1;
  // The kernel issues wgmma (its ceiling is clock.tensor_max_wgmma where the spec sets one).
  bool wgmma = false;
  // What the power limits see (KernelStat::power_duty: the tensor duty plus the spec's optional
  // power-duty terms, in units of wgmma tensor duty at the kernel's clock). Negative: tensor_duty. The
  // ceiling depends on tensor_duty alone; window_duty is then in these units too.
  double power_duty = -1;
  double duty_for_power() const { return power_duty >= 0 ? power_duty : tensor_duty; }
};

class ClockModel {
 public:
  virtual ~ClockModel() = default;
  virtual Hertz sm_clock(const KernelActivity& a) const = 0;
  // The clock this kernel runs at when no power limit binds: boost, or clock.tensor_max for a
  // kernel with tensor work (clock.tensor_max_wgmma, lower the higher its tensor duty, for one that
  // issues wgmma). sm_clock is below it only where a power limit binds.
  virtual Hertz ceiling(const KernelActivity& a) const = 0;
  // The highest ceiling a kernel with tensor work may have (its ceiling as its tensor duty
  // vanishes): where engine::simulate starts such a kernel before it knows the duty.
  Hertz top_ceiling(bool wgmma) const {
    KernelActivity a;
    a.tensor_duty = 1e-12;
    a.wgmma = wgmma;
    return ceiling(a);
  }
  // The clock x power-duty product the power limits allow this kernel (its clock is
  // min(ceiling, product / power duty)); zero where the clock does not depend on the duty.
  virtual Hertz power_product(const KernelActivity& /*a*/) const { return Hertz{0}; }
  virtual std::string_view name() const = 0;
};

// Registry: "constant" (boost clock always) and "power" (min(ceiling, clock.short_term_tensor /
// duty, clock.sustained_tensor / window duty), the ceiling being clock.tensor_max for a kernel with
// tensor work, else boost: the clock x tensor-duty product is what the power limits allow, the fast
// one per kernel and the slow one over the run; for a run from rest the slow one only after its
// onset, clock.sustained_onset). Unknown names throw InputError.
std::unique_ptr<ClockModel> make_clock_model(const hw::GpuSpec& spec);
std::vector<std::string> clock_model_names();

}  // namespace tgsim::engine
