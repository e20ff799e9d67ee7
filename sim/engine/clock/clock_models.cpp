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

// Dynamic power grows with clock x tensor activity; at the power limit that product is a
// constant K (per input width: 8-bit MMAs burn more per cycle). So f = min(boost, K / duty):
// memory-bound kernels keep the boost clock, dense GEMMs fall to K / duty.
class PowerClock final : public ClockModel {
 public:
  PowerClock(Hertz boost, Hertz k16, Hertz k8) : boost_(boost), k16_(k16), k8_(k8) {}
  Hertz sm_clock(const KernelActivity& a) const override {
    const double k = (a.eight_bit ? k8_ : k16_).value;
    if (a.tensor_duty <= 0 || k <= 0) return boost_;
    return Hertz{std::min(boost_.value, k / a.tensor_duty)};
  }
  std::string_view name() const override { return "power"; }

 private:
  Hertz boost_, k16_, k8_;
};

}  // namespace

std::vector<std::string> clock_model_names() { return {"constant", "power"}; }

std::unique_ptr<ClockModel> make_clock_model(const hw::GpuSpec& spec) {
  const auto& c = spec.clock;
  if (c.model == "constant") return std::make_unique<ConstantClock>(c.boost);
  if (c.model == "power") {
    const Hertz k16 = c.sustained_tensor.value > 0 ? c.sustained_tensor : c.boost;
    const Hertz k8 = c.sustained_tensor_fp8.value > 0 ? c.sustained_tensor_fp8 : k16;
    return std::make_unique<PowerClock>(c.boost, k16, k8);
  }
  throw InputError(fmt::format("{}: /clock/model: unknown clock model \"{}\" (valid: constant, power)", spec.name,
                               c.model));
}

}  // namespace tgsim::engine
