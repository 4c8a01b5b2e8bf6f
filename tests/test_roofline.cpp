// Roofline arithmetic, traffic models, the tile ledger and the plot driver. The worked numbers of the
// design notes are checked exactly; datasheet ridge points within 1%.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "ridgeline/ceilings.hpp"
#include "ridgeline/device_spec.hpp"
#include "ridgeline/roofline.hpp"
#include "ridgeline/roofline_plot.hpp"

namespace rl = ridgeline::roofline;
using ridgeline::DeviceSpec;
using ridgeline::DType;
using ridgeline::find_device_spec;
using ridgeline::Unit;

namespace {

// 50 TFLOP/s and 1 TB/s: the teaching device of the design notes.
DeviceSpec teaching_device() {
  DeviceSpec s;
  s.key = "teaching";
  s.name = "Teaching device";
  s.backend = "cuda";
  s.dram_bw_bytes_per_s = 1e12;
  s.launch_overhead_s = 5e-6;
  s.set_peak_flops(DType::fp32, Unit::vector, 50e12);
  return s;
}

void expect_within_percent(double actual, double expected, double percent = 1.0) {
  EXPECT_NEAR(actual, expected, std::abs(expected) * percent / 100.0) << "expected ~" << expected;
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir =
      std::filesystem::temp_directory_path() / ("ridgeline_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

// ---- tile ledger ------------------------------------------------------------------------------------

TEST(TileLedger, WorkedNumbers64x64x32Fp16) {
  const auto l = rl::tile_ledger(64, 64, 32, DType::fp16, DType::fp32, 128, 2);
  EXPECT_EQ(l.a_tile_bytes, 4096);    // 64 x 32 FP16
  EXPECT_EQ(l.b_tile_bytes, 4096);    // 32 x 64 FP16
  EXPECT_EQ(l.ab_stage_bytes, 8192);  // A + B
  EXPECT_EQ(l.staged_bytes, 16384);   // two stages
  EXPECT_EQ(l.c_tile_bytes, 16384);   // 64 x 64 FP32
  EXPECT_DOUBLE_EQ(l.flops_per_k_step, 262144.0);
  EXPECT_DOUBLE_EQ(l.flop_per_byte, 32.0);
  EXPECT_EQ(l.accumulators_per_thread, 32);
  EXPECT_TRUE(l.even_split);
  EXPECT_NE(l.note.find("Logical count only"), std::string::npos);
}

TEST(TileLedger, StagesScaleOnlyTheStagedBytes) {
  const auto one = rl::tile_ledger(64, 64, 32, DType::fp16, DType::fp32, 128, 1);
  const auto three = rl::tile_ledger(64, 64, 32, DType::fp16, DType::fp32, 128, 3);
  EXPECT_EQ(one.staged_bytes, 8192);
  EXPECT_EQ(three.staged_bytes, 3 * 8192);
  EXPECT_EQ(one.c_tile_bytes, three.c_tile_bytes);
  EXPECT_DOUBLE_EQ(one.flop_per_byte, three.flop_per_byte);
}

TEST(TileLedger, UnevenSplitRoundsUpAndSaysSo) {
  const auto l = rl::tile_ledger(64, 64, 32, DType::fp32, DType::fp32, 96, 1);
  EXPECT_EQ(l.accumulators_per_thread, 43);  // ceil(4096 / 96)
  EXPECT_FALSE(l.even_split);
  EXPECT_EQ(l.a_tile_bytes, 64 * 32 * 4);
}

TEST(TileLedger, RejectsNonPositiveInput) {
  EXPECT_THROW(rl::tile_ledger(0, 64, 32, DType::fp16, DType::fp32, 128, 1), std::invalid_argument);
  EXPECT_THROW(rl::tile_ledger(64, 64, 32, DType::fp16, DType::fp32, 0, 1), std::invalid_argument);
  EXPECT_THROW(rl::tile_ledger(64, 64, 32, DType::fp16, DType::fp32, 128, 0), std::invalid_argument);
}

// ---- ridge points -----------------------------------------------------------------------------------

TEST(Ridge, TeachingDeviceIs50FlopPerByte) {
  const auto s = teaching_device();
  EXPECT_DOUBLE_EQ(rl::ridge_point(s, DType::fp32, Unit::vector), 50.0);
  EXPECT_DOUBLE_EQ(rl::attainable(s, DType::fp32, Unit::vector, 10.0), 10e12);   // memory slope
  EXPECT_DOUBLE_EQ(rl::attainable(s, DType::fp32, Unit::vector, 100.0), 50e12);  // flat roof
  EXPECT_DOUBLE_EQ(rl::ridge_point(s, DType::fp64, Unit::vector), 0.0);          // no such unit
}

TEST(Ridge, DatasheetRatios) {
  // Each anchor is checked against the ratio of the datasheet figures, and the rounded anchor too.
  const double h200_fp64 = rl::ridge_point(find_device_spec("h200"), DType::fp64, Unit::matrix);
  expect_within_percent(h200_fp64, 67.0 / 4.8);
  expect_within_percent(h200_fp64, 14.0);

  const double h100_fp64 = rl::ridge_point(find_device_spec("h100"), DType::fp64, Unit::matrix);
  expect_within_percent(h100_fp64, 67.0 / 3.35);
  expect_within_percent(h100_fp64, 20.0);

  const double mi300x_fp64 = rl::ridge_point(find_device_spec("mi300x"), DType::fp64, Unit::matrix);
  expect_within_percent(mi300x_fp64, 163.4 / 5.3);
  expect_within_percent(mi300x_fp64, 30.8);

  const double h200_bf16 = rl::ridge_point(find_device_spec("h200"), DType::bf16, Unit::matrix);
  expect_within_percent(h200_bf16, 989.5 / 4.8);
  expect_within_percent(h200_bf16, 206.0);
}

TEST(Ridge, L2LevelNeedsAPublishedFigure) {
  const auto& mi300x = find_device_spec("mi300x");
  EXPECT_GT(rl::ridge_point(mi300x, DType::fp64, Unit::matrix, rl::MemoryLevel::l2), 0.0);
  EXPECT_LT(rl::ridge_point(mi300x, DType::fp64, Unit::matrix, rl::MemoryLevel::l2),
            rl::ridge_point(mi300x, DType::fp64, Unit::matrix, rl::MemoryLevel::dram));
  EXPECT_THROW(rl::ridge_point(find_device_spec("h200"), DType::fp64, Unit::matrix, rl::MemoryLevel::l2),
               std::invalid_argument);
  EXPECT_EQ(rl::parse_memory_level("HBM"), rl::MemoryLevel::dram);
  EXPECT_THROW(rl::parse_memory_level("l3"), std::invalid_argument);
}

// ---- traffic models -----------------------------------------------------------------------------------

TEST(GemmIdeal, ReadsABOnceWritesCAndReadsCOnlyWithBeta) {
  const auto t0 = rl::gemm_ideal(1024, 1024, 1024, 4, false);
  EXPECT_DOUBLE_EQ(t0.flops, 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(t0.bytes, 3.0 * 1024 * 1024 * 4);
  const auto t1 = rl::gemm_ideal(1024, 1024, 1024, 4, true);
  EXPECT_DOUBLE_EQ(t1.bytes, 4.0 * 1024 * 1024 * 4);
  const auto rect = rl::gemm_ideal(100, 200, 300, 2, false);
  EXPECT_DOUBLE_EQ(rect.bytes, 2.0 * (100 * 300 + 300 * 200 + 100 * 200));
  EXPECT_THROW(rl::gemm_ideal(0, 1, 1, 4, false), std::invalid_argument);
}

TEST(GemmTileTraffic, RereadsWithoutL2) {
  ridgeline::TileConfig tile;
  tile.bm = 128;
  tile.bn = 128;
  tile.bk = 32;
  const auto d = rl::gemm_tile_traffic_detail(1024, 1024, 1024, 4, false, tile, 0.0);
  EXPECT_DOUBLE_EQ(d.a_reads, 8.0);  // ceil(1024 / 128)
  EXPECT_DOUBLE_EQ(d.b_reads, 8.0);
  const double mib = 1024.0 * 1024.0;
  EXPECT_DOUBLE_EQ(d.l2_bytes, (8 * 4 + 8 * 4 + 4) * mib);  // A 4 MiB x 8, B 4 MiB x 8, C 4 MiB
  EXPECT_DOUBLE_EQ(d.dram_bytes, d.l2_bytes);               // nothing reused
  EXPECT_DOUBLE_EQ(d.l2_reuse, 0.0);
}

TEST(GemmTileTraffic, CeilOnRaggedShapesAndL2Reuse) {
  ridgeline::TileConfig tile;
  tile.bm = 64;
  tile.bn = 128;
  tile.bk = 32;
  const double mib = 1024.0 * 1024.0;
  const auto ragged = rl::gemm_tile_traffic_detail(1000, 1000, 512, 2, true, tile, 0.0);
  EXPECT_DOUBLE_EQ(ragged.a_reads, 8.0);   // ceil(1000 / 128)
  EXPECT_DOUBLE_EQ(ragged.b_reads, 16.0);  // ceil(1000 / 64)

  tile.bm = tile.bn = 128;
  // A + B are 8 MiB: a 1 GiB L2 holds them and traffic is the ideal one.
  const auto big = rl::gemm_tile_traffic(1024, 1024, 1024, 4, false, tile, 1024 * mib);
  EXPECT_DOUBLE_EQ(big.bytes, rl::gemm_ideal(1024, 1024, 1024, 4, false).bytes);
  // A 4 MiB L2 holds half: half of the 56 MiB of re-reads still come from DRAM.
  const auto half = rl::gemm_tile_traffic_detail(1024, 1024, 1024, 4, false, tile, 4 * mib);
  EXPECT_DOUBLE_EQ(half.l2_reuse, 0.5);
  EXPECT_DOUBLE_EQ(half.dram_bytes, (12 + 28) * mib);
}

TEST(Gemv, Fp16IsAboutOneFlopPerByteAndBatchingScales) {
  const auto one = rl::gemv_ideal(8192, 8192, 2, false, 1);
  EXPECT_NEAR(one.intensity(), 1.0, 0.001);  // 2 / s_A with s_A = 2
  const auto fp32 = rl::gemv_ideal(8192, 8192, 4, false, 1);
  EXPECT_NEAR(fp32.intensity(), 0.5, 0.001);
  const auto eight = rl::gemv_ideal(8192, 8192, 2, false, 8);
  EXPECT_NEAR(eight.intensity() / one.intensity(), 8.0, 0.08);
  EXPECT_DOUBLE_EQ(eight.flops, 8 * one.flops);
  const auto with_beta = rl::gemv_ideal(8192, 8192, 2, true, 1);
  EXPECT_DOUBLE_EQ(with_beta.bytes - one.bytes, 8192.0 * 2);
}

// Complex: 8 real FLOPs per multiply-add and twice the bytes per element, so ZGEMM's intensity is twice
// DGEMM's on the same shape and ZGEMV's the same as DGEMV's (both of those per real FLOP).
TEST(ComplexTraffic, EightFlopsPerMacAndTwiceTheBytes) {
  const auto z = rl::gemm_ideal_complex(1024, 1024, 1024, 16, false);
  EXPECT_DOUBLE_EQ(z.flops, 8.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(z.bytes, 3.0 * 1024 * 1024 * 16);
  EXPECT_DOUBLE_EQ(z.intensity(), 2 * rl::gemm_ideal(1024, 1024, 1024, 8, false).intensity());
  const auto zv = rl::gemv_ideal_complex(8192, 8192, 16, false);
  EXPECT_DOUBLE_EQ(zv.flops, 8.0 * 8192 * 8192);
  EXPECT_NEAR(zv.intensity(), 0.5, 0.001);  // 8 FLOPs per 16-byte element of A
  const auto c = rl::complex_traffic(rl::gemm_ideal(100, 200, 300, 8, true));
  EXPECT_DOUBLE_EQ(c.flops, 8.0 * 100 * 200 * 300);
  EXPECT_DOUBLE_EQ(c.bytes, 8.0 * (100 * 300 + 300 * 200 + 2 * 100 * 200));
}

// ---- evaluate ---------------------------------------------------------------------------------------

TEST(Evaluate, BoundsAndEfficiency) {
  const auto s = teaching_device();
  // Big FP32 GEMM: I = 2n/12 far above 50.
  const auto gemm = rl::gemm_ideal(8192, 8192, 8192, 4, false);
  auto p = rl::evaluate(s, DType::fp32, Unit::vector, gemm, -1);
  EXPECT_EQ(p.bound, rl::Bound::compute);
  EXPECT_DOUBLE_EQ(p.attainable_flops, 50e12);
  EXPECT_DOUBLE_EQ(p.ridge, 50.0);
  EXPECT_DOUBLE_EQ(p.efficiency, 0.0);  // nothing measured

  // Measured at twice the ideal time: 50% efficiency.
  const double ideal = gemm.flops / 50e12;
  p = rl::evaluate(s, DType::fp32, Unit::vector, gemm, 2 * ideal);
  EXPECT_NEAR(p.efficiency, 0.5, 1e-12);
  EXPECT_NEAR(p.achieved_flops, 25e12, 1e3);

  // A large GEMV sits on the memory slope.
  const auto gemv = rl::gemv_ideal(16384, 16384, 4, false);
  p = rl::evaluate(s, DType::fp32, Unit::vector, gemv, -1);
  EXPECT_EQ(p.bound, rl::Bound::memory);
  EXPECT_NEAR(p.attainable_flops, 1e12 * gemv.intensity(), 1.0);

  // A tiny GEMM finishes in far less than a launch: the latency floor applies.
  const auto tiny = rl::gemm_ideal(16, 16, 16, 4, false);
  p = rl::evaluate(s, DType::fp32, Unit::vector, tiny, -1);
  EXPECT_EQ(p.bound, rl::Bound::latency);
  EXPECT_DOUBLE_EQ(p.min_seconds, 5e-6);
  EXPECT_DOUBLE_EQ(p.attainable_flops, tiny.flops / 5e-6);
  EXPECT_LT(p.attainable_flops, p.roof_flops);

  // A measured launch overhead of zero removes the floor.
  rl::EvalOptions opt;
  opt.launch_overhead_s = 0;
  EXPECT_EQ(rl::evaluate(s, DType::fp32, Unit::vector, tiny, -1, opt).bound, rl::Bound::memory);

  EXPECT_THROW(rl::evaluate(s, DType::fp64, Unit::matrix, gemm, -1), std::invalid_argument);
}

// ---- compare ----------------------------------------------------------------------------------------

TEST(Compare, TeachingDeviceTurnsComputeBound) {
  const auto s = teaching_device();
  // FP32 square GEMM: I = 2n / (3 * 4) >= 50 from n = 300; GEMV: 2k / 4 >= 50 from k = 100.
  EXPECT_EQ(rl::gemm_compute_bound_n(s, DType::fp32, Unit::vector), 300);
  EXPECT_EQ(rl::gemm_compute_bound_n(s, DType::fp32, Unit::vector, true), 400);
  EXPECT_EQ(rl::gemv_compute_bound_batch(s, DType::fp32, Unit::vector), 100);
  EXPECT_EQ(rl::gemm_compute_bound_n(s, DType::fp64, Unit::vector), 0);
}

TEST(Compare, RidgesPastTheIntegerRangeAreOutOfRangeAtOnce) {
  // The hangs of issue 19: a ridge past std::int64_t used to be counted up to from 1. A spec built in
  // code skips the file loader's range checks, so the roofline itself must cope.
  auto s = teaching_device();
  s.set_peak_flops(DType::fp32, Unit::vector, 1e308);
  EXPECT_EQ(rl::gemm_compute_bound_n(s, DType::fp32, Unit::vector), rl::kOutOfRange);
  EXPECT_EQ(rl::gemv_compute_bound_batch(s, DType::fp32, Unit::vector), rl::kOutOfRange);
  s = teaching_device();
  s.dram_bw_bytes_per_s = 1e-320;  // denormal: the ridge overflows to +inf
  EXPECT_TRUE(std::isinf(rl::ridge_point(s, DType::fp32, Unit::vector)));
  const auto rows = rl::compare({s}, {DType::fp32}, {Unit::vector});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].available);
  EXPECT_EQ(rows[0].gemm_n, rl::kOutOfRange);
  EXPECT_EQ(rows[0].gemv_batch, rl::kOutOfRange);

  // Near the limit: counts below 2^53 are reported (to the few ulps of slack the closed form keeps),
  // counts past it are out of range.
  s = teaching_device();
  s.dram_bw_bytes_per_s = 1;
  const double limit = static_cast<double>(rl::kMaxCount);
  s.set_peak_flops(DType::fp16, Unit::vector, limit * 0.999);  // gemv: k = ceil(I* x 2 / 2) = I*
  EXPECT_NEAR(static_cast<double>(rl::gemv_compute_bound_batch(s, DType::fp16, Unit::vector)), limit * 0.999,
              limit * 1e-15);
  s.set_peak_flops(DType::fp16, Unit::vector, limit * 1.001);
  EXPECT_EQ(rl::gemv_compute_bound_batch(s, DType::fp16, Unit::vector), rl::kOutOfRange);
  // Large but in range: the closed form, not a scan, and still the smallest.
  s.set_peak_flops(DType::fp32, Unit::vector, 1e12);  // I* = 1e12: n = 6e12, k = 2e12
  EXPECT_EQ(rl::gemm_compute_bound_n(s, DType::fp32, Unit::vector), 6'000'000'000'000);
  EXPECT_EQ(rl::gemv_compute_bound_batch(s, DType::fp32, Unit::vector), 2'000'000'000'000);
  // A ridge that underflows to 0 is reached by the smallest shape.
  s.dram_bw_bytes_per_s = 1e300;
  s.set_peak_flops(DType::fp32, Unit::vector, 1e-30);
  EXPECT_EQ(rl::gemm_compute_bound_n(s, DType::fp32, Unit::vector), 1);
}

TEST(Compare, NonFiniteFiguresInACodeBuiltSpecNameTheField) {
  auto s = teaching_device();
  s.dram_bw_bytes_per_s = std::nan("");
  try {
    rl::compare({s}, {DType::fp32});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("field 'dram_bw_bytes_per_s'"), std::string::npos) << e.what();
  }
  s = teaching_device();
  s.set_peak_flops(DType::fp32, Unit::vector, std::numeric_limits<double>::infinity());
  try {
    rl::gemm_compute_bound_n(s, DType::fp32, Unit::vector);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("field 'peak_flops.fp32.vector'"), std::string::npos) << e.what();
  }
  // A plot of a ridge past a double is refused, not drawn with inf axes.
  s = teaching_device();
  s.set_peak_flops(DType::fp32, Unit::vector, 1e308);
  s.dram_bw_bytes_per_s = 1e-10;
  EXPECT_THROW(ridgeline::roofline_plot_data({s}, {{DType::fp32, Unit::vector}}, {}), std::invalid_argument);
}

TEST(TileLedger, ProductsPastInt64AreErrorsNotWraparound) {
  const int big = std::numeric_limits<int>::max();
  EXPECT_THROW(rl::tile_ledger(big, big, big, DType::fp64, DType::fp64, 1, 1), std::invalid_argument);
  EXPECT_THROW(rl::tile_ledger(1 << 20, 1 << 20, 1 << 20, DType::fp64, DType::fp64, 1, big),
               std::invalid_argument);
  // ceil(N / BN) for N near the top of std::int64_t, without forming N + BN - 1.
  ridgeline::TileConfig t;
  t.bm = t.bn = 64;
  t.bk = 32;
  const std::int64_t n = std::numeric_limits<std::int64_t>::max();
  const auto tt = rl::gemm_tile_traffic_detail(1, n, 1, 4, false, t, 0);
  EXPECT_DOUBLE_EQ(tt.a_reads, static_cast<double>(n / 64 + 1));
}

TEST(Compare, H200AgainstMi300x) {
  const std::vector<DeviceSpec> specs = {find_device_spec("h200"), find_device_spec("mi300x")};
  const auto rows = rl::compare(specs, {DType::fp64, DType::fp32, DType::fp16, DType::bf16});
  ASSERT_EQ(rows.size(), 4u * 2u * 2u);
  // Nesting: dtype, unit, device.
  EXPECT_EQ(rows[0].device, "h200");
  EXPECT_EQ(rows[1].device, "mi300x");
  EXPECT_EQ(rows[0].dtype, DType::fp64);
  EXPECT_EQ(rows[0].unit, Unit::vector);
  EXPECT_EQ(rows[2].unit, Unit::matrix);

  const auto& h200_fp64m = rows[2];
  EXPECT_TRUE(h200_fp64m.available);
  expect_within_percent(h200_fp64m.ridge, 67.0 / 4.8);
  // I* = 13.958: n = ceil(13.958 * 8 * 3 / 2) = 168; k = ceil(13.958 * 8 / 2) = 56.
  EXPECT_EQ(h200_fp64m.gemm_n, 168);
  EXPECT_EQ(h200_fp64m.gemv_batch, 56);
  const auto& mi_fp64m = rows[3];
  EXPECT_EQ(mi_fp64m.gemm_n, 370);  // ceil(30.83 * 12)
  EXPECT_EQ(mi_fp64m.gemv_batch, 124);

  // The smallest n really is the smallest.
  for (const auto& r : rows) {
    if (!r.available) continue;
    const int eb = ridgeline::dtype_bytes(r.dtype);
    EXPECT_GE(rl::gemm_ideal(r.gemm_n, r.gemm_n, r.gemm_n, eb, false).intensity(), r.ridge * (1 - 1e-12));
    EXPECT_LT(rl::gemm_ideal(r.gemm_n - 1, r.gemm_n - 1, r.gemm_n - 1, eb, false).intensity(), r.ridge);
    EXPECT_LT(2.0 * (r.gemv_batch - 1) / eb, r.ridge);
  }

  // H200 has no FP32 matrix unit; MI300X does.
  const auto fp32_matrix_h200 = rows[6];
  EXPECT_EQ(fp32_matrix_h200.dtype, DType::fp32);
  EXPECT_EQ(fp32_matrix_h200.unit, Unit::matrix);
  EXPECT_FALSE(fp32_matrix_h200.available);
  EXPECT_EQ(fp32_matrix_h200.gemm_n, 0);
  EXPECT_TRUE(rows[7].available);
}

// ---- plot -------------------------------------------------------------------------------------------

TEST(RooflinePlot, DataAndScriptCarryRoofsRidgesAndPoints) {
  const std::vector<DeviceSpec> specs = {find_device_spec("h200"), find_device_spec("mi300x")};
  const std::vector<ridgeline::RoofSelection> roofs = {{DType::fp64, Unit::matrix},
                                                       {DType::fp16, Unit::matrix}};
  const std::vector<ridgeline::MeasuredPoint> pts = {{"dgemm 8192", 600.0, 50000.0}};
  const std::string data = ridgeline::roofline_plot_data(specs, roofs, pts);
  EXPECT_NE(data.find("# h200 fp64 matrix"), std::string::npos);
  EXPECT_NE(data.find("# mi300x fp16 matrix"), std::string::npos);
  EXPECT_NE(data.find("\"dgemm 8192\""), std::string::npos);
  EXPECT_NE(data.find("I*=13.96"), std::string::npos);
  const std::string script = ridgeline::roofline_plot_script(specs, roofs, pts, "r.dat", "r.svg");
  EXPECT_NE(script.find("set logscale xy"), std::string::npos);
  EXPECT_NE(script.find("set terminal svg"), std::string::npos);
  EXPECT_NE(script.find("'measured'"), std::string::npos);  // a point without a series
  EXPECT_NE(script.find("set label 1 '1'"), std::string::npos);
  EXPECT_THROW(ridgeline::roofline_plot_script(specs, roofs, pts, "r.dat", "r.bmp"), std::invalid_argument);
  EXPECT_THROW(ridgeline::roofline_plot_data(specs, {{DType::tf32, Unit::vector}}, {}),
               std::invalid_argument);
}

TEST(RooflinePlot, GnuplotWritesTheSvg) {
  const auto dir = fresh_dir("plot");
  const std::string out = (dir / "roofline.svg").string();
  const std::vector<DeviceSpec> specs = {find_device_spec("h200"), find_device_spec("mi300x")};
  const auto files = ridgeline::write_roofline_plot(
      specs, {{DType::fp64, Unit::vector}, {DType::fp64, Unit::matrix}, {DType::bf16, Unit::matrix}},
      {{"measured gemm", 300.0, 400000.0}}, out);
  std::ifstream svg(files.output);
  ASSERT_TRUE(svg.good());
  std::stringstream ss;
  ss << svg.rdbuf();
  EXPECT_NE(ss.str().find("<svg"), std::string::npos);
  EXPECT_NE(ss.str().find("measured"), std::string::npos);  // the legend entry
  EXPECT_TRUE(std::filesystem::exists(files.script));
  EXPECT_TRUE(std::filesystem::exists(files.data));
  // The PNG twin, from the same gnuplot run: a real PNG (its signature), not an empty file.
  ASSERT_EQ(files.png, (dir / "roofline.png").string());
  std::ifstream png(files.png, std::ios::binary);
  char sig[8] = {};
  ASSERT_TRUE(png.read(sig, 8));
  EXPECT_EQ(std::string(sig + 1, 3), "PNG");
  // The key names the point by its number.
  std::ifstream key(files.key);
  std::stringstream ks;
  ks << key.rdbuf();
  EXPECT_NE(ks.str().find("| 1 | measured | measured gemm |"), std::string::npos) << ks.str();
  std::filesystem::remove_all(dir);
}

TEST(RooflinePlot, MissingGnuplotIsAClearError) {
  const auto dir = fresh_dir("plot_missing");
  ridgeline::PlotOptions opt;
  opt.gnuplot = "/nonexistent/gnuplot";
  try {
    ridgeline::write_roofline_plot({find_device_spec("h200")}, {{DType::fp64, Unit::matrix}}, {},
                                   (dir / "r.svg").string(), opt);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not found"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

// The quick host run's GEMV rows: fp32 at 0.5 FLOP/B and fp64 at 0.25, three implementations each, N
// and T, within a few GFLOP/s of each other; plus GEMM points far away.
std::vector<ridgeline::MeasuredPoint> quick_host_like_points() {
  std::vector<ridgeline::MeasuredPoint> pts;
  const char* impls[] = {"ridgeline", "kokkos-kernels", "openblas"};
  for (double intensity : {0.5, 0.25})
    for (const char* t : {"N", "T"})
      for (int i = 0; i < 3; ++i)
        pts.push_back(
            {std::string("gemv:") + t + ":4096x4096", intensity, 5.0 + 0.3 * i + (t[0] == 'T'), impls[i]});
  for (int i = 0; i < 3; ++i) pts.push_back({"gemm:NN:1024x1024x1024:fp32", 170.0, 40.0 + 30 * i, impls[i]});
  return pts;
}

TEST(RooflinePlot, OneColourAndMarkerPerImplementation) {
  const auto rl = ridgeline::series_style("ridgeline"), ob = ridgeline::series_style("openblas"),
             cb = ridgeline::series_style("cublas"), kk = ridgeline::series_style("kokkos-kernels");
  EXPECT_NE(rl.color, ob.color);
  EXPECT_NE(rl.color, kk.color);
  EXPECT_NE(ob.color, kk.color);
  EXPECT_NE(rl.point_type, ob.point_type);
  EXPECT_NE(rl.point_type, kk.point_type);
  EXPECT_NE(ob.point_type, kk.point_type);
  // The vendor library looks the same whichever it is, so figures of two backends compare.
  EXPECT_EQ(ob.color, cb.color);
  EXPECT_EQ(ob.point_type, cb.point_type);
  EXPECT_EQ(rl.title, "Ridgeline");
  EXPECT_EQ(kk.title, "Kokkos Kernels");

  // One legend entry per implementation present, drawn in its style; the points' blocks in the data.
  const auto pts = quick_host_like_points();
  const auto host = find_device_spec("h200");
  const std::string script =
      ridgeline::roofline_plot_script({host}, {{DType::fp32, Unit::vector}}, pts, "r.dat", "r.svg");
  for (const auto& st : {rl, ob, kk}) {
    const std::string entry =
        "pt " + std::to_string(st.point_type) + " ps 1.1 lc rgb '" + st.color + "' title '" + st.title + "'";
    EXPECT_NE(script.find(entry), std::string::npos) << entry << "\n" << script;
  }
  EXPECT_EQ(script.find("title 'measured'"), std::string::npos);
  EXPECT_NE(script.find("set key"), std::string::npos);
  const std::string data = ridgeline::roofline_plot_data({host}, {{DType::fp32, Unit::vector}}, pts);
  EXPECT_NE(data.find("# measured, Ridgeline"), std::string::npos);
  EXPECT_NE(data.find("# measured, Kokkos Kernels"), std::string::npos);
  // The SVG's PNG twin is drawn by the same script.
  EXPECT_NE(script.find("set terminal pngcairo"), std::string::npos);
  EXPECT_NE(script.find("set output 'r.png'"), std::string::npos);
}

TEST(RooflinePlot, ClusteredPointsGetNumbersThatDoNotOverlap) {
  const auto pts = quick_host_like_points();
  const auto labels =
      ridgeline::place_point_labels({find_device_spec("h200")}, {{DType::fp32, Unit::vector}}, pts);
  ASSERT_EQ(labels.size(), pts.size());
  bool some_moved = false;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto& a = labels[i];
    EXPECT_EQ(a.number, int(i + 1));
    EXPECT_GE(a.x, 0.0);
    EXPECT_LE(a.x + a.width, 1.0);
    EXPECT_GE(a.y - a.height / 2, 0.0);
    EXPECT_LE(a.y + a.height / 2, 1.0);
    some_moved = some_moved || a.leader;
    for (std::size_t j = 0; j < i; ++j) {
      const auto& b = labels[j];
      const bool overlap = a.x < b.x + b.width && b.x < a.x + a.width &&
                           a.y - a.height / 2 < b.y + b.height / 2 && b.y - b.height / 2 < a.y + a.height / 2;
      EXPECT_FALSE(overlap) << "labels " << a.number << " and " << b.number << " overlap";
    }
  }
  // Twelve points in two tight columns cannot all sit beside their points: some have leader lines.
  EXPECT_TRUE(some_moved);
  // A lone point keeps its number right beside it, without a leader.
  const auto lone = ridgeline::place_point_labels({find_device_spec("h200")}, {{DType::fp32, Unit::vector}},
                                                  {{"x", 10.0, 1000.0, "ridgeline"}});
  ASSERT_EQ(lone.size(), 1u);
  EXPECT_FALSE(lone[0].leader);
  EXPECT_NEAR(lone[0].y, lone[0].point_y, 1e-12);
  EXPECT_GT(lone[0].x, lone[0].point_x);
}

TEST(RooflinePlot, KeyTableNumbersThePoints) {
  const auto pts = quick_host_like_points();
  const std::string key = ridgeline::roofline_point_key_markdown(pts);
  EXPECT_EQ(key.rfind("| # | implementation | case | FLOP/B | GFLOP/s |", 0), 0u);
  EXPECT_NE(key.find("| 1 | Ridgeline | gemv:N:4096x4096 | 0.5 | 5 |"), std::string::npos) << key;
  EXPECT_NE(key.find("| 2 | Kokkos Kernels | gemv:N:4096x4096 | 0.5 | 5.3 |"), std::string::npos) << key;
  EXPECT_NE(key.find("| 15 | OpenBLAS (vendor BLAS) | gemm:NN:1024x1024x1024:fp32 | 170 | 100 |"),
            std::string::npos)
      << key;
}

// ---- measured ceilings: levels, byte and FLOP counts, records (ridgeline/ceilings.hpp) ----------------

namespace cl = ridgeline::ceilings;

namespace {

// This build VM as the host spec sees it: 2 cores, 48 KiB L1d, 1 MiB L2 each, a shared LLC.
DeviceSpec two_core_host(std::int64_t llc) {
  DeviceSpec s;
  s.key = "host";
  s.name = "Test CPU";
  s.backend = "host";
  s.compute_units = 2;
  s.max_team_scratch_bytes = 32 * 1024;
  s.scratch_per_cu_bytes = 48 * 1024;
  s.private_cache_bytes = 1024 * 1024;
  s.l2_bytes = llc;
  s.dram_bw_bytes_per_s = 16e9;
  s.estimated = true;
  s.set_peak_flops(DType::fp64, Unit::vector, 134e9);
  return s;
}

cl::DeviceCeilings sample_ceilings(const std::string& device, const std::string& backend) {
  cl::DeviceCeilings c;
  c.device = device;
  c.device_key = "host";
  c.backend = backend;
  c.concurrency = 2;
  c.git_sha = "abc1234";
  c.date_utc = "2026-12-02T08:00:00Z";
  c.mode = "quick";
  c.byte_counting = "read+write, no write-allocate";
  cl::Roof copy;
  copy.kind = "bandwidth";
  copy.kernel = "copy";
  copy.level = cl::Level::memory;
  copy.label = "copy, 1016 MiB working set (DRAM)";
  copy.value = 19e9;
  copy.spec_value = 16e9;
  copy.spec_source = "placeholder";
  copy.reps = 5;
  copy.check = "ok";
  cl::Roof triad = copy;
  triad.kernel = "triad";
  triad.label = "triad, 1016 MiB working set (DRAM)";
  triad.value = 20.5e9;
  cl::Roof llc = copy;
  llc.level = cl::Level::cache;
  llc.label = "copy, 8 MiB working set (LLC-resident)";
  llc.value = 98e9;
  llc.spec_value = 0;
  cl::Roof fma;
  fma.kind = "compute";
  fma.kernel = "fma chains";
  fma.dtype = DType::fp64;
  fma.unit = Unit::vector;
  fma.label = "fp64 fma chains: 2 threads x 64 chains";
  fma.value = 120e9;
  fma.spec_value = 134e9;
  fma.spec_source = "estimate";
  fma.check = "ok (every chain exact after 1000 steps)";
  c.roofs = {copy, triad, llc, fma};
  c.absent = {{"matrix units", "none on the host"}};
  return c;
}

}  // namespace

TEST(Ceilings, BytesCountEveryArrayOncePerPassWithoutWriteAllocate) {
  EXPECT_EQ(cl::stream_arrays(cl::StreamKernel::copy), 2);
  EXPECT_EQ(cl::stream_arrays(cl::StreamKernel::triad), 3);
  EXPECT_EQ(cl::stream_bytes_per_element(cl::StreamKernel::copy, 8), 16);
  EXPECT_EQ(cl::stream_bytes_per_element(cl::StreamKernel::triad, 8), 24);
  // A write-allocate cache also reads each stored line: one more element per position.
  EXPECT_EQ(cl::stream_bytes_per_element(cl::StreamKernel::copy, 8, true), 24);
  EXPECT_EQ(cl::stream_bytes_per_element(cl::StreamKernel::triad, 8, true), 32);
  EXPECT_DOUBLE_EQ(cl::stream_bytes(cl::StreamKernel::copy, 1000, 3, 8), 48000.0);
  EXPECT_DOUBLE_EQ(cl::stream_bytes(cl::StreamKernel::triad, 1000, 3, 8), 72000.0);
}

TEST(Ceilings, HostLevelsComeFromTheCacheSizes) {
  const auto plans = cl::plan_levels(two_core_host(32 << 20), 2);
  ASSERT_EQ(plans.size(), 3u);
  // Scratch: min(32 KiB Kokkos cap, 48 KiB L1d / 2) per team, one team per thread.
  EXPECT_EQ(plans[0].level, cl::Level::scratch);
  EXPECT_EQ(plans[0].teams, 2);
  EXPECT_EQ(plans[0].team_size, 1);
  EXPECT_EQ(plans[0].working_set_bytes, 2 * 24 * 1024);
  EXPECT_EQ(cl::bandwidth_label(cl::StreamKernel::copy, plans[0]),
            "copy, 24 KiB team scratch per team x 2 teams (L1-resident)");
  // LLC: 4 x the two 1 MiB private caches, under half the 32 MiB LLC.
  EXPECT_EQ(plans[1].level, cl::Level::cache);
  EXPECT_EQ(plans[1].working_set_bytes, 8 << 20);
  EXPECT_FALSE(plans[1].rotate);
  EXPECT_EQ(cl::bandwidth_label(cl::StreamKernel::triad, plans[1]),
            "triad, 8 MiB working set (LLC-resident)");
  // DRAM: 4 x the LLC, at least 256 MiB.
  EXPECT_EQ(plans[2].level, cl::Level::memory);
  EXPECT_EQ(plans[2].working_set_bytes, 256 << 20);
  EXPECT_EQ(cl::bandwidth_label(cl::StreamKernel::copy, plans[2]), "copy, 256 MiB working set (DRAM)");

  // A large LLC: 4 x it (quick: 2 x); the LLC level stays at 4 x the private caches.
  const std::int64_t llc = 508LL << 20;
  EXPECT_EQ(cl::plan_levels(two_core_host(llc), 2)[2].working_set_bytes, 4 * llc);
  EXPECT_EQ(cl::plan_levels(two_core_host(llc), 2, true)[2].working_set_bytes, 2 * llc);
  EXPECT_EQ(cl::plan_levels(two_core_host(llc), 2)[1].working_set_bytes, 8 << 20);
  EXPECT_EQ(cl::bandwidth_label(cl::StreamKernel::copy, cl::plan_levels(two_core_host(llc), 2, true)[2]),
            "copy, 1016 MiB working set (DRAM)");

  // No private-cache size: a quarter of the LLC. No LLC size: no cache level at all.
  DeviceSpec unknown = two_core_host(32 << 20);
  unknown.private_cache_bytes = 0;
  EXPECT_EQ(cl::plan_levels(unknown, 2)[1].working_set_bytes, 8 << 20);
  unknown.l2_bytes = 0;
  const auto two = cl::plan_levels(unknown, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1].level, cl::Level::memory);
}

TEST(Ceilings, GpuLevelsRotateThroughL2) {
  const auto plans = cl::plan_levels(find_device_spec("h200"), 132 * 2048);
  ASSERT_EQ(plans.size(), 3u);
  // 1 KiB under the 40 KiB Kokkos cap, in whole 4 KiB: 36 KiB; six such teams fit an SM's 228 KiB.
  EXPECT_EQ(plans[0].working_set_bytes, 36 * 1024 * 132 * 6);
  EXPECT_EQ(plans[0].team_size, 256);
  EXPECT_EQ(cl::bandwidth_label(cl::StreamKernel::copy, plans[0]),
            "copy, 36 KiB team scratch per team x 792 teams (shared memory)");
  // A quarter of the 60 MiB L2, rotated so no SM re-reads its own chunk from L1.
  EXPECT_EQ(plans[1].working_set_bytes, 15 << 20);
  EXPECT_TRUE(plans[1].rotate);
  // 15 MiB over 1056 teams and two arrays, in whole 32-element segments: 14.95 MiB touched.
  EXPECT_EQ(cl::bandwidth_label(cl::StreamKernel::copy, plans[1]), "copy, 15 MiB working set (L2-resident)");
  EXPECT_EQ(plans[2].working_set_bytes, 1LL << 30);
  // 1 GiB over three arrays of 1056 chunks, each rounded down to whole segments: 1023 MiB touched.
  EXPECT_EQ(cl::bandwidth_label(cl::StreamKernel::triad, plans[2]),
            "triad, 1023 MiB working set (device memory)");
  // Elements per team and array: whole 32-element (256-byte) segments.
  const std::int64_t per = cl::elements_per_team(plans[1], cl::StreamKernel::triad, 8);
  EXPECT_EQ(per % 32, 0);
  EXPECT_LE(per * 3 * 8 * plans[1].teams, plans[1].working_set_bytes);
  EXPECT_GT((per + 32) * 3 * 8 * plans[1].teams, plans[1].working_set_bytes);
}

TEST(Ceilings, FmaChainsHaveAnExactKnownResult) {
  // a <- -a + y alternates a0, y - a0: exact in FP16 for every start (1..60) and y = 61, and the two
  // differ for every start, so the parity of the step count shows in every chain.
  EXPECT_DOUBLE_EQ(cl::fma_chain_reference(5, cl::kFmaChainY, 0), 5);
  EXPECT_DOUBLE_EQ(cl::fma_chain_reference(5, cl::kFmaChainY, 1), 56);
  EXPECT_DOUBLE_EQ(cl::fma_chain_reference(5, cl::kFmaChainY, 1000001), 56);
  for (int a0 = 1; a0 <= 60; ++a0) EXPECT_NE(cl::fma_chain_reference(a0, cl::kFmaChainY, 1), a0);
  for (int t = 0; t < 100; ++t)
    for (int j = 0; j < 128; ++j) {
      const double a0 = cl::fma_chain_start(t, j);
      ASSERT_GE(a0, 1);
      ASSERT_LE(a0, 60);
    }
  EXPECT_NE(cl::fma_chain_start(0, 0), cl::fma_chain_start(0, 1));  // no two chains of a thread alike
  EXPECT_DOUBLE_EQ(cl::fma_flops(2, 64, 1000), 2.0 * 2 * 64 * 1000);
  EXPECT_DOUBLE_EQ(cl::kMma16816Flops, 4096.0);
  // The check catches one wrong chain, and names where.
  std::vector<double> want = {1, 2, 3, 4}, got = want;
  EXPECT_EQ(cl::count_mismatches(got, want), 0);
  got[2] = 3.0000001;
  std::int64_t first = -1;
  EXPECT_EQ(cl::count_mismatches(got, want, &first), 1);
  EXPECT_EQ(first, 2);
  EXPECT_EQ(cl::count_mismatches({1, 2, 3}, want), 1);  // a missing value is a mismatch
}

TEST(Ceilings, JsonRoundTripsAndTheFileKeepsOneEntryPerDeviceAndBackend) {
  const cl::DeviceCeilings c = sample_ceilings("AMD EPYC", "OpenMP");
  const cl::DeviceCeilings back = cl::parse_device_ceilings(cl::to_json(c), "test");
  EXPECT_EQ(back.device, "AMD EPYC");
  EXPECT_EQ(back.backend, "OpenMP");
  EXPECT_EQ(back.git_sha, "abc1234");
  ASSERT_EQ(back.roofs.size(), 4u);
  EXPECT_EQ(back.roofs[0].kind, "bandwidth");
  EXPECT_EQ(back.roofs[0].level, cl::Level::memory);
  EXPECT_DOUBLE_EQ(back.roofs[0].value, 19e9);
  EXPECT_EQ(back.roofs[2].level, cl::Level::cache);
  EXPECT_EQ(back.roofs[3].dtype, DType::fp64);
  EXPECT_EQ(back.roofs[3].unit, Unit::vector);
  EXPECT_EQ(back.roofs[3].check, c.roofs[3].check);
  ASSERT_EQ(back.absent.size(), 1u);
  EXPECT_EQ(back.absent[0].what, "matrix units");

  const auto dir = fresh_dir("ceilings");
  const std::string path = (dir / "sub" / "ceilings.json").string();
  EXPECT_TRUE(cl::load_ceilings_file(path).entries.empty());  // no file yet: no ceilings, no error
  cl::save_ceilings(c, path);
  cl::save_ceilings(sample_ceilings("AMD EPYC", "Serial"), path);
  cl::save_ceilings(sample_ceilings("NVIDIA H200 SXM 141GB", "Cuda"), path);
  cl::DeviceCeilings newer = c;
  newer.git_sha = "def5678";
  cl::save_ceilings(newer, path);  // replaces the OpenMP entry, keeps the others
  const cl::CeilingsFile f = cl::load_ceilings_file(path);
  ASSERT_EQ(f.entries.size(), 3u);
  const auto* omp = cl::find_ceilings(f, "amd-epyc", "host", "OpenMP");
  ASSERT_NE(omp, nullptr);
  EXPECT_EQ(omp->git_sha, "def5678");
  EXPECT_EQ(cl::find_ceilings(f, "AMD EPYC", "host", "serial")->backend, "Serial");
  EXPECT_EQ(cl::find_ceilings(f, "AMD EPYC", "host", "Cuda"), nullptr);
  // By backend family (a plot knows the spec's backend, not the execution space).
  EXPECT_NE(cl::find_ceilings(f, "AMD EPYC", "host", "", "host"), nullptr);
  // By key for a GPU whose name differs; never by the shared "host" key for another CPU.
  auto h200 = sample_ceilings("NVIDIA H200 SXM 141GB", "Cuda");
  h200.device_key = "h200";
  cl::save_ceilings(h200, path);
  EXPECT_NE(cl::find_ceilings(cl::load_ceilings_file(path), "NVIDIA H200 (detected)", "h200", "", "cuda"),
            nullptr);
  EXPECT_EQ(cl::find_ceilings(f, "Intel Xeon", "host", "OpenMP"), nullptr);
  // A broken file is an error naming the field, not an empty set.
  std::ofstream(path)
      << R"({"format": "ridgeline-ceilings/1", "entries": [{"device": "x", "backend": "OpenMP",
      "roofs": [{"kind": "bandwidth", "kernel": "copy", "level": "l9", "label": "x", "value": 1}]}]})";
  try {
    cl::load_ceilings_file(path);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'level'"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(Ceilings, TableShowsMeasuredBesideSpecAndWhatWasNotMeasured) {
  const std::string t = cl::ceilings_table(sample_ceilings("AMD EPYC", "OpenMP"));
  EXPECT_NE(t.find("Measured ceilings: AMD EPYC, Kokkos OpenMP"), std::string::npos) << t;
  EXPECT_NE(t.find("% of spec"), std::string::npos);
  EXPECT_NE(t.find("120 GFLOP/s"), std::string::npos) << t;
  EXPECT_NE(t.find("134 GFLOP/s (estimate)"), std::string::npos) << t;
  EXPECT_NE(t.find("89.6%"), std::string::npos) << t;
  EXPECT_NE(t.find("16 GB/s (placeholder)"), std::string::npos) << t;
  EXPECT_NE(t.find("not measured: matrix units: none on the host"), std::string::npos) << t;
  EXPECT_NE(t.find("bytes: read+write, no write-allocate"), std::string::npos) << t;
}

