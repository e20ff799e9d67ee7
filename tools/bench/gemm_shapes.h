// The GEMM shapes gemm_sweep measures: the sweep (263 rows of traces/h200/gemm*.csv), its --quick
// subset (the checked shapes and 4096^3) and the --probe held-out set (traces/h200/gemm_probe.csv).
// `check`: the result is compared with a reference GEMM.
#pragma once

#include <string>
#include <utility>
#include <vector>

enum DT { BF16 = 0, FP16 = 1, FP8 = 2, TF32 = 3 };

struct GemmShape {
  DT dt;
  long M, N, K;
  std::string set;
  bool check = false;
};

inline void add_shape(std::vector<GemmShape>& v, DT dt, long M, long N, long K, const char* set, bool check) {
  v.push_back(GemmShape{dt, M, N, K, set, check});
}
struct NK { long n, k; const char* set; };  // an LLM projection: N, K and its name

// --probe: a held-out set chosen on 2026-12-01 (ninth session) before the model was run on it:
// sizes and token counts the sweep does not have (no powers of two for M), projections of models
// the sweep lacks (Qwen3-30B-A3B, DeepSeek-V3 attention), K-heavy and odd shapes, every dtype.
inline std::vector<GemmShape> build_probe_shapes() {
  std::vector<GemmShape> v;
  auto add = [&](DT dt, long M, long N, long K, const char* set, bool check = false) {
    add_shape(v, dt, M, N, K, set, check);
  };
  for (long s : {640, 1280, 1792, 2304, 3584, 5120, 9216, 11264}) add(BF16, s, s, s, "probe square", s == 1280);
  const NK llm[] = {{5120, 2048, "probe qwen3-30b-a3b qkv"}, {2048, 4096, "probe qwen3-30b-a3b o_proj"},
                    {1536, 7168, "probe deepseek-v3 q_a"},   {576, 7168, "probe deepseek-v3 kv_a"},
                    {7168, 16384, "probe deepseek-v3 o_proj"}};
  for (const auto& nk : llm)
    for (long t : {3, 24, 96, 384, 1536, 6144}) add(BF16, t, nk.n, nk.k, nk.set, t == 24 && nk.n == 576);
  add(BF16, 768, 768, 24576, "probe k-heavy");
  add(BF16, 1536, 1536, 12288, "probe k-heavy");
  add(BF16, 1500, 2500, 3500, "probe odd", true);
  add(BF16, 333, 4444, 2222, "probe odd");
  for (long s : {3072, 5120}) add(FP16, s, s, s, "probe square", s == 3072);
  for (long t : {48, 768, 3072}) add(FP16, t, 5120, 2048, "probe qwen3-30b-a3b qkv");
  for (long s : {3072, 5120}) add(FP8, s, s, s, "probe square", s == 3072);
  for (long t : {48, 768, 3072}) add(FP8, t, 7168, 16384, "probe deepseek-v3 o_proj");
  add(FP8, 1536, 1536, 12288, "probe k-heavy");
  for (long s : {1536, 2560}) add(TF32, s, s, s, "probe square", s == 1536);
  for (long t : {48, 768}) add(TF32, t, 2048, 4096, "probe qwen3-30b-a3b o_proj");
  return v;
}

