// Token routing for one MoE layer under expert parallelism (docs/moe.md): how many of each
// source GPU's tokens go to each expert (one count per token-expert pair, top-k pairs a token).
//   uniform  : every source GPU spreads its tokens x top_k pairs evenly over the experts;
//   zipf:S   : expert e (0-based) gets a share proportional to 1 / (e + 1)^S, the same on every
//              source GPU (a fixed, deterministic assignment: expert 0 is the hottest, so the
//              GPU holding the first experts is the loaded one); counts by largest remainder,
//              none above the tokens (a token picks k distinct experts);
//   FILE     : a JSON {"tokens": [[per expert] per source GPU]} or a CSV "src,expert,tokens".
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tgsim::moe {

struct Routing {
  std::string spec;                                 // as given (uniform, zipf:1.2, a path)
  std::vector<std::vector<std::int64_t>> tokens;    // [source GPU][expert]: token-expert pairs
};

// Throws InputError (naming --routing or the file) on bad input; every source GPU's pairs must
// sum to tokens_per_gpu x top_k.
Routing make_routing(const std::string& spec, int gpus, int experts, int top_k, std::int64_t tokens_per_gpu);

}  // namespace tgsim::moe
