#pragma once
// Shapes, presets and input generation shared by ridgeline-perf and the standalone cuBLAS baseline.
// Standard C++ only: cublas_baseline.cu is compiled by a bare nvcc on the GPU machine, and both
// programs must agree on the shape syntax and produce bit-identical inputs, so that the merge step
// can compare their results without moving matrices between processes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define RIDGELINE_PERF_HOST_DEVICE __host__ __device__
#else
#define RIDGELINE_PERF_HOST_DEVICE
#endif

namespace ridgeline_perf {

enum class Op { gemm, gemv };
// fp16/bf16: A and B (A and x) in IEEE binary16 / bfloat16, C (y) in float, FP32 accumulation.
// tf32: float in and out, products on the matrix unit's TF32 path (FP32 accumulation); the inputs are
// generated exactly representable in TF32, so the result is held to the FP32 tolerance.
// cf32/cf64: complex<float> / complex<double> in and out (CGEMM/ZGEMM, CGEMV/ZGEMV), stored as
// interleaved (real, imaginary) pairs; the transpose letters may also be C (conjugate transpose). A
// complex multiply-add is 8 real FLOPs, and an element is twice its real type's bytes.
enum class Precision { fp32, fp64, fp16, bf16, tf32, cf32, cf64 };

// One measured case. GEMM: C(m x n) = alpha op(A)(m x k) op(B)(k x n) + beta C.
// GEMV: A is m x n as stored; y = alpha op(A) x + beta y (k is unused and 0).
// All matrices are column-major (LayoutLeft) with leading dimension = rows as stored.
// A batched GEMM (batch > 1) is `batch` such products, uniform, each tensor's matrices stored one after
// another (cuBLAS's strided-batched layout: the stride between matrices is rows x cols as stored).
struct ShapeSpec {
  Op op = Op::gemm;
  std::string trans = "NN";  // "NN".."TT" for GEMM, "N"/"T" for GEMV; C too for complex dtypes
  std::int64_t m = 0, n = 0, k = 0;
  Precision precision = Precision::fp32;
  std::int64_t batch = 1;  // matrices of a batched GEMM; 1 for a single product (and every GEMV)

  char trans_a() const { return trans[0]; }
  char trans_b() const { return trans.size() > 1 ? trans[1] : 'N'; }
  bool is_complex() const { return precision == Precision::cf32 || precision == Precision::cf64; }
  // Bytes of an input element (A, B, x) and of an output element (C, y).
  int in_bytes() const {
    return precision == Precision::cf64                                     ? 16
           : (precision == Precision::fp64 || precision == Precision::cf32) ? 8
           : (precision == Precision::fp16 || precision == Precision::bf16) ? 2
                                                                            : 4;
  }
  int out_bytes() const { return std::max(in_bytes(), 4); }
  // The inputs' element size; C and y may be wider (out_bytes).
  int elem_bytes() const { return in_bytes(); }
  bool narrow_inputs() const { return in_bytes() < out_bytes(); }

  // Stored extents, column-major.
  std::int64_t a_rows() const { return op == Op::gemv ? m : (trans_a() == 'N' ? m : k); }
  std::int64_t a_cols() const { return op == Op::gemv ? n : (trans_a() == 'N' ? k : m); }
  std::int64_t b_rows() const { return trans_b() == 'N' ? k : n; }
  std::int64_t b_cols() const { return trans_b() == 'N' ? n : k; }
  // GEMV vector lengths.
  std::int64_t x_len() const { return trans_a() == 'N' ? n : m; }
  std::int64_t y_len() const { return trans_a() == 'N' ? m : n; }
  // The length of each dot product: what rounding error grows with.
  std::int64_t reduction_len() const { return op == Op::gemm ? k : x_len(); }
  // Elements of one output (C_g or y), and of the whole batch's.
  std::int64_t matrix_out_elems() const { return op == Op::gemm ? m * n : y_len(); }
  std::int64_t out_elems() const { return matrix_out_elems() * batch; }

