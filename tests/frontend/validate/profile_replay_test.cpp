// Profile replay: attaching kernels to their ops through kineto's External id, the shapes a
// GEMM / attention / elementwise op gets, coverage accounting, and errors on bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "frontend/validate/profile_replay.h"
#include "frontend/validate/profile_trace.h"
#include "sim/hw/spec_json.h"
#include "sim/units/error.h"

namespace tgsim::validate {
namespace {

std::string write_trace(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

// An mm with its nvjet kernel, an add, a kernel of an op the replay does not model, and a
// kernel with no op.
const char* kTrace = R"json({"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 50,
  "args": {"External id": 1, "Input Dims": [[256, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "ts": 0, "dur": 60,
  "args": {"External id": 1, "Input Dims": [[256, 4096], [4096, 4096], []], "Input type": ["c10::BFloat16", "c10::BFloat16", ""]}},
 {"ph": "X", "cat": "kernel", "name": "nvjet_sm90_tst_128x128_64x4_1x2_h_bz_coopA_TNT", "ts": 100, "dur": 20.0,
  "args": {"External id": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 60, "dur": 10,
  "args": {"External id": 2, "Input Dims": [[256, 4096], [256, 4096], []], "Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"]}},
 {"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<8>(int)", "ts": 130, "dur": 3.0,
  "args": {"External id": 2}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::topk", "ts": 70, "dur": 10,
  "args": {"External id": 3, "Input Dims": [[256, 128], []], "Input type": ["float", "Scalar"]}},
 {"ph": "X", "cat": "kernel", "name": "void at::native::sbtopk::gatherTopK<float>(int)", "ts": 140, "dur": 5.0,
  "args": {"External id": 3}},
 {"ph": "X", "cat": "kernel", "name": "mystery_kernel", "ts": 150, "dur": 2.0, "args": {}}
]})json";

TEST(ProfileTrace, KernelsAttachToTheInnermostOp) {
  const auto launches = read_profile(write_trace("tgsim_profile_test.json", kTrace));
  ASSERT_EQ(launches.size(), 4u);
  EXPECT_EQ(launches[0].op.name, "aten::mm");  // the shorter of the two ops with External id 1
  EXPECT_EQ(launches[0].op.dims[0], (std::vector<std::int64_t>{256, 4096}));
  EXPECT_EQ(launches[1].op.name, "aten::add");
  EXPECT_TRUE(launches[3].op.name.empty());
  EXPECT_EQ(normalize_kernel_name("void at::native::vectorized_elementwise_kernel<8>(int)"),
            "at::native::vectorized_elementwise_kernel<8>");
}

TEST(ProfileReplay, SimulatesWhatItModelsAndCountsTheRest) {
  const auto spec = hw::load_gpu_preset("h200", TGSIM_SOURCE_DIR "/configs");
  const auto rep = replay_profile(read_profile(write_trace("tgsim_profile_test2.json", kTrace)), spec, 2, nullptr);
  ASSERT_EQ(rep.rows.size(), 4u);
  EXPECT_TRUE(rep.rows[0].simulated);
  EXPECT_EQ(rep.rows[0].category, "gemm");
  EXPECT_GT(rep.rows[0].predicted_us, 0);
  EXPECT_TRUE(rep.rows[1].simulated);
  EXPECT_EQ(rep.rows[1].category, "elementwise");
  EXPECT_FALSE(rep.rows[2].simulated);
  EXPECT_NE(rep.rows[2].reason.find("aten::topk"), std::string::npos);
  EXPECT_FALSE(rep.rows[3].simulated);
  EXPECT_DOUBLE_EQ(rep.measured_total_us, 30.0);
  EXPECT_DOUBLE_EQ(rep.measured_covered_us, 23.0);
  EXPECT_NEAR(rep.coverage_pct, 100.0 * 23 / 30, 1e-9);
  EXPECT_NEAR(rep.predicted_total_us, rep.predicted_covered_us + 7.0, 1e-9);
  // Deterministic and independent of the thread count.
  const auto one = replay_profile(read_profile(write_trace("tgsim_profile_test3.json", kTrace)), spec, 1, nullptr);
  EXPECT_EQ(one.predicted_covered_us, rep.predicted_covered_us);
}

TEST(ProfileTrace, BadInputNamesTheFile) {
  EXPECT_THROW(read_profile("/nonexistent/trace.json"), InputError);
  try {
    read_profile(write_trace("tgsim_profile_bad.json", R"({"traceEvents": []})"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU kernel events"), std::string::npos);
  }
  EXPECT_THROW(read_profile(write_trace("tgsim_profile_bad2.json", "{not json")), InputError);
  EXPECT_THROW(read_profile(write_trace("tgsim_profile_bad3.json", R"({"a": 1})")), InputError);
}

ProfiledLaunch launch_of(const std::string& kernel, std::int64_t elements) {
  ProfiledLaunch l;
  l.op.name = "aten::add";
  l.op.dims = {{elements}};
  l.op.types = {"c10::BFloat16"};
  l.kernels.push_back(ProfiledKernel{});
  l.kernels.back().name = kernel;
  return l;
}

// The replay compares CUPTI durations: a GEMM kernel, which the model times by its CTAs' span, is
// charged launch.cupti_duration_extra on top; the elementwise kernel's class set-up already holds
// it; a split-K reduction launched programmatically also carries the gap it waited through.
TEST(ProfileReplay, SpanModelledKernelsCarryTheProfilersExtra) {
  auto spec = hw::load_gpu_preset("h200", TGSIM_SOURCE_DIR "/configs");
  const auto launches = read_profile(write_trace("tgsim_profile_cupti.json", kTrace));
  const auto with = replay_profile(launches, spec, 1, nullptr);
  const double extra_us = to_us(spec.launch.cupti_duration_extra);
  EXPECT_GT(extra_us, 0.5);
  spec.launch.cupti_duration_extra = Duration{0};
  const auto without = replay_profile(launches, spec, 1, nullptr);
  EXPECT_NEAR(with.rows[0].predicted_us - without.rows[0].predicted_us, extra_us, 1e-6);  // nvjet: one kernel
  EXPECT_DOUBLE_EQ(with.rows[1].predicted_us, without.rows[1].predicted_us);               // elementwise
  const char* split = R"json({"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 50,
  "args": {"External id": 1, "Input Dims": [[32, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
 {"ph": "X", "cat": "kernel", "name": "nvjet_sm90_tst_64x32_64x16_2x1_v_bz_splitK_TNT", "ts": 100, "dur": 11.0,
  "args": {"External id": 1, "grid": [128, 1, 1]}},
 {"ph": "X", "cat": "kernel", "name": "void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, float, __nv_bfloat16, true, false, false>(cublasLt::cublasSplitKParams<float>, float const*, __nv_bfloat16 const*, __nv_bfloat16*, float const*, float const*, __nv_bfloat16 const*, float const*, __nv_bfloat16*, void*, long, float*, int*)", "ts": 111, "dur": 2.0,
  "args": {"External id": 1}}
]})json";
  const auto split_launches = read_profile(write_trace("tgsim_profile_splitk.json", split));
  const auto a = replay_profile(split_launches, spec, 1, nullptr);  // no extra: the PDL gap alone
  ASSERT_TRUE(a.rows.at(0).simulated) << a.rows.at(0).reason;
  spec.launch.pdl_kernel_gap = Duration{0};
  const auto b = replay_profile(split_launches, spec, 1, nullptr);
  // Without the gap the reduction starts earlier; its own duration is what it was.
  EXPECT_NEAR(a.rows.at(0).predicted_us - b.rows.at(0).predicted_us, 0.51, 1e-6);
}

TEST(ProfileReplay, KernelsStartColdAfterMoreThanL2OfData) {
  const double l2 = 1e6;  // bytes
  // a: first launch cold; b: first cold; a again after 2 x 100 kB: warm; a big op (2 MB) then a:
  // cold; a right after: warm.
  const std::vector<ProfiledLaunch> ls{launch_of("a", 50'000), launch_of("b", 50'000), launch_of("a", 50'000),
                                       launch_of("big", 1'000'000), launch_of("a", 50'000), launch_of("a", 50'000)};
  EXPECT_EQ(cold_launches(ls, l2), (std::vector<bool>{true, true, false, true, true, false}));
}

// SDPA's cuDNN backend: _cudnn_attention_forward with q [batch, heads, seq_q, d] and is_causal as
// its 11th argument; the mask is PyTorch's top-left one. 128 queries over 4096 keys, causal: each
// Q tile sees only the first 128 keys, so it costs about what the square 128 x 128 problem costs.
std::string cudnn_trace(int seq_kv, bool causal) {
  return fmt::format(R"json({{"traceEvents": [
 {{"ph": "X", "cat": "cpu_op", "name": "aten::_cudnn_attention_forward", "ts": 0, "dur": 50,
  "args": {{"External id": 1, "Input Dims": [[8, 16, 128, 128], [8, 16, {0}, 128], [8, 16, {0}, 128], [], [], [], [], [], [], [], [], [], []],
           "Concrete Inputs": ["", "", "", "", "", "", "128", "{0}", "False", "0.", "{1}", "False", ""],
           "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "", "", "", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", ""]}}}},
 {{"ph": "X", "cat": "kernel", "name": "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_cga1x1x1_kernel0_0",
  "ts": 100, "dur": 20.0, "args": {{"External id": 1}}}}
]}})json",
                     seq_kv, causal ? "True" : "False");
}

TEST(ProfileReplay, CudnnAttentionOpIsReadWithPyTorchsTopLeftMask) {
  const auto spec = hw::load_gpu_preset("h200", TGSIM_SOURCE_DIR "/configs");
  const auto replay = [&](int seq_kv, bool causal, const char* file) {
    const auto rep = replay_profile(read_profile(write_trace(file, cudnn_trace(seq_kv, causal))), spec, 1, nullptr);
    EXPECT_EQ(rep.rows.size(), 1u);
    EXPECT_TRUE(rep.rows.at(0).simulated) << rep.rows.at(0).reason;
    EXPECT_EQ(rep.rows.at(0).category, "attention");
    return rep.rows.at(0).predicted_us;
  };
  const double full = replay(4096, false, "tgsim_cudnn_full.json");
  const double causal = replay(4096, true, "tgsim_cudnn_causal.json");
  const double square = replay(128, true, "tgsim_cudnn_square.json");
  EXPECT_LT(causal, 0.5 * full);  // bottom-right would visit every block: about the full time
  EXPECT_NEAR(causal, square, 0.1 * square);
}

}  // namespace
}  // namespace tgsim::validate
