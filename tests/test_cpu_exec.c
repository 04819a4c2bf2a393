/*
 * test_cpu_exec.c — the CPU grid executor without the compiler: kernels written by
 * hand in C with the host_abi.h signatures, run through rt_cpu_launch and through a
 * hand-built kernel table with kc_launch. Covers 1-3-D grids over the thread pool,
 * per-block shared memory (static + dynamic), barriers as fibers, deadlock reports
 * and traps.
 */
#include <check.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

#define SITE(line, col) ((uint32_t)(line) << 16 | (uint32_t)(col))

static kc_context *cpu_context(int threads) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = threads;
  kc_context *ctx = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  ck_assert_int_eq(kc_context_device(ctx), KC_DEVICE_CPU);
  return ctx;
}

/* ---- vector add: add(float32[:] a, float32[:] b, float32[:] out) ---------------------- */
static void vadd_block(void **args, kc_cpu_block *blk) {
  float *a = *(float **)args[0], *b = *(float **)args[2], *out = *(float **)args[4];
  int64_t n = *(int64_t *)args[5];
  for (uint32_t tx = 0; tx < blk->block_dim[0]; tx++) {
    int64_t i = (int64_t)blk->block_idx[0] * blk->block_dim[0] + tx;
    if (i < n) out[i] = a[i] + b[i];
  }
}

static void run_vadd(int threads, int64_t n, unsigned block) {
  kc_context *ctx = cpu_context(threads);
  float *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b),
        *out = malloc((size_t)n * sizeof *out);
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)i;
    b[i] = 2.0f * (float)i;
    out[i] = -1.0f;  /* poison */
  }
  int64_t na = n, nb = n, no = n;
  void *args[6] = {&a, &na, &b, &nb, &out, &no};
  rt_cpu_kernel k = {"add", vadd_block, NULL, 0, 0, NULL, 0, 0, NULL, 0, 0, 0};
  unsigned grid = (unsigned)((n + block - 1) / block);
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim(grid), kc_dim(block), 0, args), KC_OK);
  for (int64_t i = 0; i < n; i++) ck_assert_float_eq(out[i], 3.0f * (float)i);
  free(a);
  free(b);
  free(out);
  kc_context_free(ctx);
}

START_TEST(vector_add_one_thread) { run_vadd(1, 1000, 128); }
END_TEST

START_TEST(vector_add_pool) {
  run_vadd(4, 100003, 256);
  run_vadd(3, 1, 32);      /* one block: runs on the caller alone */
  run_vadd(0, 4096, 1);    /* all cores, one thread per block */
}
END_TEST

/* ---- 3-D: every thread of every block writes its global linear index once -------------- */
/* each thread of blk (its thread loops `extent` long) counts its global index once */
static void count_threads(atomic_int *hits, const kc_cpu_block *blk, const uint32_t *extent) {
  const uint32_t *bd = blk->block_dim, *gd = blk->grid_dim, *bi = blk->block_idx;
  uint64_t W = (uint64_t)gd[0] * bd[0], H = (uint64_t)gd[1] * bd[1];
  for (uint32_t z = 0; z < extent[2]; z++)
    for (uint32_t y = 0; y < extent[1]; y++)
      for (uint32_t x = 0; x < extent[0]; x++) {
        uint64_t gx = bi[0] * bd[0] + x, gy = bi[1] * bd[1] + y, gz = bi[2] * bd[2] + z;
        atomic_fetch_add(&hits[(gz * H + gy) * W + gx], 1);
      }
}

static void index3d_block(void **args, kc_cpu_block *blk) {
  count_threads(*(atomic_int **)args[0], blk, blk->block_dim);
}