  // Real FLOPs per multiply-add: 2, or 8 for complex (four multiplies, four adds).
  double flops_per_mac() const { return is_complex() ? 8.0 : 2.0; }
  // The whole batch's: a batch's intensity is one matrix's, since flops and bytes both scale with it.
  double flops() const {
    return double(batch) * flops_per_mac() *
           (op == Op::gemm ? double(m) * double(n) * double(k) : double(m) * double(n));
  }
};

// The matrices of a batch whose results are checked, every element of each: the first, a middle
// one and the last (just matrix 0 for a single product). Shared with the cuBLAS program, whose result
// signature covers the same matrices, so that merge_results.py compares like with like.
inline std::vector<std::int64_t> check_matrices(const ShapeSpec& s) {
  std::vector<std::int64_t> g = {0};
  if (s.batch > 2) g.push_back(s.batch / 2);
  if (s.batch > 1) g.push_back(s.batch - 1);
  return g;
}

inline const char* op_name(Op op) {
  return op == Op::gemm ? "gemm" : "gemv";
}
inline const char* precision_name(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::fp64:
      return "fp64";
    case Precision::fp16:
      return "fp16";
    case Precision::bf16:
      return "bf16";
    case Precision::tf32:
      return "tf32";
    case Precision::cf32:
      return "cf32";
    case Precision::cf64:
      return "cf64";
  }
  return "?";
}

// Significant bits the inputs are generated with: 0 for the full width of the storage type (fp32,
// fp64); 11 for fp16 and tf32 (binary16's and TF32's significand), 8 for bf16.
inline int input_bits(Precision p) {
  return p == Precision::fp16 || p == Precision::tf32 ? 11 : p == Precision::bf16 ? 8 : 0;
}

inline std::string extents_string(const ShapeSpec& s) {
  std::string r = std::to_string(s.m) + "x" + std::to_string(s.n);
  if (s.op == Op::gemm) r += "x" + std::to_string(s.k);
  return r;
}

// The tables' and the CSV's shape column, which merge_results.py joins on: "4096x4096x4096", and
// for a batch "32x32x32:batch=30000", so that a batch never joins the single product of its extents.
inline std::string shape_string(const ShapeSpec& s) {
  return extents_string(s) + (s.batch > 1 ? ":batch=" + std::to_string(s.batch) : std::string());
}

// "gemm:NN:4096x4096x4096:fp32" / "gemv:T:16384x16384:fp64" / "gemm:NN:32x32x32:fp64:batch=30000";
// the canonical form parse accepts. The batch field only where there is a batch, so single products
// keep the strings (and records) they always had.
inline std::string spec_string(const ShapeSpec& s) {
  return std::string(op_name(s.op)) + ":" + s.trans + ":" + extents_string(s) + ":" +
         precision_name(s.precision) + (s.batch > 1 ? ":batch=" + std::to_string(s.batch) : std::string());
}

namespace detail {
inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

inline std::int64_t parse_extent(const std::string& tok, const std::string& whole,
                                 const char* what = "extent") {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(tok, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != tok.size() || v <= 0)
    throw std::invalid_argument(std::string("bad ") + what + " '" + tok + "' in shape '" + whole + "'");
  return v;
}

inline std::string upper(std::string s) {
  for (auto& c : s)
    if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
  return s;
}
}  // namespace detail

