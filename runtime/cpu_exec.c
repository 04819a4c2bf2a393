/*
 * cpu_exec.c — the CPU grid executor: runs the blocks of a launch on a pool of
 * persistent worker threads, each block with its own shared memory.
 *
 * Blocks are handed out through an atomic counter; the calling thread works too
 * (worker 0), so a one-block launch or a one-thread pool never wakes anyone. A kernel
 * without barriers runs a block as one call of its K__block function (a loop over the
 * threads). A kernel with barriers runs each thread of the block as a fiber on an
 * mmap'd stack; a worker's fibers live across blocks and launches (fiber i runs thread
 * i of each block, then parks), so a block costs context switches only: a few
 * instructions on x86-64 (an assembly switch saving callee-saved registers), and
 * swapcontext elsewhere or under sanitizers, which know about it. A thread
 * that reaches cuda.syncthreads() passes control to the next thread; when every
 * thread has had its turn, the scheduler checks that all wait at the same barrier and
 * lets them all continue; threads that have exited do not count, as on the GPU (PTX's
 * bar.sync waits for the threads that have not exited). Threads waiting at different
 * barriers are a deadlock: reported with the barrier sites and thread ids, and the
 * block abandoned, never a hang. A cooperative launch (a kernel with grid
 * barriers) runs every block at once instead, each on a thread of its own (see
 * "Cooperative launches").
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "rt.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define RT_HAVE_VALGRIND 1
#endif
#endif

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
 * which is what makes it cheap (swapcontext makes a system call). */
void rt_fiber_switch(void **save, void *sp);
void rt_fiber_boot(void);
__asm__(".text\n"
        ".p2align 4\n"
        ".type rt_fiber_switch, @function\n"
        "rt_fiber_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size rt_fiber_switch, .-rt_fiber_switch\n"
        ".p2align 4\n"
        ".type rt_fiber_boot, @function\n"
        "rt_fiber_boot:\n"
        "  movq %rbx, %rdi\n"
        "  call rt_fiber_main\n"
        "  ud2\n"
        ".size rt_fiber_boot, .-rt_fiber_boot\n");
#endif

/* generated code reads these fields at fixed offsets (host_abi.h) */
_Static_assert(offsetof(kc_cpu_block, trap) == KC_CPU_BLOCK_OFF_TRAP, "host ABI");
_Static_assert(offsetof(kc_cpu_block, exit_thread) == KC_CPU_BLOCK_OFF_EXIT_THREAD, "host ABI");
_Static_assert(offsetof(kc_cpu_block, error) == KC_CPU_BLOCK_OFF_ERROR, "host ABI");
_Static_assert(offsetof(kc_cpu_block, scratch) == KC_CPU_BLOCK_OFF_SCRATCH, "host ABI");
_Static_assert(offsetof(kc_kernel_error, index) == KC_KERNEL_ERROR_OFF_INDEX, "host ABI");
_Static_assert(offsetof(kc_kernel_error, is_unsigned) == KC_KERNEL_ERROR_OFF_UNSIGNED,
               "host ABI");
_Static_assert(offsetof(kc_kernel_error, shape) == KC_KERNEL_ERROR_OFF_SHAPE, "host ABI");
_Static_assert(offsetof(kc_kernel_error, kind) == KC_KERNEL_ERROR_OFF_KIND &&
               offsetof(kc_kernel_error, message) == KC_KERNEL_ERROR_OFF_MESSAGE, "host ABI");
_Static_assert(sizeof(kc_kernel_error) == KC_KERNEL_ERROR_SIZE, "host ABI");
_Static_assert(offsetof(kc_cpu_block, collective) == KC_CPU_BLOCK_OFF_COLLECTIVE &&
               offsetof(kc_cpu_block, dyn_shared) == KC_CPU_BLOCK_OFF_DYN_SHARED &&
               offsetof(kc_cpu_block, dyn_shared_bytes) == KC_CPU_BLOCK_OFF_DYN_SHARED_BYTES,
               "host ABI");
_Static_assert(offsetof(kc_cpu_block, frame) == KC_CPU_BLOCK_OFF_FRAME, "host ABI");
_Static_assert(offsetof(kc_cpu_block, stop) == KC_CPU_BLOCK_OFF_STOP &&
               offsetof(kc_cpu_block, cancel) == KC_CPU_BLOCK_OFF_CANCEL, "host ABI");
_Static_assert(sizeof(atomic_int) == sizeof(int), "kc_cpu_block.stop reads an atomic_int");

/* A barrier kernel's thread runs on a fiber stack of FIBER_STACK bytes, or of its
 * frame (kcc_kernel.stack_bytes: its local arrays, up to CUDA's 512 KiB) and
 * FIBER_MARGIN for what the frame's measure leaves out (spills, libm, the callbacks
 * into this file), whichever is more. Stacks are mapped MAP_NORESERVE: a page costs
 * memory once touched. Worker threads run barrier-free kernels on their own stacks,
 * WORKER_STACK bytes; the calling thread (worker 0) on its own. */
#define FIBER_STACK ((size_t)128 * 1024)
#define FIBER_MARGIN ((size_t)64 * 1024)
#define WORKER_STACK ((size_t)8 << 20)
#define SHARED_ALIGN 64

/* ---- Jobs: one launch ------------------------------------------------------------------ */
typedef struct rt_job {
  const rt_cpu_kernel *k;
  void **args;
  uint32_t grid[3], block[3];
  uint64_t nblocks;
  unsigned nthreads;            /* per block */
  size_t shared;                /* static + dynamic bytes */
  atomic_uint_fast64_t next;    /* next block to hand out */
  atomic_int stop;              /* an error or the watchdog: hand out no more blocks, and
                                   threads end at their next loop back edge */
  atomic_int claimed;           /* the first error claims the message */
  kc_status status;
  struct rt_coop *coop;         /* a cooperative launch's grid barrier, or NULL (set
                                   under the watchdog's lock: watch_stop reads it) */
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
  unsigned long gen;            /* bumped for every job */
  int busy;                     /* workers still on the current job */
  int quit;
  rt_job *job;
  rt_watch watch;
};

