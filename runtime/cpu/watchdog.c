/*
 * watchdog.c — kc_config.timeout_ms on the CPU: a launch that runs past it is stopped.
 *
 * One thread per pool, started by the first launch that has a time limit. A launch
 * registers its job and deadline (rt_watch_begin) and withdraws it when done
 * (rt_watch_end); the watchdog sleeps until the deadline and, if the same launch is
 * still running, stops it (watch_stop): the launch fails with KC_ERR_TIMEOUT, no further block
 * starts, its threads end at their next loop back edge (codegen.c cg_loop_check calls
 * blk->cancel), and the blocks of a cooperative launch waiting at its grid barrier give
 * up. A launch pays two uncontended lock/unlock pairs; the watchdog is woken only when
 * it has no deadline to sleep until (a later deadline is found when the earlier
 * passes).
 */
#include <string.h>

#include "exec.h"

void rt_watch_init(rt_watch *wd) {
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
  uint64_t started = j->coop ? j->nblocks : rt_job_started(j);
  rt_job_fail(j, KC_ERR_TIMEOUT, "kernel '%s'%s%s%s did not finish within %d ms "
              "(kc_config.timeout_ms, KC_TIMEOUT_MS) and was stopped: its threads ended at "
              "their next loop iteration; %llu of its %llu blocks had started", j->k->name,
              j->k->file ? " (" : "", j->k->file ? j->k->file : "", j->k->file ? ")" : "", ms,
              (unsigned long long)started, (unsigned long long)j->nblocks);
  if (j->coop) rt_coop_give_up(j->coop);
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
int rt_watch_begin(rt_watch *wd, rt_job *j, int ms) {
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

void rt_watch_end(rt_watch *wd) {
  pthread_mutex_lock(&wd->mu);
  wd->job = NULL;
  pthread_mutex_unlock(&wd->mu);
}

/* j's grid barrier: set and cleared under the watchdog's lock, which watch_stop holds. */
void rt_watch_set_coop(rt_watch *wd, rt_job *j, struct rt_coop *c) {
  pthread_mutex_lock(&wd->mu);
  j->coop = c;
  pthread_mutex_unlock(&wd->mu);
}

void rt_watch_free(rt_watch *wd) {
  pthread_mutex_lock(&wd->mu);
  wd->quit = 1;
  pthread_cond_signal(&wd->cv);
  pthread_mutex_unlock(&wd->mu);
  if (wd->started) pthread_join(wd->thread, NULL);
  pthread_cond_destroy(&wd->cv);
  pthread_mutex_destroy(&wd->mu);
}