inline ShapeSpec parse_shape(const std::string& text) {
  const auto parts = detail::split(text, ':');
  if (parts.size() != 4 && parts.size() != 5)
    throw std::invalid_argument("shape '" + text + "' is not op:trans:extents:dtype[:batch=N]");
  ShapeSpec s;
  if (parts[0] == "gemm")
    s.op = Op::gemm;
  else if (parts[0] == "gemv")
    s.op = Op::gemv;
  else
    throw std::invalid_argument("unknown op '" + parts[0] + "' in shape '" + text + "'");
  s.trans = detail::upper(parts[1]);
  const std::size_t want_trans = s.op == Op::gemm ? 2 : 1;
  if (s.trans.size() != want_trans || s.trans.find_first_not_of("NTC") != std::string::npos)
    throw std::invalid_argument("bad transpose '" + parts[1] + "' in shape '" + text + "'");
  const auto ext = detail::split(parts[2], 'x');
  const std::size_t want_ext = s.op == Op::gemm ? 3 : 2;
  if (ext.size() != want_ext)
    throw std::invalid_argument("shape '" + text + "' needs " + std::to_string(want_ext) + " extents");
  s.m = detail::parse_extent(ext[0], text);
  s.n = detail::parse_extent(ext[1], text);
  s.k = s.op == Op::gemm ? detail::parse_extent(ext[2], text) : 0;
  if (parts[3] == "fp32" || parts[3] == "f32" || parts[3] == "float")
    s.precision = Precision::fp32;
  else if (parts[3] == "fp64" || parts[3] == "f64" || parts[3] == "double")
    s.precision = Precision::fp64;
  else if (parts[3] == "fp16" || parts[3] == "f16" || parts[3] == "half")
    s.precision = Precision::fp16;
  else if (parts[3] == "bf16" || parts[3] == "bfloat16")
    s.precision = Precision::bf16;
  else if (parts[3] == "tf32")
    s.precision = Precision::tf32;
  else if (parts[3] == "cf32" || parts[3] == "c32")
    s.precision = Precision::cf32;
  else if (parts[3] == "cf64" || parts[3] == "c64")
    s.precision = Precision::cf64;
  else
    throw std::invalid_argument("unknown dtype '" + parts[3] + "' in shape '" + text + "'");
  // C (conjugate transpose) is T for real types: one spelling per real case keeps records joinable.
  if (!s.is_complex() && s.trans.find('C') != std::string::npos)
    throw std::invalid_argument("transpose C in shape '" + text + "' is for complex dtypes (cf32, cf64); " +
                                "for real ones it is T");
  if (parts.size() == 5) {
    const std::string key = "batch=";
    if (parts[4].compare(0, key.size(), key) != 0)
      throw std::invalid_argument("fifth field '" + parts[4] + "' in shape '" + text + "' is not batch=N");
    if (s.op != Op::gemm)
      throw std::invalid_argument("batch in shape '" + text +
                                  "': only GEMM is measured batched (batched GEMV is not supported yet)");
    if (s.is_complex())
      throw std::invalid_argument("batch in shape '" + text + "': batched GEMM takes real types only");
    s.batch = detail::parse_extent(parts[4].substr(key.size()), text, "batch count");
  }
  return s;
}

namespace detail {
// Issue 14's batched classes: NN squares 4..256 and the rectangular (32x32)(32x512), fp32 and fp64, each
// with the batch count that makes its A, B and C about `bytes` together. Sized by bytes, not by matrices,
// because the small sizes are bound by memory: a fixed footprint far past the last-level cache keeps
// every case measuring the same thing, streaming, whatever its matrix size.
inline std::string batched_preset(double bytes) {
  struct Extents {
    std::int64_t m, n, k;
  };
  const Extents cases[] = {{4, 4, 4},    {8, 8, 8},       {16, 16, 16},    {32, 32, 32},
                           {64, 64, 64}, {128, 128, 128}, {256, 256, 256}, {32, 512, 32}};
  std::string list;
  for (const char* dtype : {"fp32", "fp64"}) {
    const double elem = std::string(dtype) == "fp64" ? 8.0 : 4.0;
    for (const auto& e : cases) {
      const double per_matrix = double(e.m * e.k + e.k * e.n + e.m * e.n) * elem;
      const long long batch = std::max(1LL, std::llround(bytes / per_matrix));
      list += std::string(list.empty() ? "" : ",") + "gemm:NN:" + std::to_string(e.m) + "x" +
              std::to_string(e.n) + "x" + std::to_string(e.k) + ":" + dtype +
              ":batch=" + std::to_string(batch);
    }
  }
  return list;
}
}  // namespace detail

