// Measurement CSV reader (frontend/validate/measurements.h): RFC 4180 quoting as profilers'
// kernel names need it, and errors that name the file line.
#include "frontend/validate/measurements.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "frontend/validate/validate.h"
#include "sim/hw/spec_json.h"
#include "sim/units/error.h"

namespace tgsim::validate {
namespace {

// The InputError message of parse_csv(text), or "" when it does not throw.
std::string error_of(const std::string& text) {
  try {
    parse_csv(text, "m.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(MeasurementsCsv, HeaderColumnsInFileOrderAndCellsByName) {
  const Table t = parse_csv("op,M,time_us,extra\ngemm,128,5.5,x\ngemm,256,,y\n", "m.csv");
  EXPECT_EQ(t.columns, (std::vector<std::string>{"op", "M", "time_us", "extra"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].line, 2);
  EXPECT_EQ(t.rows[1].line, 3);
  EXPECT_EQ(t.rows[0].get("M"), "128");
  EXPECT_EQ(t.rows[0].get("extra"), "x");  // unknown columns are kept
  EXPECT_EQ(t.rows[1].get("time_us"), "");  // empty cell: not given
  EXPECT_EQ(t.rows[1].get("no_such_column"), "");
  EXPECT_EQ(t.rows[0].number("time_us", "m.csv"), 5.5);
  EXPECT_FALSE(t.rows[1].number("time_us", "m.csv").has_value());
}

TEST(MeasurementsCsv, QuotedCellsKeepCommasAndDoubledQuotes) {
  const std::string text =
      "op,kernel,time_us\n"
      "gemm,\"cublasLt::splitKreduce_kernel<32, 16, int, float>\",12.5\n"
      "gemm,\"say \"\"hi\"\", then go\",3\n";
  const Table t = parse_csv(text, "m.csv");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].get("kernel"), "cublasLt::splitKreduce_kernel<32, 16, int, float>");
  EXPECT_EQ(t.rows[0].get("time_us"), "12.5");
  EXPECT_EQ(t.rows[1].get("kernel"), "say \"hi\", then go");
}

TEST(MeasurementsCsv, QuotedNewlineAndCrLfLineEndings) {
  const Table t = parse_csv("a,b\r\n\"x\ny\",1\r\nz,2\r\n", "m.csv");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].get("a"), "x\ny");
  EXPECT_EQ(t.rows[0].get("b"), "1");
  EXPECT_EQ(t.rows[1].line, 4);  // the quoted newline counts as a line
  EXPECT_EQ(t.rows[1].get("b"), "2");
}

TEST(MeasurementsCsv, NoTrailingNewlineAndBlankLinesSkipped) {
  const Table t = parse_csv("a,b\n\n1,2\n\n3,4", "m.csv");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].line, 3);
  EXPECT_EQ(t.rows[1].get("b"), "4");
  EXPECT_EQ(t.rows[1].line, 5);
}

TEST(MeasurementsCsv, EscapeRoundTrips) {
  EXPECT_EQ(csv_escape("plain"), "plain");
  EXPECT_EQ(csv_escape("a, b"), "\"a, b\"");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  const std::string cell = "k<1, 2> \"q\"";
  const Table t = parse_csv("c,d\n" + csv_escape(cell) + ",x\n", "m.csv");
  EXPECT_EQ(t.rows.at(0).get("c"), cell);
}

TEST(MeasurementsCsv, RaggedRowNamesItsLine) {
  const std::string e = error_of("op,M,N\ngemm,1,2\ngemm,1\n");
  EXPECT_NE(e.find("m.csv:3"), std::string::npos) << e;
  EXPECT_NE(e.find("2 cells"), std::string::npos) << e;
  EXPECT_NE(e.find("3 columns"), std::string::npos) << e;
  EXPECT_NE(error_of("op,M\ngemm,1,2\n").find("m.csv:2"), std::string::npos);
}

TEST(MeasurementsCsv, EmptyFileIsAnError) {
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  EXPECT_NE(error_of("\n\n").find("empty"), std::string::npos);
}

TEST(MeasurementsCsv, UnterminatedQuoteNamesItsLine) {
  const std::string e = error_of("a,b\n1,2\n\"open,3\n");
  EXPECT_NE(e.find("m.csv:3"), std::string::npos) << e;
  EXPECT_NE(e.find("unterminated"), std::string::npos) << e;
}

