/*
 * array_slice.c — kc_array_slice: a view of an array selected by a Python slice per
 * axis (a[1:7:2, ::-1] in NumPy), sharing its owner's memory as kc_array_view's do.
 * The view keeps a stride per axis (kc_array.step, in elements); it is C-contiguous
 * only when those equal a C array's of its shape. Kernels whose parameter is declared
 * in any layout (Numba's 'A': "array(float32, 2d, A)", types.Array(float32, 2, 'A'))
 * take such a view with its strides; one declared C-contiguous (float32[:]) refuses a
 * non-contiguous view at launch (launch.c).
 */
#include "rt.h"

/* CPython's PySlice_AdjustIndices: the first index and the count of start:stop:step
 * over an axis of n, KC_SLICE_NONE standing for a left-out bound. */
static int64_t slice_count(int64_t n, int64_t start, int64_t stop, int64_t step,
                           int64_t *first) {
  int64_t lo_clamp = step < 0 ? -1 : 0, hi_clamp = step < 0 ? n - 1 : n;
  if (start == KC_SLICE_NONE) start = step < 0 ? n - 1 : 0;
  else {
    if (start < 0) start += n;
    start = start < 0 ? lo_clamp : start >= n ? hi_clamp : start;
  }
  if (stop == KC_SLICE_NONE) stop = step < 0 ? -1 : n;
  else {
    if (stop < 0) stop += n;
    stop = stop < 0 ? lo_clamp : stop >= n ? hi_clamp : stop;
  }
  *first = start;
  if (step < 0) return stop < start ? (start - stop - 1) / -step + 1 : 0;
  return start < stop ? (stop - start - 1) / step + 1 : 0;
}

/* Whether extents and element strides are those of a C-contiguous array (axes of
 * extent 1 may have any stride, as NumPy's flags say). */
int rt_array_c_contiguous(const kc_array *v) {
  int64_t want = 1;
  for (int d = v->ndim - 1; d >= 0; d--) {
    if (v->shape[d] == 0) return 1;
    if (v->shape[d] != 1 && v->step[d] != want) return 0;
    want *= v->shape[d];
  }
  return 1;
}

kc_status kc_array_slice(kc_array *a, const int64_t *start, const int64_t *stop,
                         const int64_t *step, kc_array **out) {
  RT_NEED(NULL, a, "kc_array_slice");
  RT_NEED(a->ctx, out, "kc_array_slice");
  *out = NULL;
  kc_context *ctx = a->ctx;
  if (rt_array_check(a, "array slice") != KC_OK) return KC_ERR_INVALID;
  kc_array *owner = a->base ? a->base : a;
  if (owner->freed) return rt_error(ctx, KC_ERR_INVALID, "array slice of a freed array");
  kc_array *v = rt_calloc(ctx, 1, sizeof *v);
  if (!v) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  *v = *a;
  int64_t skip = 0, count = 1, esize = (int64_t)kc_dtype_size(a->dtype);
  for (int d = 0; d < a->ndim; d++) {
    int64_t st = step ? step[d] : 1, first;
    if (st == 0 || st == KC_SLICE_NONE) {
      rt_free(ctx, v, sizeof *v);
      return rt_error(ctx, KC_ERR_INVALID, "array slice: the step of axis %d is 0", d);
    }
    v->shape[d] = slice_count(a->shape[d], start ? start[d] : KC_SLICE_NONE,
                              stop ? stop[d] : KC_SLICE_NONE, st, &first);
    if (v->shape[d] > 0) skip += first * a->step[d];
    v->step[d] = a->step[d] * st;
    count *= v->shape[d];
  }
  if (ctx->device == KC_DEVICE_CUDA) v->data.dev = a->data.dev + (uint64_t)(skip * esize);
  else v->data.host = (char *)a->data.host + skip * esize;
  v->bytes = (size_t)(count * esize);
  v->contiguous = rt_array_c_contiguous(v);
  v->base = owner;
  v->refs = 0;
  v->freed = 0;
  owner->refs++;
  *out = v;
  return KC_OK;
}

int kc_array_is_contiguous(const kc_array *a) { return a ? a->contiguous : 0; }

const int64_t *kc_array_strides(const kc_array *a) { return a ? a->step : NULL; }