// Preset names and what they expand to. quick-host is the README's short host run; host-2048 is
// the 0.8x-OpenBLAS target; h200 is the GPU sweep (4097 catches remainder tiles, the two skinny
// shapes catch K-small and M-small dispatch); h200-half is the 16-bit and TF32 sweep of issue 12;
// batched and batched-host are issue 14's strided batches, about 1 GB (GPU) and 64 MB (host) a case.
inline std::vector<std::string> preset_names() {
  return {"quick-host",  "host-2048", "h200",         "h200-half", "cliffs",
          "cliffs-host", "batched",   "batched-host", "complex",   "complex-host"};
}

inline std::string preset_list(const std::string& name) {
  if (name == "quick-host")
    return "gemm:NN:512x512x512:fp32,gemm:NN:1024x1024x1024:fp32,"
           "gemm:NN:512x512x512:fp64,gemm:NN:1024x1024x1024:fp64,"
           "gemv:N:4096x4096:fp32,gemv:T:4096x4096:fp32,"
           "gemv:N:4096x4096:fp64,gemv:T:4096x4096:fp64";
  if (name == "host-2048") return "gemm:NN:2048x2048x2048:fp32,gemm:NN:2048x2048x2048:fp64";
  if (name == "h200")
    return "gemm:NN:4096x4096x4096:fp32,gemm:NN:8192x8192x8192:fp32,gemm:NN:4097x4097x4097:fp32,"
           "gemm:NN:16384x16384x64:fp32,gemm:NN:64x16384x16384:fp32,"
           "gemm:NT:8192x8192x8192:fp32,gemm:TN:8192x8192x8192:fp32,gemm:TT:8192x8192x8192:fp32,"
           "gemm:NN:8192x8192x8192:fp64,"
           "gemv:N:16384x16384:fp32,gemv:T:16384x16384:fp32,gemv:N:8192x8192:fp32,gemv:T:8192x8192:fp32,"
           "gemv:N:16384x16384:fp64,gemv:T:16384x16384:fp64,gemv:N:8192x8192:fp64,gemv:T:8192x8192:fp64";
  if (name == "h200-half")
    return "gemm:NN:8192x8192x8192:fp16,gemm:NN:8192x8192x8192:bf16,"
           "gemm:NT:8192x8192x8192:fp16,gemm:TN:8192x8192x8192:fp16,"
           "gemm:NN:4097x4097x4097:fp16,gemm:NN:4097x4097x4097:bf16,"
           "gemm:NN:64x16384x16384:fp16,gemm:NN:64x16384x16384:bf16,"
           "gemv:N:16384x16384:fp16,gemv:T:16384x16384:fp16,gemv:N:16384x16384:bf16,gemv:T:16384x16384:bf16,"
           "gemm:NN:8192x8192x8192:tf32,gemm:TN:8192x8192x8192:tf32";
  // Issue 13's shape matrix: the classes where a table tuned on large squares meets its cliffs, in
  // fp32 and fp64 (46 shapes). Leading dimensions are the stored rows, so the odd extents are also
  // the odd leading dimensions.
  if (name == "cliffs")
    return
        // small squares: launch latency, too few tiles; 512 in every transpose pair
        "gemm:NN:64x64x64:fp32,gemm:NN:128x128x128:fp32,gemm:NN:256x256x256:fp32,gemm:NN:512x512x512:fp32,"
        "gemm:NT:512x512x512:fp32,gemm:TN:512x512x512:fp32,gemm:TT:512x512x512:fp32,gemm:NN:1024x1024x1024:"
        "fp32,"
        "gemm:NN:256x256x256:fp64,gemm:NN:512x512x512:fp64,gemm:NN:1024x1024x1024:fp64,"
        // skinny N (multiple right-hand sides) and skinny M: memory-bound, A read once
        "gemm:NN:16384x2x16384:fp32,gemm:NN:16384x8x16384:fp32,gemm:NN:16384x16x16384:fp32,"
        "gemm:NN:16384x32x16384:fp32,gemm:TN:16384x16x16384:fp32,gemm:NN:16384x8x16384:fp64,"
        "gemm:NN:16384x64x16384:fp64,gemm:NN:8x16384x16384:fp32,"
        // skinny K
        "gemm:NN:4096x4096x16:fp32,gemm:NN:4096x4096x64:fp32,gemm:NN:8192x8192x128:fp32,"
        "gemm:NN:8192x8192x256:fp32,gemm:NN:4096x4096x64:fp64,gemm:NN:8192x8192x256:fp64,"
        // wide and tall GEMV
        "gemv:N:1000x100000:fp32,gemv:T:1000x100000:fp32,gemv:N:100000x1000:fp32,gemv:T:100000x1000:fp32,"
        "gemv:N:1000x100000:fp64,gemv:T:1000x100000:fp64,gemv:N:100000x1000:fp64,"
        // irregular: primes, near powers of two, odd leading dimensions
        "gemm:NN:3001x2999x1501:fp32,gemm:TN:3001x2999x1501:fp64,gemm:TN:6144x6144x6144:fp32,"
        "gemm:NN:4095x4095x4095:fp32,gemm:NN:4099x4099x4099:fp64,gemm:NN:1021x1031x1033:fp32,"
        "gemm:NN:2039x2053x2063:fp64,gemm:NN:8191x8191x8191:fp32,"
        // tile counts whose last wave is nearly empty
        "gemm:NN:2500x2500x2500:fp64,gemm:NN:4224x4224x4224:fp32,gemm:NN:2176x2176x2176:fp32,"
        "gemm:NN:2624x2624x2624:fp64,gemm:NN:5000x5000x2000:fp32,gemm:NT:5000x5000x2000:fp64";
  // The same classes scaled to a host (issue 13 asks for them against OpenBLAS): a few cores' worth of
  // work per shape, so the whole preset runs in a minute or two with all three implementations.
  if (name == "cliffs-host")
    return
        // small squares
        "gemm:NN:64x64x64:fp32,gemm:NN:128x128x128:fp32,gemm:NN:256x256x256:fp32,gemm:NN:512x512x512:fp32,"
        "gemm:TN:512x512x512:fp32,gemm:NN:128x128x128:fp64,gemm:NN:256x256x256:fp64,gemm:NN:512x512x512:fp64,"
        // skinny N and skinny M
        "gemm:NN:4096x2x4096:fp32,gemm:NN:4096x8x4096:fp32,gemm:NN:4096x16x4096:fp32,gemm:NN:4096x32x4096:"
        "fp32,"
        "gemm:TN:4096x16x4096:fp32,gemm:NN:4096x8x4096:fp64,gemm:NN:8x4096x4096:fp32,"
        // skinny K
        "gemm:NN:2048x2048x16:fp32,gemm:NN:2048x2048x64:fp32,gemm:NN:2048x2048x64:fp64,"
        // wide and tall GEMV
        "gemv:N:500x50000:fp32,gemv:T:500x50000:fp32,gemv:N:50000x500:fp32,gemv:T:50000x500:fp32,"
        "gemv:N:500x50000:fp64,gemv:T:500x50000:fp64,"
        // irregular extents and odd leading dimensions
        "gemm:NN:1021x1031x1033:fp32,gemm:TN:1001x999x1003:fp64,gemm:NN:1023x1023x1023:fp32,"
        "gemm:NN:1025x1025x1025:fp64,"
        // tile counts that split unevenly over the cores
        "gemm:NN:1536x1536x512:fp32,gemm:NN:768x768x768:fp64";
  // Issue 14: uniform strided batches. A GPU case is about 1 GB, far past the H200's 60 MB L2 (one buffer
  // set per case); a host case about 64 MB, quick on two cores, with rotation (--rotate-bytes) adding
  // sets past the last-level cache.
  // Issue 18's complex targets: ZGEMM and CGEMM NN 8192^3, C on either side at 4096^3, ZGEMV and CGEMV in
  // N, T and C at 16384^2 (H200); complex-host the host's, ZGEMM and CGEMM 2048^3 against OpenBLAS, with
  // C on either side and the three GEMV letters at sizes a few cores run quickly.
  if (name == "complex")
    return "gemm:NN:8192x8192x8192:cf64,gemm:NN:8192x8192x8192:cf32,"
           "gemm:CN:4096x4096x4096:cf64,gemm:NC:4096x4096x4096:cf64,"
           "gemm:CN:4096x4096x4096:cf32,gemm:NC:4096x4096x4096:cf32,"
           "gemv:N:16384x16384:cf64,gemv:T:16384x16384:cf64,gemv:C:16384x16384:cf64,"
           "gemv:N:16384x16384:cf32,gemv:T:16384x16384:cf32,gemv:C:16384x16384:cf32";
  if (name == "complex-host")
    return "gemm:NN:2048x2048x2048:cf64,gemm:NN:2048x2048x2048:cf32,"
           "gemm:CN:1024x1024x1024:cf64,gemm:NC:1024x1024x1024:cf32,"
           "gemv:N:4096x4096:cf64,gemv:T:4096x4096:cf64,gemv:C:4096x4096:cf64,"
           "gemv:N:4096x4096:cf32,gemv:C:4096x4096:cf32";
  if (name == "batched") return detail::batched_preset(1e9);
  if (name == "batched-host") return detail::batched_preset(64e6);
  return "";
}

