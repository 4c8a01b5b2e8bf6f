// The `ridgeline` command: its logic through cli::run with string streams, and the built binary once
// for exit codes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ceilings_run.hpp"
#include "cli.hpp"
#include "perf_report.hpp"
#include "progress.hpp"
#include "ridgeline/device_spec.hpp"
#include "ridgeline/tune_cache.hpp"

#ifndef RIDGELINE_CLI_PATH
#error "RIDGELINE_CLI_PATH must name the built ridgeline executable"
#endif
#ifndef RIDGELINE_TEST_DATA_DIR
#error "RIDGELINE_TEST_DATA_DIR must name tests/data"
#endif

namespace cli = ridgeline::cli;

namespace {

struct Result {
  int code;
  std::string out, err;
};

Result run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string data_file(const std::string& name) {
  return std::string(RIDGELINE_TEST_DATA_DIR) + "/" + name;
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir =
      std::filesystem::temp_directory_path() / ("ridgeline_cli_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Runs the built binary through the shell; returns exit code and stdout+stderr.
Result run_binary(const std::string& args) {
  const std::string cmd = std::string("'") + RIDGELINE_CLI_PATH + "' " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return {-1, "", "popen failed"};
  std::string output;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) output += buf;
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output, ""};
}

}  // namespace