START_TEST(grid_3d_covers_every_thread_once) {
  kc_context *ctx = cpu_context(4);
  kc_dim3 grid = kc_dim3_(5, 3, 2), block = kc_dim3_(4, 2, 3);
  size_t total = 5 * 4 * 3 * 2 * 2 * 3;
  atomic_int *hits = calloc(total, sizeof *hits);
  int64_t ext = (int64_t)total;
  void *args[2] = {&hits, &ext};
  rt_cpu_kernel k = {"index3d", index3d_block, NULL, 0, 0, NULL, 0, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, grid, block, 0, args), KC_OK);
  for (size_t i = 0; i < total; i++) ck_assert_int_eq(atomic_load(&hits[i]), 1);
  /* and a 2-D grid of 2-D blocks on the same context (the pool is reused) */
  memset(hits, 0, total * sizeof *hits);
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim2(6, 5), kc_dim2(4, 3), 0, args), KC_OK);
  for (size_t i = 0; i < 6 * 5 * 4 * 3; i++) ck_assert_int_eq(atomic_load(&hits[i]), 1);
  free(hits);
  kc_context_free(ctx);
}
END_TEST

/* ---- fused runs (host_fuse.c): one call covers neighbouring blocks along the inner
 * axis, its thread loop there thread_span long, blockIdx the run's first block ---------- */
static void index3d_span_block(void **args, kc_cpu_block *blk) {
  atomic_int *hits = *(atomic_int **)args[0];
  atomic_int *bad = *(atomic_int **)args[2];
  const uint32_t *bd = blk->block_dim, *gd = blk->grid_dim, *bi = blk->block_idx;
  const uint32_t *span = blk->thread_span;
  uint64_t per_block = (uint64_t)bd[0] * bd[1] * bd[2];
  uint64_t threads = (uint64_t)span[0] * span[1] * span[2];
  for (int k = 0; k < 3; k++)   /* a whole number of blocks, within one row of the grid */
    if (span[k] % bd[k] || bi[k] + span[k] / bd[k] > gd[k]) atomic_fetch_add(bad, 1);
  if (threads > per_block && threads > 2048) atomic_fetch_add(bad, 1);   /* pool.c's cap */
  if (threads > per_block) atomic_fetch_add(*(atomic_int **)args[3], 1);
  count_threads(hits, blk, span);
}

static void run_fused_cover(kc_context *ctx, int inner, kc_dim3 grid, kc_dim3 block) {
  size_t total = (size_t)grid.x * grid.y * grid.z * block.x * block.y * block.z;
  atomic_int *hits = calloc(total, sizeof *hits), bad = 0, *badp = &bad;
  atomic_int fused = 0, *fusedp = &fused;
  int64_t ext = (int64_t)total;
  void *args[4] = {&hits, &ext, &badp, &fusedp};
  rt_cpu_kernel k = {"fused", index3d_span_block, NULL, 0, 0, NULL, 0, 0, NULL, 0, inner, 1};
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, grid, block, 0, args), KC_OK);
  for (size_t i = 0; i < total; i++) ck_assert_int_eq(atomic_load(&hits[i]), 1);
  ck_assert_int_eq(atomic_load(&bad), 0);
  ck_assert_int_gt(atomic_load(&fused), 0);   /* every shape here has a run to fuse */
  free(hits);
}

START_TEST(fused_runs_cover_every_thread_once) {
  for (int threads = 1; threads <= 3; threads += 2) {
    kc_context *ctx = cpu_context(threads);
    run_fused_cover(ctx, 0, kc_dim3_(37, 5, 2), kc_dim3_(16, 16, 1));
    run_fused_cover(ctx, 1, kc_dim3_(5, 37, 2), kc_dim3_(16, 16, 1));
    run_fused_cover(ctx, 2, kc_dim3_(3, 2, 19), kc_dim3_(2, 2, 4));
    run_fused_cover(ctx, 0, kc_dim3_(1000, 1, 1), kc_dim3_(4, 1, 1));
    run_fused_cover(ctx, 0, kc_dim3_(7, 3, 1), kc_dim3_(1024, 1, 1));
    kc_context_free(ctx);
  }
}
END_TEST

