/*
 * collectives.c — what the threads of a block, a warp or a grid do together on the
 * CPU: barriers (cuda.syncthreads(), g.sync()), syncthreads_count/and/or, and the warp
 * operations (shuffles, votes, match, activemask, syncwarp), each a callback of
 * kc_cpu_block that parks the calling fiber; and the grid barrier of a cooperative
 * launch, where the blocks (each on a thread of its own, coop.c) wait for each other.
 */
#include <string.h>

#include "exec.h"

/* ---- Barriers ----------------------------------------------------------------------- */
void rt_cpu_barrier(kc_cpu_block *blk, uint32_t site) {
  rt_worker *w = blk->exec;
  if (!w->in_fibers) {
    /* the compiler said the kernel has no barrier; running on would be wrong */
    rt_job_fail(w->job, KC_ERR_INTERNAL,
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

/* g.sync(): a block barrier whose release (rt_run_fiber_block) waits for every block of
 * the grid at rt_coop_arrive. */
static uint64_t grid_barrier(rt_worker *w, uint32_t site) {
  if (!w->job->coop) {
    rt_job_fail(w->job, KC_ERR_INTERNAL, "kernel '%s' reached a grid barrier (line %u:%u) but "
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
  rt_cpu_barrier(blk, site);
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

/* activemask(): the lanes of the warp running this call with it, as a GPU with
 * independent thread scheduling answers inside a divergent branch: those that reached
 * the same call site (the even lanes in `if i % 2 == 0:`, all of them where the warp has
 * not diverged), not the exited ones nor those waiting elsewhere. The thread waits until
 * the sweep has run every other lane as far as it goes (to its end or to a wait), so
 * that a lane is not left out because it had not started yet; the end of the sweep
 * (rt_complete_stranded_warps) answers. */
static uint64_t activemask_wait(rt_worker *w, uint32_t site) {
  rt_fiber *f = &w->fibers[w->cur];
  f->cop = KC_COLL_ACTIVEMASK;
  f->cmask = 0;
  f->site = site;
  f->state = FIBER_WARP;
  switch_next(w, &f->ctx);
  return f->cres;
}

uint64_t rt_cpu_collective(kc_cpu_block *blk, uint32_t op, uint32_t mask, uint64_t value,
                               uint32_t arg, uint32_t site) {
  rt_worker *w = blk->exec;
  if (!w->in_fibers) {
    rt_job_fail(w->job, KC_ERR_INTERNAL, "kernel '%s' reached a collective operation (line "
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

/* The lanes of base's warp waiting in activemask() at site. */
static uint32_t lanes_at_site(rt_worker *w, unsigned base, uint32_t site) {
  uint32_t members = warp_members(w, base, 0xffffffffu), mask = 0;
  for (unsigned l = 0; l < 32; l++) {
    const rt_fiber *g = &w->fibers[base + l];
    if ((members >> l & 1u) && g->state == FIBER_WARP && g->cop == KC_COLL_ACTIVEMASK &&
        g->site == site)
      mask |= 1u << l;
  }
  return mask;
}

/* After a sweep: answer activemask(), and complete the warp collectives whose missing
 * lanes have exited since. Every activemask() waiting is answered before any is made
 * runnable, so each sees the others of its site still waiting. */
int rt_complete_stranded_warps(rt_worker *w) {
  int any = 0;
  for (unsigned i = 0; i < w->job->nthreads; i++) {
    rt_fiber *f = &w->fibers[i];
    if (f->state != FIBER_WARP) continue;
    if (f->cop == KC_COLL_ACTIVEMASK) {
      f->cres = lanes_at_site(w, i & ~31u, f->site);
      any = 1;
      continue;
    }
    any |= warp_try_complete(w, i & ~31u, f->cmask);
  }
  for (unsigned i = 0; i < w->job->nthreads; i++)
    if (w->fibers[i].state == FIBER_WARP && w->fibers[i].cop == KC_COLL_ACTIVEMASK)
      w->fibers[i].state = FIBER_RUN;
  return any;
}

/* A warp collective that can never complete: its lanes wait at a barrier or at another
 * warp operation. */
void rt_report_warp_deadlock(rt_worker *w) {
  rt_job *j = w->job;
  const uint32_t *b = w->blk.block_idx;
  unsigned i = 0;
  while (w->fibers[i].state != FIBER_WARP) i++;
  uint32_t t[3], site = w->fibers[i].site;
  thread_of(j, i, t);
  rt_job_fail(j, KC_ERR_DEADLOCK,
              "kernel '%s': deadlock in block (%u, %u, %u): thread (%u, %u, %u) waits at the "
              "warp operation at %u:%u for lanes of its mask 0x%08x that never reach it",
              j->k->name, b[0], b[1], b[2], t[0], t[1], t[2], site >> 16, site & 0xffff,
              w->fibers[i].cmask);
}

/* ---- The grid barrier of a cooperative launch --------------------------------------- */
/* Blocks wait at the grid barrier and the rest have ended (c->mu held). */
static void coop_deadlock(rt_job *j, rt_coop *c) {
  rt_job_fail(j, KC_ERR_DEADLOCK,
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
int rt_coop_arrive(rt_worker *w, uint32_t site) {
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
 * give up there (rt_coop_arrive returns 0). */
void rt_coop_give_up(rt_coop *c) {
  pthread_mutex_lock(&c->mu);
  c->failed = 1;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

/* w's block has ended (finished, failed or abandoned). */
void rt_coop_leave(rt_worker *w) {
  rt_coop *c = w->job->coop;
  pthread_mutex_lock(&c->mu);
  c->left++;
  memcpy(c->exited, w->blk.block_idx, sizeof c->exited);
  if (c->arrived > 0 && c->arrived + c->left == c->nblocks) coop_deadlock(w->job, c);
  pthread_mutex_unlock(&c->mu);
}
