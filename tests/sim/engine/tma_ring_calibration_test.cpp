// Calibration checks of the memory path against TMA rings measured on the H200 (and the H100):
// - calib_tma_hitmiss (traces/h200/ and traces/h100/calibration_tma_hitmiss.csv): stages of an 8 KiB box that
//   misses L2 and B boxes that hit it. Where the measured rate is set by bandwidth (132 CTAs; HBM
//   for the miss stream, L2 for two or more boxes per stage, misses included) the engine must
//   reproduce the time per step within 10% (and the L2-bound rows within 4%). Rows set by the
//   ring's own step cost (one hit box per stage, 66 CTAs) and by L2 replacement (cyclic reuse of
//   35-60 MB) are known gaps (docs/model.md, "The memory path") and are not checked.
// - calib_tma_multicast (traces/h200/calibration_tma_multicast.csv): clusters of k CTAs sharing
//   each stage's tile by multicast. Rows whose measured rate is at a bandwidth limit (L2 or HBM
//   fetch, or the SM's receive port) must match within 6%; the others run at the ring's step cost.
// - calib_tma tiled_oob / tiled_oobmix_k (traces/h200/calibration_tma_oob.csv, _oobmix.csv): 132
//   CTAs of which the first k stream from HBM and the rest load wholly out-of-range (zero-filled)
//   boxes. Their total rate is set by the L2's miss path (l2.miss_bandwidth), which both share.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/engine/simulate.h"
#include "sim/hw/spec_json.h"

