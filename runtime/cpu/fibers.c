/*
 * fibers.c — the threads of a barrier kernel's block, run as fibers on one worker. A
 * fiber runs its thread until the thread waits (a barrier, a warp operation) or ends,
 * then passes control to the next; when every thread has had its turn the scheduler
 * (rt_run_fiber_block) checks that they all wait at the same barrier and lets them
 * continue, or reports a deadlock. A worker's fibers live across blocks and launches
 * (fiber i runs thread i of each block, then parks), on mmap'd stacks with a guard
 * page, so a block costs context switches only: a few instructions on x86-64 (the
 * assembly below), swapcontext elsewhere or under sanitizers, which know about it.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exec.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define RT_HAVE_VALGRIND 1
#endif
#endif

#ifdef RT_ASM_FIBERS
/* rt_fiber_boot (exec.h says what it does); the switch itself is switch.c's */
__asm__(".text\n"
        ".p2align 4\n"
        ".type rt_fiber_boot, @function\n"
        "rt_fiber_boot:\n"
        "  movq %rbx, %rdi\n"
        "  call rt_fiber_main\n"
        "  ud2\n"
        ".size rt_fiber_boot, .-rt_fiber_boot\n");
#endif

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

void rt_free_fibers(rt_worker *w) {
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
  rt_job_fail(j, KC_ERR_DEADLOCK,
              "kernel '%s': deadlock in block (%u, %u, %u): threads wait at different "
              "barriers: thread (%u, %u, %u) at %u:%u, thread (%u, %u, %u) at %u:%u",
              j->k->name, b[0], b[1], b[2], tw[0], tw[1], tw[2], site >> 16, site & 0xffff,
              tx[0], tx[1], tx[2], s2 >> 16, s2 & 0xffff);
}

void rt_run_fiber_block(rt_worker *w) {
  rt_job *j = w->job;
  unsigned T = j->nthreads;
  size_t stack = fiber_stack_size(j->k);
  if (!ensure_fibers(w, T, stack)) {
    rt_job_fail(j, KC_ERR_NOMEM, "kernel '%s': out of memory for %u thread stacks of %zu KiB",
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
    if (rt_complete_stranded_warps(w)) continue;
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
      if (nwarp > 0) rt_report_warp_deadlock(w);
      else report_deadlock(w);
      /* the waiting fibers are abandoned mid-kernel: start them afresh next time */
      for (unsigned i = 0; i < T; i++)
        if (w->fibers[i].state != FIBER_DONE) w->fibers[i].booted = 0;
      break;
    }
    /* every thread at a grid barrier: the block waits there for the others */
    if (w->fibers[first_wait].grid && !rt_coop_arrive(w, w->fibers[first_wait].site)) {
      for (unsigned i = 0; i < T; i++) w->fibers[i].booted = 0;
      break;
    }
    for (unsigned i = 0; i < T; i++)   /* an exited thread stays done */
      if (w->fibers[i].state != FIBER_DONE) w->fibers[i].state = FIBER_RUN;
    w->sync_fresh = 1;  /* a barrier released: see sync_reduce */
  }
  w->in_fibers = 0;
}
