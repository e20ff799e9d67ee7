#include <algorithm>

#include <fmt/format.h>

#include "sim/engine/clock/clock_model.h"
#include "sim/units/error.h"

namespace tgsim::engine {
namespace {

class ConstantClock final : public ClockModel {
 public:
  explicit ConstantClock(Hertz f) : f_(f) {}
  Hertz sm_clock(const KernelLoad&) const override { return f_; }
  std::string_view name() const override { return "constant"; }

 private:
  Hertz f_;
};

// Tensor duty d = tensor time / (tensor time + memory time) at boost. Below the knee the card
// stays at boost; above it the clock falls linearly to the sustained dense-tensor clock at d = 1.
class PowerClock final : public ClockModel {
 public:
  PowerClock(Hertz boost, Hertz sustained, double knee) : boost_(boost), sustained_(sustained), knee_(knee) {}
  Hertz sm_clock(const KernelLoad& load) const override {
    const double tensor_s = load.tensor_cycles_per_sm / boost_.value;
    const double total = tensor_s + load.memory_seconds;
    if (total <= 0) return boost_;
    const double duty = tensor_s / total;
    if (duty <= knee_) return boost_;
    const double x = std::min(1.0, (duty - knee_) / std::max(1e-9, 1.0 - knee_));
    return Hertz{boost_.value + x * (sustained_.value - boost_.value)};
  }
  std::string_view name() const override { return "power"; }

 private:
  Hertz boost_, sustained_;
  double knee_;
};

}  // namespace

std::vector<std::string> clock_model_names() { return {"constant", "power"}; }

std::unique_ptr<ClockModel> make_clock_model(const hw::GpuSpec& spec) {
  const auto& c = spec.clock;
  if (c.model == "constant") return std::make_unique<ConstantClock>(c.boost);
  if (c.model == "power") {
    const Hertz sustained = c.sustained_tensor.value > 0 ? c.sustained_tensor : c.boost;
    return std::make_unique<PowerClock>(c.boost, sustained, c.power_knee);
  }
  throw InputError(fmt::format("{}: /clock/model: unknown clock model \"{}\" (valid: constant, power)", spec.name,
                               c.model));
}

}  // namespace tgsim::engine