// A preset name, or a comma-separated list of shapes (presets may appear inside the list).
inline std::vector<ShapeSpec> parse_shapes(const std::string& text) {
  std::vector<ShapeSpec> out;
  for (const auto& item : detail::split(text, ',')) {
    const std::string expanded = preset_list(item);
    if (!expanded.empty()) {
      for (const auto& s : detail::split(expanded, ',')) out.push_back(parse_shape(s));
    } else {
      out.push_back(parse_shape(item));
    }
  }
  if (out.empty()) throw std::invalid_argument("no shapes in '" + text + "'");
  return out;
}

// ---- memory ------------------------------------------------------------------------------------
// What one case allocates, checked before anything is: a shape of 99999999999^3 or a 2^32 x 2^32
// GEMV would otherwise end in an allocation failure after the earlier shapes ran, or in a product
// that wrapped around to a size that does fit and a run that never ends.

namespace detail {
// a * b, or false when the product passes 2^64 - 1.
inline bool mul_u64(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  if (a != 0 && b > UINT64_MAX / a) return false;
  out = a * b;
  return true;
}
inline bool add_u64(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  if (b > UINT64_MAX - a) return false;
  out = a + b;
  return true;
}
// Bytes of a rows x cols matrix of elem_bytes-byte elements.
inline bool matrix_bytes(int elem_bytes, std::int64_t rows, std::int64_t cols, std::uint64_t& out) {
  std::uint64_t elems = 0;
  return rows > 0 && cols > 0 && mul_u64(std::uint64_t(rows), std::uint64_t(cols), elems) &&
         mul_u64(elems, std::uint64_t(elem_bytes), out);
}
}  // namespace detail

