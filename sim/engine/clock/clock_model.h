// Contract: a clock model gives the SM clock a kernel runs at. GPUs do not hold their boost
// clock under dense tensor-core load: they hit the power limit and slow down. The engine asks
// once per kernel launch, passing what the kernel will do; models never see the graph.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/hw/gpu_spec.h"

namespace tgsim::engine {

// What a kernel asks of the chip, estimated before it runs.
struct KernelLoad {
  double tensor_cycles_per_sm = 0;  // tensor-pipe busy cycles per SM if spread evenly
  double memory_seconds = 0;        // compulsory HBM traffic over achievable bandwidth
};

class ClockModel {
 public:
  virtual ~ClockModel() = default;
  virtual Hertz sm_clock(const KernelLoad& load) const = 0;
  virtual std::string_view name() const = 0;
};

// Registry: "constant" (boost clock always) and "power" (falls towards clock.sustained_tensor as
// the kernel's tensor-pipe duty rises past clock.power_knee). Unknown names throw InputError.
std::unique_ptr<ClockModel> make_clock_model(const hw::GpuSpec& spec);
std::vector<std::string> clock_model_names();

}  // namespace tgsim::engine
