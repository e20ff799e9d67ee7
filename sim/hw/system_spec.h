// A multi-GPU system: which GPU, how many, and how they are connected (NVLink ports, NVSwitch,
// copy engines, cross-GPU signals). Plain data, read once from configs/systems/*.json by
// sim/hw/system_json.h; the engine only sees this struct. Every number in the presets carries
// its source ("source" fields, collected in `sources`). docs/multigpu.md describes the model.
#pragma once

#include <map>
#include <string>

#include "sim/units/units.h"

namespace tgsim::hw {

// SM-driven remote accesses (ld/st to a peer's memory through the SM's LSU). One SM cannot fill
// NVLink: its rate is bounded by the bytes it keeps in flight over the round trip (Little's
// law) and by a ceiling that more threads do not raise.
struct SmRemoteSpec {
  BytesPerSecond max_rate;  // per SM, with enough threads
  Duration round_trip;      // bytes in flight / round_trip = rate below the ceiling
  bool operator==(const SmRemoteSpec&) const = default;
};

struct NvlinkSpec {
  BytesPerSecond bandwidth;             // per GPU, per direction (egress = ingress capacity)
  double sm_efficiency = 1.0;           // fraction of `bandwidth` that SM-driven stores/loads achieve
  Duration latency;                     // a remote store visible at the peer (one way)
  SmRemoteSpec sm_store;                // remote_put by SM threads
  SmRemoteSpec sm_load;                 // remote_get by SM threads
  Bytes sm_bytes_in_flight_per_thread;  // what one thread keeps in flight (the kernel's unroll x 16 B)
  std::string topology = "nvswitch";    // "nvswitch": every GPU reaches every other through its own ports
  bool operator==(const NvlinkSpec&) const = default;
};

struct CopyEngineSpec {
  int count = 1;             // per GPU
  BytesPerSecond bandwidth;  // one engine's rate
  Duration latency;          // set-up before data moves
  bool operator==(const CopyEngineSpec&) const = default;
};

// What NCCL sets up on this system (its NCCL_DEBUG=INFO log): the peer-to-peer channels and the
// threads of its kernels' CTAs. frontend/multigpu/collectives.cpp splits a send over channels as
// NCCL's enqueue.cc does. Zero: not known (the frontend's fixed default).
struct NcclSpec {
  int p2p_channels = 0;           // "N p2p channels"
  int p2p_channels_per_peer = 0;  // "N p2p channels per peer"
  int threads = 0;                // threads per CTA of the p2p kernel (NCCL_MAX_NTHREADS)
  bool operator==(const NcclSpec&) const = default;
};

struct SystemSpec {
  std::string name;       // preset key, e.g. "2xh200"
  std::string full_name;  // e.g. "2 x NVIDIA H200 SXM 141GB, NVLink4 via NVSwitch"
  std::string gpu;        // GPU preset name (configs/gpus/<gpu>.json)
  int gpu_count = 1;
  NvlinkSpec nvlink;
  CopyEngineSpec copy_engines;
  Duration signal_latency{0};   // system-scope flag: signal on one GPU to a waiter waking on another
  Duration kernel_overhead{0};  // event-timed kernel launch in a process with peer access (0: the GPU's)
  // A collective library call's host-side cost before its kernels run (NCCL grouping, launch of
  // one kernel per GPU); used by frontend/multigpu/collectives.cpp. Optional.
  Duration collective_overhead{0};
  NcclSpec nccl;  // optional
  std::string notes;
  std::map<std::string, std::string> sources;  // JSON pointer -> source text
  bool operator==(const SystemSpec&) const = default;
};

}  // namespace tgsim::hw
