/*
 * launch_shape.c — a launch's shape against the device's limits, before anything
 * runs: the grid and block dimensions, the threads of a block (the kernel's
 * launch_bounds too), the shared memory, and for a kernel that synchronises its grid
 * the blocks that can be resident at once. The CUDA and CPU launch paths both check
 * here, so both say the same.
 */
#include "rt.h"

kc_status rt_check_shape(kc_context *ctx, const kc_kernel *k, kc_dim3 grid, kc_dim3 block,
                         size_t shared_bytes) {
  const rt_limits *l = &ctx->limits;
  const unsigned g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  static const char axis[] = "xyz";
  if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2])
    return rt_error(ctx, KC_ERR_LAUNCH,
                    "kernel '%s': launch shape grid (%u, %u, %u), block (%u, %u, %u) has a "
                    "zero dimension",
                    k->name, g[0], g[1], g[2], b[0], b[1], b[2]);
  for (int i = 0; i < 3; i++) {
    if (b[i] > l->max_block[i])
      return rt_error(ctx, KC_ERR_LAUNCH,
                      "kernel '%s': block dimension %c = %u exceeds the device limit %u",
                      k->name, axis[i], b[i], l->max_block[i]);
    if (g[i] > l->max_grid[i])
      return rt_error(ctx, KC_ERR_LAUNCH,
                      "kernel '%s': grid dimension %c = %u exceeds the device limit %u",
                      k->name, axis[i], g[i], l->max_grid[i]);
  }
  for (int i = 0; i < 3; i++)
    if ((uint64_t)g[i] * b[i] > 0x7fffffffu)
      return rt_error(ctx, KC_ERR_LAUNCH,
                      "kernel '%s': grid x block on axis %c is %llu threads; kcc's thread "
                      "indices are 32-bit, so at most 2147483647 per axis (use a "
                      "grid-stride loop)",
                      k->name, axis[i], (unsigned long long)g[i] * b[i]);
  uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
  unsigned max = l->max_threads;
  if (k->max_threads && k->max_threads < max) max = k->max_threads;
  if (threads > max)
    return rt_error(ctx, KC_ERR_LAUNCH,
                    "kernel '%s': a block of %llu threads (%u x %u x %u) exceeds the limit "
                    "of %u threads per block",
                    k->name, (unsigned long long)threads, b[0], b[1], b[2], max);
  if (shared_bytes > l->max_shared_optin ||
      k->static_shared > l->max_shared_optin - shared_bytes)
    return rt_error(ctx, KC_ERR_LAUNCH,
                    "kernel '%s': %zu bytes of shared memory (%zu static + %zu dynamic) "
                    "exceed the device limit of %zu per block",
                    k->name, k->static_shared + shared_bytes, k->static_shared, shared_bytes,
                    l->max_shared_optin);
  return KC_OK;
}

kc_status rt_check_coop_grid(kc_context *ctx, const char *kernel, kc_dim3 grid, kc_dim3 block,
                             uint64_t max_blocks, const char *where) {
  uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
  if (blocks <= max_blocks) return KC_OK;
  return rt_error(ctx, KC_ERR_LAUNCH,
                  "kernel '%s' synchronises its grid (cuda.cg.this_grid().sync()), so every "
                  "block must run at once: at most %llu blocks of %u threads fit %s, and the "
                  "launch asks for %llu; launch fewer blocks (a grid-stride loop covers the "
                  "rest)",
                  kernel, (unsigned long long)max_blocks, block.x * block.y * block.z, where,
                  (unsigned long long)blocks);
}
