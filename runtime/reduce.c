/*
 * reduce.c — kc_reduce: reduce a 1-D array with a @cuda.reduce function, as Numba's
 * Reduce object is called. The compiler generates one kernel per element type
 * (synth.c): each block of kcc_reduce_block threads (256; 1024 on the CPU) folds a grid-stride slice into one
 * partial; a second launch of one block folds the partials (and init) into the result.
 * An array that one block covers takes a single launch.
 */
#include <string.h>

#include "rt.h"

#define REDUCE_BLOCKS_PER_SM 8     /* CUDA grid cap: blocks per multiprocessor */
#define REDUCE_CPU_PER_THREAD 256  /* CPU: elements each thread folds */

/* init (one element of dtype t, or NULL for 0) as a launch argument of that dtype. */
static kc_arg scalar_arg(kc_dtype t, const void *init) {
  kc_arg a;
  memset(&a, 0, sizeof a);
  a.dtype = t;
  if (!init) return a;
  switch (t) {
  case KC_INT8: { int8_t v; memcpy(&v, init, 1); a.v.i = v; break; }
  case KC_INT16: { int16_t v; memcpy(&v, init, 2); a.v.i = v; break; }
  case KC_INT32: { int32_t v; memcpy(&v, init, 4); a.v.i = v; break; }
  case KC_INT64: memcpy(&a.v.i, init, 8); break;
  case KC_UINT8: { uint8_t v; memcpy(&v, init, 1); a.v.i = v; break; }
  case KC_UINT16: { uint16_t v; memcpy(&v, init, 2); a.v.i = v; break; }
  case KC_UINT32: { uint32_t v; memcpy(&v, init, 4); a.v.i = v; break; }
  case KC_UINT64: memcpy(&a.v.u, init, 8); break;
  case KC_FLOAT32: { float v; memcpy(&v, init, 4); a.v.f = v; break; }
  case KC_FLOAT64: memcpy(&a.v.f, init, 8); break;
  default: break;
  }
  return a;
}

/* Is k (typed) the kernel of a @cuda.reduce function: (T[:], T[:], T, bool)? */
static int is_reduce_kernel(const kc_kernel *k) {
  return k->nparams == 4 && k->params[0].ndim == 1 && k->params[1].ndim == 1 &&
         k->params[2].ndim == 0 && k->params[3].ndim == 0 &&
         k->params[3].dtype == KC_BOOL && k->params[0].dtype == k->params[2].dtype;
}

static kc_status check_args(kc_context *ctx, const kc_kernel *k, const kc_array *arr) {
  if (k->nparams >= 0 && !is_reduce_kernel(k))
    return rt_error(ctx, KC_ERR_INVALID, "reduce '%s': %s is not the kernel of a "
                    "@cuda.reduce function", k->name, k->signature);
  if (arr->ctx != ctx)
    return rt_error(ctx, KC_ERR_INVALID, "reduce '%s': the array belongs to another "
                    "context", k->name);
  if (arr->ndim != 1)
    return rt_error(ctx, KC_ERR_INVALID, "reduce '%s': the array is %d-D; kc_reduce "
                    "takes a 1-D array", k->name, arr->ndim);
  if (arr->dtype == KC_BOOL)
    return rt_error(ctx, KC_ERR_INVALID, "reduce '%s': bool arrays cannot be reduced; "
                    "use a number dtype", k->name);
  if (k->nparams < 0) return KC_OK;  /* compiled for arr's dtype at the launch */
  for (const kc_kernel *o = k; o; o = o->next_overload)
    if (o->params[0].dtype == arr->dtype) return KC_OK;
  return rt_error(ctx, KC_ERR_INVALID, "reduce '%s': the module has no kernel for %s "
                  "arrays (add '%s(%s, %s)' to the decorator or to kcc compile --sig; "
                  "compiled from source without signatures, it is compiled per dtype)",
                  k->name, kc_dtype_name(arr->dtype), kc_dtype_name(arr->dtype),
                  kc_dtype_name(arr->dtype), kc_dtype_name(arr->dtype));
}

/* The threads of the kernel's blocks, as synth.c wrote it for this device. */
static int reduce_block(const kc_context *ctx) { return kcc_reduce_block(ctx->device == KC_DEVICE_CPU); }

/* Blocks for a stage over n elements. On CUDA: enough for n, at most
 * REDUCE_BLOCKS_PER_SM per multiprocessor. On the CPU each thread folds at least
 * REDUCE_CPU_PER_THREAD elements: the kernel's grid-stride loop runs step by step
 * across the block's threads (host_regions.c), so a step reads neighbouring elements
 * wherever they lie, and that many steps pay for the tree and its barriers at the end
 * (measured: docs/runtime.md). A block's step jumps the whole grid, so with several
 * blocks every page is read by several blocks at different times: a pool of one
 * worker gets one block, which reads the array front to back (2^24 float32: 1.2-1.4x a
 * C loop in 256 blocks, 1.03-1.08x in one). Several workers keep many blocks: one
 * block each would have each worker read every other KiB of the whole array (2
 * workers: 1.34x C on two threads against 1.13x), and could not be balanced when a
 * worker's core is busy. */
