/* C = alpha A B + beta C through ridgeline.h, as a cuBLAS program would call cublasDgemm: the names
 * change, the arguments do not. A host build's library takes host pointers, as here; a CUDA build's
 * takes device pointers (ridgeline_get_memory_space says which). */
#include <ridgeline.h>
#include <stdio.h>

#define CHECK(call)                                                                         \
  do {                                                                                      \
    ridgeline_status_t s_ = (call);                                                         \
    if (s_ != RIDGELINE_STATUS_SUCCESS) {                                                   \
      fprintf(stderr, "%s: %s\n", ridgeline_status_string(s_), ridgeline_get_last_error()); \
      return 1;                                                                             \
    }                                                                                       \
  } while (0)

int main(void) {
  if (ridgeline_get_memory_space() != RIDGELINE_MEMORY_HOST) {
    fprintf(stderr, "this example passes host pointers; this libridgeline_c.so takes device pointers\n");
    return 1;
  }
  /* Column-major: A is 2x3, B 3x2, C 2x2. */
  const double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 1, 0, 1, 0};
  double c[4] = {0, 0, 0, 0};
  const double alpha = 1.0, beta = 0.0;
  ridgeline_handle_t handle;
  CHECK(ridgeline_create(&handle));
  CHECK(ridgeline_dgemm(handle, RIDGELINE_OP_N, RIDGELINE_OP_N, 2, 2, 3, &alpha, a, 2, b, 3, &beta, c, 2));
  printf("C = [%g %g; %g %g]\n", c[0], c[2], c[1], c[3]);
  /* A bad call returns a status and says why, writing nothing. */
  ridgeline_status_t s =
      ridgeline_dgemm(handle, RIDGELINE_OP_N, RIDGELINE_OP_N, 2, 2, 3, &alpha, a, 1, b, 3, &beta, c, 2);
  printf("lda = 1: %s: %s\n", ridgeline_status_string(s), ridgeline_get_last_error());
  CHECK(ridgeline_destroy(handle));
  return c[0] == 6 && c[1] == 8 && c[2] == 3 && c[3] == 4 && s == RIDGELINE_STATUS_INVALID_VALUE ? 0 : 1;
}
