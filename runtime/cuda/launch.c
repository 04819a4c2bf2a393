/*
 * launch.c — launching kernels: cuLaunchKernel, and for a kernel that synchronises its
 * grid cuLaunchCooperativeKernel once the grid is known to fit the device at once
 * (launch_shape.c says so when it does not); the dynamic shared memory a launch may
 * opt in to, and the block size the occupancy calculator suggests.
 */
#include "driver.h"

kc_status rt_cuda_allow_shared(kc_context *ctx, void *fn, size_t bytes) {
  kc_status status = KC_OK;
  RT_CU(ctx, FuncSetAttribute,
        ((CUfunction)fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes));
cleanup:
  return status;
}

kc_status rt_cuda_launch(kc_context *ctx, void *fn, kc_dim3 grid, kc_dim3 block,
                         size_t shared, void *stream, void **params) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, LaunchKernel, ((CUfunction)fn, grid.x, grid.y, grid.z, block.x, block.y,
                            block.z, (unsigned)shared, (CUstream)stream, params, NULL));
cleanup:
  return status;
}

/* What the occupancy calculator says fits at once: blocks per SM for this block size
 * and shared memory, times the SMs; 0 on a GPU without cooperative launch. */
kc_status rt_cuda_coop_max_blocks(kc_context *ctx, void *fn, int threads, size_t shared,
                                  uint64_t *out) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  *out = 0;
  if (!rt_cu_attr(ctx->cuda->dev, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)) return KC_OK;
  int per_sm = 0;
  RT_CU(ctx, OccupancyMaxActiveBlocksPerMultiprocessor, (&per_sm, (CUfunction)fn, threads,
                                                        shared));
  *out = (uint64_t)per_sm *
         (uint64_t)rt_cu_attr(ctx->cuda->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
cleanup:
  return status;
}

/* A kernel that synchronises its grid: every block must be resident at once, so the
 * grid is checked against rt_cuda_coop_max_blocks before cuLaunchCooperativeKernel. */
kc_status rt_cuda_launch_cooperative(kc_context *ctx, const char *kernel, void *fn,
                                     kc_dim3 grid, kc_dim3 block, size_t shared, void *stream,
                                     void **params) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  if (!rt_cu_attr(ctx->cuda->dev, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH))
    return rt_error(ctx, KC_ERR_LAUNCH, "kernel '%s' synchronises its grid "
                    "(cuda.cg.this_grid().sync()) and this GPU has no cooperative launch",
                    kernel);
  uint64_t max_blocks = 0;
  status = rt_cuda_coop_max_blocks(ctx, fn, (int)(block.x * block.y * block.z), shared,
                                   &max_blocks);
  if (status == KC_OK)
    status = rt_check_coop_grid(ctx, kernel, grid, block, max_blocks, "on this GPU");
  if (status != KC_OK) return status;
  RT_CU(ctx, LaunchCooperativeKernel, ((CUfunction)fn, grid.x, grid.y, grid.z, block.x,
                                       block.y, block.z, (unsigned)shared, (CUstream)stream,
                                       params));
cleanup:
  return status;
}

kc_status rt_cuda_occupancy(kc_context *ctx, void *fn, size_t shared, int *min_grid,
                            int *block) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, OccupancyMaxPotentialBlockSize,
        (min_grid, block, (CUfunction)fn, NULL, shared, 0));
cleanup:
  return status;
}