// --misaligned: a held-out set chosen on 2026-12-02 (sixteenth session) before the sm75 model
// existed: rows whose leading dimensions are not 16-byte aligned (no TMA kernel can run them).
// 2-byte aligned 16-bit GEMMs (odd K, or odd N = C's columns only), 4- and 8-byte aligned ones
// (cuBLASLt's cp.async fallbacks), squares, LLM shapes with a padded vocabulary, a skinny row.
inline std::vector<GemmShape> build_misaligned_shapes() {
  std::vector<GemmShape> v;
  auto add = [&](DT dt, long M, long N, long K, const char* set, bool check = false) {
    add_shape(v, dt, M, N, K, set, check);
  };
  for (long s : {1535, 2047, 2561, 5001}) add(BF16, s, s, s, "misaligned 2B square", s == 1535);
  add(BF16, 2048, 4096, 4097, "misaligned 2B odd K");
  add(BF16, 16, 4096, 4097, "misaligned 2B odd K skinny");
  add(BF16, 128, 32001, 4096, "misaligned 2B odd N vocab");
  add(BF16, 2048, 32001, 4096, "misaligned 2B odd N vocab", true);
  add(BF16, 777, 1535, 6001, "misaligned 2B odd");
  add(BF16, 4096, 1000, 1001, "misaligned 2B odd");
  add(BF16, 4096, 4096, 4100, "misaligned 8B K", true);
  add(BF16, 1000, 1000, 1002, "misaligned 4B K");
  add(BF16, 2048, 5002, 2048, "misaligned 4B N");
  add(BF16, 64, 4096, 4100, "misaligned 8B K skinny");
  add(FP16, 1535, 1535, 1535, "misaligned 2B square");
  add(FP16, 2048, 4096, 4097, "misaligned 2B odd K");
  return v;
}

// --odd-vocab: a blind held-out set chosen on 2026-12-03 (seventeenth session) after the sm75
// model was finished (commit 'tests: sm75 schedule fields round-trip...'), measured once: LM heads
// over odd vocabularies (GPT-2's 50257, Llama-2 + 1 token's 32001) from decode to prefill token
// counts, and odd hidden or intermediate sizes. Rows whose kernels are not CUTLASS (gemv) show
// what the default rule predicts for them.
inline std::vector<GemmShape> build_odd_vocab_shapes() {
  std::vector<GemmShape> v;
  auto add = [&](DT dt, long M, long N, long K, const char* set, bool check = false) {
    add_shape(v, dt, M, N, K, set, check);
  };
  for (long m : {1L, 8L, 64L, 512L, 2048L}) add(BF16, m, 50257, 768, "odd vocab gpt2", m == 512);
  add(BF16, 1024, 50257, 1600, "odd vocab gpt2-xl");
  add(BF16, 512, 32001, 5120, "odd vocab llama2-13b+1");
  add(BF16, 4096, 32001, 4096, "odd vocab llama2-7b+1");
  add(BF16, 4096, 4096, 1023, "odd K");
  add(BF16, 8192, 1024, 3001, "odd K");
  add(BF16, 2048, 2048, 6143, "odd K");
  add(BF16, 3000, 3001, 3000, "odd N");
  add(FP16, 2048, 50257, 768, "odd vocab gpt2");
  add(FP16, 4096, 4096, 1023, "odd K");
  return v;
}

