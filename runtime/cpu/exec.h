/*
 * exec.h — the CPU grid executor's own declarations, for the files of runtime/cpu/
 * alone (the rest of the runtime calls rt_cpu_launch, rt_pool_free and
 * rt_cpu_coop_max_blocks, declared in rt.h). exec.c has the executor's overview.
 *
 * The files, each above the ones it calls: exec.c (a launch) over pool.c (blocks,
 * workers, the pool) and coop.c (cooperative launches), over private.c (arrays only
 * added to, counted per worker), watchdog.c and fibers.c,
 * over collectives.c (barriers, warp operations, the grid barrier), over job.c (a
 * launch's job and its first failure) and switch.c (the switch between fibers).
 */
#ifndef KC_RT_CPU_EXEC_H
#define KC_RT_CPU_EXEC_H

#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <ucontext.h>

#include "rt.h"

#if defined(__SANITIZE_THREAD__)
#define RT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RT_TSAN 1
#endif
#endif
#ifdef RT_TSAN
/* ThreadSanitizer must be told about stack switches */
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#endif

#if defined(__x86_64__) && !defined(RT_TSAN) && !defined(__SANITIZE_ADDRESS__)
#define RT_ASM_FIBERS 1
/* rt_fiber_switch(save, sp): push the callee-saved registers and the SSE/x87 control
 * words, store the stack pointer in *save, load sp and pop the same from there.
 * rt_fiber_boot is where a new fiber's first switch "returns" to: it calls
 * rt_fiber_main with the worker left in rbx by fiber_boot(). No signal mask is saved,
 * which is what makes it cheap (swapcontext makes a system call). The switch is
 * switch.c's assembly, the boot fibers.c's. */
void rt_fiber_switch(void **save, void *sp);
void rt_fiber_boot(void);
#endif

/* A barrier kernel's thread runs on a fiber stack of FIBER_STACK bytes, or of its
 * frame (kcc_kernel.stack_bytes: its local arrays, up to CUDA's 512 KiB) and
 * FIBER_MARGIN for what the frame's measure leaves out (spills, libm, the callbacks
 * into the executor), whichever is more. Stacks are mapped MAP_NORESERVE: a page costs
 * memory once touched. Worker threads run barrier-free kernels on their own stacks,
 * WORKER_STACK bytes; the calling thread (worker 0) on its own. */
#define FIBER_STACK ((size_t)128 * 1024)
#define FIBER_MARGIN ((size_t)64 * 1024)
#define WORKER_STACK ((size_t)8 << 20)
#define SHARED_ALIGN 64

/* ---- Jobs: one launch ------------------------------------------------------------------ */
/* A worker's share of a launch's blocks, linear ids [start, end): its owner claims runs
 * from the front through next, and so do the other workers once their own shares are
 * done (pool.c). One cache line each (the pool keeps them 64-byte aligned), so a
 * worker's claims do not evict the line its neighbour claims from. */
typedef struct rt_share {
  atomic_uint_fast64_t next;
  uint64_t start, end;
  char pad[64 - 3 * sizeof(uint64_t)];
} rt_share;
_Static_assert(sizeof(rt_share) == 64, "a share is one cache line");

typedef struct rt_job {
  const rt_cpu_kernel *k;
  void **args;
  uint32_t grid[3], block[3];
  uint64_t nblocks;
  unsigned nthreads;            /* per block */
  size_t shared;                /* static + dynamic bytes */
  rt_share *share;              /* the blocks, one share per worker (rt_job_share_out) */
  atomic_int nshare;            /* published last (release), after the shares: the
                                   watchdog's thread reads them while they are made */
  atomic_int stop;              /* an error or the watchdog: hand out no more blocks, and
                                   threads end at their next loop back edge */
  atomic_int claimed;           /* the first error claims the message */
  kc_status status;
  struct rt_coop *coop;         /* a cooperative launch's grid barrier, or NULL (set
                                   under the watchdog's lock: watchdog.c's watch_stop
                                   reads it) */
  char msg[RT_ERR_LEN];
  kc_kernel_error error;        /* a bounds-checked kernel's first failed index */
} rt_job;

/* FIBER_WARP: waiting in a warp collective for the other lanes of its mask */
typedef enum fiber_state { FIBER_RUN, FIBER_WAIT, FIBER_DONE, FIBER_WARP } fiber_state;

/* A saved execution context: a fiber's, or the scheduler's own. */
typedef struct rt_ctx {
#ifdef RT_ASM_FIBERS
  void *sp;
#else
  ucontext_t uc;
#endif
#ifdef RT_TSAN
  void *tsan;
#endif
} rt_ctx;

