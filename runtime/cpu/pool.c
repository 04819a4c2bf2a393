/*
 * pool.c — the CPU executor's blocks and workers: a block's record (kc_cpu_block: its
 * indices, its shared memory, the callbacks generated code calls), the loop that
 * claims blocks from the workers' shares of the job and runs them, and the pool of
 * persistent worker threads, made at a context's first multi-block launch and joined
 * at kc_context_free (rt_pool_free). The calling thread works too (worker 0), so a
 * one-block launch or a one-thread pool never wakes anyone.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

/* ---- Callbacks from generated code -------------------------------------------------- */
static void cpu_trap(kc_cpu_block *blk, const char *message) {
  rt_worker *w = blk->exec;
  const uint32_t *b = blk->block_idx;
  if (w->in_fibers) {
    uint32_t t[3];
    thread_of(w->job, w->cur, t);
    rt_job_fail(w->job, KC_ERR_LAUNCH,
                "kernel '%s': block (%u, %u, %u), thread (%u, %u, %u): %s", w->job->k->name,
                b[0], b[1], b[2], t[0], t[1], t[2], message);
  } else {
    rt_job_fail(w->job, KC_ERR_LAUNCH, "kernel '%s': block (%u, %u, %u): %s", w->job->k->name,
                b[0], b[1], b[2], message);
  }
}

/* The calling thread raised (cg_checks.c; a checked kernel filled the error record
 * first): it ends here, as a GPU thread ends at PTX's exit, and the others run on. Its
 * fiber is left mid-kernel, so it starts afresh when next used. The compiler runs every
 * kernel that can raise as fibers; anything else is kcc's bug. */
static void cpu_exit_thread(kc_cpu_block *blk) {
  rt_worker *w = blk->exec;
  if (!w->in_fibers) {   /* the launch fails (and stops), never returning into the kernel */
    rt_job_fail(w->job, KC_ERR_INTERNAL, "kernel '%s' raised but was not compiled to run "
                "its threads as fibers", w->job->k->name);
    siglongjmp(w->cancel_to, 1);
  }
  rt_fiber *f = &w->fibers[w->cur];
  f->state = FIBER_DONE;
  f->booted = 0;
  switch_next(w, &f->ctx);
  /* never resumed: the scheduler boots the fiber again before it runs another thread */
}

/* The launch is being stopped (blk->stop is set: the watchdog, or a failure elsewhere):
 * a fiber ends as one that raised does; a K__block call is left for run_job, which
 * starts no more blocks. Either way the thread never returns to the kernel. */
static void cpu_cancel(kc_cpu_block *blk) {
  rt_worker *w = blk->exec;
  if (w->in_fibers) {
    rt_fiber *f = &w->fibers[w->cur];
    f->state = FIBER_DONE;
    f->booted = 0;
    switch_next(w, &f->ctx);
  }
  siglongjmp(w->cancel_to, 1);
}

/* ---- Blocks and workers ------------------------------------------------------------- */
static int ensure_shared(rt_worker *w, size_t bytes) {
  if (bytes <= w->shared_cap) return 1;
  void *p = NULL;
  size_t cap = (bytes + SHARED_ALIGN - 1) / SHARED_ALIGN * SHARED_ALIGN;
  if (posix_memalign(&p, SHARED_ALIGN, cap) != 0) return 0;
  free(w->shared);
  w->shared = p;
  w->shared_cap = cap;
  return 1;
}

/* blk->frame: the worker's buffer for a region-form kernel's per-thread values, grown
 * as needed and kept across blocks and launches. */
static void *cpu_frame(kc_cpu_block *blk, uint64_t bytes) {
  rt_worker *w = blk->exec;
  if (bytes > w->frame_cap) {
    void *p = NULL;
    size_t cap = (size_t)(bytes + SHARED_ALIGN - 1) / SHARED_ALIGN * SHARED_ALIGN;
    if (bytes > SIZE_MAX / 2 || posix_memalign(&p, SHARED_ALIGN, cap) != 0) {
      rt_job_fail(w->job, KC_ERR_NOMEM, "kernel '%s': out of memory for %llu bytes of "
                  "per-thread values kept across barriers", w->job->k->name,
                  (unsigned long long)bytes);
      return NULL;
    }
    free(w->frame);
    w->frame = p;
    w->frame_cap = cap;
  }
  return w->frame;
}

