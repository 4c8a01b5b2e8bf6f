// The tuner (ridgeline/tune.hpp) and the tune cache (ridgeline/tune_cache.hpp), compiled for every enabled
// backend inside test_gemm: the cache file's format and errors, the shape classes, the measurement's
// restore and reference check (a candidate that compounds beta * C or computes a wrong result is caught),
// every candidate plan of a few shapes checked element by element through ridgeline::gemm, and gemm applying
// a cached choice (and ignoring one it cannot run). Nothing here times anything: the tuner's medians are
// computed but never compared.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ridgeline/ridgeline.hpp>
#include <ridgeline/tune.hpp>
#include <string>

#include "reference.hpp"

namespace ridgeline::test {
namespace {

// Points RIDGELINE_TUNE_CACHE at a file of this test's for its lifetime, then turns the cache off again
// (test_main.cpp starts every test with it off).
struct CacheFile {
  std::string path;
  explicit CacheFile(const std::string& name) {
    path = (std::filesystem::temp_directory_path() /
            ("ridgeline-test-" + std::to_string(::getpid()) + "-" + name + ".json"))
               .string();
    std::filesystem::remove(path);
    ::setenv("RIDGELINE_TUNE_CACHE", path.c_str(), 1);
    reload_tune_cache();
  }
  void write(const std::string& text) const {
    std::ofstream(path) << text;
    reload_tune_cache();
  }
  // The file holding this one choice, read again.
  void hold(const TuneKey& key, const TuneChoice& choice) const {
    TuneCache cache;
    cache.set(key, choice);
    cache.save(path);
    reload_tune_cache();
  }
  ~CacheFile() {
    std::filesystem::remove(path);
    ::setenv("RIDGELINE_TUNE_CACHE", "", 1);
    reload_tune_cache();
  }
};

TEST(TuneCache, RoundTripFindAndReplace) {
  TuneCache c;
  const TuneKey k1{"NVIDIA H200", "cuda", "fp32", "NN packets m2048 n2048 k256 beta=0"};
  const TuneKey k2{"NVIDIA H200", "cuda", "fp64", "NN packets m2048 n2048 k256 beta=0"};
  TuneChoice a;
  a.entry = "small tiles 64x64x16/8x4 simt-lds128", a.slices = 2, a.builtin_ms = 0.5, a.tuned_ms = 0.4;
  a.shape = "3000x3000x300 NN";
  c.set(k1, a);
  c.set(k2, TuneChoice{});
  const TuneCache back = TuneCache::parse(c.to_json(), "round trip");
  ASSERT_EQ(back.records().size(), 2u);
  ASSERT_NE(back.find(k1), nullptr);
  EXPECT_EQ(back.find(k1)->entry, a.entry);
  // The lookup gemm makes: names and the class as numbers.
  EXPECT_EQ(
      back.find("NVIDIA H200", "cuda", "fp32", shape_class_of(3000, 3000, 300, true, false, true, true)),
      back.find(k1));
  EXPECT_EQ(
      back.find("NVIDIA H200", "cuda", "fp32", shape_class_of(3000, 3000, 300, true, false, true, false)),
      nullptr);
  EXPECT_EQ(back.find(k1)->slices, 2);
  EXPECT_DOUBLE_EQ(back.find(k1)->tuned_ms, 0.4);
  EXPECT_EQ(back.find(k2)->entry, "builtin");
  EXPECT_EQ(back.find(TuneKey{"NVIDIA H100", "cuda", "fp32", k1.shape_class}), nullptr);
  a.slices = 3;
  c.set(k1, a);  // replaces, never duplicates
  EXPECT_EQ(c.records().size(), 2u);
  EXPECT_EQ(c.find(k1)->slices, 3);
}

TEST(TuneCache, MalformedFilesNameFileAndField) {
  const auto error_of = [](const std::string& text) {
    try {
      TuneCache::parse(text, "my.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("{").find("my.json"), std::string::npos);
  EXPECT_NE(error_of(R"({"format": "other", "choices": []})").find("format 'other'"), std::string::npos);
  EXPECT_NE(error_of(R"({"format": "ridgeline-tune-1"})").find("'choices'"), std::string::npos);
  const std::string bad_slices =
      R"({"format": "ridgeline-tune-1", "choices": [{"device": "d", "backend": "b", "dtype": "fp32",
          "class": "NN packets m1 n2 k1 beta=0", "entry": "builtin", "slices": -1}]})";
  EXPECT_NE(error_of(bad_slices).find("choices[0]: field 'slices'"), std::string::npos);
  const std::string no_entry =
      R"({"format": "ridgeline-tune-1", "choices": [{"device": "d", "backend": "b", "dtype": "fp32",
          "class": "TN elements m3 n4 k6 beta!=0"}]})";
  EXPECT_NE(error_of(no_entry).find("field 'entry' is missing"), std::string::npos);
  // A class off the grid (3000 is not 2^j or 3 * 2^(j-1)) could never match a call.
  const std::string off_grid =
      R"({"format": "ridgeline-tune-1", "choices": [{"device": "d", "backend": "b", "dtype": "fp32",
          "class": "NN packets m3000 n2048 k256 beta=0", "entry": "builtin"}]})";
  EXPECT_NE(error_of(off_grid).find("choices[0]: field 'class'"), std::string::npos);
}