TEST(Cli, CompareH200Mi300xPrintsBothSidesForEveryDtypeAndUnit) {
  const auto r = run({"roofline", "compare", "h200", "mi300x"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* col : {"h200 TF/s", "h200 I*", "h200 n*", "h200 k*", "mi300x TF/s", "mi300x I*"})
    EXPECT_TRUE(contains(r.out, col)) << col;
  for (const char* row :
       {"fp64   vector", "fp64   matrix", "fp32   vector", "fp32   matrix", "fp16   matrix", "bf16   matrix"})
    EXPECT_TRUE(contains(r.out, row)) << row;
  EXPECT_TRUE(contains(r.out, "13.96"));  // H200 FP64 matrix ridge
  EXPECT_TRUE(contains(r.out, "30.83"));  // MI300X FP64 matrix ridge
  EXPECT_TRUE(contains(r.out, "206.1"));  // H200 BF16 ridge
}

TEST(Cli, CompareDtypeFilterAndCsv) {
  const auto r = run({"roofline", "compare", "h200", "mi300x", "--dtype", "fp64,fp16", "--csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line.rfind("device,dtype,unit", 0), 0u) << line;
  int rows = 0;
  while (std::getline(lines, line)) {
    ++rows;
    EXPECT_TRUE(contains(line, ",fp64,") || contains(line, ",fp16,")) << line;
  }
  EXPECT_EQ(rows, 2 * 2 * 2);  // dtypes x units x devices
}

TEST(Cli, CompareJson) {
  const auto r =
      run({"roofline", "compare", "h100", "a100", "--dtype", "fp64", "--unit", "matrix", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["device"], "h100");
  EXPECT_NEAR(j[0]["ridge_flop_per_byte"].get<double>(), 67.0 / 3.35, 0.2);
  EXPECT_EQ(j[0]["gemm_compute_bound_n"].get<int>(), 240);  // ceil(20 * 8 * 3 / 2)
}

TEST(Cli, ImplausibleSpecFileIsAnErrorSuggestingTheUnit) {
  // The issue-19 cases: TB/s written as bytes/s, and the figures that used to hang `compare`.
  const auto dir = fresh_dir("implausible");
  auto h200 = nlohmann::json::parse(run({"spec", "h200", "--json"}).out);
  struct Case {
    const char* field;
    double value;
    const char* expect;
  };
  for (const Case& c : {Case{"dram_bw_bytes_per_s", 4.8, "did you mean 4.8e12, that is 4.8 TB/s"},
                        Case{"dram_bw_bytes_per_s", 1e-320, "outside the plausible range 1 GB/s to 1 PB/s"},
                        Case{"boost_clock_ghz", 1980, "did you mean 1.98, that is 1.98 GHz"}}) {
    auto j = h200;
    j[c.field] = c.value;
    const std::string path = (dir / "spec.json").string();
    std::ofstream(path) << j.dump(2);
    const auto r = run({"roofline", "compare", path});
    EXPECT_EQ(r.code, cli::kExitError) << c.field;
    EXPECT_TRUE(contains(r.err, std::string("field '") + c.field + "'")) << r.err;
    EXPECT_TRUE(contains(r.err, c.expect)) << r.err;
  }
  auto j = h200;
  j["peak_flops"]["fp64"]["matrix"] = 1e308;
  std::ofstream((dir / "peak.json").string()) << j.dump(2);
  const auto peak = run({"roofline", "compare", (dir / "peak.json").string()});
  EXPECT_EQ(peak.code, cli::kExitError);
  EXPECT_TRUE(contains(peak.err, "field 'peak_flops.fp64.matrix': 1e308 FLOP/s is outside")) << peak.err;
  std::filesystem::remove_all(dir);
}

TEST(Cli, CompareMarksNoOutOfRangeFieldsForRealDevices) {
  const auto r = run({"roofline", "compare", "h200", "--dtype", "fp64", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& row : nlohmann::json::parse(r.out)) EXPECT_TRUE(row["out_of_range"].empty()) << row.dump();
  const auto csv = run({"roofline", "compare", "h200", "--dtype", "fp64", "--csv"});
  EXPECT_TRUE(contains(csv.out, ",gemv_compute_bound_batch,out_of_range\n")) << csv.out;
}

TEST(Cli, UnknownDeviceListsTheKnownOnes) {
  const auto r = run({"roofline", "compare", "h200", "b300"});
  EXPECT_EQ(r.code, cli::kExitError);
  EXPECT_TRUE(contains(r.err, "unknown device 'b300'"));
  for (const auto& n : ridgeline::known_device_names()) EXPECT_TRUE(contains(r.err, n)) << n;
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, ArgumentErrors) {
  EXPECT_NE(run({}).code, 0);                                                  // no subcommand
  EXPECT_NE(run({"frobnicate"}).code, 0);                                      // unknown subcommand
  EXPECT_NE(run({"roofline", "compare"}).code, 0);                             // no devices
  EXPECT_NE(run({"ledger", "--tile", "64x64x32"}).code, 0);                    // --threads missing
  EXPECT_NE(run({"spec", "--detect", "--file", "x.json"}).code, 0);            // exclusive
  EXPECT_NE(run({"roofline", "compare", "h200", "--json", "--csv"}).code, 0);  // exclusive
  const auto bad_dtype = run({"roofline", "compare", "h200", "--dtype", "fp8"});
  EXPECT_EQ(bad_dtype.code, cli::kExitError);
  EXPECT_TRUE(contains(bad_dtype.err, "unknown dtype 'fp8'"));
  const auto bad_tile = run({"ledger", "--tile", "64x64", "--threads", "128"});
  EXPECT_EQ(bad_tile.code, cli::kExitError);
  EXPECT_TRUE(contains(bad_tile.err, "64x64"));
  const auto help = run({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(contains(help.out, "roofline"));
}

TEST(Cli, TileShapeParsing) {
  const auto t = cli::parse_tile_shape("128x64x16");
  EXPECT_EQ(t.bm, 128);
  EXPECT_EQ(t.bn, 64);
  EXPECT_EQ(t.bk, 16);
  EXPECT_EQ(cli::parse_tile_shape("64,64,32").bk, 32);
  EXPECT_THROW(cli::parse_tile_shape("64x64"), std::invalid_argument);
  EXPECT_THROW(cli::parse_tile_shape("64x0x32"), std::invalid_argument);
  EXPECT_THROW(cli::parse_tile_shape("64xx32"), std::invalid_argument);
  EXPECT_THROW(cli::parse_tile_shape("64x-1x32"), std::invalid_argument);
  EXPECT_EQ(cli::parse_extents("4096x2048", 2)[1], 2048);
}

TEST(Cli, LedgerWorkedExample) {
  const auto r = run({"ledger", "--tile", "64x64x32", "--dtype", "fp16", "--acc", "fp32", "--threads", "128",
                      "--stages", "2", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["a_tile_bytes"].get<int>(), 4096);
  EXPECT_EQ(j["ab_stage_bytes"].get<int>(), 8192);
  EXPECT_EQ(j["staged_scratch_bytes"].get<int>(), 16384);
  EXPECT_EQ(j["c_tile_bytes"].get<int>(), 16384);
  EXPECT_EQ(j["flops_per_k_step"].get<int>(), 262144);
  EXPECT_EQ(j["flop_per_byte"].get<int>(), 32);
  EXPECT_EQ(j["accumulators_per_thread"].get<int>(), 32);
  EXPECT_TRUE(contains(j["note"].get<std::string>(), "Logical count only"));

  const auto table = run({"ledger", "--tile", "128x128x64", "--dtype", "fp32", "--threads", "256", "--stages",
                          "2", "--device", "h100"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_TRUE(contains(table.out, "does NOT fit"));  // 128 KiB staged against Kokkos' 40 KiB
}

TEST(Cli, SpecShowsSourceAndRoundTripsThroughJson) {
  const auto shown = run({"spec", "mi300x"});
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_TRUE(contains(shown.out, "AMD Instinct MI300X Accelerator data sheet"));

  const auto json = run({"spec", "h200", "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto dir = fresh_dir("spec");
  const std::string path = (dir / "h200.json").string();
  {
    std::ofstream f(path);
    f << json.out;
  }
  const auto loaded = run({"spec", "--file", path, "--json"});
  ASSERT_EQ(loaded.code, 0) << loaded.err;
  EXPECT_EQ(loaded.out, json.out);
  // A spec file stands in for a device name anywhere.
  const auto cmp = run({"roofline", "compare", path, "mi300x", "--dtype", "fp64"});
  EXPECT_EQ(cmp.code, 0) << cmp.err;
  std::filesystem::remove_all(dir);
}

TEST(Cli, SpecListAndCsv) {
  const auto list = run({"spec"});
  ASSERT_EQ(list.code, 0) << list.err;
  for (const auto& n : ridgeline::known_device_names()) EXPECT_TRUE(contains(list.out, n)) << n;
  const auto csv = run({"spec", "h100", "mi250x-gcd", "--csv"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string header, first, second, extra;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_TRUE(contains(header, "peak_fp64_matrix"));
  EXPECT_EQ(first.rfind("h100,", 0), 0u);
  EXPECT_EQ(second.rfind("mi250x-gcd,", 0), 0u);
  EXPECT_FALSE(std::getline(lines, extra));
}

TEST(Cli, MalformedSpecFileNamesTheField) {
  const auto r = run({"spec", "--file", data_file("malformed_bad_type.json")});
  EXPECT_EQ(r.code, cli::kExitError);
  EXPECT_TRUE(contains(r.err, "'compute_units'")) << r.err;
}

TEST(Cli, DetectDescribesThisMachine) {
  const auto r = run({"spec", "--detect", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["name"].get<std::string>().empty());
  EXPECT_GT(j["max_team_scratch_bytes"].get<double>(), 0);
}

TEST(Cli, EvalReportsTheBound) {
  const auto big = run({"roofline", "eval", "h200", "--gemm", "8192x8192x8192", "--dtype", "bf16", "--unit",
                        "matrix", "--json"});
  ASSERT_EQ(big.code, 0) << big.err;
  EXPECT_EQ(nlohmann::json::parse(big.out)["bound"], "compute");
  const auto gemv = run(
      {"roofline", "eval", "h200", "--gemv", "16384x16384", "--dtype", "fp16", "--unit", "matrix", "--json"});
  ASSERT_EQ(gemv.code, 0) << gemv.err;
  EXPECT_EQ(nlohmann::json::parse(gemv.out)["bound"], "memory");
  const auto tiny = run({"roofline", "eval", "h200", "--gemm", "32x32x32", "--dtype", "fp64", "--unit",
                         "matrix", "--seconds", "1e-5", "--json"});
  ASSERT_EQ(tiny.code, 0) << tiny.err;
  const auto j = nlohmann::json::parse(tiny.out);
  EXPECT_EQ(j["bound"], "latency");
  EXPECT_NEAR(j["efficiency"].get<double>(), 0.5, 1e-6);  // 10 us measured against a 5 us floor
}

TEST(CliBinary, ExitCodesAndOutput) {
  const auto ok = run_binary("roofline compare h200 mi300x");
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_TRUE(contains(ok.out, "h200 I*"));
  EXPECT_TRUE(contains(ok.out, "mi300x I*"));

  const auto unknown = run_binary("spec nosuchgpu");
  EXPECT_EQ(unknown.code, cli::kExitError) << unknown.out;
  EXPECT_TRUE(contains(unknown.out, "known devices: "));

  const auto usage = run_binary("ledger --tile 64x64x32");
  EXPECT_NE(usage.code, 0);
  EXPECT_NE(usage.code, cli::kExitError);  // CLI11's own code for a malformed command line
}

TEST(CliBinary, PlotCommandWritesTheSvg) {
  const auto dir = fresh_dir("plot");
  const std::string out = (dir / "roofline.svg").string();
  const auto r = run_binary("roofline plot h200 mi300x --out '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(std::filesystem::exists(out));
  EXPECT_GT(std::filesystem::file_size(out), 1000u);
  EXPECT_TRUE(std::filesystem::exists(out + ".gp"));
  std::filesystem::remove_all(dir);
}

// ---- ridgeline perf / report ------------------------------------------------------------------------

TEST(CliPerf, HandsItsArgumentsToTheSuiteAndReturnsItsStatus) {
  const auto dir = fresh_dir("perf_exec");
  const auto script = dir / "fake-perf";
  const auto log = dir / "args.txt";
  {
    std::ofstream f(script);
    f << "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" << log.string() << "'\nexit 3\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  ::setenv("RIDGELINE_PERF_PROGRAM", script.c_str(), 1);
  EXPECT_EQ(cli::perf_program(), script.string());
  // --help too is the suite's, not the CLI's.
  const auto r = run({"perf", "--shapes", "gemm:NN:64x64x64:fp32", "--json", "a b.json", "--help"});
  ::unsetenv("RIDGELINE_PERF_PROGRAM");
  EXPECT_EQ(r.code, 3);
  std::ifstream in(log);
  std::stringstream got;
  got << in.rdbuf();
  EXPECT_EQ(got.str(), "--shapes\ngemm:NN:64x64x64:fp32\n--json\na b.json\n--help\n");
  std::filesystem::remove_all(dir);
}

TEST(CliPerf, AMissingSuiteIsAnErrorThatSaysWhatToBuild) {
  ::setenv("RIDGELINE_PERF_PROGRAM", "/nonexistent/ridgeline-perf", 1);
  const auto r = run({"perf", "--list-shapes"});
  ::unsetenv("RIDGELINE_PERF_PROGRAM");
  EXPECT_EQ(r.code, 127);
  EXPECT_TRUE(contains(r.err, "ridgeline_perf")) << r.err;
}

TEST(CliPerf, ProgressLineSaysWhichCaseWhereAndTimeLeft) {
  EXPECT_EQ(ridgeline_perf::progress_line(0, 8, "gemm:NN:512x512x512:fp32", 0.2),
            "[1/8] gemm:NN:512x512x512:fp32  elapsed 0:00");
  // Two cases took 30 s: six remain, this one included, at 15 s each.
  EXPECT_EQ(ridgeline_perf::progress_line(2, 8, "gemv:N:4096x4096:fp32", 30),
            "[3/8] gemv:N:4096x4096:fp32  elapsed 0:30, about 1:30 left");
  EXPECT_EQ(ridgeline_perf::clock_text(3723), "1:02:03");
}

// A perf run's JSON as ridgeline-perf writes it, reduced to what the report reads.
std::string perf_json_fixture() {
  nlohmann::json spec =
      nlohmann::json::parse(ridgeline::device_spec_to_json(ridgeline::find_device_spec("h200")));
  nlohmann::json row_rl = {{"op", "gemv"},
                           {"trans", "N"},
                           {"shape", "4096x4096"},
                           {"dtype", "fp32"},
                           {"impl", "ridgeline"},
                           {"median_ms", 0.0123456},
                           {"gflops", 2718.2},
                           {"gbs", 4410.7},
                           {"ratio_vendor", 1.0137},
                           {"ratio_kk", 4.81},
                           {"intensity_flop_per_byte", 0.4998},
                           {"ridge_flop_per_byte", 13.96},
                           {"efficiency", 0.9123},
                           {"check", "ok"}};
  nlohmann::json row_cb = row_rl;
  row_cb["impl"] = "cublas";
  row_cb["gflops"] = 2681.5;
  row_cb["ratio_vendor"] = 1.0;
  row_cb["check"] = "ref";
  nlohmann::json row_dmma = {{"op", "gemm"},
                             {"trans", "NN"},
                             {"shape", "8192x8192x8192"},
                             {"dtype", "fp64"},
                             {"impl", "ridgeline"},
                             {"median_ms", 22.3},
                             {"gflops", 49300.0},
                             {"gbs", 36.1},
                             {"ratio_vendor", 0.873},
                             {"ratio_kk", 20.8},
                             {"intensity_flop_per_byte", 1365.3},
                             {"ridge_flop_per_byte", 67e12 / 4.8e12},
                             {"efficiency", 0.74},
                             {"check", "ok"}};
  nlohmann::json skipped = {{"op", "gemm"},
                            {"trans", "NN"},
                            {"shape", "8192x8192x8192"},
                            {"dtype", "fp64"},
                            {"impl", "kokkos-kernels"},
                            {"gflops", nullptr},
                            {"intensity_flop_per_byte", nullptr},
                            {"check", "-"}};
  nlohmann::json j = {{"metadata",
                       {{"command", "ridgeline-perf --shapes h200"},
                        {"git_sha", "abc1234"},
                        {"date_utc", "2026-12-02T10:00:00Z"},
                        {"device", "NVIDIA H200"},
                        {"exec_space", "Cuda"},
                        {"kokkos", "Kokkos 3.4.01 [Cuda,Serial]"},
                        {"vendor_baseline", "cublas"},
                        {"spec", spec}}},
                      {"rows", {row_rl, row_cb, row_dmma, skipped}}};
  return j.dump();
}

TEST(CliReport, NumbersComeStraightFromTheJson) {
  const auto run_ = cli::parse_perf_json(perf_json_fixture(), "run.json");
  ASSERT_EQ(run_.rows.size(), 4u);
  EXPECT_EQ(run_.rows[0].point, 1);
  EXPECT_EQ(run_.rows[2].point, 3);
  EXPECT_EQ(run_.rows[3].point, 0);  // no rate: a table row, not a plot point
  const auto pts = cli::perf_points(run_);
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_EQ(pts[1].series, "cublas");
  EXPECT_DOUBLE_EQ(pts[1].gflops, 2681.5);
  // The DMMA row's ridge is the FP64 matrix roof's, so that roof is drawn beside fp32's and fp64's vector
  // roofs.
  const auto roofs = cli::perf_roofs(run_);
  ASSERT_EQ(roofs.size(), 3u);
  EXPECT_EQ(roofs[2].dtype, ridgeline::DType::fp64);
  EXPECT_EQ(roofs[2].unit, ridgeline::Unit::matrix);

  const std::string md = cli::perf_report_markdown(run_, "roofline.png", "roofline.svg");
  EXPECT_TRUE(contains(md, "# Perf run: NVIDIA H200, 2026-12-02T10:00:00Z, git abc1234")) << md;
  EXPECT_TRUE(contains(md, "![Roofline of NVIDIA H200](roofline.png)"));
  EXPECT_TRUE(contains(md, "[roofline.svg](roofline.svg)"));
  EXPECT_TRUE(
      contains(md, "| # | op | shape | dtype | implementation | median ms | GFLOP/s | GB/s | ÷ cublas |"));
  EXPECT_TRUE(contains(md,
                       "| 1 | gemv N | 4096x4096 | fp32 | Ridgeline | 0.0123 | 2718 | 4411 | 1.014 | 4.810 | "
                       "0.500 | 91.2% | ok |"))
      << md;
  EXPECT_TRUE(contains(md, "| 2 | gemv N | 4096x4096 | fp32 | cuBLAS (vendor BLAS) | 0.0123 | 2682 |")) << md;
  EXPECT_TRUE(contains(
      md, "| - | gemm NN | 8192x8192x8192 | fp64 | Kokkos Kernels | - | - | - | - | - | - | - | - |"))
      << md;
  // The plot sits above the table that keys its numbers; the ceilings come last, spec figures named as such.
  EXPECT_LT(md.find("## Roofline"), md.find("## Results"));
  EXPECT_LT(md.find("## Results"), md.find("## Ceilings"));
  EXPECT_TRUE(contains(md, "| fp64 matrix | 67000 GFLOP/s |")) << md;
  EXPECT_TRUE(contains(md, "| DRAM | 4800 GB/s |")) << md;
  EXPECT_TRUE(contains(md, "Measured ceilings: none for this run"));

  EXPECT_THROW(cli::parse_perf_json("{\"rows\": []}", "x.json"), std::runtime_error);
  EXPECT_THROW(cli::parse_perf_json("not json", "x.json"), std::runtime_error);
}

TEST(CliReport, WritesTheReportAndBothPlots) {
  const auto dir = fresh_dir("report");
  const auto json = dir / "results.json";
  std::ofstream(json) << perf_json_fixture();
  const auto r = run({"report", json.string(), "--ceilings", "none"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "report.md"));
  EXPECT_TRUE(std::filesystem::exists(dir / "roofline.svg"));
  EXPECT_TRUE(std::filesystem::exists(dir / "roofline.png"));
  EXPECT_TRUE(std::filesystem::exists(dir / "roofline.svg.key.md"));
  std::filesystem::remove_all(dir);
}

// ---- ridgeline ceilings: the kernels' arithmetic, untimed, and the saved ceilings in plot and report --

namespace cl = ridgeline::ceilings;

namespace {

cl::DeviceCeilings h200_ceilings() {
  cl::DeviceCeilings c;
  c.device = "NVIDIA H200 SXM 141GB";
  c.device_key = "h200";
  c.backend = "Cuda";
  c.git_sha = "abc1234";
  c.date_utc = "2026-12-02T09:00:00Z";
  c.mode = "full";
  c.byte_counting = "read+write";
  cl::Roof hbm;
  hbm.kind = "bandwidth";
  hbm.kernel = "copy";
  hbm.level = cl::Level::memory;
  hbm.label = "copy, 1 GiB working set (device memory)";
  hbm.value = 4.0e12;
  hbm.spec_value = 4.8e12;
  hbm.spec_source = "datasheet";
  cl::Roof dmma;
  dmma.kind = "compute";
  dmma.kernel = "dmma m16n8k16 (DmmaSm90MicroKernel::mma)";
  dmma.dtype = ridgeline::DType::fp64;
  dmma.unit = ridgeline::Unit::matrix;
  dmma.label = "fp64 dmma";
  dmma.value = 66e12;
  dmma.spec_value = 67e12;
  dmma.spec_source = "datasheet";
  c.roofs = {hbm, dmma};
  return c;
}

}  // namespace

TEST(Ceilings, FmaChainKernelLeavesTheReferenceValues) {
  for (const char* dtype : {"fp64", "fp32"})
    for (std::int64_t steps : {0, 1, 6, 7}) {
      int chains = 0;
      const auto got = cli::run_fma_chains(dtype, 3, steps, &chains);
      ASSERT_GT(chains, 0);
      const auto want = cli::fma_chains_expected(3, chains, steps);
      ASSERT_EQ(got.size(), want.size());
      std::int64_t first = -1;
      EXPECT_EQ(cl::count_mismatches(got, want, &first), 0)
          << dtype << " steps " << steps << " first " << first;
      // The same output judged against the other parity fails: the check can tell a step was lost.
      if (steps > 0)
        EXPECT_EQ(cl::count_mismatches(got, cli::fma_chains_expected(3, chains, steps - 1)),
                  static_cast<std::int64_t>(got.size()));
    }
  int chains = 0;
  EXPECT_THROW(cli::run_fma_chains("bf16", 1, 1, &chains), std::invalid_argument);
}

TEST(Ceilings, StreamKernelsRewriteTheirArraysExactly) {
  // Small plans: two teams of one level each; every pass leaves the arrays as they were.
  cl::LevelPlan scratch;
  scratch.level = cl::Level::scratch;
  scratch.working_set_bytes = 2 * 12 * 1024;
  scratch.teams = 2;
  cl::LevelPlan rotating;
  rotating.level = cl::Level::cache;
  rotating.working_set_bytes = 256 * 1024;
  rotating.teams = 4;
  rotating.rotate = true;
  for (const auto& plan : {scratch, rotating})
    for (auto k : {cl::StreamKernel::copy, cl::StreamKernel::triad})
      for (int passes : {1, 2, 5}) EXPECT_EQ(cli::run_stream_check(k, plan, passes), 0) << passes;
}

TEST(Ceilings, ShowPrintsTheSavedFileAndPlotAndReportUseIt) {
  const auto dir = fresh_dir("ceilings");
  const std::string file = (dir / "ceilings.json").string();
  auto r = run({"ceilings", "--show", "--file", file});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "no ceilings saved in")) << r.out;
  cl::save_ceilings(h200_ceilings(), file);
  r = run({"ceilings", "--show", "--file", file});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Measured ceilings: NVIDIA H200 SXM 141GB, Kokkos Cuda")) << r.out;
  EXPECT_TRUE(contains(r.out, "98.5%")) << r.out;

  // roofline plot: the saved H200 ceilings dashed beside the datasheet roofs, the MI300X's alone.
  const std::string svg = (dir / "roofline.svg").string();
  r = run({"roofline", "plot", "h200", "mi300x", "--dtype", "fp64", "--ceilings", file, "--out", svg});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "measured ceilings of h200: NVIDIA H200 SXM 141GB on Kokkos Cuda")) << r.out;
  EXPECT_FALSE(contains(r.out, "of mi300x"));
  std::ifstream gp(svg + ".gp");
  std::stringstream ss;
  ss << gp.rdbuf();
  EXPECT_TRUE(
      contains(ss.str(), "dt 2 title 'measured: h200 copy, 1 GiB working set (device memory): 4000 GB/s'"))
      << ss.str();
  EXPECT_TRUE(contains(ss.str(), "title 'mi300x fp64 matrix, datasheet")) << ss.str();

  // report: the run's JSON has no ceilings; the saved ones join the table, marked as measured.
  const auto json = dir / "results.json";
  std::ofstream(json) << perf_json_fixture();
  auto run_ = cli::parse_perf_json(perf_json_fixture(), "run.json");
  EXPECT_FALSE(run_.has_measured);
  EXPECT_TRUE(cli::attach_saved_ceilings(run_, file));
  const std::string md = cli::perf_report_markdown(run_, "roofline.png", "roofline.svg");
  EXPECT_TRUE(contains(md, "dashed lines are measured ceilings")) << md;
  EXPECT_TRUE(contains(md, "| fp64 matrix | 67000 GFLOP/s | datasheet: NVIDIA H200")) << md;
  EXPECT_TRUE(contains(md,
                       "| fp64 matrix, dmma m16n8k16 (DmmaSm90MicroKernel::mma) | 66000 GFLOP/s | measured "
                       "ceilings (`ridgeline ceilings` full, 2026-12-02T09:00:00Z, git abc1234; saved in"))
      << md;
  EXPECT_TRUE(contains(md, "98.5% of the datasheet figure")) << md;
  EXPECT_FALSE(contains(md, "Measured ceilings: none"));
  r = run({"report", json.string(), "--ceilings", file});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream plot((dir / "roofline.svg.gp").string());
  std::stringstream ps;
  ps << plot.rdbuf();
  EXPECT_TRUE(contains(ps.str(), "dt 2 title 'measured: fp64 matrix, dmma")) << ps.str();

  // A run whose JSON carries its ceilings (ridgeline-perf copies them in) uses those, not the file's.
  auto j = nlohmann::json::parse(perf_json_fixture());
  auto own = h200_ceilings();
  own.git_sha = "fff0000";
  j["metadata"]["ceilings"] = nlohmann::json::parse(cl::to_json(own));
  auto carried = cli::parse_perf_json(j.dump(), "run.json");
  EXPECT_TRUE(carried.has_measured);
  cli::attach_saved_ceilings(carried, file);
  EXPECT_EQ(carried.measured.git_sha, "fff0000");
  EXPECT_TRUE(
      contains(cli::perf_report_markdown(carried, "", ""), "copied into the run's JSON by ridgeline-perf"));
  std::filesystem::remove_all(dir);
}

// `roofline compare --estimates`: a code-object report's MFMA static bounds as "static estimate" matrix rows
// for the devices of its targets (gfx940 stands for gfx942), the lowest bound per target and dtype.
TEST(Cli, CompareAddsStaticEstimatesFromACodeObjectReport) {
  const auto dir = fresh_dir("compare_estimates");
  auto kernel = [](const char* target, const char* dtype, bool mfma, nlohmann::json bound) {
    return nlohmann::json{
        {"target", target},
        {"dtype", dtype},
        {"mfma_entry", mfma},
        {"static_bound", bound.is_null() ? bound : nlohmann::json{{"percent_of_matrix_peak", bound}}}};
  };
  nlohmann::json report = {{"note", "ESTIMATE"}, {"kernels", nlohmann::json::array()}};
  auto& kernels = report["kernels"];
  kernels.push_back(kernel("gfx90a", "fp64", true, 90.0));
  kernels.push_back(kernel("gfx90a", "fp64", true, 80.0));
  kernels.push_back(kernel("gfx90a", "fp64", false, 10.0));    // not an MFMA entry: left out
  kernels.push_back(kernel("gfx90a", "fp32", true, nullptr));  // no bound: left out
  kernels.push_back(kernel("gfx940", "fp16", true, 70.0));
  const std::string file = (dir / "code_objects.json").string();
  std::ofstream(file) << report.dump();

  auto r = run({"roofline", "compare", "h200", "mi250x-gcd", "mi300x", "--dtype", "fp64,fp32,fp16", "--unit",
                "matrix", "--ceilings", "none", "--estimates", file, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& gcd = ridgeline::find_device_spec("mi250x-gcd");
  const auto& mi300x = ridgeline::find_device_spec("mi300x");
  int estimates = 0;
  for (const auto& row : j) {
    if (row["source"] != "static estimate") {
      EXPECT_FALSE(row.contains("estimated_from")) << row.dump();
      continue;
    }
    ++estimates;
    const std::string from = row["estimated_from"];
    EXPECT_TRUE(contains(from, file)) << from;
    if (row["dtype"] == "fp64") {
      EXPECT_EQ(row["device"], "mi250x-gcd");
      EXPECT_DOUBLE_EQ(row["peak_flops"].get<double>(),
                       0.8 * gcd.peak_flops(ridgeline::DType::fp64, ridgeline::Unit::matrix));
      EXPECT_DOUBLE_EQ(row["bandwidth_bytes_per_s"].get<double>(), gcd.dram_bw_bytes_per_s);
      EXPECT_TRUE(contains(from, "gfx90a fp64, the lowest of 2 MFMA kernels (80-90% of the matrix peak)"))
          << from;
    } else {
      EXPECT_EQ(row["dtype"], "fp16") << row.dump();
      EXPECT_EQ(row["device"], "mi300x");
      EXPECT_DOUBLE_EQ(row["peak_flops"].get<double>(),
                       0.7 * mi300x.peak_flops(ridgeline::DType::fp16, ridgeline::Unit::matrix));
    }
  }
  EXPECT_EQ(estimates, 2) << r.out;

  // The table: a static-estimate line in the device's columns, and a note that nothing ran.
  r = run({"roofline", "compare", "h200", "mi250x-gcd", "--dtype", "fp64", "--unit", "matrix", "--ceilings",
           "none", "--estimates", file});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "fp64   matrix  static estimate")) << r.out;
  EXPECT_TRUE(contains(r.out, "Nothing ran: an estimate, not a measurement.")) << r.out;
  // Vector units and devices of no target of the report get none.
  r = run({"roofline", "compare", "h200", "--dtype", "fp64", "--ceilings", "none", "--estimates", file});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "matrix  static estimate")) << r.out;
  EXPECT_TRUE(contains(r.out, "None of these devices is of those targets.")) << r.out;

  // The plot draws the estimate dotted, in the title and the legend as what it is, and marks no measured
  // ridge for it: 70% of the MI300X's fp16 matrix peak.
  const std::string svg = (dir / "estimates.svg").string();
  r = run({"roofline", "compare", "h200", "mi300x", "--dtype", "fp16", "--unit", "matrix", "--ceilings",
           "none", "--estimates", file, "--plot", svg});
  ASSERT_EQ(r.code, 0) << r.err;
  std::stringstream gp, dat;
  gp << std::ifstream(svg + ".gp").rdbuf();
  dat << std::ifstream(svg + ".dat").rdbuf();
  EXPECT_TRUE(contains(gp.str(), "h200 (datasheet only) vs mi300x (datasheet solid, static estimate dotted)"))
      << gp.str();
  const double fp16 = 0.7 * mi300x.peak_flops(ridgeline::DType::fp16, ridgeline::Unit::matrix) / 1e9;
  EXPECT_TRUE(
      contains(gp.str(), "dt 3 title 'static estimate: mi300x fp16 matrix, 70% of peak by code objects"))
      << gp.str();
  EXPECT_FALSE(contains(gp.str(), "measured ridge points")) << gp.str();
  EXPECT_TRUE(contains(dat.str(), "# static estimate, fp16 matrix, 70% of peak by code objects"))
      << dat.str();
  std::ostringstream flat;  // the flat roof's end, as the data file writes it
  flat.precision(10);
  flat << " " << fp16 << "\n";
  EXPECT_TRUE(contains(dat.str(), flat.str())) << dat.str();
  // Without the matrix unit there is no roof to estimate.
  r = run({"roofline", "compare", "mi300x", "--dtype", "fp16,fp64", "--unit", "vector", "--ceilings", "none",
           "--estimates", file, "--plot", svg});
  ASSERT_EQ(r.code, 0) << r.err;
  gp.str("");
  gp << std::ifstream(svg + ".gp").rdbuf();
  EXPECT_FALSE(contains(gp.str(), "static estimate")) << gp.str();

  // A file that is absent, not JSON, not a report, or a report without MFMA bounds is an error.
  const std::string not_json = (dir / "not.json").string(), no_kernels = (dir / "no_kernels.json").string(),
                    no_bounds = (dir / "no_bounds.json").string();
  std::ofstream(not_json) << "{";
  std::ofstream(no_kernels) << R"({"note": "x"})";
  std::ofstream(no_bounds) << nlohmann::json{{"kernels", {kernel("gfx90a", "fp64", false, 50.0)}}}.dump();
  for (const auto& [path, says] : std::vector<std::pair<std::string, std::string>>{
           {(dir / "absent.json").string(), "cannot open"},
           {not_json, "is not JSON"},
           {no_kernels, "no \"kernels\" array"},
           {no_bounds, "has no MFMA kernel with a static bound"}}) {
    r = run({"roofline", "compare", "mi300x", "--ceilings", "none", "--estimates", path});
    EXPECT_NE(r.code, 0) << path;
    EXPECT_TRUE(contains(r.err, says)) << path << ": " << r.err;
  }
  std::filesystem::remove_all(dir);
}

TEST(Ceilings, CompareReportsSavedCeilingsAsMeasuredRows) {
  const auto dir = fresh_dir("compare_ceilings");
  const std::string file = (dir / "ceilings.json").string();
  cl::save_ceilings(h200_ceilings(), file);  // HBM copy 4.0 TB/s, FP64 DMMA 66 TFLOP/s

  // JSON: per unit the two datasheet rows, then the H200's measured row; the MI300X has none.
  auto r = run({"roofline", "compare", "h200", "mi300x", "--dtype", "fp64", "--ceilings", file, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 6u) << r.out;
  for (const auto& row : j) {
    if (row["device"] == "mi300x") EXPECT_EQ(row["source"], "datasheet") << row.dump();
    EXPECT_EQ(row["measured_on"].is_null(), row["source"] != "measured") << row.dump();
  }
  const auto& spec_matrix = j[3];
  EXPECT_EQ(spec_matrix["device"], "h200");
  EXPECT_EQ(spec_matrix["source"], "datasheet");
  EXPECT_DOUBLE_EQ(spec_matrix["peak_flops"].get<double>(), 67e12);
  EXPECT_DOUBLE_EQ(spec_matrix["bandwidth_bytes_per_s"].get<double>(), 4.8e12);
  const auto& measured = j[5];
  EXPECT_EQ(measured["device"], "h200");
  EXPECT_EQ(measured["source"], "measured");
  EXPECT_EQ(measured["unit"], "matrix");
  EXPECT_DOUBLE_EQ(measured["peak_flops"].get<double>(), 66e12);
  EXPECT_DOUBLE_EQ(measured["bandwidth_bytes_per_s"].get<double>(), 4.0e12);
  EXPECT_DOUBLE_EQ(measured["ridge_flop_per_byte"].get<double>(), 16.5);
  EXPECT_EQ(measured["gemm_compute_bound_n"].get<int>(), 198);     // ceil(16.5 * 8 * 3 / 2)
  EXPECT_EQ(measured["gemv_compute_bound_batch"].get<int>(), 66);  // ceil(16.5 * 8 / 2)
  EXPECT_TRUE(contains(measured["measured_on"].get<std::string>(),
                       "NVIDIA H200 SXM 141GB on Kokkos Cuda, 2026-12-02T09:00:00Z, git abc1234"));
  // FP64 vector was not measured: the measured row has the bandwidth, no peak, no ridge.
  const auto& vector = j[2];
  EXPECT_EQ(vector["source"], "measured");
  EXPECT_EQ(vector["unit"], "vector");
  EXPECT_FALSE(vector["available"].get<bool>());
  EXPECT_TRUE(vector["ridge_flop_per_byte"].is_null());

  // CSV: the same rows and sources.
  r = run({"roofline", "compare", "h200", "mi300x", "--dtype", "fp64", "--ceilings", file, "--csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "device,dtype,unit,level,source,measured_on,available,")) << r.out;
  EXPECT_TRUE(contains(r.out, "\nh200,fp64,matrix,dram,measured,\"NVIDIA H200 SXM 141GB on Kokkos Cuda,"))
      << r.out;
  EXPECT_TRUE(contains(r.out, ",true,6.6e+13,4e+12,16.5,198,66,\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "\nmi300x,fp64,matrix,dram,datasheet,,true,")) << r.out;

  // Table: a measured line under the datasheet one, the measured bandwidth beside the datasheet's.
  r = run({"roofline", "compare", "h200", "mi300x", "--dtype", "fp64", "--ceilings", file});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "h200 4.8 TB/s datasheet, 4 TB/s measured  mi300x 5.3 TB/s datasheet"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "Measured (h200): NVIDIA H200 SXM 141GB on Kokkos Cuda")) << r.out;
  EXPECT_TRUE(contains(r.out, "fp64   matrix  datasheet  67         13.96")) << r.out;
  EXPECT_TRUE(contains(r.out, "fp64   matrix  measured   66         16.5     198      66       -")) << r.out;
  EXPECT_FALSE(contains(r.out, "fp64   vector  measured")) << r.out;  // nothing measured on that line

  // No ceilings (none asked for, or none of the device's backend family): datasheet rows only.
  for (const std::string& ceilings : {std::string("none"), (dir / "absent.json").string()}) {
    r = run({"roofline", "compare", "h200", "--dtype", "fp64", "--ceilings", ceilings, "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    for (const auto& row : nlohmann::json::parse(r.out)) EXPECT_EQ(row["source"], "datasheet") << ceilings;
  }
  auto other_backend = h200_ceilings();
  other_backend.backend = "OpenMP";
  const std::string host_file = (dir / "host-backend.json").string();
  cl::save_ceilings(other_backend, host_file);
  r = run({"roofline", "compare", "h200", "--dtype", "fp64", "--ceilings", host_file, "--csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.out, ",measured,")) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(Ceilings, ComparePlotDrawsBothDevicesWithMeasuredRoofsDashed) {
  const auto dir = fresh_dir("compare_plot");
  const std::string file = (dir / "ceilings.json").string();
  cl::save_ceilings(h200_ceilings(), file);
  const std::string svg = (dir / "compare.svg").string();
  // With --json, stdout stays JSON; what was written goes to stderr.
  const auto r = run({"roofline", "compare", "h200", "mi300x", "--dtype", "fp64", "--ceilings", file,
                      "--plot", svg, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NO_THROW(nlohmann::json::parse(r.out));
  EXPECT_TRUE(contains(r.err, "wrote " + svg + " and " + (dir / "compare.png").string())) << r.err;
  EXPECT_GT(std::filesystem::file_size(svg), 1000u);
  std::ifstream png((dir / "compare.png").string(), std::ios::binary);
  char sig[8] = {};
  ASSERT_TRUE(png.read(sig, 8));
  EXPECT_EQ(std::string(sig + 1, 3), "PNG");
  std::stringstream gp, dat;
  gp << std::ifstream(svg + ".gp").rdbuf();
  dat << std::ifstream(svg + ".dat").rdbuf();
  const std::string script = gp.str();
  // Which device is measured and which is datasheet only, in the title and in every legend entry.
  EXPECT_TRUE(contains(
      script, "set title 'Roofline: h200 (datasheet solid, measured dashed) vs mi300x (datasheet only)"))
      << script;
  EXPECT_TRUE(contains(script, "dt 1 title 'h200 fp64 matrix, datasheet (67 TF/s, 4.8 TB/s, I*=13.96)'"))
      << script;
  EXPECT_TRUE(contains(script, "dt 1 title 'mi300x fp64 matrix, datasheet (")) << script;
  EXPECT_TRUE(contains(script, "dt 2 title 'measured: h200 fp64 matrix, dmma m16n8k16")) << script;
  EXPECT_FALSE(contains(script, "measured: mi300x")) << script;
  EXPECT_TRUE(contains(script, "title 'spec ridge points'")) << script;
  EXPECT_TRUE(contains(script, "title 'measured ridge points'")) << script;
  // The measured ridge: 66 TFLOP/s over 4 TB/s.
  EXPECT_TRUE(contains(dat.str(), "# measured ridge points")) << dat.str();
  EXPECT_TRUE(contains(dat.str(), "16.5 66000 \"I*=16.5\"")) << dat.str();
  EXPECT_TRUE(contains(script, "set label 'I*=16.5' at graph ")) << script;

  // Measured points ride along as in roofline plot; --points alone is an error.
  const std::string points = (dir / "points.csv").string();
  std::ofstream(points) << "label,intensity,gflops\ndgemm 8192,512,60000,ridgeline\ndgemv,0.25,1000\n";
  const auto with_points = run({"roofline", "compare", "h200", "mi300x", "--dtype", "fp64", "--ceilings",
                                file, "--plot", (dir / "points.svg").string(), "--points", points});
  ASSERT_EQ(with_points.code, 0) << with_points.err;
  EXPECT_TRUE(contains(with_points.out, "wrote " + (dir / "points.svg").string())) << with_points.out;
  EXPECT_TRUE(std::filesystem::exists((dir / "points.svg.key.md")));
  std::stringstream pgp;
  pgp << std::ifstream((dir / "points.svg.gp").string()).rdbuf();
  // The fourth cell names the implementation, as in ridgeline perf's plots; without it, "measured".
  EXPECT_TRUE(contains(pgp.str(), "title 'Ridgeline'")) << pgp.str();
  EXPECT_TRUE(contains(pgp.str(), "title 'measured'")) << pgp.str();
  const auto no_plot = run({"roofline", "compare", "h200", "--points", points});
  EXPECT_EQ(no_plot.code, cli::kExitError);
  EXPECT_TRUE(contains(no_plot.err, "--points needs --plot")) << no_plot.err;

  // The binary writes the figure too.
  const std::string bin_svg = (dir / "bin.svg").string();
  const auto bin = run_binary("roofline compare h200 mi300x --dtype fp64 --ceilings '" + file + "' --plot '" +
                              bin_svg + "'");
  EXPECT_EQ(bin.code, 0) << bin.out;
  EXPECT_TRUE(std::filesystem::exists(bin_svg));
  EXPECT_TRUE(std::filesystem::exists((dir / "bin.png")));
  std::filesystem::remove_all(dir);
}

// ---- ridgeline tune: candidates measured and cached, the report, and the errors ------------------------
TEST(CliTune, MeasuresCachesAndReports) {
  const auto dir = fresh_dir("tune");
  const std::string cache = (dir / "tune.json").string();
  // Host shapes small enough for a unit test; one timed run each (nothing here compares times).
  const auto r = run({"tune", "--shapes", "96x64x80,200x3x100", "--dtype", "fp32,fp64", "--reps", "1",
                      "--warmup", "0", "--cache", cache, "--git-sha", "abc1234"});
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_TRUE(contains(r.out, "fp32 96x64x80 NN  (class NN packets m96 n64 k64 beta=0")) << r.out;
  EXPECT_TRUE(contains(r.out, "fp64 200x3x100 NN")) << r.out;
  EXPECT_TRUE(contains(r.out, "   0 table: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "choice: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "saved 4 choices to " + cache)) << r.out;
  const ridgeline::TuneCache saved = ridgeline::TuneCache::load(cache);
  ASSERT_EQ(saved.records().size(), 4u);
  for (const auto& rec : saved.records()) {
    EXPECT_EQ(rec.choice.git_sha, "abc1234");
    EXPECT_FALSE(rec.choice.builtin.empty());
    EXPECT_GT(rec.choice.builtin_ms, 0.0);
  }
  const auto rep = run({"tune", "--report", "--cache", cache});
  ASSERT_EQ(rep.code, 0) << rep.err;
  EXPECT_TRUE(contains(rep.out, "tune cache " + cache)) << rep.out;
  EXPECT_TRUE(contains(rep.out, "class NN packets m96 n64 k64 beta=0")) << rep.out;
  EXPECT_TRUE(contains(rep.out, "tuned on 96x64x80 NN")) << rep.out;
  // --dry-run measures and leaves the file alone.
  std::filesystem::remove(cache);
  const auto dry =
      run({"tune", "--shapes", "96x64x80", "--reps", "1", "--warmup", "0", "--cache", cache, "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  EXPECT_FALSE(std::filesystem::exists(cache));
  std::filesystem::remove_all(dir);
}

TEST(CliTune, Errors) {
  const auto dir = fresh_dir("tune_errors");
  const std::string cache = (dir / "tune.json").string();
  const auto none = run({"tune", "--cache", cache});
  EXPECT_EQ(none.code, cli::kExitError);
  EXPECT_TRUE(contains(none.err, "give --shapes")) << none.err;
  const auto bad_shape = run({"tune", "--shapes", "96x64", "--cache", cache});
  EXPECT_EQ(bad_shape.code, cli::kExitError);
  const auto one_column = run({"tune", "--shapes", "96x1x80", "--cache", cache});
  EXPECT_EQ(one_column.code, cli::kExitError);
  EXPECT_TRUE(contains(one_column.err, "N at least 2")) << one_column.err;
  EXPECT_NE(run({"tune", "--shapes", "96x64x80", "--dtype", "fp16"}).code, 0);
  // A cache that does not parse stops the run before anything is measured, naming the file.
  std::ofstream(cache) << "{ not json";
  const auto bad = run({"tune", "--shapes", "96x64x80", "--cache", cache});
  EXPECT_EQ(bad.code, cli::kExitError);
  EXPECT_TRUE(contains(bad.err, cache)) << bad.err;
  EXPECT_FALSE(contains(bad.out, "table: ")) << bad.out;
  const auto empty = run({"tune", "--report", "--cache", (dir / "none.json").string()});
  EXPECT_EQ(empty.code, 0);
  EXPECT_TRUE(contains(empty.out, "no tuned choices")) << empty.out;
  std::filesystem::remove_all(dir);
}
