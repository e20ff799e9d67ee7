// calib_placement: where the block scheduler puts the CTAs of a plain grid, by GPC.
//
// The model's L2 request combining works per GPC (docs/model.md, Placement), and it needs to know
// which GPC each CTA of a grid lands in. CUDA does not expose a GPC id, but a thread-block
// cluster's CTAs always share one GPC. So:
//  1. cluster launches (sizes 16 and 8, non-portable 16 allowed, several repetitions) record the
//     %smid of every CTA; SMs met in one cluster are in one GPC (union-find over all launches);
//  2. plain launches of 132 and 264 CTAs (one and two per SM: 120 / 100 KiB of dynamic shared
//     memory), every CTA resident at once (each spins 50 us), record each blockIdx's %smid;
//  3. each plain CTA gets the GPC group of its SM.
// Rows: kind (cluster16, cluster8, plain132, plain264), rep, block, smid, group (the union-find
// root of the SM's GPC; -1 where no cluster met that SM), cluster (blockIdx / cluster size).
//
// Usage: calib_placement [calibration_placement.csv]
#include <cuda_runtime.h>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#define CHECK(x)                                                                                      \
  do {                                                                                                \
    cudaError_t e_ = (x);                                                                             \
    if (e_ != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));         \
      std::exit(1);                                                                                   \
    }                                                                                                 \
  } while (0)

namespace {

__device__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

__device__ void spin_ns(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

__global__ void record(int* out) {
  if (threadIdx.x == 0) out[blockIdx.x] = static_cast<int>(smid());
  spin_ns(50000);
}

struct UnionFind {
  std::vector<int> p;
  explicit UnionFind(int n) : p(static_cast<std::size_t>(n)) { std::iota(p.begin(), p.end(), 0); }
  int find(int x) { return p[x] == x ? x : p[x] = find(p[x]); }
  void join(int a, int b) { p[find(a)] = find(b); }
};

struct Launch {
  std::string kind;
  int rep;
  int cluster;
  std::vector<int> sm;  // per block
};

// A launch of `blocks` CTAs of 128 threads with `smem` bytes of dynamic shared memory, in clusters
// of `cluster` CTAs along x when cluster > 1 (`attr` holds the cluster attribute).
cudaLaunchConfig_t launch_config(int blocks, int cluster, int smem, cudaLaunchAttribute& attr) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(128);
  cfg.dynamicSmemBytes = smem;
  attr = cudaLaunchAttribute{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = cluster > 1 ? 1 : 0;
  return cfg;
}

Launch run(const std::string& kind, int rep, int blocks, int cluster, int smem) {
  int* d = nullptr;
  CHECK(cudaMalloc(&d, sizeof(int) * blocks));
  CHECK(cudaMemset(d, 0xff, sizeof(int) * blocks));
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(blocks, cluster, smem, attr);
  CHECK(cudaLaunchKernelEx(&cfg, record, d));
  CHECK(cudaDeviceSynchronize());
  Launch l{kind, rep, cluster, std::vector<int>(static_cast<std::size_t>(blocks))};
  CHECK(cudaMemcpy(l.sm.data(), d, sizeof(int) * blocks, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  return l;
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "calibration_placement.csv";
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  CHECK(cudaFuncSetAttribute(record, cudaFuncAttributeMaxDynamicSharedMemorySize, 120 * 1024));
  CHECK(cudaFuncSetAttribute(record, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));

  std::vector<Launch> launches;
  for (int rep = 0; rep < 4; ++rep) {
    for (int size : {16, 8}) {
      int clusters = 0;
      cudaLaunchAttribute attr;
      const cudaLaunchConfig_t cfg = launch_config(size, size, 120 * 1024, attr);
      CHECK(cudaOccupancyMaxActiveClusters(&clusters, record, &cfg));
      launches.push_back(run("cluster" + std::to_string(size), rep, clusters * size, size, 120 * 1024));
    }
  }
  for (int rep = 0; rep < 4; ++rep) {
    launches.push_back(run("plain" + std::to_string(sms), rep, sms, 1, 120 * 1024));
    launches.push_back(run("plain" + std::to_string(2 * sms), rep, 2 * sms, 1, 100 * 1024));
  }

  UnionFind uf(sms);
  std::vector<int> seen(static_cast<std::size_t>(sms), 0);
  for (const Launch& l : launches) {
    if (l.cluster < 2) continue;
    for (std::size_t b = 0; b < l.sm.size(); ++b) {
      seen[static_cast<std::size_t>(l.sm[b])] = 1;
      if (b % static_cast<std::size_t>(l.cluster) != 0) uf.join(l.sm[b], l.sm[b - b % static_cast<std::size_t>(l.cluster)]);
    }
  }
  FILE* f = std::fopen(path, "w");
  if (!f) {
    std::perror(path);
    return 1;
  }
  std::fprintf(f, "kind,rep,block,smid,group,cluster,method\n");
  const std::string method =
      "%smid of each CTA (thread 0) while every CTA spins 50 us on %globaltimer; 128 threads; 120 KiB "
      "dynamic shared memory (one CTA per SM; 100 KiB for 2 per SM); cluster launches with cudaOccupancyMaxActiveClusters "
      "clusters (non-portable size 16 allowed); group: union-find root of the SMs met in one cluster "
      "(one GPC); " + std::string(prop.name);
  for (const Launch& l : launches) {
    for (std::size_t b = 0; b < l.sm.size(); ++b) {
      const int s = l.sm[b];
      const int g = s >= 0 && s < sms && seen[static_cast<std::size_t>(s)] ? uf.find(s) : -1;
      std::fprintf(f, "%s,%d,%zu,%d,%d,%zu,\"%s\"\n", l.kind.c_str(), l.rep, b, s, g,
                   b / static_cast<std::size_t>(l.cluster), method.c_str());
    }
  }
  std::fclose(f);
  // Summary: groups and the group sequence of the first plain launch's first 32 CTAs.
  std::vector<int> size(static_cast<std::size_t>(sms), 0);
  for (int s = 0; s < sms; ++s)
    if (seen[static_cast<std::size_t>(s)]) ++size[static_cast<std::size_t>(uf.find(s))];
  std::printf("GPC groups (root: SMs):");
  for (int s = 0; s < sms; ++s)
    if (size[static_cast<std::size_t>(s)] > 0) std::printf(" %d:%d", s, size[static_cast<std::size_t>(s)]);
  std::printf("\n");
  for (const Launch& l : launches) {
    if (l.cluster > 1 || l.rep > 0) continue;
    std::printf("%s blocks 0-31 -> group:", l.kind.c_str());
    for (std::size_t b = 0; b < 32 && b < l.sm.size(); ++b) {
      const int s = l.sm[b];
      std::printf(" %d", seen[static_cast<std::size_t>(s)] ? uf.find(s) : -1);
    }
    std::printf("\n");
  }
  std::printf("wrote %s\n", path);
  return 0;
}