TEST(TuneCache, ShapeClassesOnTheGrid) {
  const std::int64_t in[] = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 16, 300, 383, 384, 3000, 3071, 3072, 4096, 6143};
  const std::int64_t want[] = {1,  2,   3,   4,   4,    6,    6,    8,    8,   12,
                               16, 256, 256, 384, 2048, 2048, 3072, 4096, 4096};
  for (std::size_t i = 0; i < std::size(in); ++i) EXPECT_EQ(shape_class_floor(in[i]), want[i]) << in[i];
  EXPECT_EQ(gemm_shape_class(3000, 3000, 300, true, false, true, true), "NN packets m2048 n2048 k256 beta=0");
  EXPECT_EQ(gemm_shape_class(17, 9, 1000, false, true, false, false), "TT elements m16 n8 k768 beta!=0");
  const ShapeClass c = parse_shape_class("TT elements m16 n8 k768 beta!=0");
  EXPECT_TRUE(c == shape_class_of(17, 9, 1000, false, true, false, false));
  EXPECT_EQ(to_string(c), "TT elements m16 n8 k768 beta!=0");
  EXPECT_THROW(parse_shape_class("NN packets m16 n8 k768"), std::invalid_argument);
  EXPECT_THROW(parse_shape_class("NN packets m16 n8 k768 beta=0 extra"), std::invalid_argument);
}

// Two shapes of one class: one cached choice, the candidate with the best geometric mean over both, or the
// table's plan where no candidate's mean reaches the gain asked for.
TEST(TuneCache, ShapesOfOneClassShareTheBestMeanChoice) {
  const auto candidate = [](const char* entry, int slices, double ms, bool accepted = true) {
    TuneCandidateResult c;
    c.choice.entry = entry, c.choice.slices = slices, c.median_ms = ms, c.accepted = accepted;
    return c;
  };
  const auto outcome = [&](const char* shape, std::vector<TuneCandidateResult> c, const char* cls) {
    TuneOutcome o;
    o.key = TuneKey{"d", "b", "fp32", cls};
    o.shape = shape, o.candidates = std::move(c);
    o.choice.entry = "x", o.choice.builtin = "table";
    return o;
  };
  const char* cls = "NN packets m2048 n2048 k2048 beta=0";
  std::vector<TuneOutcome> v{
      outcome("2048", {candidate("builtin", 0, 1.0), candidate("a", 0, 1.25), candidate("b", 2, 0.9)}, cls),
      outcome("2500", {candidate("builtin", 0, 2.0), candidate("a", 0, 1.5), candidate("b", 2, 1.9)}, cls),
      outcome("alone", {candidate("builtin", 0, 1.0), candidate("a", 0, 0.5)},
              "NN packets m64 n64 k64 beta=0")};
  v[2].choice.entry = "a";
  // a: 0.8x and 1.333x (mean 1.033); b: 1.111x and 1.053x (mean 1.082).
  const std::vector<std::string> notes = merge_tune_classes(v, 1.02);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("2 shapes (2048 + 2500)"), std::string::npos) << notes[0];
  for (int i : {0, 1}) {
    EXPECT_EQ(v[i].choice.entry, "b");
    EXPECT_EQ(v[i].choice.slices, 2);
    EXPECT_NEAR(v[i].gain, std::sqrt(1.0 / 0.9 * 2.0 / 1.9), 1e-12);
    EXPECT_EQ(v[i].choice.shape, "2048 + 2500");
    EXPECT_DOUBLE_EQ(v[i].choice.builtin_ms, 3.0);
    EXPECT_DOUBLE_EQ(v[i].choice.tuned_ms, 2.8);
  }
  EXPECT_EQ(v[2].choice.entry, "a");  // alone in its class: untouched
  // Asking a gain of 1.1: none reaches it, the table's plan.
  std::vector<TuneOutcome> w{v[0], v[1]};
  w[1].candidates[2].accepted = false;  // b no longer ran everywhere: only a (mean 1.033) is left
  merge_tune_classes(w, 1.02);
  EXPECT_EQ(w[0].choice.entry, "a");
  merge_tune_classes(w, 1.1);
  EXPECT_EQ(w[0].choice.entry, "builtin");
  EXPECT_EQ(w[1].gain, 1.0);
}

