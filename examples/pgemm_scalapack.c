// pdgemm_ and psgemm_ from ScaLAPACK on a 2x2 BLACS process grid, with Ridgeline's dgemm_/sgemm_
// (libridgeline_blas.so) doing each rank's local multiplies: the route for applications that outgrow
// one node. Run it with 4 MPI ranks (scripts/scalapack_example.sh shows how and checks everything):
//
//   mpirun -np 4 pgemm_scalapack [--m M --n N --k K --nb NB --seed S] [--write FILE | --against FILE]
//
// Written in C rather than Fortran because the BLACS C interface (Cblacs_*) and PBLAS's C entry points
// are what Debian's libscalapack-openmpi exports anyway, the reference can use long double, and the
// example project then needs no Fortran compiler. ScaLAPACK ships no C header, so the prototypes of the
// few routines used are declared below.
//
// Every case (double and single, A plain and transposed) fills A, B and C from a seeded hash of each
// element's global index (so the data do not depend on the grid), runs p?gemm_, gathers A, B, the input
// C and the result on rank 0, and checks every element against a long double reference with the bound
//   |C - C_ref| <= 2 K eps (|alpha| sum_p |a_ip b_pj| + |beta| |c_ij|)
// (twice the worst-case rounding bound of a K-term sum, so that any blocking order passes and a wrong
// element does not). --write saves the gathered results; --against reads another run's (the same
// program on the system BLAS) and checks that the two agree within twice that bound.
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// BLACS (C interface) and the ScaLAPACK tools and PBLAS routines, as Debian's library exports them.
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int not_done);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* context, const int* lld, int* info);
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
             const double* b, const int* ib, const int* jb, const int* descb, const double* beta, double* c,
             const int* ic, const int* jc, const int* descc);
void psgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const float* alpha, const float* a, const int* ia, const int* ja, const int* desca,
             const float* b, const int* ib, const int* jb, const int* descb, const float* beta, float* c,
             const int* ic, const int* jc, const int* descc);

enum { kGridRows = 2, kGridCols = 2 };

// A distributed matrix: its descriptor, and the local block-cyclic piece (column-major, leading
// dimension lld) in the case's precision.
typedef struct {
  int rows, cols, local_rows, local_cols, lld;
  int desc[9];
  void* data;
} dist_matrix;

typedef struct {
  int single;  // psgemm_ when 1, pdgemm_ when 0
  char transa;
} gemm_case;

static int g_nb, g_myrow, g_mycol, g_rank, g_context;
static uint64_t g_seed;

static long double load(const void* p, size_t i, int single) {
  return single ? (long double)((const float*)p)[i] : (long double)((const double*)p)[i];
}

// splitmix64 of (seed, matrix, i, j): a value in [-1, -1/8] or [1/8, 1], never zero, the same wherever
// the element lives.
static double element(int matrix, int i, int j) {
  uint64_t z = g_seed ^ ((uint64_t)matrix << 56) ^ ((uint64_t)i << 28) ^ (uint64_t)j;
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  const double u = (double)(z >> 11) / 9007199254740992.0;  // [0, 1)
  const double magnitude = 0.125 + 0.875 * u;
  return (z & 1) ? -magnitude : magnitude;
}

// Block-cyclic local index -> global index (0-based; the first block on process 0).
static int global_index(int local, int proc, int nprocs) {
  return (local / g_nb) * g_nb * nprocs + proc * g_nb + local % g_nb;
}