TEST(RooflinePlot, MeasuredCeilingsAreDashedAndSpecRoofsSolidAndNamed) {
  const auto c = sample_ceilings("AMD EPYC", "OpenMP");
  const auto lines = ridgeline::measured_roof_lines(c, 0);
  // Per level the faster of copy and triad (triad, 20.5 GB/s, at DRAM), then the compute roof.
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(lines[0].bandwidth);
  EXPECT_EQ(lines[0].level, cl::Level::cache);
  EXPECT_EQ(lines[1].level, cl::Level::memory);
  EXPECT_DOUBLE_EQ(lines[1].value, 20.5);
  EXPECT_EQ(lines[1].label, "triad, 1016 MiB working set (DRAM)");
  EXPECT_FALSE(lines[2].bandwidth);
  EXPECT_DOUBLE_EQ(lines[2].value, 120);

  DeviceSpec host = two_core_host(32 << 20);
  ridgeline::PlotOptions opt;
  opt.measured = lines;
  const std::vector<ridgeline::RoofSelection> roofs = {{DType::fp64, Unit::vector}};
  const std::string script = ridgeline::roofline_plot_script({host}, roofs, {}, "r.dat", "r.svg", opt);
  EXPECT_NE(script.find("dt 1 title 'host fp64 vector, estimate ("), std::string::npos) << script;
  EXPECT_NE(script.find("dt 2 title 'measured: triad, 1016 MiB working set (DRAM): 20.5 GB/s'"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("dt 2 title 'measured: fp64 vector, fma chains: 120 GFLOP/s'"), std::string::npos)
      << script;
  const std::string data = ridgeline::roofline_plot_data({host}, roofs, {}, opt);
  EXPECT_NE(data.find("# measured ceiling, triad, 1016 MiB working set (DRAM)"), std::string::npos) << data;
  // The measured FP64 roof is reached along the measured DRAM slope: flat from 120 / 20.5 FLOP/B on.
  EXPECT_NE(data.find(std::to_string(120 / 20.5).substr(0, 6)), std::string::npos) << data;
  // A datasheet spec says so; an unselected measured compute roof is not drawn.
  const std::string h200 = ridgeline::roofline_plot_script(
      {find_device_spec("h200")}, {{DType::fp64, Unit::matrix}}, {}, "r.dat", "r.svg", opt);
  EXPECT_NE(h200.find("h200 fp64 matrix, datasheet ("), std::string::npos) << h200;
  EXPECT_EQ(h200.find("fma chains"), std::string::npos);
  // A measured ceiling must name a device of the plot.
  opt.measured[0].spec_index = 3;
  EXPECT_THROW(ridgeline::roofline_plot_data({host}, roofs, {}, opt), std::invalid_argument);
}

TEST(RooflinePlot, OneMeasuredRoofPerDtypeAndUnitTheFastest) {
  // A GEMM entry's warp-tile rate (lower) beside its instruction's register-resident rate, and a second
  // dtype: the plot draws the faster fp16 matrix roof and the bf16 one; the table keeps all three.
  auto c = sample_ceilings("NVIDIA H200", "Cuda");
  cl::Roof reg = c.roofs.back();
  reg.dtype = DType::fp16;
  reg.unit = Unit::matrix;
  reg.kernel = "hmma m16n8k16 (HmmaSm80MicroKernel::mma)";
  reg.value = 640e12;
  cl::Roof tiles = reg;
  tiles.kernel = "hmma-m16n8k16 warp tiles of GemmTilesHalfMmaAsync";
  tiles.label = "fp16 " + tiles.kernel + ", its resident stages re-read in turn";
  tiles.value = 420e12;
  cl::Roof bf16 = tiles;
  bf16.dtype = DType::bf16;
  c.roofs.push_back(tiles);  // listed before the faster one: the order does not choose
  c.roofs.push_back(reg);
  c.roofs.push_back(bf16);
  const auto lines = ridgeline::measured_roof_lines(c, 0);
  ASSERT_EQ(lines.size(), 5u);  // cache, memory, fp64 vector, fp16 matrix, bf16 matrix
  EXPECT_EQ(lines[3].dtype, DType::fp16);
  EXPECT_DOUBLE_EQ(lines[3].value, 640e3);
  EXPECT_EQ(lines[4].dtype, DType::bf16);
  EXPECT_DOUBLE_EQ(lines[4].value, 420e3);
  EXPECT_DOUBLE_EQ(cl::compute_rate(c, DType::fp16, Unit::matrix), 640e12);
  const std::string t = cl::ceilings_table(c);
  EXPECT_NE(t.find("warp tiles of GemmTilesHalfMmaAsync"), std::string::npos) << t;
}

TEST(Compare, SavedCeilingsAddMeasuredRowsFromMeasuredFiguresOnly) {
  // The sample host: DRAM triad 20.5 GB/s (faster than copy's 19), LLC copy 98 GB/s, FP64 FMA 120 GFLOP/s.
  const auto c = sample_ceilings("AMD EPYC", "OpenMP");
  EXPECT_DOUBLE_EQ(cl::level_bandwidth(c, cl::Level::memory), 20.5e9);
  EXPECT_DOUBLE_EQ(cl::level_bandwidth(c, cl::Level::cache), 98e9);
  EXPECT_DOUBLE_EQ(cl::level_bandwidth(c, cl::Level::scratch), 0);
  EXPECT_DOUBLE_EQ(cl::compute_rate(c, DType::fp64, Unit::vector), 120e9);
  EXPECT_DOUBLE_EQ(cl::compute_rate(c, DType::fp32, Unit::vector), 0);

  const DeviceSpec host = two_core_host(32 << 20);
  const DeviceSpec h200 = find_device_spec("h200");
  const auto rows = rl::compare({host, h200}, {DType::fp64, DType::fp32}, {Unit::vector},
                                rl::MemoryLevel::dram, {&c, nullptr});
  // Per dtype: the two spec rows, then the host's measured row; the H200 has none.
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].source, "estimate");  // the host's derived spec
  EXPECT_EQ(rows[1].source, "datasheet");
  EXPECT_EQ(rows[1].device, "h200");
  EXPECT_DOUBLE_EQ(rows[1].ridge, 34e12 / 4.8e12);
  const auto& fp64 = rows[2];
  EXPECT_EQ(fp64.source, "measured");
  EXPECT_EQ(fp64.device, "host");
  EXPECT_TRUE(fp64.available);
  EXPECT_DOUBLE_EQ(fp64.peak_flops, 120e9);
  EXPECT_DOUBLE_EQ(fp64.bandwidth, 20.5e9);
  EXPECT_DOUBLE_EQ(fp64.ridge, 120 / 20.5);
  EXPECT_EQ(fp64.gemm_n, 71);      // ceil(5.854 * 8 * 3 / 2)
  EXPECT_EQ(fp64.gemv_batch, 24);  // ceil(5.854 * 8 / 2)
  // FP32 was not measured: no peak and no ridge, and nothing taken from the spec in its place.
  const auto& fp32 = rows[5];
  EXPECT_EQ(fp32.source, "measured");
  EXPECT_EQ(fp32.dtype, DType::fp32);
  EXPECT_FALSE(fp32.available);
  EXPECT_EQ(fp32.peak_flops, 0);
  EXPECT_EQ(fp32.ridge, 0);
  EXPECT_EQ(fp32.gemm_n, 0);
  // At L2 the measured row takes the cache level's bandwidth.
  DeviceSpec host_l2 = host;
  host_l2.l2_bw_bytes_per_s = 200e9;
  const auto l2 = rl::compare({host_l2}, {DType::fp64}, {Unit::vector}, rl::MemoryLevel::l2, {&c});
  ASSERT_EQ(l2.size(), 2u);
  EXPECT_DOUBLE_EQ(l2[1].bandwidth, 98e9);
  // Without ceilings the rows are the spec rows alone, as before.
  EXPECT_EQ(rl::compare({host, h200}, {DType::fp64}, {Unit::vector}).size(), 2u);
  EXPECT_THROW(rl::compare({host, h200}, {DType::fp64}, {Unit::vector}, rl::MemoryLevel::dram, {&c}),
               std::invalid_argument);
}