// A small product measured by hand-made candidates: C = alpha A B + beta C0, reference on the host.
struct Measured {
  Kokkos::View<float**, Kokkos::LayoutLeft, Mem> A, B, C, C0;
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> ref, tol;
  static constexpr float alpha = 1.0f, beta = 0.5f;
  Measured(std::int64_t m, std::int64_t n, std::int64_t k)
      : A("A", m, k), B("B", k, n), C("C", m, n), C0("C0", m, n), ref("ref", m, n), tol("tol", m, n) {
    detail::tune_fill(Exec(), A, 1), detail::tune_fill(Exec(), B, 2), detail::tune_fill(Exec(), C0, 3);
    Exec().fence();
    const Expected e = reference_gemm(to_host(A), to_host(B), to_host(C0), alpha, beta, eps_of<float>());
    auto hr = Kokkos::create_mirror_view(ref);
    auto ht = Kokkos::create_mirror_view(tol);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) hr(i, j) = e.value(i, j), ht(i, j) = e.bound(i, j);
    Kokkos::deep_copy(ref, hr), Kokkos::deep_copy(tol, ht);
    Kokkos::deep_copy(C, C0);
  }
  TuneCandidateResult measure(float a, bool restore) {
    return detail::measure_tune_candidate(
        Exec(), [&] { ridgeline::gemm(Exec(), "N", "N", a, A, B, beta, C); }, C, C0, ref, tol, 1, 3, restore);
  }
};

TEST(Tune, MeasurementAcceptsCorrectCandidate) {
  Measured p(70, 50, 90);
  const TuneCandidateResult r = p.measure(Measured::alpha, true);
  EXPECT_TRUE(r.accepted) << r.rejected;
  EXPECT_LE(r.worst_error, 1.0);
  EXPECT_GT(r.median_ms, 0.0);
}

TEST(Tune, MeasurementCatchesSkippedRestore) {
  // Without the restore, beta * C compounds over the runs: the first run still matches (C starts as C0),
  // the check after the timed runs does not.
  Measured p(70, 50, 90);
  const TuneCandidateResult r = p.measure(Measured::alpha, false);
  EXPECT_FALSE(r.accepted);
  EXPECT_NE(r.rejected.find("wrong result after its timed runs"), std::string::npos) << r.rejected;
}

TEST(Tune, MeasurementCatchesWrongResult) {
  Measured p(70, 50, 90);
  const TuneCandidateResult r = p.measure(1.01f * Measured::alpha, true);  // alpha 1% off
  EXPECT_FALSE(r.accepted);
  EXPECT_NE(r.rejected.find("wrong result after its first run"), std::string::npos) << r.rejected;
  EXPECT_GT(r.worst_error, 1.0);
  EXPECT_EQ(r.median_ms, 0.0);  // its time never counted
}