static void dist_create(dist_matrix* a, int rows, int cols, int single, int matrix) {
  const int zero = 0, nprow = kGridRows, npcol = kGridCols;
  a->rows = rows;
  a->cols = cols;
  a->local_rows = numroc_(&rows, &g_nb, &g_myrow, &zero, &nprow);
  a->local_cols = numroc_(&cols, &g_nb, &g_mycol, &zero, &npcol);
  a->lld = a->local_rows > 1 ? a->local_rows : 1;
  int info = 0;
  descinit_(a->desc, &rows, &cols, &g_nb, &g_nb, &zero, &zero, &g_context, &a->lld, &info);
  if (info != 0) {
    fprintf(stderr, "rank %d: descinit_ info %d\n", g_rank, info);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const size_t n = (size_t)a->lld * (size_t)(a->local_cols > 0 ? a->local_cols : 1);
  a->data = calloc(n, single ? sizeof(float) : sizeof(double));
  for (int jl = 0; jl < a->local_cols; ++jl) {
    for (int il = 0; il < a->local_rows; ++il) {
      const double v = element(matrix, global_index(il, g_myrow, nprow), global_index(jl, g_mycol, npcol));
      const size_t at = (size_t)il + (size_t)jl * a->lld;
      if (single) {
        ((float*)a->data)[at] = (float)v;
      } else {
        ((double*)a->data)[at] = v;
      }
    }
  }
}

// Gathers a distributed matrix on rank 0 as a column-major long double array (NULL elsewhere). Plain
// MPI rather than ScaLAPACK's redistribution, so that the check does not rest on the library it checks.
static long double* dist_gather(const dist_matrix* a, int single) {
  const size_t elem = single ? sizeof(float) : sizeof(double);
  if (g_rank != 0) {
    const int head[4] = {g_myrow, g_mycol, a->local_rows, a->local_cols};
    MPI_Send(head, 4, MPI_INT, 0, 1, MPI_COMM_WORLD);
    if (a->local_rows > 0 && a->local_cols > 0) {
      MPI_Send(a->data, (int)(elem * a->lld * a->local_cols), MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    return NULL;
  }
  long double* g = malloc(sizeof(long double) * (size_t)a->rows * (size_t)a->cols);
  for (int src = 0; src < kGridRows * kGridCols; ++src) {
    int head[4] = {g_myrow, g_mycol, a->local_rows, a->local_cols};
    const void* piece = a->data;
    void* received = NULL;
    if (src != 0) {
      MPI_Recv(head, 4, MPI_INT, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (head[2] > 0 && head[3] > 0) {
        received = malloc(elem * head[2] * head[3]);
        MPI_Recv(received, (int)(elem * head[2] * head[3]), MPI_BYTE, src, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      }
      piece = received;
    }
    const int lld = src == 0 ? a->lld : head[2];
    for (int jl = 0; jl < head[3]; ++jl) {
      for (int il = 0; il < head[2]; ++il) {
        const size_t gi = (size_t)global_index(il, head[0], kGridRows);
        const size_t gj = (size_t)global_index(jl, head[1], kGridCols);
        g[gi + gj * a->rows] = load(piece, (size_t)il + (size_t)jl * lld, single);
      }
    }
    free(received);
  }
  return g;
}

static int check_args(int argc, char** argv, int i) {
  if (i + 1 >= argc) {
    fprintf(stderr, "%s needs a value\n", argv[i]);
    exit(2);
  }
  return i + 1;
}

int main(int argc, char** argv) {
  int m = 301, n = 257, k = 283, nb = 32;
  unsigned long long seed = 20261202;
  const char* write_path = NULL;
  const char* against_path = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--m")) {
      m = atoi(argv[i = check_args(argc, argv, i)]);
    } else if (!strcmp(argv[i], "--n")) {
      n = atoi(argv[i = check_args(argc, argv, i)]);
    } else if (!strcmp(argv[i], "--k")) {
      k = atoi(argv[i = check_args(argc, argv, i)]);
    } else if (!strcmp(argv[i], "--nb")) {
      nb = atoi(argv[i = check_args(argc, argv, i)]);
    } else if (!strcmp(argv[i], "--seed")) {
      seed = strtoull(argv[i = check_args(argc, argv, i)], NULL, 10);
    } else if (!strcmp(argv[i], "--write")) {
      write_path = argv[i = check_args(argc, argv, i)];
    } else if (!strcmp(argv[i], "--against")) {
      against_path = argv[i = check_args(argc, argv, i)];
    } else {
      fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if (m < 1 || n < 1 || k < 1 || nb < 1) {
    fprintf(stderr, "m, n, k and nb must be positive\n");
    return 2;
  }
  g_nb = nb;
  g_seed = seed;

  MPI_Init(&argc, &argv);
  int nprocs = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (nprocs != kGridRows * kGridCols) {
    if (g_rank == 0)
      fprintf(stderr, "run with %d ranks (a 2x2 grid), not %d\n", kGridRows * kGridCols, nprocs);
    MPI_Finalize();
    return 2;
  }
  int blacs_rank = 0, blacs_procs = 0, nprow = 0, npcol = 0;
  Cblacs_pinfo(&blacs_rank, &blacs_procs);
  Cblacs_get(-1, 0, &g_context);  // the default system context: MPI_COMM_WORLD
  Cblacs_gridinit(&g_context, "Row", kGridRows, kGridCols);
  Cblacs_gridinfo(g_context, &nprow, &npcol, &g_myrow, &g_mycol);

  FILE* write_file = NULL;
  FILE* against_file = NULL;
  if (g_rank == 0 && write_path && !(write_file = fopen(write_path, "wb"))) perror(write_path);
  if (g_rank == 0 && against_path && !(against_file = fopen(against_path, "rb"))) perror(against_path);
  int failed = (write_path && g_rank == 0 && !write_file) || (against_path && g_rank == 0 && !against_file);

  const gemm_case cases[] = {{0, 'N'}, {0, 'T'}, {1, 'N'}, {1, 'T'}};
  const double alpha = 0.75, beta = -0.5;
  const int one = 1;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    const int single = cases[c].single;
    const char ta = cases[c].transa, tb = 'N';
    dist_matrix a, b, cm;
    // A is M x K, or K x M when it enters transposed; distinct matrix ids per case give fresh data.
    dist_create(&a, ta == 'N' ? m : k, ta == 'N' ? k : m, single, 4 * (int)c + 0);
    dist_create(&b, k, n, single, 4 * (int)c + 1);
    dist_create(&cm, m, n, single, 4 * (int)c + 2);
    long double* ga = dist_gather(&a, single);
    long double* gb = dist_gather(&b, single);
    long double* gc0 = dist_gather(&cm, single);
    if (single) {
      const float fa = (float)alpha, fb = (float)beta;
      psgemm_(&ta, &tb, &m, &n, &k, &fa, a.data, &one, &one, a.desc, b.data, &one, &one, b.desc, &fb, cm.data,
              &one, &one, cm.desc);
    } else {
      pdgemm_(&ta, &tb, &m, &n, &k, &alpha, a.data, &one, &one, a.desc, b.data, &one, &one, b.desc, &beta,
              cm.data, &one, &one, cm.desc);
    }
    long double* gc = dist_gather(&cm, single);

    if (g_rank == 0) {
      // The unit roundoff u (2^-24, 2^-53); the bound's 2 K eps, with eps = 2 u the machine epsilon.
      const long double u = single ? 5.9604644775390625e-8L : 1.1102230246251565e-16L;
      const long double factor = 4.0L * k * u;
      long double worst = 0, worst_vs_other = 0;
      int case_failed = 0;
      long double* other = NULL;
      if (against_file) {
        other = malloc(sizeof(long double) * (size_t)m * n);
        for (size_t i = 0; i < (size_t)m * n; ++i) {
          double v;
          if (fread(&v, sizeof v, 1, against_file) != 1) {
            fprintf(stderr, "%s: too short (a run with other sizes?)\n", against_path);
            failed = 1;
            free(other);
            other = NULL;
            break;
          }
          other[i] = v;
        }
      }
      for (int j = 0; j < n; ++j) {
        for (int i = 0; i < m; ++i) {
          long double sum = 0, abs_sum = 0;
          for (int p = 0; p < k; ++p) {
            const long double x = ta == 'N' ? ga[i + (size_t)p * m] : ga[p + (size_t)i * k];
            const long double y = gb[p + (size_t)j * k];
            sum += x * y;
            abs_sum += fabsl(x * y);
          }
          const size_t at = i + (size_t)j * m;
          const long double ref = (long double)alpha * sum + (long double)beta * gc0[at];
          const long double bound =
              factor * (fabsl((long double)alpha) * abs_sum + fabsl((long double)beta) * fabsl(gc0[at]));
          const long double ratio = fabsl(gc[at] - ref) / bound;
          if (!(ratio <= 1)) case_failed = 1;  // NaN fails too
          if (!(ratio <= worst)) worst = ratio;
          if (other) {
            const long double r = fabsl(gc[at] - other[at]) / (2 * bound);
            if (!(r <= 1)) case_failed = 1;
            if (!(r <= worst_vs_other)) worst_vs_other = r;
          }
          if (write_file) {
            const double v = (double)gc[at];  // exact for both precisions
            fwrite(&v, sizeof v, 1, write_file);
          }
        }
      }
      printf("p%cgemm_ %c%c %dx%dx%d nb %d on %dx%d ranks: max |C - C_ref| / bound %.3Lg", single ? 's' : 'd',
             ta, tb, m, n, k, nb, nprow, npcol, worst);
      if (other) printf(", against the other run %.3Lg", worst_vs_other);
      printf(" (bound 2 K eps sum|alpha a b| + |beta c|)%s\n", case_failed ? "  FAILED" : "");
      failed |= case_failed;
      free(other);
    }
    free(ga);
    free(gb);
    free(gc0);
    free(gc);
    free(a.data);
    free(b.data);
    free(cm.data);
  }
  if (write_file) failed |= fclose(write_file) != 0;
  if (against_file) fclose(against_file);
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (g_rank == 0) printf("%s\n", failed ? "FAILED" : "passed");
  Cblacs_gridexit(g_context);
  Cblacs_exit(1);  // 1: MPI stays up for the finalize below
  MPI_Finalize();
  return failed ? 1 : 0;
}