/* ---- shared memory without barriers: static + dynamic regions per block ------------------ */
static void shared_block(void **args, kc_cpu_block *blk) {
  int32_t *out = *(int32_t **)args[0];
  int32_t *sh = blk->shared;      /* 16 ints static, then block_dim ints dynamic */
  uint32_t n = blk->block_dim[0], b = blk->block_idx[0];
  for (uint32_t t = 0; t < 16; t++) sh[t] = (int32_t)(b * 1000 + t);
  for (uint32_t t = 0; t < n; t++) sh[16 + t] = (int32_t)(b * 1000 + 100 + t);
  for (uint32_t t = 0; t < n; t++) out[b * n + t] = sh[t % 16] + sh[16 + (n - 1 - t)];
}

START_TEST(shared_memory_per_block) {
  kc_context *ctx = cpu_context(4);
  enum { BLOCKS = 64, N = 32 };
  int32_t *out = malloc(BLOCKS * N * sizeof *out);
  int64_t ext = BLOCKS * N;
  void *args[2] = {&out, &ext};
  rt_cpu_kernel k = {"shared", shared_block, NULL, 0, 16 * sizeof(int32_t), NULL, 0, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim(BLOCKS), kc_dim(N), N * sizeof(int32_t), args),
                   KC_OK);
  for (int b = 0; b < BLOCKS; b++)
    for (int t = 0; t < N; t++)
      ck_assert_int_eq(out[b * N + t], (b * 1000 + t % 16) + (b * 1000 + 100 + (N - 1 - t)));
  free(out);
  kc_context_free(ctx);
}
END_TEST

/* ---- barriers: threads talk through shared memory ---------------------------------------- */
/* rotate(int32[:] out, int32 rounds): each round every thread writes its value to shared
 * memory, syncs, reads its right neighbour's, syncs again. */
static void rotate_thread(void **args, kc_cpu_block *blk, uint32_t tx, uint32_t ty,
                          uint32_t tz) {
  int32_t *out = *(int32_t **)args[0];
  int32_t rounds = *(int32_t *)args[2];
  int32_t *sh = blk->shared;
  uint32_t nx = blk->block_dim[0], ny = blk->block_dim[1];
  uint32_t n = nx * ny * blk->block_dim[2];
  uint32_t t = (tz * ny + ty) * nx + tx;
  int32_t v = (int32_t)(blk->block_idx[0] * 10000 + t);
  for (int32_t r = 0; r < rounds; r++) {
    sh[t] = v;
    blk->barrier(blk, SITE(7, 9));
    v = sh[(t + 1) % n];
    blk->barrier(blk, SITE(9, 9));
  }
  out[blk->block_idx[0] * n + t] = v;
}

static void run_rotate(int threads, kc_dim3 block, int32_t rounds) {
  kc_context *ctx = cpu_context(threads);
  enum { BLOCKS = 8 };
  unsigned n = block.x * block.y * block.z;
  int32_t *out = malloc(BLOCKS * n * sizeof *out);
  for (unsigned i = 0; i < BLOCKS * n; i++) out[i] = -1;
  int64_t ext = BLOCKS * n;
  void *args[3] = {&out, &ext, &rounds};
  rt_cpu_kernel k = {"rotate", NULL, rotate_thread, 1, 0, NULL, 0, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim(BLOCKS), block, n * sizeof(int32_t), args),
                   KC_OK);
  for (unsigned b = 0; b < BLOCKS; b++)
    for (unsigned t = 0; t < n; t++)
      ck_assert_int_eq(out[b * n + t], (int32_t)(b * 10000 + (t + (unsigned)rounds) % n));
  free(out);
  kc_context_free(ctx);
}

START_TEST(barrier_neighbour_exchange) {
  run_rotate(1, kc_dim(64), 3);
  run_rotate(4, kc_dim3_(4, 4, 2), 5);
  run_rotate(2, kc_dim(1024), 1);   /* the largest block */
  run_rotate(2, kc_dim(1), 2);
}
END_TEST

/* ---- cooperative launches: grid barriers ---------------------------------------------- */
static void grid_sync(kc_cpu_block *blk, uint32_t site) {
  blk->collective(blk, KC_COLL_GRID_SYNC, 0xffffffffu, 0, 0, site);
}

