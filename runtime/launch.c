/*
 * launch.c — kc_launch: check the shape (launch_shape.c), check and pack
 * the arguments against the kernel's parameter table, and hand the packed
 * kernelParams to the CUDA driver or to the CPU executor (the same layout for both:
 * an array of rank n is its data pointer then n int64 extents, a scalar its value).
 *
 * The hot path allocates nothing, formats no text and takes no lock: parameters are
 * pointers into the array handles (data, shape) and into an on-stack scalar buffer.
 * Messages are made only once something is wrong.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"

/* ---- Arguments ----------------------------------------------------------------------- */
typedef enum bad_arg {
  ARG_OK,
  ARG_COUNT,     /* wrong number of arguments */
  ARG_NULL,      /* an array argument is NULL */
  ARG_CONTEXT,   /* an array of another context */
  ARG_FREED,     /* an array passed to kc_array_free */
  ARG_TYPE,      /* dtype or rank differ */
  ARG_RANGE,     /* a scalar does not fit the parameter's type */
  ARG_ALIAS,     /* a written array overlaps a read-only (noalias) one */
  ARG_LAYOUT     /* a non-contiguous view for a parameter compiled C-contiguous */
} bad_arg;

static int fits_signed(int64_t v, kc_dtype t) {
  switch (t) {
  case KC_INT8: return v >= INT8_MIN && v <= INT8_MAX;
  case KC_INT16: return v >= INT16_MIN && v <= INT16_MAX;
  case KC_INT32: return v >= INT32_MIN && v <= INT32_MAX;
  case KC_UINT8: return v >= 0 && v <= UINT8_MAX;
  case KC_UINT16: return v >= 0 && v <= UINT16_MAX;
  case KC_UINT32: return v >= 0 && v <= (int64_t)UINT32_MAX;
  case KC_UINT64: return v >= 0;
  case KC_BOOL: return v == 0 || v == 1;
  default: return 1;
  }
}

static int fits_unsigned(uint64_t v, kc_dtype t) {
  switch (t) {
  case KC_INT64: return v <= (uint64_t)INT64_MAX;
  case KC_UINT64: return 1;
  default: return v <= (uint64_t)INT64_MAX && fits_signed((int64_t)v, t);
  }
}

/* Store an integer into a slot as dtype t (the caller checked that it fits). */
static void store_int(void *slot, kc_dtype t, uint64_t bits) {
  switch (kc_dtype_size(t)) {
  case 1: { uint8_t v = (uint8_t)bits; memcpy(slot, &v, 1); break; }
  case 2: { uint16_t v = (uint16_t)bits; memcpy(slot, &v, 2); break; }
  case 4: { uint32_t v = (uint32_t)bits; memcpy(slot, &v, 4); break; }
  default: memcpy(slot, &bits, 8); break;
  }
}

/* A complex parameter takes a complex or real argument (stored as {re, im}); a complex
 * argument never silently loses its imaginary part to a real parameter. */
static bad_arg convert_complex(kc_dtype want, const kc_arg *a, void *slot) {
  if (!rt_dtype_is_complex(want)) return ARG_TYPE;
  double re, im = 0;
  if (rt_dtype_is_complex(a->dtype)) re = a->v.c.re, im = a->v.c.im;
  else if (rt_dtype_is_float(a->dtype)) re = a->v.f;
  else if (a->dtype == KC_UINT64) re = (double)a->v.u;
  else re = (double)a->v.i;
  if (want == KC_COMPLEX64) {
    float f[2] = {(float)re, (float)im};
    memcpy(slot, f, sizeof f);
  } else {
    double d[2] = {re, im};
    memcpy(slot, d, sizeof d);
  }
  return ARG_OK;
}

/* Convert a scalar argument to the parameter's dtype: integers to any integer type
 * they fit, integers and floats to floats; a float never silently becomes an int. */