TEST(Tune, MeasurementReportsACandidateThatThrows) {
  Measured p(20, 20, 20);
  const TuneCandidateResult r = detail::measure_tune_candidate(
      Exec(), [] { throw std::runtime_error("requested too large team size"); }, p.C, p.C0, p.ref, p.tol, 1,
      3);
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.rejected, "requested too large team size");
}

// Every plan the tuner tries on these shapes runs through ridgeline::gemm with its choice forced and is
// checked element by element (tune_gemm's own check): none may be wrong. A candidate may be rejected only
// because its entry cannot run the operands, or because the device refuses its launch (CUDA: scratch or
// team size), never for its result. Shapes that reach the tile entries (packets and not), split K, the
// multi-vector entries and k-contiguous op(A). others: the shape has plans besides the table's on every
// backend (the multi-vector entries' slice counts); the host's one tile entry stages all of K at once and
// never splits, so a GEMM tile shape may have none there.
template <class T>
void every_candidate_correct(std::int64_t m, std::int64_t n, std::int64_t k, char ta, char tb, bool others,
                             double beta) {
  TuneRequest rq;
  rq.m = m, rq.n = n, rq.k = k, rq.trans_a = ta, rq.trans_b = tb, rq.warmup = 1, rq.reps = 1, rq.beta = beta;
  rq.flush_bytes = 1 << 20;  // the flush runs, small: nothing here is timed
  const TuneOutcome o = tune_gemm<Exec, T>(Exec(), rq);
  int ran = 0;
  for (const TuneCandidateResult& c : o.candidates) {
    EXPECT_EQ(c.rejected.find("wrong result"), std::string::npos)
        << o.shape << ": " << c.plan << ": " << c.rejected;
    ran += c.accepted;
  }
  EXPECT_TRUE(o.candidates[0].accepted) << o.candidates[0].rejected;
  EXPECT_EQ(o.candidates[0].choice.entry, "builtin");
  EXPECT_GE(ran, others ? 2 : 1) << o.shape;
  EXPECT_EQ(o.key.dtype, detail::tune_dtype_name<T>());
  EXPECT_EQ(o.key.shape_class.substr(0, 2), std::string({ta, tb}));
  EXPECT_EQ(o.key.shape_class.substr(o.key.shape_class.size() - 7), beta == 0 ? " beta=0" : "beta!=0");
}
TEST(Tune, EveryCandidateCorrectFloat) {
  every_candidate_correct<float>(304, 260, 520, 'N', 'N', false, 0.0);
  every_candidate_correct<float>(301, 260, 517, 'N', 'N', false, 0.5);
  every_candidate_correct<float>(1030, 8, 700, 'N', 'N', true, -1.0);
  every_candidate_correct<float>(200, 12, 640, 'T', 'N', false, 0.0);
}
TEST(Tune, EveryCandidateCorrectDouble) {
  every_candidate_correct<double>(260, 302, 518, 'N', 'T', false, 0.5);
  every_candidate_correct<double>(1030, 4, 700, 'N', 'N', true, 0.0);
}