TEST(RooflinePlot, TwoDevicesTakeColourFamiliesAndMeasuredRidgesAreMarked) {
  // The sample host's ceilings drawn on the first of two devices: DRAM triad 20.5 GB/s, FP64 FMA 120.
  DeviceSpec host = two_core_host(32 << 20);
  const DeviceSpec mi300x = find_device_spec("mi300x");
  ridgeline::PlotOptions opt;
  opt.measured = ridgeline::measured_roof_lines(sample_ceilings("AMD EPYC", "OpenMP"), 0);
  const std::vector<ridgeline::RoofSelection> roofs = {{DType::fp64, Unit::vector},
                                                       {DType::fp64, Unit::matrix}};
  const std::string script =
      ridgeline::roofline_plot_script({host, mi300x}, roofs, {}, "r.dat", "r.svg", opt);
  // Each device's first roof opens its own family (blues, reds); the measured FP64 roof wears its spec
  // roof's colour.
  EXPECT_NE(script.find("lc rgb '#1f77b4' dt 1 title 'host fp64 vector, estimate"), std::string::npos)
      << script;
  EXPECT_NE(script.find("lc rgb '#d62728' dt 1 title 'mi300x fp64 vector, datasheet"), std::string::npos)
      << script;
  EXPECT_NE(script.find("lc rgb '#1f77b4' dt 2 title 'measured: host fp64 vector, fma chains"),
            std::string::npos)
      << script;
  // 3 spec roofs + spec ridges + 3 measured ceilings + measured ridges: one legend column of 8.
  EXPECT_NE(script.find("set key below font ',10' maxrows 8"), std::string::npos) << script;
  EXPECT_NE(script.find("title 'spec ridge points'"), std::string::npos) << script;
  EXPECT_NE(script.find("title 'measured ridge points'"), std::string::npos) << script;
  const std::string data = ridgeline::roofline_plot_data({host, mi300x}, roofs, {}, opt);
  const auto at = data.find("# measured ridge points");
  ASSERT_NE(at, std::string::npos) << data;
  EXPECT_NE(data.find("I*=5.854", at), std::string::npos) << data;  // 120 GFLOP/s over 20.5 GB/s
  // Against a spec's bandwidth a measured roof's corner mixes sources: no measured ridge without a
  // measured bandwidth.
  opt.measured.erase(std::remove_if(opt.measured.begin(), opt.measured.end(),
                                    [](const ridgeline::MeasuredRoofLine& m) { return m.bandwidth; }),
                     opt.measured.end());
  EXPECT_EQ(ridgeline::roofline_plot_data({host, mi300x}, roofs, {}, opt).find("# measured ridge points"),
            std::string::npos);
  // A legend of many rows makes the figure taller rather than dropping the legend.
  std::vector<ridgeline::RoofSelection> all;
  for (DType d : ridgeline::kAllDTypes)
    for (Unit u : ridgeline::kAllUnits) all.push_back({d, u});
  const std::string tall = ridgeline::roofline_plot_script({find_device_spec("h200"), mi300x}, all, {},
                                                           "r.dat", "r.svg", ridgeline::PlotOptions{});
  EXPECT_EQ(tall.find("size 1100,860 "), std::string::npos) << tall;
}

TEST(RooflinePlot, LongLegendEntriesAreCutKeepingTheirFigure) {
  // gnuplot drops the whole legend when one entry is wider than the figure.
  ridgeline::PlotOptions opt;
  opt.measured = ridgeline::measured_roof_lines(sample_ceilings("AMD EPYC", "OpenMP"), 0);
  opt.measured.back().label = "fp64 vector, " + std::string(200, 'x');
  const std::string script = ridgeline::roofline_plot_script(
      {two_core_host(32 << 20)}, {{DType::fp64, Unit::vector}}, {}, "r.dat", "r.svg", opt);
  const auto at = script.find("title 'measured: fp64 vector, xxx");
  ASSERT_NE(at, std::string::npos) << script;
  const auto end = script.find('\'', at + 7);
  const std::string title = script.substr(at + 7, end - at - 7);
  EXPECT_EQ(title.size(), 125u) << title;
  EXPECT_EQ(title.substr(title.size() - 19), "xxx...: 120 GFLOP/s") << title;
}