/* w's block record for job j, with its shared memory; 0 when that is out of memory. */
int rt_block_setup(rt_worker *w, rt_job *j) {
  w->job = j;
  if (j->shared && !ensure_shared(w, j->shared)) {
    rt_job_fail(j, KC_ERR_NOMEM, "kernel '%s': out of memory for %zu bytes of shared memory",
                j->k->name, j->shared);
    return 0;
  }
  kc_cpu_block *blk = &w->blk;
  memset(blk, 0, sizeof *blk);
  memcpy(blk->block_dim, j->block, sizeof blk->block_dim);
  memcpy(blk->thread_span, j->block, sizeof blk->thread_span);
  memcpy(blk->grid_dim, j->grid, sizeof blk->grid_dim);
  blk->shared = w->shared;
  blk->exec = w;
  blk->barrier = rt_cpu_barrier;
  blk->trap = cpu_trap;
  blk->exit_thread = cpu_exit_thread;
  blk->error = &j->error;
  blk->collective = rt_cpu_collective;
  blk->frame = cpu_frame;
  blk->stop = (const int *)&j->stop;
  blk->cancel = cpu_cancel;
  blk->private_array = rt_cpu_private_array;
  w->npriv = 0;
  size_t dyn_off = (j->k->static_shared + 15) / 16 * 16;  /* see rt_job_init */
  blk->dyn_shared = w->shared ? (char *)w->shared + dyn_off : NULL;
  blk->dyn_shared_bytes = j->shared > dyn_off ? j->shared - dyn_off : 0;
  return 1;
}

/* A run of up to chunk blocks from share s into [*b, *end); false when s is used up.
 * The plain load first: a used-up share is then only read, not written, by thieves. */
static bool claim(rt_share *s, uint64_t chunk, uint64_t *b, uint64_t *end) {
  if (atomic_load_explicit(&s->next, memory_order_relaxed) >= s->end) return false;
  uint64_t x = atomic_fetch_add_explicit(&s->next, chunk, memory_order_relaxed);
  if (x >= s->end) return false;
  *b = x;
  *end = s->end - x > chunk ? x + chunk : s->end;
  return true;
}

/* After a block: false when the launch is being stopped. */
static bool block_done(rt_job *j) {
  if (atomic_load_explicit(&j->stop, memory_order_relaxed)) return false;
  if (__atomic_load_n(&j->error.flag, __ATOMIC_RELAXED)) {
    atomic_store(&j->stop, 1);   /* an index was out of range: the launch has failed */
    return false;
  }
  return true;
}

/* How many threads a fused run of blocks may hold at most: long enough rows for the
 * vector loop, a region-form kernel's per-thread frame (host_regions.c) still small. */
enum { FUSED_THREADS_MAX = 2048 };

/* The most blocks of j one K__block call runs: 1 unless j's kernel may fuse them (the
 * compiler fuses only barrier-free kernels). */
static uint64_t fused_blocks_max(const rt_job *j) {
  if (!j->k->fuse_blocks) return 1;
  uint64_t most = FUSED_THREADS_MAX / j->nthreads;
  return most < 1 ? 1 : most;
}

/* Blocks [b, end) of a kernel whose neighbouring blocks along the walk's first axis may
 * run as one (host_fuse.c): each stretch of them within one row of the grid, of at most
 * FUSED_THREADS_MAX threads, is one K__block call whose thread loop along that axis
 * spans the stretch. */
static bool run_fused(rt_worker *w, rt_job *j, uint64_t b, uint64_t end) {
  kc_cpu_block *blk = &w->blk;
  const int a0 = rt_job_walk_axes(j)[0];
  const uint64_t g0 = j->grid[a0], most = fused_blocks_max(j);
  while (b < end) {
    rt_job_block_index(j, b, blk->block_idx);
    uint64_t n = g0 - blk->block_idx[a0];   /* the rest of this row */
    if (n > end - b) n = end - b;
    if (n > most) n = most;
    blk->thread_span[a0] = (uint32_t)(n * j->block[a0]);
    j->k->block_fn(j->args, blk);
    if (!block_done(j)) return false;
    b += n;
  }
  return true;   /* thread_span stays a run's: rt_block_setup resets it for a new job */
}

/* Run blocks [b, end) of j on w, b counting along rt_job_walk_axes; false when the
 * launch is being stopped. */
static bool run_run(rt_worker *w, rt_job *j, uint64_t b, uint64_t end) {
  if (fused_blocks_max(j) > 1) return run_fused(w, j, b, end);
  kc_cpu_block *blk = &w->blk;
  const int *ax = rt_job_walk_axes(j);
  const uint64_t g0 = j->grid[ax[0]], g1 = j->grid[ax[1]];
  uint32_t *idx = blk->block_idx;
  rt_job_block_index(j, b, idx);
  for (; b < end; b++) {
    if (j->k->uses_barrier) rt_run_fiber_block(w);
    else j->k->block_fn(j->args, blk);
    if (!block_done(j)) return false;
    if (++idx[ax[0]] < g0) continue;
    idx[ax[0]] = 0;
    if (++idx[ax[1]] < g1) continue;
    idx[ax[1]] = 0;
    idx[ax[2]]++;
  }
  return true;
}