static bad_arg convert_scalar(const rt_param *p, const kc_arg *a, void *slot, bool wrap) {
  kc_dtype want = p->dtype, have = a->dtype;
  if ((unsigned)have >= KC_DTYPE_COUNT) return ARG_TYPE;
  if (rt_dtype_is_complex(want) || rt_dtype_is_complex(have))
    return convert_complex(want, a, slot);
  if (rt_dtype_is_float(want)) {
    double v;
    if (rt_dtype_is_float(have)) v = a->v.f;
    else if (have == KC_UINT64) v = (double)a->v.u;
    else v = (double)a->v.i;
    if (want == KC_FLOAT16) {
      if (isfinite(v) && fabs(v) >= 65520.0) return ARG_RANGE;
      uint16_t h = rt_f16_bits(v);
      memcpy(slot, &h, 2);
    } else if (want == KC_FLOAT32) {
      if (isfinite(v) && fabs(v) > 3.4028234663852886e38) return ARG_RANGE;
      float f = (float)v;
      memcpy(slot, &f, 4);
    } else {
      memcpy(slot, &v, 8);
    }
    return ARG_OK;
  }
  if (rt_dtype_is_float(have)) return ARG_TYPE;
  bool fits = have == KC_UINT64 ? fits_unsigned(a->v.u, want) : fits_signed(a->v.i, want);
  if (!fits && !wrap) return ARG_RANGE;
  uint64_t bits = have == KC_UINT64 ? a->v.u : (uint64_t)a->v.i;
  store_int(slot, want, want == KC_BOOL ? bits != 0 : bits);   /* wrap: the low bits */
  return ARG_OK;
}

/* The bytes [lo, hi) an array's elements lie in (a strided view spans its gaps too). */
static void span(const kc_array *a, uint64_t *lo, uint64_t *hi) {
  int64_t down = 0, up = 0, es = (int64_t)kc_dtype_size(a->dtype);
  for (int d = 0; d < a->ndim; d++) {
    int64_t far = (a->shape[d] - 1) * a->step[d];
    if (far < 0) down += far;
    else up += far;
  }
  *lo = a->data.dev + (uint64_t)(down * es);   /* same bits as the host pointer */
  *hi = a->data.dev + (uint64_t)((up + 1) * es);
}

static int overlap(const kc_array *a, const kc_array *b) {
  if (!a->bytes || !b->bytes) return 0;
  uint64_t a0, a1, b0, b1;
  span(a, &a0, &a1);
  span(b, &b0, &b1);
  return a0 < b1 && b0 < a1;
}

/* The compiler marked read-only arrays noalias: a written array must not overlap one.
 * Returns the read-only argument's index, the written one's in *w, or -1. */
static int find_alias(const kc_kernel *k, const kc_arg *args, int *w) {
  for (int i = 0; i < k->nparams; i++) {
    if (!k->params[i].written) continue;
    for (int j = 0; j < k->nparams; j++)
      if (k->params[j].ndim > 0 && !k->params[j].written &&
          overlap(args[i].v.array, args[j].v.array)) {
        *w = i;
        return j;
      }
  }
  return -1;
}

/* A tuple argument for tuple parameter p: its elements converted as scalars, one slot
 * each. On failure *elem is the element at fault (-1: the tuple as a whole). */
static bad_arg pack_tuple(const rt_param *p, const kc_arg *a, void **params,
                          uint64_t *scalars, int *elem, bool wrap) {
  *elem = -1;
  if (a->is_array != KC_ARG_TUPLE || a->v.tuple.n != p->nelems || !a->v.tuple.elems)
    return ARG_TYPE;
  for (int e = 0; e < p->nelems; e++) {
    const kc_arg *x = &a->v.tuple.elems[e];
    rt_param ep;
    memset(&ep, 0, sizeof ep);
    ep.dtype = p->elems[e];
    *elem = e;
    if (x->is_array) return ARG_TYPE;
    bad_arg r = convert_scalar(&ep, x, &scalars[2 * (p->flat + e)], wrap);
    if (r != ARG_OK) return r;
    params[p->flat + e] = &scalars[2 * (p->flat + e)];
  }
  *elem = -1;
  return ARG_OK;
}