static void grid_early_exit_thread(void **args, kc_cpu_block *blk, uint32_t tx, uint32_t ty,
                                   uint32_t tz) {
  (void)args, (void)tx, (void)ty, (void)tz;
  if (blk->block_idx[0] == 2) return;   /* block 2 never reaches the grid barrier */
  grid_sync(blk, SITE(21, 7));
}

/* Each thread writes its slot, the grid meets, each reads the slot of the thread one
 * block further on (written by another block), rounds times. */
static void grid_rotate_thread(void **args, kc_cpu_block *blk, uint32_t tx, uint32_t ty,
                               uint32_t tz) {
  (void)ty, (void)tz;
  int32_t *buf = *(int32_t **)args[0];
  int32_t rounds = *(int32_t *)args[2];
  uint32_t nb = blk->grid_dim[0], nt = blk->block_dim[0];
  uint32_t me = blk->block_idx[0] * nt + tx, total = nb * nt;
  int32_t v = (int32_t)me;
  for (int32_t r = 0; r < rounds; r++) {
    buf[me] = v;
    grid_sync(blk, SITE(3, 5));
    v = buf[(me + nt) % total];
    grid_sync(blk, SITE(5, 5));
  }
  buf[me] = v;
}

START_TEST(cooperative_grid_barrier) {
  kc_context *ctx = cpu_context(2);
  enum { BLOCKS = 12, T = 32 };
  int32_t buf[BLOCKS * T], rounds = 5;
  int32_t *pb = buf;
  int64_t ext = BLOCKS * T;
  void *args[3] = {&pb, &ext, &rounds};
  rt_cpu_kernel k = {"grid_rotate", NULL, grid_rotate_thread, 1, 0, NULL, 1, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim(BLOCKS), kc_dim(T), 0, args), KC_OK);
  for (int i = 0; i < BLOCKS * T; i++)
    ck_assert_int_eq(buf[i], (i + rounds * T) % (BLOCKS * T));
  /* more blocks than run at once on the CPU back end: refused, naming the limit */
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim(2048), kc_dim(1), 0, args), KC_ERR_LAUNCH);
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "at most 1024 blocks of 1 threads"));
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "'grid_rotate'"));
  /* not marked cooperative: the grid barrier is an internal error, not a hang (a
   * kernel that touches no memory: past the failed barrier its blocks are not ordered) */
  rt_cpu_kernel plain = {"grid_plain", NULL, grid_early_exit_thread, 1, 0, NULL, 0, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &plain, kc_dim(2), kc_dim(2), 0, NULL), KC_ERR_INTERNAL);
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "was not launched cooperatively"));
  kc_context_free(ctx);
}
END_TEST

START_TEST(cooperative_deadlock) {
  kc_context *ctx = cpu_context(2);
  rt_cpu_kernel k = {"grid_early", NULL, grid_early_exit_thread, 1, 0, NULL, 1, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim(4), kc_dim(8), 0, NULL), KC_ERR_DEADLOCK);
  ck_assert_str_eq(kc_last_error(ctx),
                   "kernel 'grid_early': deadlock at the grid barrier at 21:7: 3 blocks wait "
                   "there while 1 block ended without reaching it (last: block (2, 0, 0))");
  kc_context_free(ctx);
}
END_TEST

/* ---- deadlocks, and threads that exit before a barrier ---------------------------------- */
static void early_exit_thread(void **args, kc_cpu_block *blk, uint32_t tx, uint32_t ty,
                              uint32_t tz) {
  (void)ty; (void)tz;
  int32_t *out = *(int32_t **)args[0];
  if (tx == 0) return;   /* thread 0 never reaches the barrier */
  blk->barrier(blk, SITE(12, 5));
  out[blk->block_idx[0] * blk->block_dim[0] + tx] = (int32_t)tx;
}

