/*
 * exec.c — the CPU grid executor: runs the blocks of a launch on a pool of
 * persistent worker threads, each block with its own shared memory.
 *
 * Each worker owns a contiguous share of the grid's blocks, claimed in runs through a
 * counter on a cache line of its own; a worker done with its share takes runs from the
 * others'. The calling thread works too (worker 0), so a one-block launch or a
 * one-thread pool never wakes anyone. A kernel
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
 * coop.c).
 *
 * This file is the launch (rt_cpu_launch); the executor's parts are its neighbours in
 * runtime/cpu/ (exec.h lists them, each above the ones it calls): pool.c (blocks,
 * workers, the pool), private.c (arrays only added to, counted per worker), coop.c,
 * watchdog.c (kc_config.timeout_ms), fibers.c,
 * collectives.c (barriers, warp operations) and job.c (a launch's state).
 */
#include <stddef.h>

#include "exec.h"

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
_Static_assert(offsetof(kc_cpu_block, private_array) == KC_CPU_BLOCK_OFF_PRIVATE_ARRAY &&
               offsetof(kc_cpu_block, private_mask) == KC_CPU_BLOCK_OFF_PRIVATE_MASK,
               "host ABI");
_Static_assert(offsetof(kc_cpu_block, thread_span) == KC_CPU_BLOCK_OFF_THREAD_SPAN, "host ABI");
_Static_assert(sizeof(atomic_int) == sizeof(int), "kc_cpu_block.stop reads an atomic_int");

kc_status rt_cpu_launch(kc_context *ctx, const rt_cpu_kernel *k, kc_dim3 grid,
                        kc_dim3 block, size_t dynamic_shared, void **args) {
  if (k->uses_barrier ? !k->thread_fn : !k->block_fn)
    return rt_error(ctx, KC_ERR_INTERNAL, "kernel '%s' has no host code to run", k->name);
  if (!k->uses_barrier && k->stack_bytes > WORKER_STACK - 4 * FIBER_MARGIN)
    return rt_error(ctx, KC_ERR_LAUNCH, "kernel '%s' needs %zu KiB of stack per thread (its "
                    "local arrays and those of the functions it calls), more than the CPU "
                    "back end's workers have (%zu KiB)", k->name, k->stack_bytes / 1024,
                    (WORKER_STACK - 4 * FIBER_MARGIN) / 1024);
  if (!ctx->pool && !(ctx->pool = rt_pool_new(ctx)))
    return rt_error(ctx, KC_ERR_NOMEM, "out of memory for the CPU thread pool");
  rt_pool *p = ctx->pool;
  rt_job j;
  rt_job_init(&j, k, grid, block, dynamic_shared, args);
  if (k->cooperative) {
    kc_status s = rt_check_coop_grid(ctx, k->name, grid, block,
                                     rt_cpu_coop_max_blocks(j.nthreads), "on the CPU back end");
    if (s != KC_OK) return s;
  }
  int ms = ctx->cfg.timeout_ms;
  if (ms > 0 && !rt_watch_begin(&p->watch, &j, ms))
    return rt_error(ctx, KC_ERR_LAUNCH, "kernel '%s': cannot start the watchdog thread "
                    "that kc_config.timeout_ms asks for", k->name);
  if (k->cooperative) rt_run_cooperative(p, &j);
  else rt_pool_run(p, &j);
  if (ms > 0) rt_watch_end(&p->watch);   /* after it, j.status is final */
  return rt_job_status(ctx, &j);
}
