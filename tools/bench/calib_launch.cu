// calib_launch: kernel launch overhead.
//
// What it measures (rows appended to the calibration CSV):
//  * back-to-back empty kernels on one stream: 20000 launches between two CUDA events,
//    GPU time per launch (1 block x 32 threads, and one block per SM x 128 threads); the
//    host's enqueue cost per launch from a wall clock around the same loop;
//  * the same empty kernels as the nodes of a CUDA graph (1000 nodes in a chain, the
//    graph launched 20 times between two events): time per node;
//  * launch + cudaStreamSynchronize round trip, wall clock, median of 2000.
// Each figure is the median of 7 repetitions after a warm-up.
//
// Usage: calib_launch [calibration.csv]
#include "common.h"

using namespace bench;

__global__ void empty_kernel() {}

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "calibration.csv";
  CK(cudaSetDevice(0));
  print_device(0);
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  CalibCsv csv(out);
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  const int N = 20000;
  for (int cfg = 0; cfg < 2; ++cfg) {
    dim3 grid = cfg == 0 ? dim3(1) : dim3(prop.multiProcessorCount);
    dim3 blk = cfg == 0 ? dim3(32) : dim3(128);
    for (int i = 0; i < 2000; ++i) empty_kernel<<<grid, blk, 0, s>>>();
    CK(cudaStreamSynchronize(s));
    std::vector<double> gpu, host;
    for (int r = 0; r < 7; ++r) {
      CK(cudaEventRecord(e0, s));
      double h0 = now_s();
      for (int i = 0; i < N; ++i) empty_kernel<<<grid, blk, 0, s>>>();
      double h1 = now_s();
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      CKLAUNCH();
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      gpu.push_back(ms * 1e3 / N);
      host.push_back((h1 - h0) * 1e6 / N);
    }
    const char* tag = cfg == 0 ? "1x32" : "SMsx128";
    char q[96], m[256];
    std::snprintf(q, sizeof q, "launch_stream_per_kernel_%s", tag);
    std::snprintf(m, sizeof m, "%d back-to-back empty kernels <<<%d,%d>>> on one stream; CUDA events; per launch; median of 7",
                  N, grid.x, blk.x);
    csv.row(q, median(gpu), "us", m, 3);
    std::snprintf(q, sizeof q, "launch_host_enqueue_%s", tag);
    std::snprintf(m, sizeof m, "host wall time of the launch loop above / %d launches; median of 7", N);
    csv.row(q, median(host), "us", m, 3);
  }

  // CUDA graph of 1000 empty-kernel nodes
  {
    const int NODES = 1000, LAUNCHES = 20;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < NODES; ++i) empty_kernel<<<1, 32, 0, s>>>();
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    std::vector<double> t;
    for (int r = 0; r < 7; ++r) {
      CK(cudaEventRecord(e0, s));
      for (int i = 0; i < LAUNCHES; ++i) CK(cudaGraphLaunch(ge, s));
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      t.push_back(ms * 1e3 / (NODES * LAUNCHES));
    }
    csv.row("launch_graph_per_node_1x32", median(t), "us",
            "CUDA graph of 1000 empty kernels <<<1,32>>> in a chain; graph launched 20x between CUDA events; per node; median of 7",
            3);
  }

  // launch + sync round trip
  {
    std::vector<double> t;
    for (int i = 0; i < 2000; ++i) {
      double h0 = now_s();
      empty_kernel<<<1, 32, 0, s>>>();
      CK(cudaStreamSynchronize(s));
      t.push_back((now_s() - h0) * 1e6);
    }
    csv.row("launch_sync_roundtrip_1x32", median(t), "us",
            "wall clock of one empty kernel launch + cudaStreamSynchronize; median of 2000", 3);
  }
  std::printf("calib_launch done\n");
  return 0;
}