/* PTX's bar.sync waits for the threads that have not exited: the others go on. */
START_TEST(exited_threads_release_the_barrier) {
  kc_context *ctx = cpu_context(2);
  enum { B = 16, T = 4 };
  int32_t out[B * T];
  int32_t *po = out;
  void *args[1] = {&po};
  rt_cpu_kernel k = {"early", NULL, early_exit_thread, 1, 0, NULL, 0, 0, NULL, 0, 0, 0};
  for (int i = 0; i < B * T; i++) out[i] = -1;
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim(B), kc_dim(T), 0, args), KC_OK);
  for (int i = 0; i < B * T; i++) ck_assert_int_eq(out[i], i % T == 0 ? -1 : i % T);
  /* the fibers of exited threads run the next launch's threads from the start */
  for (int i = 0; i < B * T; i++) out[i] = -1;
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim(B), kc_dim(T), 0, args), KC_OK);
  for (int i = 0; i < B * T; i++) ck_assert_int_eq(out[i], i % T == 0 ? -1 : i % T);
  kc_context_free(ctx);
}
END_TEST

static void split_barrier_thread(void **args, kc_cpu_block *blk, uint32_t tx, uint32_t ty,
                                 uint32_t tz) {
  (void)args; (void)ty; (void)tz;
  if (tx % 2) blk->barrier(blk, SITE(20, 13));
  else blk->barrier(blk, SITE(22, 13));
}

START_TEST(deadlock_different_barriers) {
  kc_context *ctx = cpu_context(1);
  rt_cpu_kernel k = {"split", NULL, split_barrier_thread, 1, 0, NULL, 0, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim(2), kc_dim2(2, 2), 0, NULL), KC_ERR_DEADLOCK);
  ck_assert_str_eq(kc_last_error(ctx),
                   "kernel 'split': deadlock in block (0, 0, 0): threads wait at different "
                   "barriers: thread (0, 0, 0) at 22:13, thread (1, 0, 0) at 20:13");
  kc_context_free(ctx);
}
END_TEST

/* all threads meet at the first barrier, then one leaves before the second */
static void late_exit_thread(void **args, kc_cpu_block *blk, uint32_t tx, uint32_t ty,
                             uint32_t tz) {
  (void)tz;
  int32_t *out = *(int32_t **)args[0];
  blk->barrier(blk, SITE(3, 3));
  if (tx == 1 && ty == 1) return;
  blk->barrier(blk, SITE(5, 3));
  out[ty * 2 + tx] = 1;
}

START_TEST(exit_after_a_good_barrier) {
  kc_context *ctx = cpu_context(2);
  int32_t out[4] = {0, 0, 0, 0};
  int32_t *po = out;
  void *args[1] = {&po};
  rt_cpu_kernel k = {"late", NULL, late_exit_thread, 1, 0, NULL, 0, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim(1), kc_dim2(2, 2), 0, args), KC_OK);
  ck_assert_int_eq(out[0] + out[1] + out[2], 3);
  ck_assert_int_eq(out[3], 0);   /* thread (1, 1) left before the second barrier */
  kc_context_free(ctx);
}
END_TEST

/* ---- traps ------------------------------------------------------------------------------------ */
static void trap_block(void **args, kc_cpu_block *blk) {
  (void)args;
  if (blk->block_idx[0] == 3) blk->trap(blk, "index 99 is out of bounds for axis 0 of size 10");
}

static void trap_thread(void **args, kc_cpu_block *blk, uint32_t tx, uint32_t ty, uint32_t tz) {
  (void)args; (void)ty; (void)tz;
  blk->barrier(blk, SITE(1, 1));
  if (tx == 2) {
    blk->trap(blk, "division by zero");
    return;
  }
}

START_TEST(trap_is_a_launch_error) {
  kc_context *ctx = cpu_context(1);
  rt_cpu_kernel k = {"bad", trap_block, NULL, 0, 0, NULL, 0, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim(8), kc_dim(32), 0, NULL), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx), "kernel 'bad': block (3, 0, 0): index 99 is out of "
                                       "bounds for axis 0 of size 10");
  rt_cpu_kernel k2 = {"bad2", NULL, trap_thread, 1, 0, NULL, 0, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &k2, kc_dim(1), kc_dim(4), 0, NULL), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx),
                   "kernel 'bad2': block (0, 0, 0), thread (2, 0, 0): division by zero");
  kc_context_free(ctx);
}
END_TEST

