// The library's gemm_dispatch, gemv_dispatch and gemm_batched_dispatch for BF16 in, float out on the build's
// execution space (src/ridgeline/detail/instances.hpp says why they live here). Empty in a build without one.
#include <ridgeline/gemm.hpp>
#include <ridgeline/gemm_batched.hpp>
#include <ridgeline/gemv.hpp>

#if RIDGELINE_HAVE_DISPATCH_INSTANCES
namespace ridgeline::detail {
RIDGELINE_DISPATCH_OF(template, bhalf_t, float)
RIDGELINE_BATCHED_DISPATCH_OF(template, bhalf_t, float)
}  // namespace ridgeline::detail
#endif
