/*
 * job.c — one launch on the CPU as the executor's workers see it: a job (rt_job,
 * exec.h) holding the grid, the next block to hand out, the stop flag, and the first
 * failure; the threads of a block numbered as CUDA numbers them. Whoever fails first
 * (a trap, a deadlock, the watchdog) keeps the message; a bounds-checked kernel's
 * error record (host_abi.h) is reported before it (kernel_error.c's message).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "exec.h"

void rt_job_init(rt_job *j, const rt_cpu_kernel *k, kc_dim3 grid, kc_dim3 block,
                 size_t dynamic_shared, void **args) {
  /* not the whole struct: msg is 2 KiB, written only when something fails */
  memset(j, 0, offsetof(rt_job, msg));
  j->msg[0] = '\0';
  memset(&j->error, 0, sizeof j->error);
  j->k = k;
  j->args = args;
  j->grid[0] = grid.x; j->grid[1] = grid.y; j->grid[2] = grid.z;
  j->block[0] = block.x; j->block[1] = block.y; j->block[2] = block.z;
  j->nblocks = (uint64_t)grid.x * grid.y * grid.z;
  j->nthreads = block.x * block.y * block.z;
  j->shared = (k->static_shared + 15) / 16 * 16 + dynamic_shared;
  atomic_init(&j->stop, 0);
  atomic_init(&j->claimed, 0);
  atomic_init(&j->nshare, 0);
  j->status = KC_OK;
}

void rt_job_share_out(rt_job *j, rt_share *share, int n) {
  j->share = share;
  for (int i = 0; i < n; i++) {
    /* q * i + min(r, i) <= nblocks: no overflow */
    uint64_t q = j->nblocks / (uint64_t)n, r = j->nblocks % (uint64_t)n;
    share[i].start = q * (uint64_t)i + (r < (uint64_t)i ? r : (uint64_t)i);
    share[i].end = share[i].start + q + ((uint64_t)i < r);
    atomic_store_explicit(&share[i].next, share[i].start, memory_order_relaxed);
  }
  atomic_store_explicit(&j->nshare, n, memory_order_release);   /* the watchdog's view */
}

const int *rt_job_walk_axes(const rt_job *j) {
  static const int walk[3][3] = {{0, 1, 2}, {1, 0, 2}, {2, 0, 1}};
  return walk[j->k->inner_axis];   /* 0..2: compile.c, and the cache's parse_kernel */
}

void rt_job_block_index(const rt_job *j, uint64_t b, uint32_t idx[3]) {
  const int *ax = rt_job_walk_axes(j);
  const uint64_t g0 = j->grid[ax[0]], g1 = j->grid[ax[1]];
  idx[ax[0]] = (uint32_t)(b % g0);
  idx[ax[1]] = (uint32_t)((b / g0) % g1);
  idx[ax[2]] = (uint32_t)(b / (g0 * g1));
}

uint64_t rt_job_started(const rt_job *j) {
  uint64_t started = 0;
  int n = atomic_load_explicit(&j->nshare, memory_order_acquire);   /* 0: not shared yet */
  for (int i = 0; i < n; i++) {
    uint64_t next = atomic_load_explicit(&j->share[i].next, memory_order_relaxed);
    started += (next < j->share[i].end ? next : j->share[i].end) - j->share[i].start;
  }
  return started;
}

void rt_job_fail(rt_job *j, kc_status s, const char *fmt, ...) {
  int expected = 0;
  if (!atomic_compare_exchange_strong(&j->claimed, &expected, 1)) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(j->msg, sizeof j->msg, fmt, ap);
  va_end(ap);
  j->status = s;
  atomic_store(&j->stop, 1);
}

kc_status rt_job_status(kc_context *ctx, const rt_job *j) {
  /* the record first: the threads left waiting for one that raised deadlock */
  if (j->error.flag) {
    char msg[RT_ERR_LEN];
    rt_format_kernel_error(msg, sizeof msg, j->k->name, j->k->file, &j->error);
    return rt_error(ctx, rt_kernel_error_status(&j->error), "%s", msg);
  }
  if (j->status != KC_OK) return rt_error(ctx, j->status, "%s", j->msg);
  return KC_OK;
}