inline std::vector<GemmShape> build_shapes(bool quick, bool probe, bool misaligned = false, bool odd_vocab = false) {
  if (odd_vocab) return build_odd_vocab_shapes();
  if (misaligned) return build_misaligned_shapes();
  if (probe) return build_probe_shapes();
  std::vector<GemmShape> v;
  auto add = [&](DT dt, long M, long N, long K, const char* set, bool check = false) {
    add_shape(v, dt, M, N, K, set, check);
  };
  const long T[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  // bf16 ----------------------------------------------------------------------------------
  for (long s : {256, 512, 768, 1000, 1024, 1536, 2048, 2500, 3000, 3072, 4096, 5000, 6144, 7168, 8192, 10240,
                 12288, 16384})
    add(BF16, s, s, s, "square", s == 1000);
  const NK llm[] = {{4096, 4096, "llama3-8b o_proj"},     {6144, 4096, "llama3-8b qkv"},
                    {28672, 4096, "llama3-8b gate_up"},   {4096, 14336, "llama3-8b down/mixtral w2"},
                    {14336, 4096, "mixtral w1/w3"},       {8192, 8192, "llama3-70b o_proj"},
                    {10240, 8192, "llama3-70b qkv"},      {57344, 8192, "llama3-70b gate_up"},
                    {8192, 28672, "llama3-70b down"}};
  for (const auto& nk : llm)
    for (long t : T) add(BF16, t, nk.n, nk.k, nk.set, t == 16 && nk.n == 4096 && nk.k == 14336);
  for (long t : {1, 128, 1024, 4096}) add(BF16, t, 128256, 4096, "llama3-8b lm_head");
  for (long k : {8192, 16384, 32768, 65536}) add(BF16, 1024, 1024, k, "k-heavy");
  add(BF16, 256, 256, 131072, "k-heavy", true);
  add(BF16, 512, 512, 65536, "k-heavy");
  add(BF16, 2048, 2048, 32768, "k-heavy");
  add(BF16, 4096, 4096, 32768, "k-heavy");
  for (long s : {1023, 1025, 4097, 777, 3001, 2049}) add(BF16, s, s, s, "odd");
  add(BF16, 777, 4097, 3001, "odd", true);
  add(BF16, 4097, 777, 3001, "odd");
  add(BF16, 3001, 1023, 4097, "odd");
  add(BF16, 127, 4095, 8191, "odd");
  // fp16 ----------------------------------------------------------------------------------
  for (long s : {512, 1024, 2048, 4096, 6144, 8192, 16384}) add(FP16, s, s, s, "square", s == 1024);
  for (const auto& nk : {NK{4096, 4096, "llama3-8b o_proj"}, NK{14336, 4096, "mixtral w1/w3"},
                         NK{4096, 14336, "llama3-8b down/mixtral w2"}})
    for (long t : {1, 16, 128, 1024, 4096, 16384}) add(FP16, t, nk.n, nk.k, nk.set, t == 16 && nk.k == 14336);
  add(FP16, 1024, 1024, 65536, "k-heavy");
  add(FP16, 256, 256, 131072, "k-heavy", true);
  add(FP16, 1023, 1023, 1023, "odd", true);
  add(FP16, 4097, 4097, 4097, "odd");
  add(FP16, 777, 4097, 3001, "odd");
  // fp8 e4m3 (K and N multiples of 16: cuBLASLt FP8 needs 16-byte aligned leading dims) ---
  for (long s : {512, 1024, 2048, 4096, 6144, 8192, 12288, 16384}) add(FP8, s, s, s, "square", s == 1024);
  for (const auto& nk : {NK{8192, 8192, "llama3-70b o_proj"}, NK{57344, 8192, "llama3-70b gate_up"},
                         NK{8192, 28672, "llama3-70b down"}})
    for (long t : {16, 128, 1024, 4096, 16384}) add(FP8, t, nk.n, nk.k, nk.set, t == 16 && nk.n == 8192 && nk.k == 8192);
  for (long t : {1, 16, 256, 2048, 8192}) add(FP8, t, 4096, 4096, "llama3-8b o_proj");
  add(FP8, 1024, 1024, 65536, "k-heavy");
  add(FP8, 256, 256, 131072, "k-heavy", true);
  add(FP8, 3001, 4096, 4096, "odd", true);
  add(FP8, 4097, 4096, 4096, "odd");
  // tf32 ----------------------------------------------------------------------------------
  for (long s : {512, 1000, 1024, 2048, 3000, 4096, 6144, 8192, 16384}) add(TF32, s, s, s, "square", s == 1000);
  for (const auto& nk : {NK{4096, 4096, "llama3-8b o_proj"}, NK{14336, 4096, "mixtral w1/w3"},
                         NK{4096, 14336, "llama3-8b down/mixtral w2"}})
    for (long t : {16, 256, 2048, 8192}) add(TF32, t, nk.n, nk.k, nk.set, t == 16 && nk.k == 14336);
  add(TF32, 1024, 1024, 32768, "k-heavy");
  add(TF32, 256, 256, 65536, "k-heavy");
  add(TF32, 1023, 1023, 1023, "odd");
  add(TF32, 4097, 4097, 4097, "odd");
  add(TF32, 777, 777, 777, "odd", true);
  if (quick) {
    std::vector<GemmShape> q;
    for (auto& p : v)
      if (p.check || (p.M == 4096 && p.N == 4096 && p.K == 4096)) q.push_back(std::move(p));
    return q;
  }
  return v;
}