typedef struct rt_fiber {
  rt_ctx ctx;
  char *stack;                  /* stack_size bytes above a guard page */
  size_t stack_size;
  uint32_t site;                /* the barrier it waits at */
  int grid;                     /* FIBER_WAIT at a grid barrier (g.sync()), not a block's */
  fiber_state state;
  int booted;                   /* parked at the top of rt_fiber_main, ready */
  unsigned vg_id;               /* valgrind's stack id */
  /* this thread's part in a warp collective (see "Collectives") */
  uint64_t cval, cres;          /* its value, and its result once the warp completes */
  uint32_t cop, cmask, carg;
} rt_fiber;

/* A worker's private copy of an array the kernel only adds to (private.c). */
typedef struct rt_private {
  uint32_t param;               /* the kernel parameter */
  bool decided;                 /* asked for in this launch: bytes says the answer */
  size_t bytes;                 /* the copy's size; 0: the array stays shared */
  unsigned elsize;              /* 4 or 8: integers */
  void *data;                   /* the array */
  void *buf;                    /* the copy, cap bytes, kept across launches */
  size_t cap;
} rt_private;

typedef struct rt_worker {
  rt_pool *pool;
  rt_job *job;
  pthread_t thread;
  void *shared;                 /* shared memory of the block being run */
  size_t shared_cap;
  void *frame;                  /* a region-form kernel's per-thread values (cpu_frame) */
  size_t frame_cap;
  rt_fiber *fibers;             /* fibers made so far (stacks reused) */
  unsigned nfibers;
  rt_ctx main;                  /* the scheduler's context */
  unsigned cur;                 /* the fiber running now */
  int in_fibers;                /* running a barrier kernel's block */
  kc_cpu_block blk;
  sigjmp_buf cancel_to;         /* run_job: where cpu_cancel leaves a K__block call */
  /* syncthreads_count/and/or: threads add their predicate to sync_acc before the
     barrier; the first to leave it (sync_fresh set by the release) moves the total to
     sync_total, which the others then read */
  uint64_t sync_acc, sync_total;
  int sync_fresh;
  rt_private *priv;             /* this launch's copies, npriv of priv_cap (private.c) */
  int npriv, priv_cap;
} rt_worker;

/* The watchdog of a pool (see "The watchdog"). */
typedef struct rt_watch {
  pthread_mutex_t mu;
  pthread_cond_t cv;            /* on CLOCK_MONOTONIC */
  pthread_t thread;
  int started, quit;
  int idle;                     /* waiting for a job, not for a deadline: wake it */
  rt_job *job;                  /* the launch being watched, or NULL */
  unsigned long gen;            /* bumped for every watched launch */
  unsigned long fired;          /* the gen it stopped last */
  struct timespec deadline;
  int ms;
} rt_watch;

struct rt_pool {
  kc_context *ctx;
  int n;                        /* participants: the caller and n - 1 threads */
  int started;                  /* threads running */
  rt_worker *w;
  pthread_mutex_t mu;
  pthread_cond_t wake, idle;
  /* A worker spins a while for the next job before it sleeps on `wake`, and the caller
     for the job's end before it sleeps on `idle` (pool.c): back-to-back launches then
     cost no futex. gen, busy and quit are read while spinning, so atomic; sleepers
     and waiting (who is asleep) under mu. */
  _Atomic unsigned long gen;    /* bumped for every job */
  _Atomic int busy;             /* workers still on the current job */
  _Atomic int quit;
  long long spin_ns;            /* how long to spin (KC_CPU_SPIN_US) */
  int sleepers;                 /* workers asleep on wake */
  int waiting;                  /* the caller asleep on idle */
  rt_job *job;
  rt_share *share;              /* n shares, 64-byte aligned, in share_mem */
  void *share_mem;
  rt_watch watch;
};

/* A cooperative launch's grid barrier (coop.c runs the launch, collectives.c the
 * barrier). */
typedef struct rt_coop {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint64_t nblocks, arrived, left;
  unsigned long gen;            /* barriers passed */
  int failed;
  uint32_t site;                /* the grid barrier the blocks wait at */
  uint32_t exited[3];           /* the last block to end */
} rt_coop;

/* ---- job.c ------------------------------------------------------------------------ */
/* j for a launch of k: nothing handed out yet, no failure. */
void rt_job_init(rt_job *j, const rt_cpu_kernel *k, kc_dim3 grid, kc_dim3 block,
                 size_t dynamic_shared, void **args);
/* The launch failed: the first failure's status and message are kept, and no more
 * blocks start. */