static void barrier_block(void **args, kc_cpu_block *blk) {
  (void)args;
  blk->barrier(blk, SITE(4, 7));
}

START_TEST(barrier_in_barrier_free_kernel) {
  kc_context *ctx = cpu_context(1);
  rt_cpu_kernel k = {"nofibers", barrier_block, NULL, 0, 0, NULL, 0, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, kc_dim(1), kc_dim(1), 0, NULL), KC_ERR_INTERNAL);
  ck_assert_str_eq(kc_last_error(ctx), "kernel 'nofibers' reached a barrier (line 4:7) but "
                                       "was compiled as barrier-free");
  rt_cpu_kernel none = {"nocode", NULL, NULL, 1, 0, NULL, 0, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &none, kc_dim(1), kc_dim(1), 0, NULL), KC_ERR_INTERNAL);
  ck_assert_str_eq(kc_last_error(ctx), "kernel 'nocode' has no host code to run");
  kc_context_free(ctx);
}
END_TEST

/* ---- through kc_launch with a hand-built kernel table --------------------------------------- */
static void saxpy_block(void **args, kc_cpu_block *blk) {
  float a = *(float *)args[0];
  float *x = *(float **)args[1], *y = *(float **)args[3];
  int64_t n = *(int64_t *)args[2];
  for (uint32_t t = 0; t < blk->block_dim[0]; t++) {
    int64_t i = (int64_t)blk->block_idx[0] * blk->block_dim[0] + t;
    if (i < n) y[i] = a * x[i] + y[i];
  }
}

START_TEST(kc_launch_table_kernel) {
  kc_context *ctx = cpu_context(2);
  kcc_param params[] = {
      {"a", KC_FLOAT32, 0, 0, 0, NULL, 0}, {"x", KC_FLOAT32, 1, 0, 0, NULL, 0},
      {"y", KC_FLOAT32, 1, 1, 0, NULL, 0}};
  kcc_kernel t;
  memset(&t, 0, sizeof t);
  t.name = "saxpy";
  t.symbol = "saxpy";
  t.signature = "saxpy(float32, float32[:], float32[:])";
  t.nparams = 3;
  t.params = params;
  kc_cpu_block_fn fn = saxpy_block;
  memcpy(&t.block_fn, &fn, sizeof fn);
  kc_module *m;
  ck_assert_int_eq(rt_module_from_kernels(ctx, &t, 1, NULL, 0, &m), KC_OK);
  kc_kernel *k;
  ck_assert_int_eq(kc_module_get_kernel(m, "saxpy", &k), KC_OK);
  enum { N = 1000 };
  float hx[N], hy[N];
  for (int i = 0; i < N; i++) {
    hx[i] = (float)i;
    hy[i] = 1.0f;
  }
  int64_t shape[1] = {N};
  kc_array *x, *y;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 1, shape, hx, (size_t)shape[0] * sizeof *hx, &x), KC_OK);
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 1, shape, hy, (size_t)shape[0] * sizeof *hy, &y), KC_OK);
  /* an int scalar converts to the float32 parameter */
  kc_arg args[] = {kc_arg_i32(2), kc_arg_array(x), kc_arg_array(y)};
  ck_assert_int_eq(kc_launch(k, kc_dim((N + 127) / 128), kc_dim(128), 0, NULL, args, 3), KC_OK);
  ck_assert_int_eq(kc_synchronize(ctx), KC_OK);
  ck_assert_int_eq(kc_array_to_host(y, hy, sizeof hy), KC_OK);
  for (int i = 0; i < N; i++) ck_assert_float_eq(hy[i], 2.0f * (float)i + 1.0f);
  kc_array_free(x);
  kc_array_free(y);
  kc_module_free(m);
  kc_context_free(ctx);
}
END_TEST