TEST(MeasurementsCsv, BadNumberNamesLineAndColumn) {
  const Table t = parse_csv("op,time_us\ngemm,fast\n", "m.csv");
  try {
    (void)t.rows.at(0).number("time_us", "m.csv");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("m.csv:2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("time_us"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fast"), std::string::npos) << msg;
  }
}

TEST(MeasurementsCsv, ReadCsvFromFileAndMissingFile) {
  const auto dir = std::filesystem::temp_directory_path() / "tgsim_measurements_test";
  std::filesystem::create_directories(dir);
  const auto file = dir / "m.csv";
  {
    std::ofstream(file) << "op,time_us\ngemm,1.5\n";
  }
  const Table t = read_csv(file);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].get("time_us"), "1.5");
  try {
    read_csv(dir / "missing.csv");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.csv"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(MeasurementOptions, RowsFromRestCarryTheirRepetitions) {
  const hw::GpuSpec spec = hw::load_gpu_spec(std::filesystem::path(TGSIM_SOURCE_DIR) / "configs/gpus/h200.json");
  const Table t = parse_csv(
      "op,time_us,reps,settle_ms\n"
      "gemm,100,,\n"       // no settle: steady state
      "gemm,100,7,200\n"   // settled, 7 reps recorded
      "gemm,2000,,200\n"   // settled, reps from the bench rule: ceil(50 ms / 2 ms) = 25
      "gemm,1,,200\n"      // clamped to 50
      "gemm,100000,,0\n",  // settle 0: steady state
      "m.csv");
  const std::vector<int> expected{0, 7, 25, 50, 0};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const engine::SimOptions o = measurement_options(t.rows[i], "m.csv", spec);
    EXPECT_EQ(o.from_rest_reps, expected[i]) << "row " << i;
    EXPECT_TRUE(o.l2_starts_dirty);
    EXPECT_EQ(o.repeat_gap, measurement_flush_gap(spec));
  }
}

TEST(MeasurementOptions, GraphTimedRowsRunTheirKernelsAsOneCudaGraph) {
  const Table t = parse_csv("op,time_us,timing\nattention,10,cuda_graph\nattention,10,eager\nattention,10,\n", "m.csv");
  const std::vector<bool> expected{true, false, false};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    graph::TileGraph g;
    g.kernels.resize(2);
    apply_row_timing(t.rows[i], g);
    for (const auto& k : g.kernels) EXPECT_EQ(k.in_cuda_graph, expected[i]) << "row " << i;
  }
}

TEST(MeasurementOptions, AGraphTimedSplitKvRowPaysTheGraphLaunch) {
  // decode b1 h32/8 kv1024 d128 (split-KV + combine): timed as a graph replay it is predicted
  // graph_launch_overhead + graph_kernel_overhead where a stream launch pays kernel_overhead +
  // queued_kernel_gap (graph values set far from the stream ones to tell them apart)
  hw::GpuSpec h200 = hw::load_gpu_spec(std::filesystem::path(TGSIM_SOURCE_DIR) / "configs/gpus/h200.json");
  h200.launch.graph_launch_overhead = from_us(10);
  h200.launch.graph_kernel_overhead = from_us(2);
  SpecLoader specs = [spec = h200](const std::string&) -> const hw::GpuSpec& { return spec; };
  const hw::GpuSpec& spec = specs("h200");
  const std::string head = "op,gpu,batch,heads,heads_kv,seq_q,seq_kv,head_dim,time_us,timing\n";
  const std::string shape = "attention,h200,1,32,8,1,1024,128,16,";
  const Table t = parse_csv(head + shape + "cuda_graph\n" + shape + "eager\n", "m.csv");
  const Prediction graph = predict_attention(t.rows[0], "m.csv", specs);
  const Prediction stream = predict_attention(t.rows[1], "m.csv", specs);
  ASSERT_TRUE(graph.ok && stream.ok) << graph.skip_reason << stream.skip_reason;
  const double expected = to_us(spec.launch.graph_launch_overhead + spec.launch.graph_kernel_overhead -
                                spec.launch.kernel_overhead - spec.launch.queued_kernel_gap);
  EXPECT_NEAR(graph.predicted_us - stream.predicted_us, expected, 0.02);
}

}  // namespace
}  // namespace tgsim::validate
