// Device specs: the built-in tables, lookup, JSON files, host derivation and runtime detection.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <filesystem>

#include "ridgeline/detect.hpp"
#include "ridgeline/device_spec.hpp"

using namespace ridgeline;

#ifndef RIDGELINE_TEST_DATA_DIR
#error "RIDGELINE_TEST_DATA_DIR must name tests/data"
#endif

namespace {

std::string data_file(const std::string& name) {
  return std::string(RIDGELINE_TEST_DATA_DIR) + "/" + name;
}

// The message of what loading `file` throws ("" if nothing): bad content is a std::invalid_argument, a
// file that cannot be read a std::runtime_error (its message is prefixed here to tell them apart).
std::string load_error(const std::string& file) {
  try {
    load_device_spec_json(data_file(file));
  } catch (const std::invalid_argument& e) {
    return e.what();
  } catch (const std::runtime_error& e) {
    return std::string("runtime_error: ") + e.what();
  }
  return "";
}

void expect_same_spec(const DeviceSpec& a, const DeviceSpec& b) {
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.aliases, b.aliases);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.vendor, b.vendor);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.arch, b.arch);
  EXPECT_EQ(a.detect_token, b.detect_token);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.compute_units, b.compute_units);
  EXPECT_DOUBLE_EQ(a.boost_clock_ghz, b.boost_clock_ghz);
  EXPECT_EQ(a.warp_width, b.warp_width);
  EXPECT_EQ(a.max_team_scratch_bytes, b.max_team_scratch_bytes);
  EXPECT_EQ(a.scratch_per_cu_bytes, b.scratch_per_cu_bytes);
  EXPECT_EQ(a.l2_bytes, b.l2_bytes);
  EXPECT_EQ(a.memory_bytes, b.memory_bytes);
  EXPECT_DOUBLE_EQ(a.dram_bw_bytes_per_s, b.dram_bw_bytes_per_s);
  EXPECT_DOUBLE_EQ(a.l2_bw_bytes_per_s, b.l2_bw_bytes_per_s);
  EXPECT_DOUBLE_EQ(a.launch_overhead_s, b.launch_overhead_s);
  EXPECT_EQ(a.estimated, b.estimated);
  EXPECT_EQ(a.notes, b.notes);
  for (DType d : kAllDTypes)
    for (Unit u : kAllUnits)
      EXPECT_DOUBLE_EQ(a.peak_flops(d, u), b.peak_flops(d, u)) << to_string(d) << to_string(u);
}

}  // namespace

TEST(DType, ParseAndPrint) {
  for (DType d : kAllDTypes) EXPECT_EQ(parse_dtype(to_string(d)), d);
  EXPECT_EQ(parse_dtype("FP16"), DType::fp16);
  EXPECT_EQ(parse_dtype("bfloat16"), DType::bf16);
  EXPECT_THROW(parse_dtype("fp8"), std::invalid_argument);
  EXPECT_EQ(parse_unit("Tensor"), Unit::matrix);
  EXPECT_THROW(parse_unit("scalar"), std::invalid_argument);
  EXPECT_EQ(dtype_bytes(DType::tf32), 4);
  EXPECT_EQ(dtype_bytes(DType::bf16), 2);
}