struct CaseFootprint {
  bool overflow = false;          // a byte count passed 2^64 - 1: the case fits in no memory
  std::uint64_t set_bytes = 0;    // one buffer set: A, B, C (GEMM) or A, x, y (GEMV), all the batch's
  int sets = 1;                   // buffer sets the timing rotates through
  std::uint64_t check_bytes = 0;  // the check run's output and its reference (of check_matrices)
  std::uint64_t total_bytes = 0;  // sets x set_bytes + check_bytes
};

// The sets are as many as it takes to exceed rotate_bytes, at least 1 and at most max_sets.
inline CaseFootprint case_footprint(const ShapeSpec& s, double rotate_bytes, int max_sets) {
  CaseFootprint f;
  // A and B (x) have the inputs' element size, C (y) and the check's copies the output's.
  std::uint64_t a = 0, b = 0, c = 0;
  const int ei = s.in_bytes(), eo = s.out_bytes();
  bool ok = detail::matrix_bytes(ei, s.a_rows(), s.a_cols(), a);
  if (s.op == Op::gemm) {
    ok = ok && detail::matrix_bytes(ei, s.b_rows(), s.b_cols(), b) && detail::matrix_bytes(eo, s.m, s.n, c);
  } else {
    ok = ok && detail::matrix_bytes(ei, s.x_len(), 1, b) && detail::matrix_bytes(eo, s.y_len(), 1, c);
  }
  std::uint64_t out_bytes = 0;
  ok = ok &&
       detail::matrix_bytes(eo, s.op == Op::gemm ? s.m : s.y_len(), s.op == Op::gemm ? s.n : 1, out_bytes);
  ok = ok && detail::add_u64(a, b, f.set_bytes) && detail::add_u64(f.set_bytes, c, f.set_bytes);
  ok = ok && s.batch > 0 && detail::mul_u64(f.set_bytes, std::uint64_t(s.batch), f.set_bytes);
  // The check writes the whole batch and keeps a reference of the checked matrices (one output and one
  // reference for a single product).
  std::uint64_t check_outputs = 0;
  ok = ok &&
       detail::add_u64(std::uint64_t(s.batch), std::uint64_t(check_matrices(s).size()), check_outputs) &&
       detail::mul_u64(out_bytes, check_outputs, f.check_bytes);
  if (!ok) {
    f.overflow = true;
    return f;
  }
  // In double, clamped before the conversion: --rotate-bytes 1e30 must not overflow an int.
  const double want = rotate_bytes > 0 ? std::ceil(rotate_bytes / double(f.set_bytes)) : 1.0;
  f.sets = int(std::max(1.0, std::min(double(std::max(1, max_sets)), want)));
  std::uint64_t rotated = 0;
  f.overflow = !detail::mul_u64(f.set_bytes, std::uint64_t(f.sets), rotated) ||
               !detail::add_u64(rotated, f.check_bytes, f.total_bytes);
  return f;
}