namespace tgsim {
namespace {

constexpr int kSteps = 384;

struct Ring {
  int ctas = 132, stages = 8;
  int a = 0;                // boxes of A per step: a new tile each step (misses)
  int nb = 0;               // boxes of B per step, cycling over 8 tiles (hits)
  std::int64_t box = 8192;  // bytes per box
  int cluster = 1;          // CTAs per cluster; each box is multicast to all of them
  int in_range = -1;        // CTAs whose A boxes read memory; the others' are zero-filled (-1: all)
};

// One CTA per SM; step i's loads wait for step i - S's release. Tiles are keyed by (cluster,
// index, rank in the cluster), as the GEMM lowerings key a multicast slice.
graph::CtaTemplate ring_template(const Ring& rg, bool zero_fill) {
  const int stages = rg.stages, a = rg.a, nb = rg.nb;
  graph::CtaTemplate t;
  t.name = zero_fill ? "ring_zero_fill" : "ring";
  t.roles = {graph::Role{"producer", 0, 1}, graph::Role{"consumer", 1, 1}};
  std::vector<int> release;
  int jb = 0;
  for (int i = 0; i < kSteps; ++i) {
    std::vector<int> loads;
    const auto load = [&](int tensor, std::int64_t coord) {
      graph::Node n;
      n.id = "ld" + std::to_string(t.nodes.size());
      n.kind = graph::NodeKind::load;
      n.bytes = Bytes{rg.box};
      n.multicast = rg.cluster;
      n.tile.tensor = zero_fill && tensor == 0 ? -1 : tensor;
      n.tile.zero_fill = zero_fill && tensor == 0;
      n.tile.coords = {graph::Coord{0, 0}, graph::Coord{-1, coord}, graph::Coord{1, 0}};
      loads.push_back(static_cast<int>(t.nodes.size()));
      t.nodes.push_back(std::move(n));
    };
    for (int j = 0; j < a; ++j) load(0, i);
    for (int j = 0; j < nb; ++j) load(1, jb++ % 8);
    graph::Node r;
    r.id = "rel" + std::to_string(i);
    r.role = 1;
    const int ri = static_cast<int>(t.nodes.size());
    t.nodes.push_back(std::move(r));
    for (int l : loads) {
      t.edges.push_back({l, ri, graph::EdgeKind::data});
      if (i >= stages) t.edges.push_back({release[static_cast<std::size_t>(i - stages)], l, graph::EdgeKind::order});
    }
    if (i > 0) t.edges.push_back({release.back(), ri, graph::EdgeKind::order});
    release.push_back(ri);
  }
  return t;
}

graph::TileGraph ring(const Ring& rg) {
  graph::TileGraph g;
  g.name = "ring";
  graph::Kernel k;
  k.name = "hitmiss";
  k.cta.threads = 64;
  k.cta.shared_memory = Bytes{200 * 1024};
  k.cta.cluster = {rg.cluster, 1, 1};
  k.tensors = {graph::Tensor{"A", {}}, graph::Tensor{"B", {}}};
  const int in_range = rg.in_range < 0 ? rg.ctas : rg.in_range;
  for (int zero_fill = 0; zero_fill < 2; ++zero_fill) {
    const int first = zero_fill ? in_range : 0, last = zero_fill ? rg.ctas : in_range;
    if (last == first) continue;
    graph::CtaGroup grid{static_cast<int>(k.templates.size()), last - first, 2, {}};
    k.templates.push_back(ring_template(rg, zero_fill != 0));
    for (int c = first; c < last; ++c) {
      grid.params.push_back(c / rg.cluster);
      grid.params.push_back(c % rg.cluster);
    }
    k.grid.push_back(std::move(grid));
  }
  g.kernels.push_back(std::move(k));
  return g;
}

std::vector<std::map<std::string, std::string>> read_rows(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  for (std::stringstream ss(line); std::getline(ss, line, ',');) header.push_back(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::map<std::string, std::string> row;
    std::stringstream ss(line);
    std::string cell;
    for (std::size_t i = 0; i + 1 < header.size() && std::getline(ss, cell, ','); ++i) row[header[i]] = cell;
    if (std::getline(ss, cell)) row[header.back()] = cell;  // the method, last, holds commas
    rows.push_back(std::move(row));
  }
  return rows;
}

double us_per_step(const Ring& rg, const hw::GpuSpec& spec) {
  engine::SimOptions o;
  o.critical_path = false;
  const auto res = engine::simulate(ring(rg), spec, o);
  return to_us(res.kernels[0].end - res.kernels[0].start) / kSteps;
}

// The hitmiss rings of one GPU against its preset: returns the rows checked.
int check_hitmiss_rings(const std::string& gpu) {
  const std::filesystem::path root(TGSIM_SOURCE_DIR);
  const auto spec = hw::load_gpu_preset(gpu, root / "configs");
  const auto rows = read_rows(root / "traces" / gpu / "calibration_tma_hitmiss.csv");
  int checked = 0;
  for (const auto& r : rows) {
    const int ctas = std::stoi(r.at("ctas")), a = std::stoi(r.at("a_boxes")), nb = std::stoi(r.at("b_boxes"));
    const bool bandwidth_bound = ctas == spec.sm.count && (a + nb >= 2 || nb == 0);
    if (!bandwidth_bound || r.at("b_pitch") != "16384" || r.at("b_spread") != "0" || r.at("b_copy") != "tensor2d" ||
        (nb > 0 && r.at("region_kib") != "64")) {
      continue;
    }
    const double model = us_per_step({ctas, std::stoi(r.at("stages")), a, nb}, spec);
    const double measured = std::stod(r.at("us_per_step"));
    const bool l2_bound = nb >= 2;
    EXPECT_NEAR(model / measured, 1.0, l2_bound ? 0.04 : 0.10)
        << gpu << " " << r.at("case") << " S=" << r.at("stages") << " A=" << a << " B=" << nb;
    ++checked;
  }
  return checked;
}

TEST(TmaRingCalibration, BandwidthBoundRingsMatchTheirMeasurement) { EXPECT_EQ(check_hitmiss_rings("h200"), 11); }

// The same rings measured on a lent H100 (traces/h100/calibration_tma_hitmiss.csv, 2026-12-06),
// whose l2.bandwidth and hbm.efficiency the h100 preset takes from them and calib_tma by the
// H200's rule.
TEST(TmaRingCalibration, BandwidthBoundRingsMatchTheirMeasurementOnTheH100) {
  EXPECT_EQ(check_hitmiss_rings("h100"), 11);
}

TEST(TmaRingCalibration, MulticastRingsAtABandwidthLimitMatchTheirMeasurement) {
  const std::filesystem::path root(TGSIM_SOURCE_DIR);
  const auto spec = hw::load_gpu_preset("h200", root / "configs");
  const double port_gbps = spec.sm.l2_bandwidth_per_sm.value * spec.clock.boost.value * 1e-9;
  const double l2_gbps = spec.l2.bandwidth.value * 1e-9;
  const double hbm_gbps = spec.hbm.bandwidth.value * spec.hbm.efficiency * 1e-9;
  int checked = 0;
  for (const auto& r : read_rows(root / "traces/h200/calibration_tma_multicast.csv")) {
    const bool miss = r.at("case") == "miss";
    const double recv = std::stod(r.at("gbps_recv_per_sm")), fetch = std::stod(r.at("gbps_fetch_total"));
    // at a limit: the SM's receive port, or the fetch at L2's (hits) or HBM's (misses) bandwidth
    const bool bound = recv >= 0.9 * port_gbps || fetch >= 0.95 * (miss ? hbm_gbps : l2_gbps);
    if (!bound) continue;
    Ring rg{std::stoi(r.at("ctas")), std::stoi(r.at("stages")), miss ? 1 : 0, miss ? 0 : 1,
            std::stoll(r.at("tile_bytes")), std::stoi(r.at("cluster"))};
    const double model = us_per_step(rg, spec);
    const double measured = std::stod(r.at("us_per_step"));
    EXPECT_NEAR(model / measured, 1.0, 0.06)
        << r.at("case") << " k=" << rg.cluster << " T=" << rg.box << " CTAs=" << rg.ctas << ": model " << model
        << " us, measured " << measured;
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

// The measured in-kernel span (globaltimer, first CTA start to last CTA end) from a row's method.
double span_us(const std::string& method) {
  const std::string key = "(globaltimer) ";
  const auto at = method.find(key);
  return at == std::string::npos ? 0.0 : std::stod(method.substr(at + key.size()));
}

// Whole-grid rate (all bytes over the kernel's time, GB/s) of a ring of misses in which the CTAs
// from `in_range` on load zero-filled boxes instead.
double ring_gbps(const Ring& rg, const hw::GpuSpec& spec) {
  return static_cast<double>(rg.ctas) * static_cast<double>(rg.box) * 1e-3 / us_per_step(rg, spec);
}

// Zero-filled boxes beside an HBM stream: the total over all 132 CTAs is what the miss path
// passes (4.37-4.76 TB/s measured for k = 33, 66, 99 in-range CTAs, 4 and 8 stages), more than
// HBM alone. The model's rate must be within 6% of each row's bytes over its in-kernel span.
// Zero-filled boxes alone (tiled_oob, 132 CTAs, 64 KiB or more in flight per SM) reach 4.10-4.39
// TB/s (event time): within 12%. (With 32 KiB in flight the measured ring is latency-bound at 3.84
// TB/s, as the same ring of HBM loads is, 3.86: the engine's latency under load is a known gap.)
// The mixed rows of one GPU's file against its preset, each within `tolerance`: returns the rows checked.
int check_oobmix(const std::string& gpu, const std::string& file, double tolerance) {
  const std::filesystem::path root(TGSIM_SOURCE_DIR);
  const auto spec = hw::load_gpu_preset(gpu, root / "configs");
  EXPECT_GT(spec.l2.miss_bandwidth.value, 0) << gpu;
  int checked = 0;
  for (const auto& r : read_rows(root / "traces" / gpu / file)) {
    const std::string variant = r.at("variant");
    if (variant.rfind("tiled_oobmix_", 0) != 0) continue;  // the mixed runs, not the in-range CTAs alone
    const int ctas = std::stoi(r.at("ctas"));
    const int k = std::stoi(variant.substr(std::string("tiled_oobmix_").size()));
    Ring rg{ctas, std::stoi(r.at("stages")), 1, 0, std::stoll(r.at("box_bytes")), 1, k};
    const double model = ring_gbps(rg, spec);
    const double total_bytes = 8388608.0 * ctas;  // 8 MiB per CTA (the rows' method)
    const double span = span_us(r.at("method"));
    EXPECT_GT(span, 0) << variant;
    const double measured = total_bytes / span * 1e-3;
    EXPECT_NEAR(model / measured, 1.0, tolerance)
        << gpu << " " << variant << " S=" << rg.stages << ": model " << model << " GB/s, measured " << measured;
    ++checked;
  }
  return checked;
}

TEST(TmaRingCalibration, ZeroFilledBoxesShareTheMissPathWithAnHbmStream) {
  const std::filesystem::path root(TGSIM_SOURCE_DIR);
  const auto spec = hw::load_gpu_preset("h200", root / "configs");
  EXPECT_EQ(check_oobmix("h200", "calibration_tma_oobmix.csv", 0.06), 6);
  int alone = 0;
  for (const auto& r : read_rows(root / "traces/h200/calibration_tma_oob.csv")) {
    if (r.at("variant") != "tiled_oob" || std::stoi(r.at("ctas")) != spec.sm.count ||
        std::stoi(r.at("bytes_in_flight_per_sm")) < 65536) {
      continue;
    }
    Ring rg{spec.sm.count, std::stoi(r.at("stages")), 1, 0, std::stoll(r.at("box_bytes")), 1, 0};
    const double model = ring_gbps(rg, spec), measured = std::stod(r.at("gbps_total"));
    EXPECT_NEAR(model / measured, 1.0, 0.12) << "S=" << rg.stages << " box " << rg.box << ": model " << model << " GB/s";
    ++alone;
  }
  EXPECT_EQ(alone, 3);
}

// The same mixed rings on a lent H100 (traces/h100/calibration_tma.csv, 2026-12-06), whose
// l2.miss_bandwidth is their median: they spread wider than the H200's (3.41-4.46 TB/s), so the
// model's one rate (4.06 TB/s here) is within 9% of five rows and 19% above the sixth (k = 99,
// 8 stages: 3.41 TB/s, little more than the 99 CTAs' HBM stream alone).
TEST(TmaRingCalibration, ZeroFilledBoxesShareTheMissPathOnTheH100) {
  EXPECT_EQ(check_oobmix("h100", "calibration_tma.csv", 0.20), 6);
}

// Hand-computed: 132 CTAs of zero-filled 16 KiB boxes, 8 stages, and nothing else: the miss path
// (l2.miss_bandwidth) sets the rate, not HBM (4.8 TB/s x 0.871 = 4.18 TB/s). Without the field
// (zero) a zero-filled box is streamed like a miss, through HBM.
TEST(TmaRingCalibration, ZeroFilledBoxesAloneRunAtTheMissPathNotHbm) {
  const std::filesystem::path root(TGSIM_SOURCE_DIR);
  auto spec = hw::load_gpu_preset("h200", root / "configs");
  const Ring zero{132, 8, 1, 0, 16384, 1, 0};
  const Ring miss{132, 8, 1, 0, 16384, 1, -1};
  spec.l2.miss_bandwidth = BytesPerSecond{5.0e12};
  EXPECT_NEAR(ring_gbps(zero, spec) / 5000.0, 1.0, 0.03);
  EXPECT_NEAR(ring_gbps(miss, spec) / (4800.0 * spec.hbm.efficiency), 1.0, 0.03);
  spec.l2.miss_bandwidth = BytesPerSecond{3.0e12};  // below HBM: it caps the misses too
  EXPECT_NEAR(ring_gbps(zero, spec) / 3000.0, 1.0, 0.03);
  EXPECT_NEAR(ring_gbps(miss, spec) / 3000.0, 1.0, 0.03);
  spec.l2.miss_bandwidth = BytesPerSecond{0};
  EXPECT_NEAR(ring_gbps(zero, spec) / ring_gbps(miss, spec), 1.0, 1e-9);
}

// Hand-computed: two CTAs, L2 far from its limit, 32 KiB stages re-read from L2. The SM's port
// (96 B/clk x 1980 MHz = 190.08 GB/s) sets the step at 32768 B / 190.08 GB/s = 0.1724 us. A
// 2-CTA multicast halves what each CTA fetches, not what its SM receives: the step stays.
TEST(TmaRingCalibration, MulticastHalvesTheFetchNotTheReceive) {
  const std::filesystem::path root(TGSIM_SOURCE_DIR);
  const auto spec = hw::load_gpu_preset("h200", root / "configs");
  const double port_step_us = 32768.0 / (spec.sm.l2_bandwidth_per_sm.value * spec.clock.boost.value) * 1e6;
  EXPECT_NEAR(port_step_us, 0.1724, 0.0005);
  const double alone = us_per_step({2, 8, 0, 1, 32768, 1}, spec);
  const double shared = us_per_step({2, 8, 0, 1, 32768, 2}, spec);
  EXPECT_NEAR(alone / port_step_us, 1.0, 0.03);
  EXPECT_NEAR(shared / port_step_us, 1.0, 0.03);
}

}  // namespace
}  // namespace tgsim