/* Check the arguments and fill params (kernelParams) and scalars. On failure returns
 * the reason and the 0-based index of the argument in *bad (and for ARG_ALIAS, the
 * read-only argument's in *other; for a tuple argument, the element at fault in
 * *other, -1 for the tuple as a whole). */
static bad_arg pack(const kc_kernel *k, const kc_arg *args, int nargs, void **params,
                    uint64_t *scalars, int *bad, int *other) {
  if (nargs != k->nparams || (nargs > 0 && !args)) {
    *bad = -1;
    return ARG_COUNT;
  }
  const bool wrap = k->mod->ctx->cfg.wrap_int_args;
  for (int i = 0; i < nargs; i++) {
    const rt_param *p = &k->params[i];
    const kc_arg *a = &args[i];
    *bad = i;
    if (p->ndim > 0) {
      kc_array *arr = a->v.array;
      if (a->is_array != 1) return ARG_TYPE;
      if (!arr) return ARG_NULL;
      if (arr->magic != RT_ARRAY_LIVE) return ARG_FREED;
      if (arr->ctx != k->mod->ctx) return ARG_CONTEXT;
      if (arr->dtype != p->dtype || arr->ndim != p->ndim) return ARG_TYPE;
      if (p->record && (!arr->record || strcmp(arr->record, p->record) != 0)) return ARG_TYPE;
      if (!p->strided && !arr->contiguous) return ARG_LAYOUT;
      params[p->flat] = &arr->data;
      for (int d = 0; d < p->ndim; d++) params[p->flat + 1 + d] = &arr->shape[d];
      if (p->strided)   /* an 'A' parameter: the strides follow the extents */
        for (int d = 0; d < p->ndim; d++) params[p->flat + 1 + p->ndim + d] = &arr->step[d];
    } else if (p->dtype == KC_RECORD) {
      if (a->is_array || a->dtype != KC_RECORD || !a->v.r.data ||
          strcmp(kc_record_spelling(a->v.r.record), p->record) != 0)
        return ARG_TYPE;
      params[p->flat] = (void *)a->v.r.data;   /* its bytes, copied by the launch */
    } else if (p->nelems > 0) {
      bad_arg r = pack_tuple(p, a, params, scalars, other, wrap);
      if (r != ARG_OK) return r;
    } else {
      if (a->is_array || a->dtype == KC_RECORD) return ARG_TYPE;
      /* two words per slot: a complex128 takes 16 bytes */
      bad_arg r = convert_scalar(p, a, &scalars[2 * p->flat], wrap);
      if (r != ARG_OK) return r;
      params[p->flat] = &scalars[2 * p->flat];
    }
  }
  if (k->alias_check && (*other = find_alias(k, args, bad)) >= 0) return ARG_ALIAS;
  return ARG_OK;
}

/* A parameter's type as a signature spells it. */
static void describe_param(const rt_param *p, char *buf, size_t len) {
  sig_type st;
  memset(&st, 0, sizeof st);
  st.dtype = p->dtype;
  st.ndim = p->ndim;
  st.nelems = p->nelems;
  memcpy(st.elems, p->elems, sizeof st.elems);
  if (p->nelems) sig_format_type(st, buf, len);
  else rt_format_param_type(p, buf, len);   /* records too */
}