static void job_fail(rt_job *j, kc_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void job_fail(rt_job *j, kc_status s, const char *fmt, ...) {
  int expected = 0;
  if (!atomic_compare_exchange_strong(&j->claimed, &expected, 1)) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(j->msg, sizeof j->msg, fmt, ap);
  va_end(ap);
  j->status = s;
  atomic_store(&j->stop, 1);
}

static void thread_of(const rt_job *j, unsigned i, uint32_t t[3]) {
  t[0] = i % j->block[0];
  t[1] = (i / j->block[0]) % j->block[1];
  t[2] = i / (j->block[0] * j->block[1]);
}

/* ---- Callbacks from generated code ---------------------------------------------------- */
static void cpu_trap(kc_cpu_block *blk, const char *message) {
  rt_worker *w = blk->exec;
  const uint32_t *b = blk->block_idx;
  if (w->in_fibers) {
    uint32_t t[3];
    thread_of(w->job, w->cur, t);
    job_fail(w->job, KC_ERR_LAUNCH, "kernel '%s': block (%u, %u, %u), thread (%u, %u, %u): %s",
             w->job->k->name, b[0], b[1], b[2], t[0], t[1], t[2], message);
  } else {
    job_fail(w->job, KC_ERR_LAUNCH, "kernel '%s': block (%u, %u, %u): %s", w->job->k->name,
             b[0], b[1], b[2], message);
  }
}

static void switch_next(rt_worker *w, rt_ctx *from);

/* The calling thread raised (cg_checks.c; a checked kernel filled the error record
 * first): it ends here, as a GPU thread ends at PTX's exit, and the others run on. Its
 * fiber is left mid-kernel, so it starts afresh when next used. The compiler runs every
 * kernel that can raise as fibers; anything else is kcc's bug. */
static void cpu_exit_thread(kc_cpu_block *blk) {
  rt_worker *w = blk->exec;
  if (!w->in_fibers) {
    job_fail(w->job, KC_ERR_INTERNAL, "kernel '%s' raised but was not compiled to run "
             "its threads as fibers", w->job->k->name);
    return;
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

static void ctx_switch(rt_ctx *from, rt_ctx *to) {
#ifdef RT_TSAN
  __tsan_switch_to_fiber(to->tsan, 0);
#endif
#ifdef RT_ASM_FIBERS
  rt_fiber_switch(&from->sp, to->sp);
#else
  swapcontext(&from->uc, &to->uc);
#endif
}

/* Leave the current fiber for the next runnable one, or for the scheduler after the
 * last. */
static void switch_next(rt_worker *w, rt_ctx *from) {
  unsigned i = w->cur + 1, T = w->job->nthreads;
  while (i < T && w->fibers[i].state != FIBER_RUN) i++;
  if (i < T) {
    w->cur = i;
    ctx_switch(from, &w->fibers[i].ctx);
  } else {
    ctx_switch(from, &w->main);
  }
}

static void cpu_barrier(kc_cpu_block *blk, uint32_t site) {
  rt_worker *w = blk->exec;
  if (!w->in_fibers) {
    /* the compiler said the kernel has no barrier; running on would be wrong */
    job_fail(w->job, KC_ERR_INTERNAL,
             "kernel '%s' reached a barrier (line %u:%u) but was compiled as barrier-free",
             w->job->k->name, site >> 16, site & 0xffff);
    return;
  }
  rt_fiber *f = &w->fibers[w->cur];
  f->state = FIBER_WAIT;
  f->site = site;
  f->grid = 0;
  switch_next(w, &f->ctx);
}

static int coop_arrive(rt_worker *w, uint32_t site);
static void coop_leave(rt_worker *w);
static void coop_give_up(struct rt_coop *c);

/* g.sync(): a block barrier whose release (run_fiber_block) waits for every block of
 * the grid at coop_arrive. */
static uint64_t grid_barrier(rt_worker *w, uint32_t site) {
  if (!w->job->coop) {
    job_fail(w->job, KC_ERR_INTERNAL, "kernel '%s' reached a grid barrier (line %u:%u) but "
             "was not launched cooperatively", w->job->k->name, site >> 16, site & 0xffff);
    return 0;
  }
  rt_fiber *f = &w->fibers[w->cur];
  f->state = FIBER_WAIT;
  f->site = site;
  f->grid = 1;
  switch_next(w, &f->ctx);
  return 0;
}

/* ---- Collectives: syncthreads_count/and/or and warp operations ------------------------
 * A block collective is a barrier that also sums a predicate. A warp collective parks
 * the thread (FIBER_WARP) until every lane of its mask that still runs has arrived;
 * the last to arrive computes every lane's result and wakes them, and the scheduler
 * resumes the woken threads in its next sweep. A warp is 32 consecutive linear thread
 * ids, as on the GPU; lanes that exited count as absent. */

static uint64_t sync_reduce(rt_worker *w, kc_cpu_block *blk, uint32_t op, uint64_t pred,
                            uint32_t site) {
  w->sync_acc += pred != 0;
  cpu_barrier(blk, site);
  if (w->sync_fresh) {
    w->sync_total = w->sync_acc;
    w->sync_acc = 0;
    w->sync_fresh = 0;
  }
  if (op == KC_COLL_SYNC_AND) return w->sync_total == w->job->nthreads;
  if (op == KC_COLL_SYNC_OR) return w->sync_total > 0;
  return w->sync_total;
}

/* The lanes of the warp starting at thread `base` that take part under `mask`. */
static uint32_t warp_members(rt_worker *w, unsigned base, uint32_t mask) {
  unsigned n = w->job->nthreads - base < 32 ? w->job->nthreads - base : 32;
  uint32_t m = 0;
  for (unsigned l = 0; l < n; l++)
    if ((mask >> l & 1u) && w->fibers[base + l].state != FIBER_DONE) m |= 1u << l;
  return m;
}

/* Lane `lane`'s result: the operation's rules are CUDA's at width 32 (the lane or
 * offset taken mod 32; a source lane outside the warp or not taking part gives the
 * thread its own value). */
static uint64_t warp_result(rt_worker *w, unsigned base, uint32_t members, unsigned lane) {
  const rt_fiber *f = &w->fibers[base + lane], *fs = &w->fibers[base];
  int b = (int)(f->carg & 31u), src = -1;
  uint64_t acc = 0;
  switch (f->cop) {
  case KC_COLL_SHFL_IDX: src = b; break;
  case KC_COLL_SHFL_UP: src = (int)lane - b; break;
  case KC_COLL_SHFL_DOWN: src = (int)lane + b; break;
  case KC_COLL_SHFL_XOR: src = (int)lane ^ b; break;
  case KC_COLL_VOTE_ALL: case KC_COLL_VOTE_ANY: case KC_COLL_VOTE_EQ: case KC_COLL_BALLOT:
    for (unsigned l = 0; l < 32; l++)
      if ((members >> l & 1u) && fs[l].cval) acc |= 1u << l;
    if (f->cop == KC_COLL_BALLOT) return acc;
    if (f->cop == KC_COLL_VOTE_ANY) return acc != 0;
    if (f->cop == KC_COLL_VOTE_ALL) return acc == members;
    return acc == 0 || acc == members;
  case KC_COLL_MATCH_ANY: case KC_COLL_MATCH_ALL:
    for (unsigned l = 0; l < 32; l++)
      if ((members >> l & 1u) && fs[l].cval == f->cval) acc |= 1u << l;
    if (f->cop == KC_COLL_MATCH_ANY) return acc;
    return acc == members ? members : 0;
  default: return 0;  /* syncwarp */
  }
  if (src < 0 || src > 31 || !(members >> src & 1u)) return f->cval;
  return fs[src].cval;
}

/* When every member of mask in base's warp waits in a collective, give each its result
 * and make it runnable; returns whether it did. */
static int warp_try_complete(rt_worker *w, unsigned base, uint32_t mask) {
  uint32_t members = warp_members(w, base, mask);
  for (unsigned l = 0; l < 32; l++) {
    const rt_fiber *f = &w->fibers[base + l];
    if ((members >> l & 1u) && (f->state != FIBER_WARP || f->cop == KC_COLL_ACTIVEMASK))
      return 0;
  }
  for (unsigned l = 0; l < 32; l++)
    if (members >> l & 1u) w->fibers[base + l].cres = warp_result(w, base, members, l);
  for (unsigned l = 0; l < 32; l++)
    if (members >> l & 1u) w->fibers[base + l].state = FIBER_RUN;
  return 1;
}

static uint64_t warp_collective(rt_worker *w, uint32_t op, uint32_t mask, uint64_t value,
                                uint32_t arg, uint32_t site) {
  unsigned me = w->cur, base = me & ~31u;
  rt_fiber *f = &w->fibers[me];
  f->cop = op;
  f->cmask = mask | 1u << (me & 31u);   /* a thread always takes part in its own call */
  f->cval = value;
  f->carg = arg;
  f->site = site;
  f->state = FIBER_WARP;
  if (!warp_try_complete(w, base, f->cmask)) switch_next(w, &f->ctx);
  return f->cres;
}

/* activemask(): the lanes of the warp that have not exited. The thread waits until the
 * sweep has run every other lane as far as it goes (to its end or to a wait), so that a
 * lane returning early is not counted because it had not started yet; the end of the
 * sweep (complete_stranded_warps) answers. */
static uint64_t activemask_wait(rt_worker *w, uint32_t site) {
  rt_fiber *f = &w->fibers[w->cur];
  f->cop = KC_COLL_ACTIVEMASK;
  f->cmask = 0;
  f->site = site;
  f->state = FIBER_WARP;
  switch_next(w, &f->ctx);
  return f->cres;
}

static uint64_t cpu_collective(kc_cpu_block *blk, uint32_t op, uint32_t mask, uint64_t value,
                               uint32_t arg, uint32_t site) {
  rt_worker *w = blk->exec;
  if (!w->in_fibers) {
    job_fail(w->job, KC_ERR_INTERNAL, "kernel '%s' reached a collective operation (line "
             "%u:%u) but was compiled without them", w->job->k->name, site >> 16,
             site & 0xffff);
    return 0;
  }
  /* ORDER KC_COLL (host_abi.h): the block-wide codes come first */
  if (op <= KC_COLL_SYNC_OR) return sync_reduce(w, blk, op, value, site);
  if (op == KC_COLL_GRID_SYNC) return grid_barrier(w, site);
  if (op == KC_COLL_ACTIVEMASK) return activemask_wait(w, site);
  return warp_collective(w, op, mask, value, arg, site);
}

/* After a sweep: answer activemask(), and complete the warp collectives whose missing
 * lanes have exited since. */
static int complete_stranded_warps(rt_worker *w) {
  int any = 0;
  for (unsigned i = 0; i < w->job->nthreads; i++) {
    rt_fiber *f = &w->fibers[i];
    if (f->state != FIBER_WARP) continue;
    if (f->cop == KC_COLL_ACTIVEMASK) {
      f->cres = warp_members(w, i & ~31u, 0xffffffffu);
      f->state = FIBER_RUN;
      any = 1;
      continue;
    }
    any |= warp_try_complete(w, i & ~31u, f->cmask);
  }
  return any;
}

/* A warp collective that can never complete: its lanes wait at a barrier or at another
 * warp operation. */
static void report_warp_deadlock(rt_worker *w) {
  rt_job *j = w->job;
  const uint32_t *b = w->blk.block_idx;
  unsigned i = 0;
  while (w->fibers[i].state != FIBER_WARP) i++;
  uint32_t t[3], site = w->fibers[i].site;
  thread_of(j, i, t);
  job_fail(j, KC_ERR_DEADLOCK,
           "kernel '%s': deadlock in block (%u, %u, %u): thread (%u, %u, %u) waits at the "
           "warp operation at %u:%u for lanes of its mask 0x%08x that never reach it",
           j->k->name, b[0], b[1], b[2], t[0], t[1], t[2], site >> 16, site & 0xffff,
           w->fibers[i].cmask);
}

/* ---- Fibers ------------------------------------------------------------------------------ */
void rt_fiber_main(rt_worker *w);

/* A fiber's life: run thread i of the current block, park, run thread i of the next
 * block the scheduler resumes it for, and so on. */
void rt_fiber_main(rt_worker *w) {
  for (;;) {
    unsigned i = w->cur;
    rt_job *j = w->job;
    uint32_t t[3];
    thread_of(j, i, t);
    j->k->thread_fn(j->args, &w->blk, t[0], t[1], t[2]);
    w->fibers[i].state = FIBER_DONE;
    switch_next(w, &w->fibers[i].ctx);
  }
}

#ifndef RT_ASM_FIBERS
static void fiber_entry_uc(unsigned lo, unsigned hi) {
  uintptr_t p = (uintptr_t)lo;
#if UINTPTR_MAX > 0xffffffffu
  p |= (uintptr_t)hi << 32;
#else
  (void)hi;
#endif
  rt_fiber_main((rt_worker *)p);
}
#endif

/* Make f start at rt_fiber_main(w) when next switched to (its stack starts afresh). */
static void fiber_boot(rt_worker *w, rt_fiber *f) {
#ifdef RT_ASM_FIBERS
  uintptr_t top = ((uintptr_t)f->stack + f->stack_size) & ~(uintptr_t)15;
  uint64_t *frame = (uint64_t *)(top - 16 - 64);
  void (*boot)(void) = rt_fiber_boot;
  uint64_t ret;
  memcpy(&ret, &boot, sizeof ret);
  frame[0] = 0x1F80u | ((uint64_t)0x037Fu << 32);  /* default MXCSR and x87 control */
  frame[1] = frame[2] = frame[3] = frame[4] = 0;     /* r15, r14, r13, r12 */
  frame[5] = (uint64_t)(uintptr_t)w;                 /* rbx: rt_fiber_boot's argument */
  frame[6] = 0;                                      /* rbp */
  frame[7] = ret;                                    /* where the switch returns */
  f->ctx.sp = frame;
#else
  uintptr_t p = (uintptr_t)w;
  unsigned lo = (unsigned)(p & 0xffffffffu), hi = 0;
#if UINTPTR_MAX > 0xffffffffu
  hi = (unsigned)(p >> 32);
#endif
  getcontext(&f->ctx.uc);
  f->ctx.uc.uc_stack.ss_sp = f->stack;
  f->ctx.uc.uc_stack.ss_size = f->stack_size;
  f->ctx.uc.uc_link = NULL;
  makecontext(&f->ctx.uc, (void (*)(void))fiber_entry_uc, 2, lo, hi);
#endif
  f->booted = 1;
}

/* The stack size a thread of kernel k needs as a fiber, whole pages. */
static size_t fiber_stack_size(const rt_cpu_kernel *k) {
  size_t page = (size_t)getpagesize(), want = FIBER_STACK;
  if (k->stack_bytes > want - FIBER_MARGIN) want = k->stack_bytes + FIBER_MARGIN;
  return (want + page - 1) / page * page;
}

static void unmap_stack(rt_fiber *f) {
#ifdef RT_HAVE_VALGRIND
  VALGRIND_STACK_DEREGISTER(f->vg_id);
#endif
  munmap(f->stack - getpagesize(), f->stack_size + (size_t)getpagesize());
}

/* f's stack: size bytes above a guard page; 0 when out of memory (f->stack NULL). */
static int map_stack(rt_fiber *f, size_t size) {
  size_t page = (size_t)getpagesize();
  char *m = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  f->stack = NULL;
  f->stack_size = 0;
  if (m == MAP_FAILED) return 0;
  mprotect(m, page, PROT_NONE);   /* a guard: overflow faults instead of corrupting */
  f->stack = m + page;
  f->stack_size = size;
#ifdef RT_HAVE_VALGRIND
  f->vg_id = VALGRIND_STACK_REGISTER(f->stack, f->stack + size);
#endif
  return 1;
}

static void free_fibers(rt_worker *w) {
  for (unsigned i = 0; i < w->nfibers; i++) {
    rt_fiber *f = &w->fibers[i];
#ifdef RT_TSAN
    __tsan_destroy_fiber(f->ctx.tsan);
#endif
    if (f->stack) unmap_stack(f);
  }
  free(w->fibers);
  w->fibers = NULL;
  w->nfibers = 0;
}

/* Have at least n fibers with stacks of at least size bytes (a fiber parked between
 * blocks holds nothing: a smaller stack is replaced, and the fiber booted afresh). */
static int ensure_fibers(rt_worker *w, unsigned n, size_t size) {
  for (unsigned i = 0; i < w->nfibers && i < n; i++) {
    rt_fiber *f = &w->fibers[i];
    if (f->stack && f->stack_size >= size) continue;
    if (f->stack) unmap_stack(f);
    f->booted = 0;
    if (!map_stack(f, size)) return 0;
  }
  if (n <= w->nfibers) return 1;
  rt_fiber *nf = realloc(w->fibers, n * sizeof *nf);
  if (!nf) return 0;
  w->fibers = nf;
  for (unsigned i = w->nfibers; i < n; i++) {
    memset(&nf[i], 0, sizeof nf[i]);
    if (!map_stack(&nf[i], size)) return 0;
#ifdef RT_TSAN
    nf[i].ctx.tsan = __tsan_create_fiber(0);
#endif
    w->nfibers = i + 1;
  }
  return 1;
}

/* A block deadlocked: its threads wait at different barriers. */
static void report_deadlock(rt_worker *w) {
  rt_job *j = w->job;
  const uint32_t *b = w->blk.block_idx;
  unsigned T = j->nthreads, first_wait = T, other = T;
  for (unsigned i = 0; i < T; i++) {
    if (w->fibers[i].state == FIBER_DONE) continue;
    if (first_wait == T) first_wait = i;
    else if (other == T && w->fibers[i].site != w->fibers[first_wait].site) other = i;
  }
  uint32_t tw[3], tx[3];
  uint32_t site = w->fibers[first_wait].site, s2 = w->fibers[other].site;
  thread_of(j, first_wait, tw);
  thread_of(j, other, tx);
  job_fail(j, KC_ERR_DEADLOCK,
           "kernel '%s': deadlock in block (%u, %u, %u): threads wait at different "
           "barriers: thread (%u, %u, %u) at %u:%u, thread (%u, %u, %u) at %u:%u",
           j->k->name, b[0], b[1], b[2], tw[0], tw[1], tw[2], site >> 16, site & 0xffff,
           tx[0], tx[1], tx[2], s2 >> 16, s2 & 0xffff);
}

static void run_fiber_block(rt_worker *w) {
  rt_job *j = w->job;
  unsigned T = j->nthreads;
  size_t stack = fiber_stack_size(j->k);
  if (!ensure_fibers(w, T, stack)) {
    job_fail(j, KC_ERR_NOMEM, "kernel '%s': out of memory for %u thread stacks of %zu KiB",
             j->k->name, T, stack / 1024);
    return;
  }
#ifdef RT_TSAN
  w->main.tsan = __tsan_get_current_fiber();   /* worker 0 is whichever thread calls */
#endif
  for (unsigned i = 0; i < T; i++) {
    if (!w->fibers[i].booted) fiber_boot(w, &w->fibers[i]);
    w->fibers[i].state = FIBER_RUN;
  }
  w->in_fibers = 1;
  w->sync_acc = 0;
  w->sync_fresh = 0;
  for (;;) {
    unsigned first = 0;
    while (first < T && w->fibers[first].state != FIBER_RUN) first++;
    if (first < T) {
      /* a sweep: every runnable thread runs until it finishes or waits */
      w->cur = first;
      ctx_switch(&w->main, &w->fibers[first].ctx);
      continue;  /* a warp completed late in the sweep may have woken earlier threads */
    }
    if (complete_stranded_warps(w)) continue;
    unsigned ndone = 0, nwarp = 0, same = 1, first_wait = T;
    for (unsigned i = 0; i < T; i++) {
      fiber_state st = w->fibers[i].state;
      if (st == FIBER_DONE) ndone++;
      else if (st == FIBER_WARP) nwarp++;
      else if (first_wait == T) first_wait = i;
      else if (w->fibers[i].site != w->fibers[first_wait].site) same = 0;
    }
    if (ndone == T) break;
    /* Threads that exited do not hold a barrier up (PTX: bar.sync waits for the threads
       that have not exited): the others, all at one barrier, go on. Threads at different
       barriers, or stranded in a warp collective, can never all meet: a deadlock. */
    if (nwarp > 0 || !same) {
      if (nwarp > 0) report_warp_deadlock(w);
      else report_deadlock(w);
      /* the waiting fibers are abandoned mid-kernel: start them afresh next time */
      for (unsigned i = 0; i < T; i++)
        if (w->fibers[i].state != FIBER_DONE) w->fibers[i].booted = 0;
      break;
    }
    /* every thread at a grid barrier: the block waits there for the others */
    if (w->fibers[first_wait].grid && !coop_arrive(w, w->fibers[first_wait].site)) {
      for (unsigned i = 0; i < T; i++) w->fibers[i].booted = 0;
      break;
    }
    for (unsigned i = 0; i < T; i++)   /* an exited thread stays done */
      if (w->fibers[i].state != FIBER_DONE) w->fibers[i].state = FIBER_RUN;
    w->sync_fresh = 1;  /* a barrier released: see sync_reduce */
  }
  w->in_fibers = 0;
}

/* ---- Blocks and workers ------------------------------------------------------------------- */
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
      job_fail(w->job, KC_ERR_NOMEM, "kernel '%s': out of memory for %llu bytes of "
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
static int block_setup(rt_worker *w, rt_job *j) {
  w->job = j;
  if (j->shared && !ensure_shared(w, j->shared)) {
    job_fail(j, KC_ERR_NOMEM, "kernel '%s': out of memory for %zu bytes of shared memory",
             j->k->name, j->shared);
    return 0;
  }
  kc_cpu_block *blk = &w->blk;
  memset(blk, 0, sizeof *blk);
  memcpy(blk->block_dim, j->block, sizeof blk->block_dim);
  memcpy(blk->grid_dim, j->grid, sizeof blk->grid_dim);
  blk->shared = w->shared;
  blk->exec = w;
  blk->barrier = cpu_barrier;
  blk->trap = cpu_trap;
  blk->exit_thread = cpu_exit_thread;
  blk->error = &j->error;
  blk->collective = cpu_collective;
  blk->frame = cpu_frame;
  blk->stop = (const int *)&j->stop;
  blk->cancel = cpu_cancel;
  size_t dyn_off = (j->k->static_shared + 15) / 16 * 16;  /* see rt_cpu_launch */
  blk->dyn_shared = w->shared ? (char *)w->shared + dyn_off : NULL;
  blk->dyn_shared_bytes = j->shared > dyn_off ? j->shared - dyn_off : 0;
  return 1;
}

static void run_blocks(rt_worker *w, rt_job *j) {
  kc_cpu_block *blk = &w->blk;
  const uint64_t gx = j->grid[0], gxy = gx * j->grid[1];
  /* Blocks are claimed in runs, so that small blocks do not pay an atomic and three
     divisions each; runs stay short enough (1/32 of a worker's share) to balance. */
  uint64_t chunk = j->nblocks / ((uint64_t)w->pool->n * 32);
  if (chunk < 1) chunk = 1;
  if (chunk > 64) chunk = 64;
  for (;;) {
    if (atomic_load_explicit(&j->stop, memory_order_relaxed)) break;
    uint64_t b = atomic_fetch_add_explicit(&j->next, chunk, memory_order_relaxed);
    if (b >= j->nblocks) break;
    uint64_t end = b + chunk < j->nblocks ? b + chunk : j->nblocks;
    blk->block_idx[0] = (uint32_t)(b % gx);
    blk->block_idx[1] = (uint32_t)((b / gx) % j->grid[1]);
    blk->block_idx[2] = (uint32_t)(b / gxy);
    for (; b < end; b++) {
      if (j->k->uses_barrier) run_fiber_block(w);
      else j->k->block_fn(j->args, blk);
      if (atomic_load_explicit(&j->stop, memory_order_relaxed)) return;
      if (__atomic_load_n(&j->error.flag, __ATOMIC_RELAXED)) {
        atomic_store(&j->stop, 1);   /* an index was out of range: the launch has failed */
        return;
      }
      if (++blk->block_idx[0] < j->grid[0]) continue;
      blk->block_idx[0] = 0;
      if (++blk->block_idx[1] < j->grid[1]) continue;
      blk->block_idx[1] = 0;
      blk->block_idx[2]++;
    }
  }
}

static void run_job(rt_worker *w, rt_job *j) {
  if (!block_setup(w, j)) return;
  if (sigsetjmp(w->cancel_to, 0)) return;   /* cpu_cancel: the launch is being stopped */
  run_blocks(w, j);
}

static void *worker_main(void *arg) {
  rt_worker *w = arg;
  rt_pool *p = w->pool;
  unsigned long seen = 0;
#ifdef RT_TSAN
  w->main.tsan = __tsan_get_current_fiber();
#endif
  for (;;) {
    pthread_mutex_lock(&p->mu);
    while (p->gen == seen && !p->quit) pthread_cond_wait(&p->wake, &p->mu);
    if (p->quit) {
      pthread_mutex_unlock(&p->mu);
      return NULL;
    }
    seen = p->gen;
    rt_job *j = p->job;
    pthread_mutex_unlock(&p->mu);
    run_job(w, j);
    pthread_mutex_lock(&p->mu);
    if (--p->busy == 0) pthread_cond_signal(&p->idle);
    pthread_mutex_unlock(&p->mu);
  }
}

/* ---- The watchdog (kc_config.timeout_ms) -------------------------------------------------
 * One thread per pool, started by the first launch that has a time limit. A launch
 * registers its job and deadline (watch_begin) and withdraws it when done (watch_end);
 * the watchdog sleeps until the deadline and, if the same launch is still running,
 * stops it (watch_stop): the launch fails with KC_ERR_TIMEOUT, no further block
 * starts, its threads end at their next loop back edge (codegen.c cg_loop_check calls
 * blk->cancel), and the blocks of a cooperative launch waiting at its grid barrier give
 * up. A launch pays two uncontended lock/unlock pairs; the watchdog is woken only when
 * it has no deadline to sleep until (a later deadline is found when the earlier
 * passes). */
static void watch_init(rt_watch *wd) {
  memset(wd, 0, sizeof *wd);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&wd->cv, &ca);
  pthread_condattr_destroy(&ca);
  pthread_mutex_init(&wd->mu, NULL);
}

static int time_passed(const struct timespec *t) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

/* The launch j ran out of time (wd->mu held, so j and its coop are alive). */
static void watch_stop(rt_job *j, int ms) {
  uint64_t started = atomic_load(&j->next);
  if (j->coop || started > j->nblocks) started = j->nblocks;
  job_fail(j, KC_ERR_TIMEOUT, "kernel '%s'%s%s%s did not finish within %d ms "
           "(kc_config.timeout_ms, KC_TIMEOUT_MS) and was stopped: its threads ended at "
           "their next loop iteration; %llu of its %llu blocks had started", j->k->name,
           j->k->file ? " (" : "", j->k->file ? j->k->file : "", j->k->file ? ")" : "", ms,
           (unsigned long long)started, (unsigned long long)j->nblocks);
  if (j->coop) coop_give_up(j->coop);
}

static void *watch_main(void *arg) {
  rt_watch *wd = arg;
  pthread_mutex_lock(&wd->mu);
  while (!wd->quit) {
    if (!wd->job || wd->fired == wd->gen) {
      wd->idle = 1;
      pthread_cond_wait(&wd->cv, &wd->mu);
      wd->idle = 0;
    } else if (!time_passed(&wd->deadline)) {
      struct timespec dl = wd->deadline;
      pthread_cond_timedwait(&wd->cv, &wd->mu, &dl);
    } else {
      watch_stop(wd->job, wd->ms);
      wd->fired = wd->gen;
    }
  }
  pthread_mutex_unlock(&wd->mu);
  return NULL;
}

/* Watch launch j for ms milliseconds; 0 when the watchdog thread cannot start. */
static int watch_begin(rt_watch *wd, rt_job *j, int ms) {
  struct timespec dl;
  clock_gettime(CLOCK_MONOTONIC, &dl);
  dl.tv_sec += ms / 1000;
  dl.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (dl.tv_nsec >= 1000000000L) {
    dl.tv_sec++;
    dl.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&wd->mu);
  if (!wd->started) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    wd->started = pthread_create(&wd->thread, &attr, watch_main, wd) == 0;
    pthread_attr_destroy(&attr);
  }
  if (wd->started) {
    wd->job = j;
    wd->gen++;
    wd->deadline = dl;
    wd->ms = ms;
    if (wd->idle) pthread_cond_signal(&wd->cv);
  }
  pthread_mutex_unlock(&wd->mu);
  return wd->started;
}

static void watch_end(rt_watch *wd) {
  pthread_mutex_lock(&wd->mu);
  wd->job = NULL;
  pthread_mutex_unlock(&wd->mu);
}

/* j's grid barrier: set and cleared under the watchdog's lock, which watch_stop holds. */
static void watch_set_coop(rt_watch *wd, rt_job *j, struct rt_coop *c) {
  pthread_mutex_lock(&wd->mu);
  j->coop = c;
  pthread_mutex_unlock(&wd->mu);
}

static void watch_free(rt_watch *wd) {
  pthread_mutex_lock(&wd->mu);
  wd->quit = 1;
  pthread_cond_signal(&wd->cv);
  pthread_mutex_unlock(&wd->mu);
  if (wd->started) pthread_join(wd->thread, NULL);
  pthread_cond_destroy(&wd->cv);
  pthread_mutex_destroy(&wd->mu);
}

static rt_pool *pool_new(kc_context *ctx) {
  rt_pool *p = rt_calloc(ctx, 1, sizeof *p);
  if (!p) return NULL;
  p->ctx = ctx;
  p->n = ctx->cpu_threads > 0 ? ctx->cpu_threads : 1;
  p->w = rt_calloc(ctx, (size_t)p->n, sizeof *p->w);
  if (!p->w) {
    rt_free(ctx, p, sizeof *p);
    return NULL;
  }
  for (int i = 0; i < p->n; i++) p->w[i].pool = p;
  watch_init(&p->watch);
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
  p->quit = 1;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  if (p->started)
    for (int i = 1; i < p->n; i++) pthread_join(p->w[i].thread, NULL);
  watch_free(&p->watch);
  for (int i = 0; i < p->n; i++) {
    free_fibers(&p->w[i]);
    free(p->w[i].shared);
    free(p->w[i].frame);
  }
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->idle);
  kc_context *ctx = p->ctx;
  int total = ctx->cpu_threads > 0 ? ctx->cpu_threads : 1;
  rt_free(ctx, p->w, (size_t)total * sizeof *p->w);
  rt_free(ctx, p, sizeof *p);
}

/* ---- Cooperative launches: every block at once -----------------------------------------
 * A kernel that synchronises its grid (g.sync()) runs each block on a thread of its own,
 * its threads fibers as in any barrier kernel, so that every block is live at once, as
 * a cooperative launch makes them on the GPU; the grid is limited as the GPU's is, with
 * a clear error past it. A block whose threads all wait at g.sync() waits in
 * coop_arrive until every block has arrived. A block that ends while others wait there
 * can never arrive: a deadlock, reported as the block barrier's are, never a hang. */
#define COOP_MAX_BLOCKS 1024u     /* OS threads, one per block */
#define COOP_MAX_THREADS 16384u   /* fibers of the whole grid (two mappings each) */
#define COOP_THREAD_STACK ((size_t)256 * 1024)  /* the scheduler's; fibers have their own */

uint64_t rt_cpu_coop_max_blocks(unsigned threads_per_block) {
  unsigned fit = COOP_MAX_THREADS / (threads_per_block ? threads_per_block : 1);
  return fit < COOP_MAX_BLOCKS ? fit : COOP_MAX_BLOCKS;
}

typedef struct rt_coop {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint64_t nblocks, arrived, left;
  unsigned long gen;            /* barriers passed */
  int failed;
  uint32_t site;                /* the grid barrier the blocks wait at */
  uint32_t exited[3];           /* the last block to end */
} rt_coop;

typedef struct coop_runner {
  rt_worker w;
  uint64_t block;               /* linear block index */
  pthread_t thread;
} coop_runner;

/* Blocks wait at the grid barrier and the rest have ended (c->mu held). */
static void coop_deadlock(rt_job *j, rt_coop *c) {
  job_fail(j, KC_ERR_DEADLOCK,
           "kernel '%s': deadlock at the grid barrier at %u:%u: %llu block%s wait there "
           "while %llu block%s ended without reaching it (last: block (%u, %u, %u))",
           j->k->name, c->site >> 16, c->site & 0xffff, (unsigned long long)c->arrived,
           c->arrived == 1 ? "" : "s", (unsigned long long)c->left, c->left == 1 ? "" : "s",
           c->exited[0], c->exited[1], c->exited[2]);
  c->failed = 1;
  pthread_cond_broadcast(&c->cv);
}

/* w's block arrives at the grid barrier at site: 1 once every block has, 0 if the
 * launch failed or deadlocked meanwhile. */
static int coop_arrive(rt_worker *w, uint32_t site) {
  rt_coop *c = w->job->coop;
  pthread_mutex_lock(&c->mu);
  int ok = !c->failed;
  if (ok) {
    c->site = site;
    if (++c->arrived + c->left == c->nblocks) {
      if (c->left > 0) {
        coop_deadlock(w->job, c);
        ok = 0;
      } else {
        c->arrived = 0;
        c->gen++;
        pthread_cond_broadcast(&c->cv);
      }
    } else {
      unsigned long gen = c->gen;
      while (c->gen == gen && !c->failed) pthread_cond_wait(&c->cv, &c->mu);
      ok = !c->failed;
    }
  }
  pthread_mutex_unlock(&c->mu);
  return ok;
}

/* The launch failed: the blocks waiting at the grid barrier, and those yet to reach it,
 * give up there (coop_arrive returns 0). */
static void coop_give_up(rt_coop *c) {
  pthread_mutex_lock(&c->mu);
  c->failed = 1;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

/* w's block has ended (finished, failed or abandoned). */
static void coop_leave(rt_worker *w) {
  rt_coop *c = w->job->coop;
  pthread_mutex_lock(&c->mu);
  c->left++;
  memcpy(c->exited, w->blk.block_idx, sizeof c->exited);
  if (c->arrived > 0 && c->arrived + c->left == c->nblocks) coop_deadlock(w->job, c);
  pthread_mutex_unlock(&c->mu);
}

static void *coop_block_main(void *arg) {
  coop_runner *r = arg;
  rt_worker *w = &r->w;
  rt_job *j = w->job;
#ifdef RT_TSAN
  w->main.tsan = __tsan_get_current_fiber();
#endif
  if (block_setup(w, j)) {
    const uint64_t gx = j->grid[0], gxy = gx * j->grid[1];
    w->blk.block_idx[0] = (uint32_t)(r->block % gx);
    w->blk.block_idx[1] = (uint32_t)((r->block / gx) % j->grid[1]);
    w->blk.block_idx[2] = (uint32_t)(r->block / gxy);
    run_fiber_block(w);
  }
  coop_leave(w);
  return NULL;
}

/* Start a thread per block, wait for them all, and free what they made. */
static void run_cooperative(rt_pool *p, rt_job *j) {
  rt_coop c;
  memset(&c, 0, sizeof c);
  pthread_mutex_init(&c.mu, NULL);
  pthread_cond_init(&c.cv, NULL);
  c.nblocks = j->nblocks;
  watch_set_coop(&p->watch, j, &c);
  coop_runner *r = calloc((size_t)j->nblocks, sizeof *r);
  uint64_t started = 0;
  if (!r) {
    job_fail(j, KC_ERR_NOMEM, "kernel '%s': out of memory for a cooperative launch",
             j->k->name);
  } else {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, COOP_THREAD_STACK);
    for (; started < j->nblocks; started++) {
      coop_runner *b = &r[started];
      b->w.pool = p;
      b->w.job = j;
      b->block = started;
      if (pthread_create(&b->thread, &attr, coop_block_main, b) != 0) {
        job_fail(j, KC_ERR_LAUNCH, "kernel '%s': cannot start a thread for each of its %llu "
                 "blocks (a cooperative launch runs them all at once)", j->k->name,
                 (unsigned long long)j->nblocks);
        coop_give_up(&c);   /* the blocks started so far give up at the grid barrier */
        break;
      }
    }
    pthread_attr_destroy(&attr);
  }
  for (uint64_t i = 0; i < started; i++) {
    pthread_join(r[i].thread, NULL);
    free_fibers(&r[i].w);
    free(r[i].w.shared);
  }
  free(r);
  watch_set_coop(&p->watch, j, NULL);
  pthread_cond_destroy(&c.cv);
  pthread_mutex_destroy(&c.mu);
}

kc_status rt_cpu_launch(kc_context *ctx, const rt_cpu_kernel *k, kc_dim3 grid,
                        kc_dim3 block, size_t dynamic_shared, void **args) {
  if (k->uses_barrier ? !k->thread_fn : !k->block_fn)
    return rt_error(ctx, KC_ERR_INTERNAL, "kernel '%s' has no host code to run", k->name);
  if (!k->uses_barrier && k->stack_bytes > WORKER_STACK - 4 * FIBER_MARGIN)
    return rt_error(ctx, KC_ERR_LAUNCH, "kernel '%s' needs %zu KiB of stack per thread (its "
                    "local arrays and those of the functions it calls), more than the CPU "
                    "back end's workers have (%zu KiB)", k->name, k->stack_bytes / 1024,
                    (WORKER_STACK - 4 * FIBER_MARGIN) / 1024);
  if (!ctx->pool && !(ctx->pool = pool_new(ctx)))
    return rt_error(ctx, KC_ERR_NOMEM, "out of memory for the CPU thread pool");
  rt_pool *p = ctx->pool;
  rt_job j;
  /* not the whole struct: msg is 2 KiB, written only when something fails */
  memset(&j, 0, offsetof(rt_job, msg));
  j.msg[0] = '\0';
  memset(&j.error, 0, sizeof j.error);
  j.k = k;
  j.args = args;
  j.grid[0] = grid.x; j.grid[1] = grid.y; j.grid[2] = grid.z;
  j.block[0] = block.x; j.block[1] = block.y; j.block[2] = block.z;
  j.nblocks = (uint64_t)grid.x * grid.y * grid.z;
  j.nthreads = block.x * block.y * block.z;
  j.shared = (k->static_shared + 15) / 16 * 16 + dynamic_shared;
  atomic_init(&j.next, 0);
  atomic_init(&j.stop, 0);
  atomic_init(&j.claimed, 0);
  j.status = KC_OK;
  if (k->cooperative) {
    kc_status s = rt_check_coop_grid(ctx, k->name, grid, block,
                                     rt_cpu_coop_max_blocks(j.nthreads), "on the CPU back end");
    if (s != KC_OK) return s;
  }
  int ms = ctx->cfg.timeout_ms;
  if (ms > 0 && !watch_begin(&p->watch, &j, ms))
    return rt_error(ctx, KC_ERR_LAUNCH, "kernel '%s': cannot start the watchdog thread "
                    "that kc_config.timeout_ms asks for", k->name);
  if (k->cooperative) {
    run_cooperative(p, &j);
  } else if (j.nblocks <= 1 || p->n <= 1) {
    run_job(&p->w[0], &j);
  } else {
    pool_start(p);
    pthread_mutex_lock(&p->mu);
    p->job = &j;
    p->busy = p->n - 1;
    p->gen++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    run_job(&p->w[0], &j);
    pthread_mutex_lock(&p->mu);
    while (p->busy > 0) pthread_cond_wait(&p->idle, &p->mu);
    p->job = NULL;
    pthread_mutex_unlock(&p->mu);
  }
  if (ms > 0) watch_end(&p->watch);   /* after it, j.status is final */
  /* the record first: the threads left waiting for one that raised deadlock */
  if (j.error.flag) {
    char msg[RT_ERR_LEN];
    rt_format_kernel_error(msg, sizeof msg, k->name, k->file, &j.error);
    return rt_error(ctx, rt_kernel_error_status(&j.error), "%s", msg);
  }
  if (j.status != KC_OK) return rt_error(ctx, j.status, "%s", j.msg);
  return KC_OK;
}
