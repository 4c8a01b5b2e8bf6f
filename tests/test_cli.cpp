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

#include "cli.hpp"
#include "ridgeline/device_spec.hpp"

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