static void describe_arg(const kc_arg *a, char *buf, size_t len) {
  if (a->is_array == KC_ARG_TUPLE) {
    size_t at = (size_t)snprintf(buf, len, "a tuple of %d (", a->v.tuple.n);
    for (int e = 0; a->v.tuple.elems && e < a->v.tuple.n && e < SIG_MAX_TUPLE && at < len; e++) {
      const kc_arg *x = &a->v.tuple.elems[e];
      at += (size_t)snprintf(buf + at, len - at, "%s%s", e ? ", " : "",
                             x->is_array ? "an array" : kc_dtype_name(x->dtype));
    }
    if (at < len) snprintf(buf + at, len - at, ")");
  } else if (a->is_array && a->v.array) rt_format_array_type(a->v.array, buf, len);
  else if (a->is_array) snprintf(buf, len, "NULL array");
  else if (a->dtype == KC_RECORD)
    snprintf(buf, len, "%s", a->v.r.data ? kc_record_spelling(a->v.r.record) : "NULL record");
  else rt_format_type(a->dtype, 0, buf, len);
}

static void name_arg(const kc_kernel *k, int i, char *buf, size_t len) {
  if (k->params[i].name[0]) snprintf(buf, len, "argument %d ('%s')", i + 1, k->params[i].name);
  else snprintf(buf, len, "argument %d", i + 1);
}

static kc_status arg_error(kc_context *ctx, const kc_kernel *k, const kc_arg *args,
                           int nargs, bad_arg why, int bad, int other) {
  if (why == ARG_COUNT)
    return rt_error(ctx, KC_ERR_LAUNCH, "kernel '%s': expected %d argument%s (%s), got %d",
                    k->name, k->nparams, k->nparams == 1 ? "" : "s", k->signature, nargs);
  const rt_param *p = &k->params[bad];
  const kc_arg *a = &args[bad];
  char where[300], arg[200], want[700], got[700];
  name_arg(k, bad, arg, sizeof arg);
  snprintf(where, sizeof where, "kernel '%s': %s", k->name, arg);
  rt_param ep;
  if (p->nelems && other >= 0 && why != ARG_ALIAS) {   /* an element of a tuple */
    memset(&ep, 0, sizeof ep);
    ep.dtype = p->elems[other];
    a = &a->v.tuple.elems[other];
    size_t n = strlen(where);
    snprintf(where + n, sizeof where - n, ", element %d", other);
    p = &ep;
  }
  if (why == ARG_ALIAS) {
    name_arg(k, other, arg, sizeof arg);
    return rt_error(ctx, KC_ERR_LAUNCH,
                    "%s is written by the kernel and overlaps %s, which it only reads "
                    "(compiled as not aliased); pass separate arrays",
                    where, arg);
  }
  describe_param(p, want, sizeof want);
  describe_arg(a, got, sizeof got);
  if (why == ARG_LAYOUT)
    return rt_error(ctx, KC_ERR_LAUNCH,
                    "%s: a non-contiguous view, and the kernel was compiled for C-contiguous "
                    "%s and cannot be compiled again here for any layout (it was loaded "
                    "without its source, or without the compiler); declare the parameter "
                    "in any layout, 'array(%s, %dd, A)' or types.Array(%s, %d, 'A'), or pass a "
                    "contiguous array", where, want, kc_dtype_name(p->dtype), p->ndim,
                    kc_dtype_name(p->dtype), p->ndim);
  switch (why) {
  case ARG_NULL:
    return rt_error(ctx, KC_ERR_LAUNCH, "%s: expected %s, got a NULL array", where, want);
  case ARG_CONTEXT:
    return rt_error(ctx, KC_ERR_LAUNCH, "%s: the array belongs to another context", where);
  case ARG_FREED:
    return rt_error(ctx, KC_ERR_LAUNCH, "%s: the array was freed (kc_array_free)", where);
  case ARG_RANGE:
    if (rt_dtype_is_float(a->dtype))
      return rt_error(ctx, KC_ERR_LAUNCH, "%s: value %g does not fit %s", where, a->v.f, want);
    if (a->dtype == KC_UINT64)
      return rt_error(ctx, KC_ERR_LAUNCH, "%s: value %llu does not fit %s", where,
                      (unsigned long long)a->v.u, want);
    return rt_error(ctx, KC_ERR_LAUNCH, "%s: value %lld does not fit %s", where,
                    (long long)a->v.i, want);
  default:
    return rt_error(ctx, KC_ERR_LAUNCH, "%s: expected %s, got %s", where, want, got);
  }
}

