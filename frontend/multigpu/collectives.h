// NCCL-style collectives as tile graphs on N GPUs (docs/multigpu.md): one kernel per GPU with
// `channels` CTAs (NCCL's channels: one SM each); data moves with SM-driven remote stores in
// chunks (NCCL's Simple protocol: 512 KiB steps), each chunk announced to the receiver by a
// system-scope flag. LL/LL128 are not modelled: at the sizes where NCCL picks them, the time is
// the launch overhead (system.collective_overhead, calibrated on the smallest rows).
//   all_to_all: every GPU sends bytes_per_pair to every other GPU (ncclSend/ncclRecv); each
//     channel carries 1/channels of every pair.
//   all_reduce (ring): 2(N-1) steps; in step s GPU g sends its chunk to g+1 and waits for the
//     chunk of g-1 before forwarding it (reduce-scatter, then all-gather). The reduction's
//     arithmetic and local memory traffic are not modelled (HBM is 13x faster than NVLink here).
#pragma once

#include <cstdint>
#include <string>

#include "sim/graph/tile_graph.h"
#include "sim/hw/gpu_spec.h"
#include "sim/hw/system_spec.h"

namespace tgsim::multigpu {

enum class Collective { all_to_all, all_reduce };
std::string_view to_string(Collective c);

struct CollectiveParams {
  Collective kind = Collective::all_reduce;
  int gpus = 2;
  std::int64_t bytes = 0;        // all_to_all: per pair; all_reduce: the buffer
  int channels = 0;              // 0: the default (kDefaultChannels)
  std::int64_t chunk_bytes = 0;  // 0: NCCL's Simple step, 512 KiB
  int threads = 512;             // per channel, unless threads_from_system
  bool threads_from_system = true;  // all_to_all with a system's `nccl` section: its threads (640)
};

struct CollectivePlan {
  int channels = 1;
  int threads = 512;       // per channel CTA
  int send_threads = 0;    // of them, those that push to one peer (0: all)
  std::int64_t chunk_bytes = 0;
  std::string protocol = "simple";
};

// NCCL's split of one send over channels on one node (src/enqueue.cc, NCCL 2.28) for `ranks` GPUs
// with the system's p2p channels and its Simple step, and the threads of a p2p CTA of `threads`
// that send to one peer (src/device/sendrecv.h).
int nccl_p2p_channels(std::int64_t bytes, int ranks, const hw::NcclSpec& n, std::int64_t step);
int nccl_send_threads(int threads);

// Throws InputError for impossible parameters (more GPUs than the system has, ...).
CollectivePlan plan_collective(const CollectiveParams& p, const hw::GpuSpec& gpu, const hw::SystemSpec& sys);
graph::TileGraph lower_collective(const CollectiveParams& p, const CollectivePlan& plan, const hw::GpuSpec& gpu,
                                  const hw::SystemSpec& sys);

}  // namespace tgsim::multigpu