// gemm applies a cached choice for its call's key, and gemm_tile_config says so; a choice it cannot run,
// or an entry this build lacks, leaves the table's plan; a cache that does not parse fails the call.
TEST(Tune, GemmAppliesCachedChoice) {
  using L = detail::GemmEntriesOf<Exec, float>;
  // Twelve columns: the table runs a multi-vector entry on every backend; the cached choice, the general
  // tile entry (element staging, K split where the backend splits), is one every backend can run instead.
  const std::int64_t m = 300, n = 12, k = 400;
  Kokkos::View<float**, Kokkos::LayoutLeft, Mem> A("A", m, k), B("B", k, n), C("C", m, n);
  fill_random(A, 11), fill_random(B, 12), fill_random(C, 13);
  const HostMatrix C0 = to_host(C);
  const auto a = detail::as_const(detail::strided_op(A, detail::Trans::N));
  const auto b = detail::as_const(detail::strided_op(B, detail::Trans::N));
  const int general = L::find(detail::GemmRole::general);
  ASSERT_GE(general, 0);
  const detail::GemmPlan table = detail::gemm_plan(Exec(), a, b);
  ASSERT_NE(table.entry, general) << "twelve columns: the table picks a multi-vector entry";

  CacheFile file("applies");
  TuneChoice choice;
  choice.entry = detail::gemm_entry_key<Exec, float>(general), choice.slices = 2;
  file.hold(detail::gemm_tune_key(Exec(), a, b, false), choice);  // a class of calls with beta != 0

  const TileConfig t = gemm_tile_config(Exec(), "N", "N", A, B, C, -0.5f);
  EXPECT_EQ(t.entry, "general");
  EXPECT_NE(t.tuned.find(file.path), std::string::npos) << t.tuned;
  detail::GemmPlan want = table;
  const std::int64_t cu = detail::ComputeUnits<detail::Backend<Exec, float>, Exec>::of(Exec());
  ASSERT_TRUE((detail::apply_tune_choice<Exec, float>(want, choice, a, b, cu)));
  EXPECT_EQ(t.k_slices, want.split.slices);
  ridgeline::gemm(Exec(), "N", "N", 0.75f, A, B, -0.5f, C);
  EXPECT_TRUE(matches(to_host(C), reference_gemm(to_host(A), to_host(B), C0, 0.75, -0.5, eps_of<float>())));

  // Other classes have no choice: the table's plan. beta = 0 (the overload without beta says so too), and K 3
  // times as deep.
  EXPECT_TRUE(gemm_tile_config(Exec(), "N", "N", A, B, C, 0.0f).tuned.empty());
  EXPECT_TRUE(gemm_tile_config(Exec(), "N", "N", A, B, C).tuned.empty());
  Kokkos::View<float**, Kokkos::LayoutLeft, Mem> A3("A3", m, 3 * k), B3("B3", 3 * k, n), C3("C3", m, n);
  EXPECT_TRUE(gemm_tile_config(Exec(), "N", "N", A3, B3, C3, -0.5f).tuned.empty());

  // An entry this build lacks: the table's plan.
  choice.entry = "general 1x1x1/1x1 none";
  file.hold(detail::gemm_tune_key(Exec(), a, b, false), choice);
  EXPECT_TRUE(gemm_tile_config(Exec(), "N", "N", A, B, C, -0.5f).tuned.empty());
  EXPECT_EQ(gemm_tile_config(Exec(), "N", "N", A, B, C, -0.5f).entry, detail::role_name(table.role));

  // A file that does not parse: every GEMM call says which file.
  file.write("{ not json");
  try {
    ridgeline::gemm(Exec(), "N", "N", 1.0f, A, B, 0.0f, C);
    ADD_FAILURE() << "a malformed tune cache was ignored";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(file.path), std::string::npos) << e.what();
  }
}

TEST(Tune, CachedChoiceThatCannotRunIsIgnored) {
  // A packet entry's key cached for operands that cannot stage in packets (a leading dimension of 301):
  // gemm keeps the table's plan, which stages elements.
  using L = detail::GemmEntriesOf<Exec, double>;
  const int packets = L::find(detail::GemmRole::packets);
  ASSERT_GE(packets, 0);
  const std::int64_t m = 301, n = 64, k = 129;
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> A("A", m, k), B("B", k, n), C("C", m, n);
  fill_random(A, 21), fill_random(B, 22), fill_random(C, 23);
  const HostMatrix C0 = to_host(C);
  const auto a = detail::as_const(detail::strided_op(A, detail::Trans::N));
  const auto b = detail::as_const(detail::strided_op(B, detail::Trans::N));
  ASSERT_FALSE(detail::operands_stage_in_packets(a, b));
  CacheFile file("cannot-run");
  TuneChoice choice;
  choice.entry = detail::gemm_entry_key<Exec, double>(packets);
  file.hold(detail::gemm_tune_key(Exec(), a, b, false), choice);
  EXPECT_TRUE(gemm_tile_config(Exec(), "N", "N", A, B, C, 0.25).tuned.empty());
  ridgeline::gemm(Exec(), "N", "N", 1.5, A, B, 0.25, C);
  EXPECT_TRUE(matches(to_host(C), reference_gemm(to_host(A), to_host(B), C0, 1.5, 0.25, eps_of<double>())));
}

}  // namespace
}  // namespace ridgeline::test