static unsigned stage_blocks(const kc_kernel *k, int64_t n) {
  kc_context *ctx = k->mod->ctx;
  uint64_t per_block = (uint64_t)reduce_block(ctx), cap = UINT64_MAX;
  if (ctx->device == KC_DEVICE_CPU) {
    per_block *= REDUCE_CPU_PER_THREAD;
    if (ctx->cpu_threads <= 1) cap = 1;
  } else {
    kc_device_info info;
    int sms = kc_context_device_info(ctx, &info) == KC_OK ? info.multiprocessors : 1;
    cap = (uint64_t)(sms > 0 ? sms : 1) * REDUCE_BLOCKS_PER_SM;
  }
  uint64_t want = ((uint64_t)n + per_block - 1) / per_block;
  if (want > cap) want = cap;
  if (want > ctx->limits.max_grid[0]) want = ctx->limits.max_grid[0];
  return want > 0 ? (unsigned)want : 1;
}

/* One launch of the reduction kernel: src into dst[blockIdx.x]. */
static kc_status reduce_launch(kc_kernel *k, unsigned blocks, kc_array *src, kc_array *dst,
                               const void *init, kc_stream *stream) {
  kc_dtype t = src->dtype;
  kc_arg args[4] = {kc_arg_array(src), kc_arg_array(dst), scalar_arg(t, init),
                    kc_arg_bool(init != NULL)};
  return kc_launch(k, kc_dim(blocks), kc_dim((unsigned)reduce_block(k->mod->ctx)), 0, stream,
                   args, 4);
}

/* Fold arr into out[0] (with init) on stream, then wait for that stream (the partials
 * are freed after): one launch when one block covers arr,
 * else a stage of partials, one per block, folded by a single block (its grid-stride loop
 * takes any number of them). */
static kc_status reduce_stages(kc_kernel *k, kc_array *arr, kc_array *out, const void *init,
                               kc_stream *stream) {
  kc_context *ctx = k->mod->ctx;
  unsigned blocks = stage_blocks(k, arr->shape[0]);
  int64_t nb = blocks;
  kc_array *partials = NULL;
  kc_status s = KC_OK;
  if (blocks == 1) s = reduce_launch(k, 1, arr, out, init, stream);
  else if ((s = kc_array_new(ctx, arr->dtype, 1, &nb, &partials)) == KC_OK) {
    s = reduce_launch(k, blocks, arr, partials, NULL, stream);
    if (s == KC_OK) s = reduce_launch(k, 1, partials, out, init, stream);
  }
  if (s == KC_OK) s = rt_stream_wait(ctx, stream);
  kc_array_free(partials);
  return s;
}

kc_status kc_reduce(kc_kernel *k, kc_array *arr, const void *init, void *result) {
  return kc_reduce_stream(k, arr, init, result, NULL);
}

kc_status kc_reduce_stream(kc_kernel *k, kc_array *arr, const void *init, void *result,
                           kc_stream *stream) {
  RT_NEED(NULL, k, "kc_reduce");
  RT_NEED(k->mod->ctx, arr, "kc_reduce");
  RT_NEED(k->mod->ctx, result, "kc_reduce");
  kc_context *ctx = k->mod->ctx;
  if (!arr || !result)
    return rt_error(ctx, KC_ERR_INVALID, "reduce '%s': %s is NULL", k->name,
                    !arr ? "the array" : "the result pointer");
  kc_status s = check_args(ctx, k, arr);
  if (s == KC_OK) s = rt_stream_check(ctx, stream, "reduce");
  if (s != KC_OK) return s;
  size_t esize = kc_dtype_size(arr->dtype);
  int64_t n = arr->shape[0];
  if (n == 0) {
    if (!init)
      return rt_error(ctx, KC_ERR_INVALID, "reduce '%s': the array is empty and no init "
                      "value was given", k->name);
    memcpy(result, init, esize);
    return KC_OK;
  }
  kc_array *out = NULL;
  int64_t one = 1;
  s = kc_array_new(ctx, arr->dtype, 1, &one, &out);
  if (s == KC_OK && k->nparams < 0) {   /* its launch shape depends on the compiled code */
    kc_arg args[4] = {kc_arg_array(arr), kc_arg_array(out), scalar_arg(arr->dtype, init),
                      kc_arg_bool(init != NULL)};
    s = rt_module_specialise(k, args, 4, &k);
  }
  if (s == KC_OK) s = reduce_stages(k, arr, out, init, stream);
  if (s == KC_OK) s = kc_array_to_host(out, result, esize);
  kc_array_free(out);
  return s;
}
