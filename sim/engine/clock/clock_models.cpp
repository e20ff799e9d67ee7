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
  std::string_view name() const override { return "constant"; }

 private:
  Hertz f_;
};

// Dynamic power grows with clock x tensor activity; at a power limit that product is a constant
// K (per input width: 8-bit MMAs burn more per cycle). Two limits act: the slow controller holds
// the run's average (window) activity at K_sustained, and a fast limit holds each kernel at
// K_short (>= K_sustained; what the first ~50 ms of a dense GEMM reach). So
// f = min(boost, K_short / d, K_sustained / D): memory-bound kernels keep the boost clock, a
// dense GEMM running alone falls to K_sustained / d, and one inside a lighter run (or measured
// with idle gaps between repetitions) runs faster, up to K_short / d.
class PowerClock final : public ClockModel {
 public:
  PowerClock(Hertz boost, Hertz k16, Hertz k8, Hertz s16, Hertz s8)
      : boost_(boost), k16_(k16), k8_(k8), s16_(s16), s8_(s8) {}
  Hertz power_product(const KernelActivity& a) const override {
    const double k = (a.eight_bit ? k8_ : k16_).value;
    const double s = (a.eight_bit ? s8_ : s16_).value;
    if (a.tensor_duty <= 0 || a.window_duty < 0) return Hertz{k};
    if (a.window_duty <= 0) return Hertz{s};
    return Hertz{std::min(s, k * a.tensor_duty / a.window_duty)};
  }
  Hertz sm_clock(const KernelActivity& a) const override {
    const double p = power_product(a).value;
    if (a.tensor_duty <= 0 || p <= 0) return boost_;
    return Hertz{std::min(boost_.value, p / a.tensor_duty)};
  }
  std::string_view name() const override { return "power"; }

 private:
  Hertz boost_, k16_, k8_, s16_, s8_;
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
    return std::make_unique<PowerClock>(c.boost, k16, k8, s16, s8);
  }
  throw InputError(fmt::format("{}: /clock/model: unknown clock model \"{}\" (valid: constant, power)", spec.name,
                               c.model));
}

}  // namespace tgsim::engine