/* Worker `me` runs its own share of j's blocks from the front, in runs, so that small
 * blocks do not pay an atomic and three divisions each; then helps with the others'
 * shares, in the same runs, which stay short enough (1/32 of a share) to balance a
 * worker that started late (but a fused run's worth at least, as long as a fused
 * run of blocks is a small piece of work anyway). A share is contiguous, so a worker
 * walks one stretch of the grid, and its counter is its own cache line, so the workers
 * do not contend for one counter. */
static void run_blocks(rt_worker *w, rt_job *j, int me) {
  /* the job reached this worker through the pool's generation (acquire): its shares
     are all there */
  int nshare = atomic_load_explicit(&j->nshare, memory_order_relaxed);
  uint64_t chunk = j->nblocks / ((uint64_t)nshare * 32);
  if (chunk < 1) chunk = 1;
  if (chunk > 64) chunk = 64;
  uint64_t fused = fused_blocks_max(j);
  if (chunk < fused) chunk = fused;
  for (int i = 0; i < nshare; i++) {
    rt_share *s = &j->share[(me + i) % nshare];
    uint64_t b, end;
    while (claim(s, chunk, &b, &end)) {
      if (atomic_load_explicit(&j->stop, memory_order_relaxed)) return;
      if (!run_run(w, j, b, end)) return;
    }
  }
}

static void run_job(rt_worker *w, rt_job *j) {
  if (!rt_block_setup(w, j)) return;
  if (!sigsetjmp(w->cancel_to, 0))   /* else cpu_cancel: the launch is being stopped */
    run_blocks(w, j, (int)(w - w->pool->w));
  rt_private_merge(w);   /* before the launch returns, stopped or not, as on a GPU */
}

/* How long a worker spins for the next job, and the caller for the job's end, before
 * sleeping: longer than the gap between launches a host loop makes, short enough that
 * an idle pool leaves its cores to others at once. KC_CPU_SPIN_US sets it (0: sleep at
 * once, as OMP_WAIT_POLICY=passive; at most a second). */
enum { SPIN_US_DEFAULT = 50, SPIN_US_MAX = 1000000 };

static long long spin_ns_setting(void) {
  const char *s = getenv("KC_CPU_SPIN_US");
  char *end;
  long v = s && *s ? strtol(s, &end, 10) : SPIN_US_DEFAULT;
  if (!s || !*s || *end || v < 0) v = SPIN_US_DEFAULT;
  return (long long)(v > SPIN_US_MAX ? SPIN_US_MAX : v) * 1000;
}

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Spin until done(p, arg) or p->spin_ns pass; whether it is done. After the first few
 * hundred pauses it yields between checks: on a loaded machine the thread it waits for
 * may need this core. */
static bool spin_until(rt_pool *p, bool (*done)(rt_pool *, unsigned long), unsigned long arg) {
  double until = 0;   /* rt_now_ms's clock */
  for (unsigned i = 0;; i++) {
    if (done(p, arg)) return true;
    if (p->spin_ns == 0) return false;
    if (i < 256) {
      cpu_relax();
      continue;
    }
    sched_yield();
    double t = rt_now_ms();
    if (!until) until = t + (double)p->spin_ns / 1e6;
    else if (t >= until) return false;
  }
}

static bool job_posted(rt_pool *p, unsigned long seen) {
  return atomic_load_explicit(&p->gen, memory_order_acquire) != seen ||
         atomic_load_explicit(&p->quit, memory_order_relaxed);
}

static bool job_done(rt_pool *p, unsigned long unused) {
  (void)unused;
  return atomic_load_explicit(&p->busy, memory_order_acquire) == 0;
}

/* The next job's generation after seen (0 when the pool is quitting). */
static unsigned long next_job(rt_pool *p, unsigned long seen) {
  if (!spin_until(p, job_posted, seen)) {
    pthread_mutex_lock(&p->mu);
    p->sleepers++;
    while (!job_posted(p, seen)) pthread_cond_wait(&p->wake, &p->mu);
    p->sleepers--;
    pthread_mutex_unlock(&p->mu);
  }
  return atomic_load_explicit(&p->quit, memory_order_relaxed)
      ? 0 : atomic_load_explicit(&p->gen, memory_order_acquire);
}

