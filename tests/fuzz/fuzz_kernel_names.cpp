// Kernel-name importers: nvjet, xmma, Ampere cuBLAS, CUTLASS 2.x/3.x (also the template form),
// FlashAttention-2/3 and cuDNN SDPA; a supported name must also resolve to a lowerable schedule.
#include "frontend/attention/kernel_names.h"
#include "frontend/gemm/kernel_names.h"
#include "frontend/gemm/request.h"
#include "sim/hw/spec_json.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tgsim::hw::GpuSpec spec = tgsim::hw::load_gpu_preset("h100", TGSIM_SOURCE_DIR "/configs");
  const std::string s = tgsim::fuzz::text(data, size);
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::gemm::parse_gemm_kernel_names(s, tgsim::DType::bf16); });
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::attention::parse_attention_kernel_names(s); });
  tgsim::fuzz::expect_only_input_errors([&] {
    tgsim::gemm::Request r;
    r.m = 256;
    r.n = 512;
    r.k = 1024;
    r.kernel = s;
    tgsim::gemm::resolve(r, spec);
  });
  return 0;
}