START_TEST(kc_launch_fault_reported_by_synchronize) {
  kc_context *ctx = cpu_context(1);
  kcc_kernel t;
  memset(&t, 0, sizeof t);
  t.name = "bad";
  t.signature = "bad()";
  kc_cpu_block_fn fn = trap_block;
  memcpy(&t.block_fn, &fn, sizeof fn);
  kc_module *m;
  kc_kernel *k;
  ck_assert_int_eq(rt_module_from_kernels(ctx, &t, 1, NULL, 0, &m), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(m, "bad", &k), KC_OK);
  ck_assert_int_eq(kc_launch(k, kc_dim(4), kc_dim(1), 0, NULL, NULL, 0), KC_ERR_LAUNCH);
  ck_assert_int_eq(kc_synchronize(ctx), KC_ERR_LAUNCH);
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "out of bounds"));
  ck_assert_int_eq(kc_synchronize(ctx), KC_OK);   /* reported once */
  kc_module_free(m);
  kc_context_free(ctx);
}
END_TEST

/* ---- every block once: the workers' shares and the runs taken from others' ------------ */
/* hits[linear block id]++; the blocks of the first half spin a while first, so that the
 * workers done with their own shares take runs from the first worker's. */
static void count_block(void **args, kc_cpu_block *blk) {
  atomic_int *hits = *(atomic_int **)args[0];
  const uint32_t *gd = blk->grid_dim, *bi = blk->block_idx;
  uint64_t id = ((uint64_t)bi[2] * gd[1] + bi[1]) * gd[0] + bi[0];
  uint64_t n = (uint64_t)gd[0] * gd[1] * gd[2];
  if (id < n / 2)
    for (volatile int spin = 0; spin < 2000; spin++) {}
  atomic_fetch_add(&hits[id], 1);
}

static void check_each_block_once(kc_context *ctx, kc_dim3 grid) {
  size_t n = (size_t)grid.x * grid.y * grid.z;
  atomic_int *hits = calloc(n, sizeof *hits);
  int64_t ext = (int64_t)n;
  void *args[2] = {&hits, &ext};
  rt_cpu_kernel k = {"count", count_block, NULL, 0, 0, NULL, 0, 0, NULL, 0, 0, 0};
  ck_assert_int_eq(rt_cpu_launch(ctx, &k, grid, kc_dim(1), 0, args), KC_OK);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(atomic_load(&hits[i]) == 1, "grid %u x %u x %u: block %zu ran %d times",
                  grid.x, grid.y, grid.z, i, atomic_load(&hits[i]));
  free(hits);
}

START_TEST(every_block_once_over_the_shares) {
  static const unsigned sizes[] = {1, 2, 3, 5, 63, 64, 65, 129, 1000, 4099};
  for (int threads = 2; threads <= 5; threads += 3) {   /* 2 and 5 workers */
    kc_context *ctx = cpu_context(threads);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
      check_each_block_once(ctx, kc_dim(sizes[i]));   /* one pool, launches back to back */
    check_each_block_once(ctx, kc_dim3_(7, 5, 3));
    check_each_block_once(ctx, kc_dim3_(65, 1, 2));
    kc_context_free(ctx);
  }
}
END_TEST

static Suite *cpu_exec_suite(void) {
  Suite *s = suite_create("cpu_exec");
  TCase *tc = tcase_create("executor");
  tcase_add_test(tc, vector_add_one_thread);
  tcase_add_test(tc, vector_add_pool);
  tcase_add_test(tc, grid_3d_covers_every_thread_once);
  tcase_add_test(tc, fused_runs_cover_every_thread_once);
  tcase_add_test(tc, every_block_once_over_the_shares);
  tcase_add_test(tc, shared_memory_per_block);
  tcase_add_test(tc, barrier_neighbour_exchange);
  tcase_add_test(tc, cooperative_grid_barrier);
  tcase_add_test(tc, cooperative_deadlock);
  tcase_add_test(tc, exited_threads_release_the_barrier);
  tcase_add_test(tc, deadlock_different_barriers);
  tcase_add_test(tc, exit_after_a_good_barrier);
  tcase_add_test(tc, trap_is_a_launch_error);
  tcase_add_test(tc, barrier_in_barrier_free_kernel);
  tcase_add_test(tc, kc_launch_table_kernel);
  tcase_add_test(tc, kc_launch_fault_reported_by_synchronize);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(cpu_exec_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