void rt_job_fail(rt_job *j, kc_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Split j's blocks into n contiguous shares of about equal size (n >= 1), in share[]. */
void rt_job_share_out(rt_job *j, rt_share *share, int n);
/* How many of j's blocks have been handed out so far. */
uint64_t rt_job_started(const rt_job *j);
/* The grid's axes, fastest first, in the order blocks are numbered: along the kernel's
 * inner axis first (host_order.c), so that neighbouring blocks touch neighbouring memory
 * as its thread loops do. */
const int *rt_job_walk_axes(const rt_job *j);
/* Block number b's blockIdx, numbered along rt_job_walk_axes. */
void rt_job_block_index(const rt_job *j, uint64_t b, uint32_t idx[3]);
/* The finished launch's result: an error record's message first, else the failure's. */
kc_status rt_job_status(kc_context *ctx, const rt_job *j);

/* The thread index of linear thread i of j's blocks. */
static inline void thread_of(const rt_job *j, unsigned i, uint32_t t[3]) {
  t[0] = i % j->block[0];
  t[1] = (i / j->block[0]) % j->block[1];
  t[2] = i / (j->block[0] * j->block[1]);
}

/* ---- Switching fibers (switch.c; every file that runs or parks a fiber) ------------ */
#ifndef RT_ASM_FIBERS
void rt_fiber_swap(rt_ctx *from, rt_ctx *to);   /* switch.c: swapcontext */
#endif
static inline void ctx_switch(rt_ctx *from, rt_ctx *to) {
#ifdef RT_ASM_FIBERS
  rt_fiber_switch(&from->sp, to->sp);
#else
  rt_fiber_swap(from, to);
#endif
}

/* Leave the current fiber for the next runnable one, or for the scheduler after the
 * last. */
static inline void switch_next(rt_worker *w, rt_ctx *from) {
  unsigned i = w->cur + 1, T = w->job->nthreads;
  while (i < T && w->fibers[i].state != FIBER_RUN) i++;
  if (i < T) {
    w->cur = i;
    ctx_switch(from, &w->fibers[i].ctx);
  } else {
    ctx_switch(from, &w->main);
  }
}

/* ---- collectives.c ------------------------------------------------------------------ */
/* kc_cpu_block.barrier and .collective (cuda.syncthreads(), syncthreads_count/and/or,
 * warp operations, g.sync()). */
void rt_cpu_barrier(kc_cpu_block *blk, uint32_t site);
uint64_t rt_cpu_collective(kc_cpu_block *blk, uint32_t op, uint32_t mask, uint64_t value,
                           uint32_t arg, uint32_t site);
/* After a sweep of w's fibers: answer activemask(), complete the warp collectives whose
 * missing lanes have exited; whether any fiber was woken. */
int rt_complete_stranded_warps(rt_worker *w);
/* A warp collective that can never complete: the launch fails with KC_ERR_DEADLOCK. */
void rt_report_warp_deadlock(rt_worker *w);
/* The grid barrier of a cooperative launch: w's block arrives (1 once every block has,
 * 0 if the launch failed or deadlocked); the launch failed, so every block gives up
 * there; w's block has ended. */
int rt_coop_arrive(rt_worker *w, uint32_t site);
void rt_coop_give_up(rt_coop *c);
void rt_coop_leave(rt_worker *w);

/* ---- fibers.c ----------------------------------------------------------------------- */
/* Run w's current block of a barrier kernel, its threads as fibers, to its end or to a
 * deadlock (reported). */
void rt_run_fiber_block(rt_worker *w);
void rt_free_fibers(rt_worker *w);   /* unmap w's fibers' stacks */
void rt_fiber_main(rt_worker *w);    /* where a fiber starts (rt_fiber_boot calls it) */

/* ---- watchdog.c (kc_config.timeout_ms) ---------------------------------------------- */
void rt_watch_init(rt_watch *wd);
/* Watch launch j for ms milliseconds; 0 when the watchdog thread cannot start. */
int rt_watch_begin(rt_watch *wd, rt_job *j, int ms);
void rt_watch_end(rt_watch *wd);
/* j's grid barrier (or NULL), set under the watchdog's lock, which its stop holds. */
void rt_watch_set_coop(rt_watch *wd, rt_job *j, rt_coop *c);
void rt_watch_free(rt_watch *wd);

/* ---- private.c ---------------------------------------------------------------------- */
/* kc_cpu_block.private_array: the worker's zeroed copy of parameter `param`'s array
 * for this launch (bit param of blk->private_mask set), or NULL (bit cleared). */
void *rt_cpu_private_array(kc_cpu_block *blk, uint32_t param);
/* Add w's copies into their arrays (the end of w's part of a launch). */
void rt_private_merge(rt_worker *w);
void rt_private_free(rt_worker *w);

/* ---- pool.c ------------------------------------------------------------------------- */
/* w's block record for job j, with its shared memory; 0 when that is out of memory
 * (the job failed). */
int rt_block_setup(rt_worker *w, rt_job *j);
rt_pool *rt_pool_new(kc_context *ctx);
/* Run j's blocks on the pool's workers and the calling thread; return when done. */
void rt_pool_run(rt_pool *p, rt_job *j);

/* ---- coop.c ------------------------------------------------------------------------- */
/* Run j with a thread per block, every block at once; return when all have ended. */
void rt_run_cooperative(rt_pool *p, rt_job *j);

#endif