inline std::string bytes_text(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int i = 0;
  while (b >= 1024 && i < 6) {
    b /= 1024;
    ++i;
  }
  std::ostringstream os;
  os.precision(b < 10 ? 3 : 4);
  os << b << " " << units[i];
  return os.str();
}

// Throws std::invalid_argument naming the first case that does not fit in memory_bytes (the memory
// of the execution space, described by memory_name), and by how much.
inline void check_shapes_fit(const std::vector<ShapeSpec>& shapes, double rotate_bytes, int max_sets,
                             std::uint64_t memory_bytes, const std::string& memory_name) {
  for (const auto& s : shapes) {
    const CaseFootprint f = case_footprint(s, rotate_bytes, max_sets);
    if (f.overflow)
      throw std::invalid_argument("shape '" + spec_string(s) + "' does not fit in " + memory_name + " (" +
                                  bytes_text(double(memory_bytes)) +
                                  "): its buffers need more than 2^64 bytes (16 EiB)");
    if (f.total_bytes > memory_bytes)
      throw std::invalid_argument(
          "shape '" + spec_string(s) + "' does not fit in " + memory_name + ": it needs " +
          bytes_text(double(f.total_bytes)) + " (" + std::to_string(f.sets) + " buffer set(s) of " +
          bytes_text(double(f.set_bytes)) + " plus " + bytes_text(double(f.check_bytes)) +
          " for the check), " + bytes_text(double(f.total_bytes - memory_bytes)) + " more than the " +
          bytes_text(double(memory_bytes)) + " there is");
  }
}

