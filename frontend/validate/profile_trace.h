// Reading a PyTorch profiler Chrome trace (torch.profiler with record_shapes=True): every GPU
// kernel with its duration, attached to the operator that launched it (kineto's "External id"
// links a kernel to its innermost CPU op) and that op's input shapes, types and concrete inputs.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tgsim::validate {

struct ProfiledOp {
  std::string name;  // e.g. aten::mm
  std::vector<std::vector<std::int64_t>> dims;  // per input; a tensor list flattens to its first tensor's dims
  std::vector<std::vector<std::vector<std::int64_t>>> list_dims;  // per input: the tensors of a tensor list
  std::vector<std::string> types;     // per input: c10::BFloat16, float, Scalar, TensorList...
  std::vector<std::string> concrete;  // per input: the value of scalar inputs, as recorded ("" if none)
};

struct ProfiledKernel {
  std::string name;  // as recorded (demangled, with "void " and the parameter list)
  double ts_us = 0;
  double dur_us = 0;
  std::int64_t external_id = -1;
  std::array<int, 3> grid{0, 0, 0};   // launch shape as recorded (args.grid / args.block); 0: not recorded
  std::array<int, 3> block{0, 0, 0};
};

// One operator call and the kernels it launched, in launch order.
struct ProfiledLaunch {
  ProfiledOp op;   // name empty when the kernel could not be attached to an op
  std::vector<ProfiledKernel> kernels;
};

// Throws InputError naming the file (and what is missing) for unreadable or non-trace input.
std::vector<ProfiledLaunch> read_profile(const std::string& path);
// The same from a parsed document; `origin` names it in errors.
std::vector<ProfiledLaunch> parse_profile(const nlohmann::json& j, const std::string& origin);

// "void ns::kernel<...>(args)" -> "ns::kernel<...>" (the form the kernel-name importers read).
std::string normalize_kernel_name(const std::string& name);

}  // namespace tgsim::validate
