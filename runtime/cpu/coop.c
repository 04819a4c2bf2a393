/*
 * coop.c — cooperative launches on the CPU: every block at once.
 *
 * A kernel that synchronises its grid (g.sync()) runs each block on a thread of its
 * own, its threads fibers as in any barrier kernel, so that every block is live at
 * once, as a cooperative launch makes them on the GPU; the grid is limited as the
 * GPU's is, with a clear error past it (rt_cpu_coop_max_blocks, checked by
 * launch_shape.c). A block whose threads all wait at g.sync() waits in rt_coop_arrive
 * (collectives.c) until every block has arrived. A block that ends while others wait
 * there can never arrive: a deadlock, reported as the block barrier's are, never a
 * hang.
 */
#include <stdlib.h>
#include <string.h>

#include "exec.h"

#define COOP_MAX_BLOCKS 1024u     /* OS threads, one per block */
#define COOP_MAX_THREADS 16384u   /* fibers of the whole grid (two mappings each) */
#define COOP_THREAD_STACK ((size_t)256 * 1024)  /* the scheduler's; fibers have their own */

typedef struct coop_runner {
  rt_worker w;
  uint64_t block;               /* linear block index */
  pthread_t thread;
} coop_runner;

uint64_t rt_cpu_coop_max_blocks(unsigned threads_per_block) {
  unsigned fit = COOP_MAX_THREADS / (threads_per_block ? threads_per_block : 1);
  return fit < COOP_MAX_BLOCKS ? fit : COOP_MAX_BLOCKS;
}

static void *coop_block_main(void *arg) {
  coop_runner *r = arg;
  rt_worker *w = &r->w;
  rt_job *j = w->job;
#ifdef RT_TSAN
  w->main.tsan = __tsan_get_current_fiber();
#endif
  if (rt_block_setup(w, j)) {
    rt_job_block_index(j, r->block, w->blk.block_idx);
    rt_run_fiber_block(w);
  }
  rt_coop_leave(w);
  return NULL;
}

/* Start a thread per block, wait for them all, and free what they made. */
void rt_run_cooperative(rt_pool *p, rt_job *j) {
  rt_coop c;
  memset(&c, 0, sizeof c);
  pthread_mutex_init(&c.mu, NULL);
  pthread_cond_init(&c.cv, NULL);
  c.nblocks = j->nblocks;
  rt_watch_set_coop(&p->watch, j, &c);
  coop_runner *r = calloc((size_t)j->nblocks, sizeof *r);
  uint64_t started = 0;
  if (!r) {
    rt_job_fail(j, KC_ERR_NOMEM, "kernel '%s': out of memory for a cooperative launch",
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
        rt_job_fail(j, KC_ERR_LAUNCH, "kernel '%s': cannot start a thread for each of its %llu "
                    "blocks (a cooperative launch runs them all at once)", j->k->name,
                    (unsigned long long)j->nblocks);
        rt_coop_give_up(&c);   /* the blocks started so far give up at the grid barrier */
        break;
      }
    }
    pthread_attr_destroy(&attr);
  }
  for (uint64_t i = 0; i < started; i++) {
    pthread_join(r[i].thread, NULL);
    rt_free_fibers(&r[i].w);
    rt_private_free(&r[i].w);   /* declined for a cooperative launch: the list alone */
    free(r[i].w.shared);
  }
  free(r);
  rt_watch_set_coop(&p->watch, j, NULL);
  pthread_cond_destroy(&c.cv);
  pthread_mutex_destroy(&c.mu);
}