// ---- inputs ------------------------------------------------------------------------------------
// Counter-based values: element i of a tensor is a pure function of (seed, i), so the Kokkos
// harness and the cuBLAS program fill identical matrices on any device, in any order, without
// shipping data. Values are uniform in [-1, 1) and exactly representable, never zero-filled.

RIDGELINE_PERF_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

enum class Tensor : std::uint64_t { a = 1, b = 2, c = 3, x = 4, y = 5, check_out = 6 };

// Seed of one tensor of one rotation set; set 0 is also the set the correctness check reads.
inline std::uint64_t tensor_seed(std::uint64_t base, Tensor t, int set) {
  return mix64(base ^ mix64(std::uint64_t(t) * 0x100000001b3ull + std::uint64_t(set)));
}

template <class Scalar>
RIDGELINE_PERF_HOST_DEVICE inline Scalar input_value(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t h = mix64(seed ^ (index * 0xd1342543de82ef95ull));
  // 24 bits for float and 53 for double keep 2u-1 exact in the target type.
  if constexpr (sizeof(Scalar) == 4) {
    const float u = float(h >> 40) * (1.0f / 16777216.0f);
    return Scalar(2.0f * u - 1.0f);
  } else {
    const double u = double(h >> 11) * (1.0 / 9007199254740992.0);
    return Scalar(2.0 * u - 1.0);
  }
}

// Inputs for narrow formats: odd multiples of 2^-bits in (-1, 1), i.e. (2j + 1 - 2^bits) / 2^bits for j
// uniform in [0, 2^bits). Their numerators need at most `bits` significant bits, so with bits = 11 they
// are exact in binary16 and TF32 and with bits = 8 in bfloat16, and they are never zero. Products of
// two need at most 22 bits: exact in float, so an FP32-accumulated result errs by accumulation alone.
RIDGELINE_PERF_HOST_DEVICE inline float input_value_bits(std::uint64_t seed, std::uint64_t index, int bits) {
  const std::uint64_t h = mix64(seed ^ (index * 0xd1342543de82ef95ull));
  const std::int64_t j = std::int64_t(h >> (64 - bits));
  const std::int64_t one = std::int64_t(1) << bits;
  return float(2 * j + 1 - one) / float(one);
}

// +1/-1 weights of the result probe: sum_i w_i out_i differs by O(|out|) between a right and a
// wrong result, so two programs can compare results through two numbers.
RIDGELINE_PERF_HOST_DEVICE inline double probe_weight(std::uint64_t index) {
  return (mix64(index ^ 0x5851f42d4c957f2dull) & 1u) ? 1.0 : -1.0;
}

constexpr std::uint64_t default_seed = 20240611ull;

// Tolerance on the relative Frobenius error of a result against the baseline: the worst-case
// dot-product error bound grows with K * eps; the factor absorbs blocked-summation differences.
// fp16/bf16/tf32 inputs are exact in their format (input_value_bits) and their products exact in
// float, so those rows err by FP32 accumulation alone: float's eps.
// Complex rows: each part of a complex dot product of length K is a real one of length 2K.
inline double check_tolerance(const ShapeSpec& s) {
  const double eps = s.precision == Precision::fp64 || s.precision == Precision::cf64 ? 1.11e-16 : 5.96e-8;
  // TF32 inputs lose up to 2^-10 of themselves each, so a product up to 2^-9, whatever K is.
  const double inputs = s.precision == Precision::tf32 ? 0x1p-9 : 0.0;
  const double len = double(s.reduction_len()) * (s.is_complex() ? 2.0 : 1.0);
  return 4.0 * (inputs + (len + 2) * eps);
}

}  // namespace ridgeline_perf