static void *worker_main(void *arg) {
  rt_worker *w = arg;
  rt_pool *p = w->pool;
  unsigned long seen = 0;
#ifdef RT_TSAN
  w->main.tsan = __tsan_get_current_fiber();
#endif
  while ((seen = next_job(p, seen)) != 0) {
    run_job(w, p->job);   /* p->job and its shares were written before gen was bumped */
    if (atomic_fetch_sub_explicit(&p->busy, 1, memory_order_acq_rel) != 1) continue;
    pthread_mutex_lock(&p->mu);   /* the last one out: wake the caller if it sleeps */
    if (p->waiting) pthread_cond_signal(&p->idle);
    pthread_mutex_unlock(&p->mu);
  }
  return NULL;
}

/* ---- The pool ----------------------------------------------------------------------- */
rt_pool *rt_pool_new(kc_context *ctx) {
  rt_pool *p = rt_calloc(ctx, 1, sizeof *p);
  if (!p) return NULL;
  p->ctx = ctx;
  p->n = ctx->cpu_threads > 0 ? ctx->cpu_threads : 1;
  p->w = rt_calloc(ctx, (size_t)p->n, sizeof *p->w);
  if (!p->w) {
    rt_free(ctx, p, sizeof *p);
    return NULL;
  }
  /* one more share than workers, to align them to a cache line */
  p->share_mem = rt_calloc(ctx, (size_t)p->n + 1, sizeof(rt_share));
  if (!p->share_mem) {
    rt_free(ctx, p->w, (size_t)p->n * sizeof *p->w);
    rt_free(ctx, p, sizeof *p);
    return NULL;
  }
  p->share = (rt_share *)(((uintptr_t)p->share_mem + 63) & ~(uintptr_t)63);
  for (int i = 0; i < p->n; i++) p->w[i].pool = p;
  p->spin_ns = spin_ns_setting();
  rt_watch_init(&p->watch);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->idle, NULL);
#ifdef RT_TSAN
  p->w[0].main.tsan = __tsan_get_current_fiber();
#endif
  return p;
}

/* Start the worker threads (once); with fewer threads than asked if some fail. */
static void pool_start(rt_pool *p) {
  if (p->started) return;
  p->started = 1;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, WORKER_STACK);   /* not the system's default */
  for (int i = 1; i < p->n; i++) {
    if (pthread_create(&p->w[i].thread, &attr, worker_main, &p->w[i]) != 0) {
      p->n = i;
      break;
    }
  }
  pthread_attr_destroy(&attr);
}

void rt_pool_free(rt_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  atomic_store(&p->quit, 1);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  if (p->started)
    for (int i = 1; i < p->n; i++) pthread_join(p->w[i].thread, NULL);
  rt_watch_free(&p->watch);
  for (int i = 0; i < p->n; i++) {
    rt_free_fibers(&p->w[i]);
    rt_private_free(&p->w[i]);
    free(p->w[i].shared);
    free(p->w[i].frame);
  }
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->idle);
  kc_context *ctx = p->ctx;
  int total = ctx->cpu_threads > 0 ? ctx->cpu_threads : 1;
  rt_free(ctx, p->share_mem, ((size_t)total + 1) * sizeof(rt_share));
  rt_free(ctx, p->w, (size_t)total * sizeof *p->w);
  rt_free(ctx, p, sizeof *p);
}

/* A job with one block, or a pool of one worker, runs on the calling thread alone;
 * else every worker takes blocks, the caller too (worker 0), until none are left. */
void rt_pool_run(rt_pool *p, rt_job *j) {
  if (j->nblocks <= 1 || p->n <= 1) {
    rt_job_share_out(j, p->share, 1);
    run_job(&p->w[0], j);
    return;
  }
  pool_start(p);
  rt_job_share_out(j, p->share, p->n);   /* p->n: after pool_start, which may lower it */
  p->job = j;
  atomic_store_explicit(&p->busy, p->n - 1, memory_order_relaxed);
  unsigned long g = atomic_load_explicit(&p->gen, memory_order_relaxed) + 1;
  atomic_store_explicit(&p->gen, g ? g : 1, memory_order_release);   /* 0 means quit */
  pthread_mutex_lock(&p->mu);   /* spinning workers saw gen; wake the sleeping ones */
  if (p->sleepers) pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  run_job(&p->w[0], j);
  if (!spin_until(p, job_done, 0)) {
    pthread_mutex_lock(&p->mu);
    p->waiting = 1;
    while (!job_done(p, 0)) pthread_cond_wait(&p->idle, &p->mu);
    p->waiting = 0;
    pthread_mutex_unlock(&p->mu);
  }
  p->job = NULL;
}
