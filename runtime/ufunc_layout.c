/*
 * ufunc_layout.c — the shapes and memory layouts of a ufunc call (kc_vectorize_args):
 * NumPy's broadcasting of the arguments' shapes, each argument's strides over the
 * broadcast shape (0 along a stretched axis), and the strided copies, with conversion,
 * between such a view and a C-contiguous array: gathering an input that is broadcast,
 * strided or of another dtype into a contiguous temporary of the loop's dtype, and
 * scattering a result into a given output that is strided or of another dtype.
 *
 * The copies run on the host: in place on the CPU device; on CUDA through host memory
 * (the bytes the view spans copied down, converted, copied up), which is correct but
 * slow; the common call (contiguous inputs of the loop's dtype and the broadcast shape)
 * copies nothing on either device.
 */
#include <string.h>

#include "rt.h"

int rt_broadcast_merge(int *nd, int64_t *shape, const kc_array *a) {
  int n = a->ndim > *nd ? a->ndim : *nd;
  int64_t merged[KC_MAX_DIMS];
  for (int d = 0; d < n; d++) {
    int ad = d - (n - a->ndim), sd = d - (n - *nd);
    int64_t x = ad >= 0 ? a->shape[ad] : 1, y = sd >= 0 ? shape[sd] : 1;
    if (x != y && x != 1 && y != 1) return ad;
    merged[d] = x == 1 ? y : x;
  }
  memcpy(shape, merged, sizeof merged[0] * (size_t)n);
  *nd = n;
  return -1;
}

void rt_broadcast_strides(const kc_array *a, int nd, const int64_t *shape, int64_t *strides) {
  for (int d = 0; d < nd; d++) {
    int ad = d - (nd - a->ndim);
    strides[d] = ad < 0 || (a->shape[ad] == 1 && shape[d] != 1) ? 0 : a->step[ad];
  }
}

/* Over the C-order flat indices [start, start + count) of shape: copy-convert between
 * the view v (dtype vt, element strides vstr) and the contiguous buffer c (dtype ct),
 * v into c when to_c, else c into v; the last axis goes as runs. */
static void strided_range(char *v, kc_dtype vt, const int64_t *vstr, char *c, kc_dtype ct,
                          int to_c, int nd, const int64_t *shape, int64_t start,
                          int64_t count) {
  int64_t idx[KC_MAX_DIMS], ve = (int64_t)kc_dtype_size(vt), ce = (int64_t)kc_dtype_size(ct);
  for (int d = nd - 1; d >= 0; d--) {
    idx[d] = shape[d] ? start % shape[d] : 0;
    start = shape[d] ? start / shape[d] : 0;
  }
  while (count > 0) {
    int64_t voff = 0, run = shape[nd - 1] - idx[nd - 1];
    for (int d = 0; d < nd; d++) voff += idx[d] * vstr[d];
    if (run > count) run = count;
    if (to_c) rt_convert_run(c, ct, 1, v + voff * ve, vt, vstr[nd - 1], run);
    else rt_convert_run(v + voff * ve, vt, vstr[nd - 1], c, ct, 1, run);
    c += run * ce;
    count -= run;
    idx[nd - 1] += run;
    for (int d = nd - 1; d > 0 && idx[d] == shape[d]; d--) idx[d] = 0, idx[d - 1]++;
  }
}

/* The elements a view of nd strides over shape reaches, relative to its first one:
 * [*lo, *hi] (strides may be negative: a slice with a negative step). */
static void view_span(int nd, const int64_t *shape, const int64_t *strides, int64_t *lo,
                      int64_t *hi) {
  *lo = *hi = 0;
  for (int d = 0; d < nd; d++) {
    int64_t reach = (shape[d] - 1) * strides[d];
    if (reach < 0) *lo += reach;
    else *hi += reach;
  }
}

/* CUDA: the bytes of a's view [lo, hi] (elements) in a new host buffer; *base points
 * at the view's first element inside it. */
static kc_status stage_down(kc_context *ctx, const kc_array *a, int64_t lo, int64_t hi,
                            char **buf, size_t *len, char **base) {
  int64_t es = (int64_t)kc_dtype_size(a->dtype);
  *len = (size_t)((hi - lo + 1) * es);
  *buf = rt_alloc(ctx, *len);
  if (!*buf) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  kc_status s = rt_cuda_copy_dtoh(ctx, *buf, a->data.dev + (uint64_t)(lo * es), *len);
  if (s != KC_OK) rt_free(ctx, *buf, *len);
  *base = *buf - lo * es;
  return s;
}

kc_status rt_ufunc_gather(kc_context *ctx, kc_array *dst, const kc_array *src, int nd,
                          const int64_t *shape, const int64_t *strides, int64_t start,
                          int64_t count) {
  if (count <= 0) return KC_OK;
  if (ctx->device != KC_DEVICE_CUDA) {
    strided_range(src->data.host, src->dtype, strides, dst->data.host, dst->dtype, 1, nd,
                  shape, start, count);
    return KC_OK;
  }
  int64_t lo, hi;
  view_span(nd, shape, strides, &lo, &hi);
  char *in = NULL, *base = NULL, *out = NULL;
  size_t inlen = 0, outlen = (size_t)count * kc_dtype_size(dst->dtype);
  kc_status s = stage_down(ctx, src, lo, hi, &in, &inlen, &base);
  if (s != KC_OK) return s;
  out = rt_alloc(ctx, outlen);
  if (!out) s = rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  else {
    strided_range(base, src->dtype, strides, out, dst->dtype, 1, nd, shape, start, count);
    s = rt_cuda_copy_htod(ctx, dst->data.dev, out, outlen);
    rt_free(ctx, out, outlen);
  }
  rt_free(ctx, in, inlen);
  return s;
}

kc_status rt_ufunc_scatter(kc_context *ctx, kc_array *dst, const kc_array *src, int nd,
                           const int64_t *shape, int64_t start, int64_t count) {
  if (count <= 0) return KC_OK;
  if (ctx->device != KC_DEVICE_CUDA) {
    strided_range(dst->data.host, dst->dtype, dst->step, src->data.host, src->dtype, 0, nd,
                  shape, start, count);
    return KC_OK;
  }
  /* the span of dst comes down first, so the elements between the view's keep their
     values when it goes back up */
  int64_t lo, hi;
  view_span(nd, shape, dst->step, &lo, &hi);
  char *span = NULL, *base = NULL, *in = NULL;
  size_t spanlen = 0, inlen = (size_t)count * kc_dtype_size(src->dtype);
  kc_status s = stage_down(ctx, dst, lo, hi, &span, &spanlen, &base);
  if (s != KC_OK) return s;
  in = rt_alloc(ctx, inlen);
  if (!in) s = rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  else if ((s = rt_cuda_copy_dtoh(ctx, in, src->data.dev, inlen)) == KC_OK) {
    strided_range(base, dst->dtype, dst->step, in, src->dtype, 0, nd, shape, start, count);
    int64_t es = (int64_t)kc_dtype_size(dst->dtype);
    s = rt_cuda_copy_htod(ctx, dst->data.dev + (uint64_t)(lo * es), span, spanlen);
  }
  if (in) rt_free(ctx, in, inlen);
  rt_free(ctx, span, spanlen);
  return s;
}
