/*
 * private.c — integer arrays a kernel only adds to with atomics (the compiler's
 * host_private.c says which), counted by each worker in a copy of its own and added
 * into the array when the worker's part of the launch ends (rt_private_merge, before
 * the launch returns). The copy is zeroed at the worker's first block, so integer
 * addition's wrap-around gives exactly what the atomics would have.
 *
 * The runtime declines, and the kernel keeps its atomics on the shared array, where the
 * compiler could not know enough: a cooperative launch (its blocks run on threads of
 * their own), a kernel without its parameters' description (one launched through
 * rt_cpu_launch by hand), an array over PRIVATE_MAX_BYTES (a copy per worker, zeroed and
 * summed at every launch, would cost more than the atomics save), and an array that
 * overlaps another array argument, which the kernel may read: a thread must see its own
 * adds there.
 */
#include <stdlib.h>
#include <string.h>

#include "exec.h"

#define PRIVATE_MAX_BYTES ((size_t)256 * 1024)

/* [lo, hi): the bytes array parameter p's argument spans (lo == hi when empty); false
 * when not known (a record's element size). */
static bool array_span(const rt_job *j, const rt_param *p, uintptr_t *lo, uintptr_t *hi) {
  size_t es = kc_dtype_size(p->dtype);
  if (p->dtype == KC_RECORD || es == 0) return false;
  uintptr_t base = (uintptr_t)*(void **)j->args[p->flat];
  int64_t below = 0, above = 0;   /* in elements, from base */
  for (int d = 0; d < p->ndim; d++) {
    int64_t e = *(const int64_t *)j->args[p->flat + 1 + d];
    if (e == 0) {
      *lo = *hi = base;
      return true;
    }
    int64_t s = 1;   /* C-contiguous: the product of the extents inside this one */
    if (p->strided) s = *(const int64_t *)j->args[p->flat + 1 + p->ndim + d];
    else for (int k = d + 1; k < p->ndim; k++) s *= *(const int64_t *)j->args[p->flat + 1 + k];
    if (s < 0) below += (e - 1) * s;
    else above += (e - 1) * s;
  }
  *lo = base + (uintptr_t)(below * (int64_t)es);   /* below <= 0: wraps to base - |below| */
  *hi = base + (uintptr_t)((above + 1) * (int64_t)es);
  return true;
}

/* Whether parameter i's argument may be counted privately in this launch, and its size. */
static bool may_privatise(const rt_job *j, uint32_t i, size_t *bytes) {
  const rt_cpu_kernel *k = j->k;
  if (k->cooperative || !k->params || i >= (uint32_t)k->nparams) return false;
  const rt_param *p = &k->params[i];
  size_t es = kc_dtype_size(p->dtype);
  if (p->ndim == 0 || p->strided || (es != 4 && es != 8)) return false;
  uintptr_t lo, hi;
  if (!array_span(j, p, &lo, &hi) || hi - lo > PRIVATE_MAX_BYTES || hi == lo) return false;
  for (int q = 0; q < k->nparams; q++) {
    if ((uint32_t)q == i || k->params[q].ndim == 0) continue;
    uintptr_t qlo, qhi;
    if (!array_span(j, &k->params[q], &qlo, &qhi)) return false;
    if (qlo < qhi && qlo < hi && lo < qhi) return false;   /* overlaps: may be read */
  }
  *bytes = hi - lo;
  return true;
}

/* w's entry for parameter i in this launch, a new one if none; NULL when out of memory. */
static rt_private *entry_for(rt_worker *w, uint32_t i) {
  for (int e = 0; e < w->npriv; e++)
    if (w->priv[e].param == i) return &w->priv[e];
  if (w->npriv == w->priv_cap) {
    int cap = w->priv_cap ? 2 * w->priv_cap : 4;
    rt_private *grown = realloc(w->priv, (size_t)cap * sizeof *grown);
    if (!grown) return NULL;
    memset(grown + w->priv_cap, 0, (size_t)(cap - w->priv_cap) * sizeof *grown);
    w->priv = grown;
    w->priv_cap = cap;
  }
  rt_private *e = &w->priv[w->npriv++];   /* its buffer, if any, kept from a past launch */
  e->param = i;
  e->decided = false;
  e->bytes = 0;
  return e;
}

/* Give e a zeroed copy of parameter i's array when it may have one; else e->bytes stays
 * 0 and the kernel keeps the atomics (out of memory too: that costs only speed). */
static void decide(const rt_job *j, uint32_t i, rt_private *e) {
  size_t bytes = 0;
  if (i >= 64 || !may_privatise(j, i, &bytes)) return;
  if (bytes > e->cap) {
    void *p = NULL;
    if (posix_memalign(&p, SHARED_ALIGN, bytes) != 0) return;
    free(e->buf);
    e->buf = p;
    e->cap = bytes;
  }
  memset(e->buf, 0, bytes);
  const rt_param *p = &j->k->params[i];
  e->data = *(void **)j->args[p->flat];
  e->elsize = kc_dtype_size(p->dtype);
  e->bytes = bytes;
}

void *rt_cpu_private_array(kc_cpu_block *blk, uint32_t param) {
  rt_worker *w = blk->exec;
  uint64_t bit = param < 64 ? (uint64_t)1 << param : 0;
  blk->private_mask &= ~bit;
  rt_private *e = entry_for(w, param);
  if (!e) return NULL;
  if (!e->decided) {   /* the worker's first block of this launch */
    e->decided = true;
    decide(w->job, param, e);
  }
  if (e->bytes == 0) return NULL;
  blk->private_mask |= bit;
  return e->buf;
}

/* Add e's copy into its array, each element with an atomic: another launch on another
 * context may be adding to the same memory. */
static void merge(const rt_private *e) {
  if (e->elsize == 8) {
    uint64_t *dst = e->data;
    const uint64_t *src = e->buf;
    for (size_t i = 0; i < e->bytes / 8; i++)
      if (src[i]) __atomic_fetch_add(&dst[i], src[i], __ATOMIC_RELAXED);
    return;
  }
  uint32_t *dst = e->data;
  const uint32_t *src = e->buf;
  for (size_t i = 0; i < e->bytes / 4; i++)
    if (src[i]) __atomic_fetch_add(&dst[i], src[i], __ATOMIC_RELAXED);
}

void rt_private_merge(rt_worker *w) {
  for (int e = 0; e < w->npriv; e++)
    if (w->priv[e].bytes) merge(&w->priv[e]);
  w->npriv = 0;
}

void rt_private_free(rt_worker *w) {
  for (int e = 0; e < w->priv_cap; e++) free(w->priv[e].buf);
  free(w->priv);
  w->priv = NULL;
  w->npriv = w->priv_cap = 0;
}