TEST(BuiltinSpecs, AllVendorsArePresentWithSources) {
  const auto names = known_device_names();
  for (const char* n : {"a100", "h100", "h200", "mi210", "mi250x", "mi250x-gcd", "mi300x", "host"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  for (const auto& s : builtin_device_specs()) {
    SCOPED_TRACE(s.key);
    EXPECT_FALSE(s.source.empty());
    EXPECT_TRUE(s.backend == "cuda" || s.backend == "hip");
    EXPECT_GT(s.compute_units, 0);
    EXPECT_GT(s.boost_clock_ghz, 0);
    EXPECT_GT(s.dram_bw_bytes_per_s, 0);
    EXPECT_GT(s.l2_bytes, 0);
    EXPECT_GT(s.scratch_per_cu_bytes, s.max_team_scratch_bytes);  // the Kokkos cap is below the hardware
    EXPECT_EQ(s.max_team_scratch_bytes, 40 * 1024);
    EXPECT_GT(s.peak_flops(DType::fp64, Unit::vector), 0);
    EXPECT_GT(s.peak_flops(DType::fp64, Unit::matrix), s.peak_flops(DType::fp64, Unit::vector));
    EXPECT_GT(s.peak_flops(DType::fp16, Unit::matrix), 0);
    EXPECT_FALSE(s.estimated);
    EXPECT_EQ(s.warp_width, s.backend == "cuda" ? 32 : 64);
  }
  EXPECT_NE(find_device_spec("h100").source.find("NVIDIA H100 Tensor Core GPU Datasheet"), std::string::npos);
  EXPECT_NE(find_device_spec("mi300x").source.find("AMD Instinct MI300X Accelerator data sheet"),
            std::string::npos);
}

TEST(BuiltinSpecs, DatasheetFigures) {
  const auto& h100 = find_device_spec("h100");
  EXPECT_DOUBLE_EQ(h100.peak_flops(DType::fp64, Unit::vector), 34e12);
  EXPECT_DOUBLE_EQ(h100.peak_flops(DType::fp64, Unit::matrix), 67e12);
  EXPECT_DOUBLE_EQ(h100.peak_flops(DType::bf16, Unit::matrix), 989.5e12);
  EXPECT_DOUBLE_EQ(h100.peak_flops(DType::fp32, Unit::matrix), 0.0);  // TF32 is the matrix path
  EXPECT_EQ(h100.compute_units, 132);
  EXPECT_EQ(h100.scratch_per_cu_bytes, 228 * 1024);
  const auto& h200 = find_device_spec("h200");
  EXPECT_DOUBLE_EQ(h200.dram_bw_bytes_per_s, 4.8e12);
  EXPECT_DOUBLE_EQ(h200.peak_flops(DType::fp64, Unit::matrix), h100.peak_flops(DType::fp64, Unit::matrix));
  const auto& a100 = find_device_spec("a100");
  EXPECT_DOUBLE_EQ(a100.peak_flops(DType::tf32, Unit::matrix), 156e12);
  EXPECT_EQ(a100.l2_bytes, 40LL * 1024 * 1024);
  const auto& mi300x = find_device_spec("mi300x");
  EXPECT_DOUBLE_EQ(mi300x.peak_flops(DType::fp32, Unit::matrix), 163.4e12);
  EXPECT_EQ(mi300x.l2_bytes, 256LL * 1024 * 1024);
  EXPECT_EQ(mi300x.compute_units, 304);
  // No TF32 on CDNA2.
  EXPECT_DOUBLE_EQ(find_device_spec("mi210").peak_flops(DType::tf32, Unit::matrix), 0.0);
  EXPECT_DOUBLE_EQ(find_device_spec("mi250x").peak_flops(DType::tf32, Unit::matrix), 0.0);
}

TEST(BuiltinSpecs, Mi250xGcdIsHalfThePackage) {
  const auto& pkg = find_device_spec("mi250x");
  const auto& gcd = find_device_spec("mi250x-gcd");
  EXPECT_EQ(gcd.compute_units * 2, pkg.compute_units);
  EXPECT_EQ(gcd.l2_bytes, 8LL * 1024 * 1024);
  EXPECT_DOUBLE_EQ(gcd.dram_bw_bytes_per_s * 2, pkg.dram_bw_bytes_per_s);
  for (DType d : kAllDTypes)
    for (Unit u : kAllUnits) EXPECT_DOUBLE_EQ(gcd.peak_flops(d, u) * 2, pkg.peak_flops(d, u));
  EXPECT_DOUBLE_EQ(pkg.peak_flops(DType::fp16, Unit::matrix), 383e12);
}

TEST(Lookup, CaseAliasesAndSeparatorsAreIgnored) {
  EXPECT_EQ(find_device_spec("H200").key, "h200");
  EXPECT_EQ(find_device_spec("h200-sxm").key, "h200");
  EXPECT_EQ(find_device_spec("MI250X_GCD").key, "mi250x-gcd");
  EXPECT_EQ(find_device_spec("mi250x").key, "mi250x");
  EXPECT_EQ(find_device_spec("AMD Instinct MI300X").key, "mi300x");
  EXPECT_EQ(find_device_spec("A100-SXM4-80GB").key, "a100");
  EXPECT_EQ(find_device_spec("host").backend, "host");
}

TEST(Lookup, UnknownNameListsTheKnownOnes) {
  try {
    find_device_spec("b200");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'b200'"), std::string::npos);
    for (const auto& n : known_device_names()) EXPECT_NE(msg.find(n), std::string::npos) << n;
  }
}

TEST(Json, RoundTripOfEveryBuiltin) {
  for (const auto& s : builtin_device_specs()) {
    SCOPED_TRACE(s.key);
    expect_same_spec(parse_device_spec_json(device_spec_to_json(s)), s);
  }
  const auto host = find_device_spec("host");
  expect_same_spec(parse_device_spec_json(device_spec_to_json(host)), host);
}

TEST(Json, FileRoundTrip) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("ridgeline_spec_roundtrip_" + std::to_string(::getpid()) + ".json");
  save_device_spec_json(find_device_spec("mi300x"), path.string());
  expect_same_spec(load_device_spec_json(path.string()), find_device_spec("mi300x"));
  expect_same_spec(resolve_device_spec(path.string()), find_device_spec("mi300x"));
  std::filesystem::remove(path);
}

TEST(Json, UserFileWithOnlyTheNeededFields) {
  const auto s = load_device_spec_json(data_file("teaching_device.json"));
  EXPECT_EQ(s.key, "teaching");
  EXPECT_DOUBLE_EQ(s.peak_flops(DType::fp32, Unit::vector), 50e12);
  EXPECT_DOUBLE_EQ(s.peak_flops(DType::fp16, Unit::matrix), 50e12);
  EXPECT_DOUBLE_EQ(s.peak_flops(DType::fp64, Unit::vector), 0.0);
  EXPECT_DOUBLE_EQ(s.dram_bw_bytes_per_s, 1e12);
  EXPECT_EQ(s.max_team_scratch_bytes, 0);
}

TEST(Json, MalformedFilesNameTheField) {
  EXPECT_NE(load_error("malformed_missing_bandwidth.json").find("'dram_bw_bytes_per_s'"), std::string::npos);
  EXPECT_NE(load_error("malformed_missing_bandwidth.json").find("missing"), std::string::npos);
  EXPECT_NE(load_error("malformed_bad_type.json").find("'compute_units'"), std::string::npos);
  EXPECT_NE(load_error("malformed_bad_peak.json").find("'peak_flops.fp64.tensr'"), std::string::npos);
  EXPECT_NE(load_error("malformed_syntax.json").find("not valid JSON"), std::string::npos);
  EXPECT_EQ(load_error("no_such_file.json").rfind("runtime_error: ", 0), 0u);
  EXPECT_NE(load_error("no_such_file.json").find("cannot be opened"), std::string::npos);
}

TEST(Json, FieldErrorsInText) {
  auto error_of = [](const std::string& text) {
    try {
      parse_device_spec_json(text, "test");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string base =
      R"("name":"x","vendor":"v","backend":"cuda","compute_units":1,"dram_bw_bytes_per_s":1e9)";
  EXPECT_EQ(error_of("{" + base + R"(,"peak_flops":{"fp32":{"vector":1e9}}})"), "");
  EXPECT_NE(error_of("{" + base + R"(,"peak_flops":{"fp8":{"vector":1e9}}})").find("'peak_flops.fp8'"),
            std::string::npos);
  EXPECT_NE(
      error_of("{" + base + R"(,"peak_flops":{"fp32":{"vector":-1}}})").find("'peak_flops.fp32.vector'"),
      std::string::npos);
  EXPECT_NE(error_of("{" + base + R"(,"peak_flops":{}})").find("'peak_flops'"), std::string::npos);
  EXPECT_NE(error_of("{" + base + R"(,"dram_bw":5,"peak_flops":{"fp32":{"vector":1e9}}})").find("'dram_bw'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"name":"x","vendor":"v","backend":"opencl","compute_units":1,"dram_bw_bytes_per_s":1,
                        "peak_flops":{"fp32":{"vector":1}}})")
                .find("'backend'"),
            std::string::npos);
  EXPECT_NE(error_of("[1,2]").find("object"), std::string::npos);
}

TEST(Json, ImplausibleFiguresNameFieldValueRangeAndLikelyUnit) {
  auto error_of = [](const std::string& field_and_value) {
    const std::string text = R"({"name":"x","vendor":"v","backend":"cuda","compute_units":132,)"
                             R"("dram_bw_bytes_per_s":4.8e12,"peak_flops":{"fp64":{"vector":34e12}},)" +
                             field_and_value + "}";
    try {
      parse_device_spec_json(text, "'my.json'");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // TB/s written into a bytes-per-second field: the example of issue 19.
  const std::string bw = error_of(R"("dram_bw_bytes_per_s":4.8)");
  EXPECT_NE(bw.find("device spec 'my.json': field 'dram_bw_bytes_per_s': 4.8 B/s is outside the plausible "
                    "range 1 GB/s to 1 PB/s: did you mean 4.8e12, that is 4.8 TB/s"),
            std::string::npos)
      << bw;
  // The hangs of issue 19 are range errors now.
  EXPECT_NE(error_of(R"("dram_bw_bytes_per_s":1e-320)").find("'dram_bw_bytes_per_s'"), std::string::npos);
  const std::string peak = error_of(R"("peak_flops":{"fp64":{"matrix":1e308}})");
  EXPECT_NE(peak.find("field 'peak_flops.fp64.matrix': 1e308 FLOP/s is outside the plausible range "
                      "1 GFLOP/s to 1 EFLOP/s (or 0 for unknown)"),
            std::string::npos)
      << peak;
  // TFLOP/s figures: both readings are offered, the one nearer a typical device first.
  EXPECT_NE(error_of(R"("peak_flops":{"fp64":{"vector":34}})")
                .find("did you mean 3.4e13, that is 34 TFLOP/s (or "
                      "3.4e10, 34 GFLOP/s)?"),
            std::string::npos);
  EXPECT_NE(error_of(R"("l2_bytes":50)").find("did you mean 52428800, that is 50 MiB"), std::string::npos);
  EXPECT_NE(error_of(R"("boost_clock_ghz":1980)").find("did you mean 1.98, that is 1.98 GHz"),
            std::string::npos);
  EXPECT_NE(error_of(R"("launch_overhead_s":5)").find("did you mean 5e-6, that is 5 us"), std::string::npos);
  EXPECT_NE(error_of(R"("memory_bytes":141)").find("did you mean 141000000000, that is 141 GB"),
            std::string::npos);
  // Integers are range-checked before they are stored: 2^32 + 1 units must not wrap around to 1.
  EXPECT_NE(error_of(R"("compute_units":4294967297)").find("'compute_units'"), std::string::npos);
  EXPECT_NE(error_of(R"("warp_width":1e30)").find("'warp_width'"), std::string::npos);
  // NaN and Infinity: not JSON when bare, not numbers when quoted; either way the field is named.
  EXPECT_NE(error_of(R"("l2_bw_bytes_per_s":NaN)").find("not valid JSON at byte"), std::string::npos);
  EXPECT_NE(error_of(R"("l2_bw_bytes_per_s":NaN)").find("field 'l2_bw_bytes_per_s'"), std::string::npos);
  EXPECT_NE(error_of(R"("l2_bw_bytes_per_s":"Infinity")").find("JSON has no NaN or Infinity"),
            std::string::npos);
  EXPECT_NE(error_of(R"("l2_bw_bytes_per_s":1e999)").find("field 'l2_bw_bytes_per_s'"), std::string::npos);
  // 0 still means "unknown" where it did, and in-range figures load.
  EXPECT_EQ(error_of(R"("l2_bytes":0,"boost_clock_ghz":0,"launch_overhead_s":0)"), "");
  EXPECT_EQ(error_of(R"("l2_bytes":52428800,"boost_clock_ghz":1.98,"launch_overhead_s":5e-6)"), "");
}

TEST(Json, DeeplyNestedValuesAreRefusedWithoutRecursion) {
  // Copying or dumping a JSON value recurses once per level: a million levels must be refused while
  // parsing, before ordered_json copies the field on reallocation or a message dumps it. The fields
  // after the deep one make the object's field vector reallocate.
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  for (const char* field : {"aliases", "compute_units", "peak_flops"}) {
    try {
      parse_device_spec_json(std::string(R"({"name":"x",")") + field + "\":" + deep +
                                 R"(,"vendor":"v","backend":"cuda","arch":"a","source":"s","notes":"n"})",
                             "'deep'");
      ADD_FAILURE() << field << ": expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("field '") + field + "'"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("nested more than 64 levels"), std::string::npos) << e.what();
    }
  }
  // What a spec needs (three levels) and a little more still parse to their field errors.
  EXPECT_THROW(parse_device_spec_json(R"({"name":"x","aliases":[[[[1]]]]})", "'shallow'"),
               std::invalid_argument);
}

TEST(Json, BuiltinAndHostSpecsAreInTheirPlausibleRanges) {
  for (const auto& s : builtin_device_specs()) EXPECT_NO_THROW(validate_device_spec(s)) << s.key;
  EXPECT_NO_THROW(validate_device_spec(find_device_spec("host")));
  DeviceSpec s = find_device_spec("h200");
  s.dram_bw_bytes_per_s = std::nan("");
  EXPECT_THROW(validate_device_spec(s), std::invalid_argument);
}

TEST(Host, DerivationFromCpuinfo) {
  const std::string cpuinfo =
      "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU @ 2.50GHz\nphysical id\t: 0\n"
      "core id\t: 0\ncpu MHz\t\t: 1200.000\nflags\t\t: fpu sse2 avx fma avx2 avx512f avx512_bf16\n\n"
      "processor\t: 1\nphysical id\t: 0\ncore id\t: 1\n\n"
      "processor\t: 2\nphysical id\t: 0\ncore id\t: 0\n\n"  // an SMT sibling of core 0
      "processor\t: 3\nphysical id\t: 0\ncore id\t: 1\n\n";
  const HostCpuInfo info = parse_cpuinfo(cpuinfo);
  EXPECT_EQ(info.model, "Test CPU @ 2.50GHz");
  EXPECT_EQ(info.logical_cpus, 4);
  EXPECT_EQ(info.physical_cores, 2);
  EXPECT_EQ(info.simd_bits, 512);
  EXPECT_TRUE(info.fma);
  EXPECT_TRUE(info.native_bf16);
  EXPECT_FALSE(info.native_fp16);
  EXPECT_DOUBLE_EQ(info.clock_ghz, 2.5);  // the model name's base clock, not the momentary 1.2

  const DeviceSpec s = derive_host_spec(info);
  EXPECT_TRUE(s.estimated);
  EXPECT_EQ(s.backend, "host");
  EXPECT_NE(s.notes.find("Estimate"), std::string::npos);
  EXPECT_NE(s.source.find("estimate"), std::string::npos);
  // 2 cores x 8 FP64 lanes x FMA (2 FLOP) x 2 pipes x 2.5 GHz.
  EXPECT_DOUBLE_EQ(s.peak_flops(DType::fp64, Unit::vector), 2 * 8 * 2 * 2 * 2.5e9);
  EXPECT_DOUBLE_EQ(s.peak_flops(DType::fp32, Unit::vector), 2 * s.peak_flops(DType::fp64, Unit::vector));
  EXPECT_DOUBLE_EQ(s.peak_flops(DType::bf16, Unit::vector), 2 * s.peak_flops(DType::fp32, Unit::vector));
  EXPECT_DOUBLE_EQ(s.peak_flops(DType::fp16, Unit::vector), s.peak_flops(DType::fp32, Unit::vector));
  EXPECT_DOUBLE_EQ(s.peak_flops(DType::fp64, Unit::matrix), 0.0);
  EXPECT_GT(s.dram_bw_bytes_per_s, 0);
}

TEST(Host, CpuinfoWithoutModelClockUsesCpuMhz) {
  const HostCpuInfo info =
      parse_cpuinfo("processor : 0\nmodel name : Plain CPU\ncpu MHz : 3000.0\nflags : sse2\n");
  EXPECT_DOUBLE_EQ(info.clock_ghz, 3.0);
  EXPECT_NE(info.clock_source.find("current"), std::string::npos);
  EXPECT_EQ(info.simd_bits, 128);
  EXPECT_FALSE(info.fma);
}

TEST(Host, ThisMachine) {
  const DeviceSpec s = find_device_spec("host");
  EXPECT_GT(s.compute_units, 0);
  EXPECT_TRUE(s.estimated);
  EXPECT_FALSE(s.name.empty());
}

TEST(Detection, RuntimeReportsMatchBuiltins) {
  RuntimeDeviceInfo rt;
  rt.backend = "cuda";
  rt.arch = "sm_90";
  rt.compute_units = 132;
  rt.name = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(spec_from_runtime(rt).key, "h100");
  rt.name = "NVIDIA H200";
  EXPECT_EQ(spec_from_runtime(rt).key, "h200");
  EXPECT_NE(spec_from_runtime(rt).notes.find("Detected 'NVIDIA H200'"), std::string::npos);
  rt.l2_bytes = 70LL * 1024 * 1024;  // the runtime's own figure wins over the table's
  EXPECT_EQ(spec_from_runtime(rt).l2_bytes, 70LL * 1024 * 1024);
  EXPECT_NE(spec_from_runtime(rt).notes.find("Runtime figures used"), std::string::npos);
  rt.compute_units = 114;  // an H100 PCIe: same arch, other SM count
  rt.name = "NVIDIA H100 PCIe";
  EXPECT_EQ(match_builtin_spec(rt), nullptr);

  RuntimeDeviceInfo amd;
  amd.backend = "hip";
  amd.arch = "gfx90a";
  amd.compute_units = 110;
  EXPECT_EQ(spec_from_runtime(amd).key, "mi250x-gcd");  // HIP sees one GCD, name or not
  amd.compute_units = 104;
  amd.name = "AMD Instinct MI210";
  EXPECT_EQ(spec_from_runtime(amd).key, "mi210");
  amd.arch = "gfx942";
  amd.compute_units = 304;
  amd.name = "AMD Instinct MI300X";
  EXPECT_EQ(spec_from_runtime(amd).key, "mi300x");
}

TEST(Detection, UnknownDeviceGetsARuntimeSpecAndAMessage) {
  RuntimeDeviceInfo rt;
  rt.backend = "cuda";
  rt.arch = "sm_89";
  rt.name = "NVIDIA L40S";
  rt.compute_units = 142;
  rt.clock_ghz = 2.52;
  rt.warp_width = 32;
  rt.l2_bytes = 96LL * 1024 * 1024;
  rt.dram_bw_bytes_per_s = 864e9;
  const DeviceSpec s = spec_from_runtime(rt);
  EXPECT_TRUE(s.estimated);
  EXPECT_EQ(s.name, "NVIDIA L40S");
  EXPECT_NE(s.notes.find("Unknown device 'NVIDIA L40S'"), std::string::npos);
  EXPECT_NE(s.notes.find("--file"), std::string::npos);
  EXPECT_DOUBLE_EQ(s.dram_bw_bytes_per_s, 864e9);
  EXPECT_GT(s.peak_flops(DType::fp32, Unit::vector), 0);  // sm_89 has an arch rate
  EXPECT_DOUBLE_EQ(s.peak_flops(DType::fp16, Unit::matrix), 0.0);
  EXPECT_GT(s.max_team_scratch_bytes, 0);

  rt.arch = "sm_200";
  EXPECT_DOUBLE_EQ(spec_from_runtime(rt).peak_flops(DType::fp32, Unit::vector), 0.0);
  EXPECT_NE(spec_from_runtime(rt).notes.find("architecture is unknown"), std::string::npos);
}

TEST(Detection, HostExecutionSpace) {
  const DeviceSpec s = detect_device_spec<Kokkos::DefaultHostExecutionSpace>();
  EXPECT_EQ(s.backend, "host");
  EXPECT_TRUE(s.estimated);
  EXPECT_EQ(s.max_team_scratch_bytes,
            Kokkos::TeamPolicy<Kokkos::DefaultHostExecutionSpace>(1, 1).scratch_size_max(0));
  EXPECT_NE(s.notes.find(Kokkos::DefaultHostExecutionSpace::name()), std::string::npos);
}