/* ---- Dispatch ------------------------------------------------------------------------- */
static kc_status launch_cuda(kc_context *ctx, kc_kernel *k, kc_dim3 grid, kc_dim3 block,
                             size_t shared, kc_stream *stream, void **params) {
  if (shared + k->static_shared > ctx->limits.max_shared && shared > k->shared_optin_set) {
    kc_status s = rt_cuda_allow_shared(ctx, k->cu_function, shared);
    if (s != KC_OK) return s;
    k->shared_optin_set = shared;
  }
  void *cs = stream ? stream->cu_stream : NULL;
  kc_status s = k->cooperative
      ? rt_cuda_launch_cooperative(ctx, k->name, k->cu_function, grid, block, shared, cs, params)
      : rt_cuda_launch(ctx, k->cu_function, grid, block, shared, cs, params);
  if (s == KC_OK && k->mod->error_dptr) rt_module_note_launch(k->mod, k);
  if (s == KC_OK && ctx->cfg.timeout_ms > 0) {   /* named by a later wait's timeout
                                                     (cuda/wait.c); not paid without one */
    rt_cuda_note_launch(ctx, k->name);
    if (stream) snprintf(stream->last_kernel, sizeof stream->last_kernel, "%s", k->name);
  }
  return s;
}

static kc_status launch_cpu(kc_context *ctx, kc_kernel *k, kc_dim3 grid, kc_dim3 block,
                            size_t shared, void **params) {
  rt_cpu_kernel ck;
  ck.name = k->name;
  ck.block_fn = k->block_fn;
  ck.thread_fn = k->thread_fn;
  ck.uses_barrier = k->uses_barrier;
  ck.cooperative = k->cooperative;
  if (k->cooperative) {   /* refused before it starts: no fault for the next synchronize */
    kc_status s = rt_check_coop_grid(ctx, k->name, grid, block,
                                     rt_cpu_coop_max_blocks(block.x * block.y * block.z),
                                     "on the CPU back end");
    if (s != KC_OK) return s;
  }
  ck.static_shared = k->static_shared;
  ck.stack_bytes = k->stack_bytes;
  ck.file = k->mod->src_name;
  ck.params = k->params;
  ck.nparams = k->nparams;
  ck.inner_axis = k->inner_axis;
  ck.fuse_blocks = k->fuse_blocks;
  kc_status s = rt_cpu_launch(ctx, &ck, grid, block, shared, params);
  if (s == KC_ERR_LAUNCH || s == KC_ERR_DEADLOCK || s == KC_ERR_BOUNDS || s == KC_ERR_ASSERT ||
      s == KC_ERR_TIMEOUT) {
    /* also reported by the next kc_synchronize, as a CUDA fault would be */
    ctx->pending = s;
    memcpy(ctx->pending_msg, ctx->err, sizeof ctx->pending_msg);
  }
  return s;
}

/* On the CPU, a kernel run as regions of thread loops (its barriers; host_regions.c)
 * and not as fused blocks, launched in 2-D or 3-D blocks, runs a variant compiled for
 * its block shape once its launches in that shape have run RT_VARIANT_WORK threads
 * (module.c): blockDim a constant, so the thread loops have a known length and LLVM
 * vectorises each row without the checks and remainders a length known only at run
 * time costs, once per row of 16 (a 16 x 16 tiled matmul: 9.5 -> 6.8 ms; 1-D blocks,
 * whose one row is long, gained nothing or lost). Compiling it takes about as long as
 * compiling the kernel did (it goes into the on-disk cache too), so a launch or two of
 * a small grid never waits for it. */
