#include <algorithm>

#include <fmt/format.h>

#include "sim/engine/clock/clock_model.h"
#include "sim/units/error.h"

namespace tgsim::engine {
namespace {

class ConstantClock final : public ClockModel {
 public:
  explicit ConstantClock(Hertz f) : f_(f) {}
  Hertz sm_clock(const KernelActivity&) const override { return f_; }
  Hertz ceiling(const KernelActivity&) const override { return f_; }
  std::string_view name() const override { return "constant"; }

 private:
  Hertz f_;
};

// Dynamic power grows with clock x tensor activity; at a power limit that product is a constant
// K (per input width: 8-bit MMAs burn more per cycle). Two limits act: the slow controller holds
// the run's average (window) activity at K_sustained, and a fast limit holds each kernel at
// K_short (>= K_sustained; what the first ~50 ms of a dense GEMM reach). So
// f = min(ceiling, K_short / d, K_sustained / D): memory-bound kernels keep the boost clock, a
// dense GEMM running alone falls to K_sustained / d, and one inside a lighter run (or measured
// with idle gaps between repetitions) runs faster, up to K_short / d. The ceiling is boost, or for
// a kernel with any tensor work clock.tensor_max: the H200's SMs run at most ~1.8 GHz while they
// issue mma.sync, at any duty and far below the power limit; kernels that issue wgmma run lower,
// the more so the busier their tensor pipe: clock.tensor_max_wgmma - per_duty x d (measured,
// docs/model.md). The duty d the limits see is the power duty (KernelActivity::duty_for_power):
// the tensor duty, plus the spec's optional power-duty terms (mma.sync weight, SIMT, shared
// memory, L2, clock, HBM); the ceiling
// always takes the tensor duty. Only kernels with tensor work are power-limited.
//
// From rest (KernelActivity::time_under_load >= 0) the slow controller first spends a budget: the
// densest calibration GEMM runs at the fast limit's product K_short for `onset` before the slow one
// engages, so the budget is (K_short - K_sustained) x onset. A run whose kernels run at
// f = min(boost, K_short / d) has the window product f x D and engages it after
// budget / (f x D - K_sustained); never if that is not positive. Before then only K_short binds.
class PowerClock final : public ClockModel {
 public:
  PowerClock(Hertz boost, Hertz tensor_max, Hertz wgmma_max, Hertz wgmma_per_duty, Hertz k16, Hertz k8, Hertz s16,
             Hertz s8, Duration onset16, Duration onset8)
      : boost_(boost), tensor_max_(tensor_max), wgmma_max_(wgmma_max), wgmma_per_duty_(wgmma_per_duty), k16_(k16),
        k8_(k8), s16_(s16), s8_(s8), onset16_(onset16), onset8_(onset8) {}
  Hertz ceiling(const KernelActivity& a) const override {
    if (a.tensor_duty <= 0) return boost_;
    if (a.wgmma && wgmma_max_.value > 0) {
      const double d = std::min(a.tensor_duty, 1.0);
      return Hertz{std::min(boost_.value, wgmma_max_.value - wgmma_per_duty_.value * d)};
    }
    return tensor_max_.value > 0 ? Hertz{std::min(boost_.value, tensor_max_.value)} : boost_;
  }
  Hertz power_product(const KernelActivity& a) const override {
    const double k = (a.eight_bit ? k8_ : k16_).value;
    const double s = (a.eight_bit ? s8_ : s16_).value;
    if (a.tensor_duty <= 0 || a.window_duty < 0) return Hertz{k};
    if (a.window_duty <= 0 || slow_limit_not_engaged(a, k, s)) return Hertz{s};
    return Hertz{std::min(s, k * a.duty_for_power() / a.window_duty)};
  }
  Hertz sm_clock(const KernelActivity& a) const override {
    const double p = power_product(a).value;
    const double d = a.duty_for_power();
    if (a.tensor_duty <= 0 || p <= 0 || d <= 0) return boost_;
    return Hertz{std::min(ceiling(a).value, p / d)};
  }
  std::string_view name() const override { return "power"; }

 private:
  bool slow_limit_not_engaged(const KernelActivity& a, double k, double s) const {
    const double onset = to_seconds(a.eight_bit ? onset8_ : onset16_);
    if (a.time_under_load < 0 || onset <= 0 || s <= k) return false;
    // Before the slow limit engages the kernel runs at min(ceiling, K_short / d); the window's
    // product then exceeds K_sustained by this much, which spends the budget.
    const double excess = std::min(ceiling(a).value, s / a.duty_for_power()) * a.window_duty - k;
    return excess <= 0 || a.time_under_load < (s - k) * onset / excess;
  }
  Hertz boost_, tensor_max_, wgmma_max_, wgmma_per_duty_, k16_, k8_, s16_, s8_;
  Duration onset16_, onset8_;
};

}  // namespace

std::vector<std::string> clock_model_names() { return {"constant", "power"}; }

std::unique_ptr<ClockModel> make_clock_model(const hw::GpuSpec& spec) {
  const auto& c = spec.clock;
  if (c.model == "constant") return std::make_unique<ConstantClock>(c.boost);
  if (c.model == "power") {
    const Hertz k16 = c.sustained_tensor.value > 0 ? c.sustained_tensor : c.boost;
    const Hertz k8 = c.sustained_tensor_fp8.value > 0 ? c.sustained_tensor_fp8 : k16;
    const Hertz s16 = c.short_term_tensor.value > 0 ? c.short_term_tensor : k16;
    const Hertz s8 = c.short_term_tensor_fp8.value > 0 ? c.short_term_tensor_fp8 : k8;
    const Duration onset8 = c.sustained_onset_fp8.count() > 0 ? c.sustained_onset_fp8 : c.sustained_onset;
    return std::make_unique<PowerClock>(c.boost, c.tensor_max, c.tensor_max_wgmma, c.tensor_max_wgmma_per_duty, k16, k8,
                                        s16, s8, c.sustained_onset, onset8);
  }
  throw InputError(fmt::format("{}: /clock/model: unknown clock model \"{}\" (valid: constant, power)", spec.name,
                               c.model));
}

}  // namespace tgsim::engine