static kc_status shaped_kernel(kc_context *ctx, kc_kernel **k, kc_dim3 grid, kc_dim3 block) {
  if (ctx->device != KC_DEVICE_CPU || !(*k)->regions || (*k)->fuse_blocks ||
      (block.y == 1 && block.z == 1) || ctx->cpu_shape == RT_SHAPE_NEVER)
    return KC_OK;
  uint64_t threads = (uint64_t)grid.x * grid.y * grid.z * block.x * block.y * block.z;
  kc_kernel *v = NULL;
  kc_status s = rt_module_block_variant(*k, block,
                                        ctx->cpu_shape == RT_SHAPE_ALWAYS ? UINT64_MAX : threads, &v);
  if (v) *k = v;
  return s;
}

kc_status kc_launch(kc_kernel *k, kc_dim3 grid, kc_dim3 block, size_t shared_bytes,
                    kc_stream *stream, const kc_arg *args, int nargs) {
  RT_NEED(NULL, k, "kc_launch");
  kc_context *ctx = k->mod->ctx;
  if (rt_handle_live(ctx, k->mod->magic, "kc_launch", "kernel's module") != KC_OK ||
      (stream && rt_handle_live(ctx, stream->magic, "kc_launch", "stream") != KC_OK))
    return KC_ERR_INVALID;
  if (nargs > 0 && !args) return rt_null_arg(ctx, "kc_launch", "args (with nargs > 0)");
  if (stream && stream->ctx != ctx)
    return rt_error(ctx, KC_ERR_INVALID, "kernel '%s': the stream belongs to another context",
                    k->name);
  kc_status s;
  if (k->nparams < 0) {
    s = rt_module_specialise(k, args, nargs, &k);
    if (s != KC_OK) return s;
  }
  void *params[RT_MAX_FLAT_PARAMS];
  uint64_t scalars[2 * RT_MAX_FLAT_PARAMS];
  int bad = 0, other = 0;
  kc_kernel *first = k;
  bad_arg why = pack(k, args, nargs, params, scalars, &bad, &other);
  /* other compiled signatures of the same kernel, tried in order */
  for (kc_kernel *o = k->next_overload; why != ARG_OK && why != ARG_ALIAS && o;
       o = o->next_overload) {
    int b2, o2;
    if (pack(o, args, nargs, params, scalars, &b2, &o2) == ARG_OK) {
      k = o;
      why = ARG_OK;
    }
  }
  /* a view where a signature said float32[:]: Numba reads that as any layout, so the
     overload that takes the arguments but for their layout is compiled again taking
     its arrays so (once; then found in the module's list) */
  for (kc_kernel *o = first; why != ARG_OK && why != ARG_ALIAS && o; o = o->next_overload) {
    int b2, o2;
    if (pack(o, args, nargs, params, scalars, &b2, &o2) != ARG_LAYOUT) continue;
    kc_kernel *v = NULL;
    s = rt_module_layout_variant(o, &v);
    if (s != KC_OK) return s;
    if (v && pack(v, args, nargs, params, scalars, &b2, &o2) == ARG_OK) k = v, why = ARG_OK;
  }
  if (why != ARG_OK) return arg_error(ctx, first, args, nargs, why, bad, other);
  s = rt_check_shape(ctx, k, grid, block, shared_bytes);
  if (s == KC_OK) s = shaped_kernel(ctx, &k, grid, block);
  if (s != KC_OK) return s;
  if (ctx->device == KC_DEVICE_CUDA)
    return launch_cuda(ctx, k, grid, block, shared_bytes, stream, params);
  return launch_cpu(ctx, k, grid, block, shared_bytes, params);
}

#define GRID_STRIDE_WAVES 4   /* grid cap: this many device-filling grids of blocks */

/* On CUDA the grid is capped at a few device-filling waves and the kernel's loop strides
 * over the rest. On the CPU it is not capped: the block function runs a block's threads
 * one after another, so a capped grid makes each thread walk the array a grid apart
 * (every cache line fetched by many threads, the loop scalar: 45-75x slower than C),
 * while a grid that covers n runs each thread's loop once, the threads of a block on
 * consecutive elements (vectorised), and the workers' runs of blocks are contiguous
 * chunks (about 1.15x of C; docs/runtime.md). */
kc_status rt_grid_stride_shape(kc_kernel *k, int64_t n, unsigned *grid, unsigned *block) {
  int b = 0, fill = 0;
  kc_status s = kc_kernel_suggest_block(k, 0, &b, &fill);
  if (s != KC_OK) return s;
  if (b < 1) b = 1;
  if (fill < 1) fill = 1;
  uint64_t want = ((uint64_t)(n > 0 ? n : 0) + (uint64_t)b - 1) / (uint64_t)b;
  uint64_t cap = (uint64_t)fill * GRID_STRIDE_WAVES;
  uint64_t limit = k->mod->ctx->limits.max_grid[0];
  if (k->mod->ctx->device == KC_DEVICE_CPU) cap = want;
  if (want > cap) want = cap;
  if (want > limit) want = limit;
  *grid = want > 0 ? (unsigned)want : 1;
  *block = (unsigned)b;
  return KC_OK;
}

kc_status kc_kernel_max_cooperative_blocks(kc_kernel *k, int threads_per_block,
                                           size_t shared_bytes, uint64_t *blocks) {
  RT_NEED(NULL, k, "kc_kernel_max_cooperative_blocks");
  kc_context *ctx = k->mod->ctx;
  RT_NEED(ctx, blocks, "kc_kernel_max_cooperative_blocks");
  if (k->nparams < 0)
    return rt_error(ctx, KC_ERR_INVALID,
                    "kernel '%s' is untyped: launch it once (or compile it with a "
                    "signature) before asking how many blocks fit", k->name);
  if (threads_per_block < 1 || (unsigned)threads_per_block > k->max_threads)
    return rt_error(ctx, KC_ERR_INVALID, "kernel '%s': %d threads per block (it takes 1 "
                    "to %u)", k->name, threads_per_block, k->max_threads);
  if (ctx->device == KC_DEVICE_CUDA)
    return rt_cuda_coop_max_blocks(ctx, k->cu_function, threads_per_block, shared_bytes,
                                   blocks);
  *blocks = rt_cpu_coop_max_blocks((unsigned)threads_per_block);
  return KC_OK;
}

kc_status kc_kernel_suggest_block(kc_kernel *k, size_t shared_bytes, int *block,
                                  int *min_grid) {
  RT_NEED(NULL, k, "kc_kernel_suggest_block");
  RT_NEED(k->mod->ctx, block, "kc_kernel_suggest_block");
  kc_context *ctx = k->mod->ctx;
  if (k->nparams < 0)
    return rt_error(ctx, KC_ERR_INVALID,
                    "kernel '%s' is untyped: launch it once (or compile it with a "
                    "signature) before asking for a launch shape", k->name);
  /* on the CPU 1024: a grid-stride loop runs step by step for a block (host_regions.c),
     and a block's step is its threads' neighbouring elements, so the bigger the block
     the longer the stretch of memory a step reads (2 x 256 took 1.7x the time of
     2 x 1024 over 2^24 floats) */
  int b = ctx->device == KC_DEVICE_CPU ? 1024 : 256, g = ctx->cpu_threads > 0 ? ctx->cpu_threads : 1;
  if (ctx->device == KC_DEVICE_CUDA) {
    kc_status s = rt_cuda_occupancy(ctx, k->cu_function, shared_bytes, &g, &b);
    if (s != KC_OK) return s;
  } else if ((unsigned)b > k->max_threads) {
    b = (int)k->max_threads;
  }
  *block = b;
  if (min_grid) *min_grid = g;
  return KC_OK;
}
