/*
 * cpu_bench.c — times kcc's CPU back end against plain C (bench/cpu_ref.c, built with
 * gcc -O3 -march=native) on the kernels of bench/cpu_kernels.k: element-wise float32
 * kernels over 2^24 elements (one element per thread, grid-stride loops on two launch
 * shapes, kc_vectorize of @vectorize functions), a kc_reduce sum, transposes (naive;
 * 32x33 shared tile with syncthreads), a tiled matmul, two stencils (the 2-D one on
 * three block shapes, x -> column and x -> row) and mandelbrot.
 *
 * Each kcc time is the wall time (CLOCK_MONOTONIC) of the launch (kc_launch,
 * kc_vectorize or kc_reduce) + kc_synchronize, on a context with cpu_threads = 1 and
 * one with cpu_threads = 2. The single-thread runs (C and kcc, whose 1-thread pool runs
 * every block on the calling thread) are also timed in CPU time of the calling thread
 * (CLOCK_THREAD_CPUTIME_ID), which other processes on a shared machine do not inflate.
 * One warm-up run, then N repetitions (the four variants interleaved, as the machine
 * may be noisy, each after 512 MiB read to empty the caches); the median is reported. Every kcc result is checked against the C
 * result; a mismatch fails the run (exit 1).
 *
 *   usage: cpu_bench [path/to/cpu_kernels.k] [reps] [--dump DIR] [--only ID,ID...]
 * --only runs the named cases alone (their IDs are the row lines' second field).
 *
 * Prints tab-separated lines that bench/bench_table.awk turns into the table of
 * docs/performance.md (with bench/numba_bench.py's lines):
 *   row  ID  LABEL  SIZE          one per kernel, in table order
 *   val  ID  COLUMN  MS           COLUMN: c1 c1cpu c2 k1 k1cpu k2 (C / kcc, 1 or 2
 *                                 threads; cpu = thread CPU time); runs: how many
 * With --dump DIR, the inputs and the C results go to DIR (raw little-endian arrays,
 * described by DIR/manifest.tsv) for bench/numba_bench.py to run and check against.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_ref.h"
#include "kc.h"
#include "rt.h" /* rt_grid_stride_shape: the shape kc_vectorize picks */

#define N_ELEM ((int64_t)1 << 24)
#define T1_DIM 1024 /* the naive transpose's matrix */
#define T2_DIM 2048 /* the tiled transpose's */
#define M_DIM 512   /* matmul: M_DIM x M_DIM matrices */
#define L_DIM 4096  /* the Laplacian's array is L_DIM x L_DIM (h_a as 2-D) */
#define L_BX 64     /* its blocks: L_BX x L_BY threads */
#define L_BY 4
#define P_DIM 1024  /* mandelbrot's image */
#define P_ITER 100
#define BLOCK 256
#define MEAN 0.5f
#define SIGMA 1.5f

#define CASE_BUDGET_MS 20000.0 /* a case stops after 3 runs once it has taken this long */

static const double P_WIN[4] = {-2.0, 1.0, -1.5, 1.5};
static int reps = 7;

/* ---- clocks, medians, memory ------------------------------------------------------- */
static double clock_ms(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }
static double cpu_ms(void) { return clock_ms(CLOCK_THREAD_CPUTIME_ID); }

/* Caches emptied of every variant's arrays before each timed run, so that C and kcc
 * start alike: without it a variant found its input in the (large, shared) L3 or not
 * depending on what ran between its runs (C 1T and C 2T read one input back to back,
 * each kcc context its own), which made a streaming kernel such as the kc_reduce sum
 * look 1.3-1.4x slower in kcc than the same loop read cold (1.1-1.2x). */
#define EVICT_BYTES ((size_t)512 << 20)
static volatile unsigned char evict_sink;

static void evict_caches(void) {
  static unsigned char *buf;
  if (!buf) {
    buf = malloc(EVICT_BYTES);
    if (!buf) return;
    memset(buf, 1, EVICT_BYTES);
  }
  unsigned char x = 0;
  for (size_t i = 0; i < EVICT_BYTES; i += 64) x ^= buf[i]++;
  evict_sink = x;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void die(const char *what, kc_context *ctx, kc_status s) {
  fprintf(stderr, "cpu_bench: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  exit(1);
}

/* Memory as kcc's CPU arrays get it (rt_alloc_aligned: 256-byte aligned, and from 4
 * MiB on 2 MiB-aligned with transparent huge pages advised, as NumPy's arrays are), so
 * that both sides of a comparison read the same kind of pages. On malloc's 4 KiB pages,
 * 16 bytes into a page, the C sum took 5.9 ms against 4.1 and the C add 14.2 against
 * 13.3 (2026-11-29, this 2-core Xeon). */
static void *xmalloc(size_t n) {
  void *p = rt_alloc_aligned(n);
  if (!p) {
    fprintf(stderr, "cpu_bench: out of memory (%zu bytes)\n", n);
    exit(1);
  }
  memset(p, 0, n); /* touch every page before timing */
  return p;
}

/* ---- host buffers: the inputs, named as in DIR/manifest.tsv ------------------------- */
enum { B_A, B_B, B_X, B_MEAN, B_SIGMA, B_R, B_T1, B_T2, B_MA, B_MB, B_COUNT };
typedef struct hbuf {
  const char *name;
  int ndim;
  int64_t shape[2];
  float *data;
} hbuf;
static hbuf bufs[B_COUNT] = {
    {"a", 1, {N_ELEM, 0}, NULL},         {"b", 1, {N_ELEM, 0}, NULL},
    {"x", 1, {N_ELEM, 0}, NULL},         {"mean", 1, {N_ELEM, 0}, NULL},
    {"sigma", 1, {N_ELEM, 0}, NULL},     {"r", 1, {N_ELEM, 0}, NULL},
    {"t1", 2, {T1_DIM, T1_DIM}, NULL},   {"t2", 2, {T2_DIM, T2_DIM}, NULL},
    {"ma", 2, {M_DIM, M_DIM}, NULL},     {"mb", 2, {M_DIM, M_DIM}, NULL},
};

static int64_t buf_len(const hbuf *b) { return b->shape[0] * (b->ndim > 1 ? b->shape[1] : 1); }

static void make_inputs(void) {
  for (int i = 0; i < B_COUNT; i++) bufs[i].data = xmalloc(sizeof(float) * (size_t)buf_len(&bufs[i]));
  for (int64_t i = 0; i < N_ELEM; i++) {
    bufs[B_A].data[i] = (float)i * 0.5f;
    bufs[B_B].data[i] = (float)(N_ELEM - i) * 0.25f;
    bufs[B_X].data[i] = -5.0f + 10.0f * (float)i / (float)N_ELEM;
    bufs[B_MEAN].data[i] = MEAN, bufs[B_SIGMA].data[i] = SIGMA;
    /* small integers: every partial sum is exact in float32, whatever the order */
    bufs[B_R].data[i] = (float)(i % 3);
  }
  for (int64_t i = 0; i < buf_len(&bufs[B_T1]); i++) bufs[B_T1].data[i] = (float)i;
  for (int64_t i = 0; i < buf_len(&bufs[B_T2]); i++) bufs[B_T2].data[i] = (float)i;
  /* small integers again: every product and sum of the matmul is exact */
  for (int64_t i = 0; i < buf_len(&bufs[B_MA]); i++) {
    bufs[B_MA].data[i] = (float)(i % 7) - 3;
    bufs[B_MB].data[i] = (float)(i % 5) - 2;
  }
}

/* ---- the benchmark cases, in table order ------------------------------------------- */
/* L_VECTORIZE_ARGS: kc_vectorize_args with the first input an array and the C loop's
 * scalars as numbers, as a ufunc called f(x, 0.5, 1.5) gets them: MEAN for the add,
 * MEAN and SIGMA for the pdf */
typedef enum launch_kind {
  L_GRID, L_STRIDE_SHAPE, L_SUGGEST, L_VECTORIZE, L_VECTORIZE_ARGS, L_REDUCE
} launch_kind;
typedef enum check_kind { CHK_EXACT, CHK_REL, CHK_INT } check_kind;

typedef struct bench_case {
  const char *id, *label, *size, *kernel;
  const char *ref_name;   /* the C result's file in DIR (shared by cases of one loop) */
  ref_kind ref;           /* the C loop ... */
  int64_t ref_n, align;   /* ... over [0, ref_n) elements or rows */
  int in[3], nin;         /* input buffers, in the kernel's order */
  int out_ndim;           /* the output: float32 (int32 for mandelbrot) */
  int64_t out_shape[2];
  launch_kind launch;
  kc_dim3 grid, block;    /* L_GRID */
  check_kind check;
} bench_case;

#define G1(n) {(unsigned)(((n) + BLOCK - 1) / BLOCK), 1, 1}
#define B1 {BLOCK, 1, 1}
static const bench_case cases[] = {
    {"add", "add, one element per thread", "2^24", "vector_add", "add", REF_ADD, N_ELEM, 1,
     {B_A, B_B}, 2, 1, {N_ELEM}, L_GRID, G1(N_ELEM), B1, CHK_EXACT},
    {"gs_2x256", "grid-stride add, 2 blocks x 256", "2^24", "grid_stride_add", "add", REF_ADD,
     N_ELEM, 1, {B_A, B_B}, 2, 1, {N_ELEM}, L_GRID, {2, 1, 1}, B1, CHK_EXACT},
    {"gs_1024x256", "grid-stride add, 1024 blocks x 256 (the usual CUDA launch)", "2^24",
     "grid_stride_add", "add", REF_ADD, N_ELEM, 1, {B_A, B_B}, 2, 1, {N_ELEM}, L_GRID,
     {1024, 1, 1}, B1, CHK_EXACT},
    {"gs_while", "grid-stride add as a while loop, 1024 blocks x 256", "2^24",
     "grid_stride_add_while", "add", REF_ADD, N_ELEM, 1, {B_A, B_B}, 2, 1, {N_ELEM}, L_GRID,
     {1024, 1, 1}, B1, CHK_EXACT},
    {"gs_sug", "grid-stride add, kc_kernel_suggest_block's shape", "2^24", "grid_stride_add",
     "add", REF_ADD, N_ELEM, 1, {B_A, B_B}, 2, 1, {N_ELEM}, L_SUGGEST, {0}, {0}, CHK_EXACT},
    {"gs_vec", "grid-stride add, kc_vectorize's shape", "2^24", "grid_stride_add", "add",
     REF_ADD, N_ELEM, 1, {B_A, B_B}, 2, 1, {N_ELEM}, L_STRIDE_SHAPE, {0}, {0}, CHK_EXACT},
    {"vadd", "kc_vectorize add", "2^24", "vadd", "add", REF_ADD, N_ELEM, 1, {B_A, B_B}, 2, 1,
     {N_ELEM}, L_VECTORIZE, {0}, {0}, CHK_EXACT},
    {"vadd_s", "kc_vectorize_args add, the second operand a scalar", "2^24", "vadd", "add_s",
     REF_ADD_SCALAR, N_ELEM, 1, {B_A}, 1, 1, {N_ELEM}, L_VECTORIZE_ARGS, {0}, {0}, CHK_EXACT},
    {"gauss", "gaussian pdf, one element per thread", "2^24", "gaussian_pdf", "gauss",
     REF_GAUSS, N_ELEM, 1, {B_X}, 1, 1, {N_ELEM}, L_GRID, G1(N_ELEM), B1, CHK_REL},
    {"vgauss", "kc_vectorize gaussian pdf", "2^24", "vgauss", "gauss", REF_GAUSS, N_ELEM, 1,
     {B_X, B_MEAN, B_SIGMA}, 3, 1, {N_ELEM}, L_VECTORIZE, {0}, {0}, CHK_REL},
    {"vgauss_s", "kc_vectorize_args gaussian pdf, mean and sigma as scalars", "2^24",
     "vgauss", "gauss", REF_GAUSS, N_ELEM, 1, {B_X}, 1, 1, {N_ELEM}, L_VECTORIZE_ARGS, {0},
     {0}, CHK_REL},
    {"sum", "kc_reduce sum", "2^24", "rsum", "sum", REF_SUM, N_ELEM, 1, {B_R}, 1, 1, {1},
     L_REDUCE, {0}, {0}, CHK_EXACT},
    {"tree_sum", "shared-memory tree sum, a partial per 256-thread block", "2^24", "tree_sum",
     "block_sum", REF_BLOCK_SUM, N_ELEM / BLOCK, 1, {B_R}, 1, 1, {N_ELEM / BLOCK}, L_GRID,
     G1(N_ELEM), B1, CHK_EXACT},
    {"transpose", "transpose, naive", "1024^2", "transpose", "transpose", REF_TRANSPOSE,
     T1_DIM, 1, {B_T1}, 1, 2, {T1_DIM, T1_DIM}, L_GRID, {T1_DIM / 16, T1_DIM / 16, 1},
     {16, 16, 1}, CHK_EXACT},
    {"transpose_tiled", "transpose, 32x33 shared tile + syncthreads", "2048^2",
     "transpose_tiled", "transpose_tiled", REF_TRANSPOSE_BLOCKED, T2_DIM, 32, {B_T2}, 1, 2,
     {T2_DIM, T2_DIM}, L_GRID, {T2_DIM / 32, T2_DIM / 32, 1}, {32, 32, 1}, CHK_EXACT},
    {"matmul", "matmul, 16x16 shared tiles", "512^2", "matmul_tiled", "matmul", REF_MATMUL,
     M_DIM, 1, {B_MA, B_MB}, 2, 2, {M_DIM, M_DIM}, L_GRID, {M_DIM / 16, M_DIM / 16, 1},
     {16, 16, 1}, CHK_EXACT},
    {"matmul_naive", "matmul, Numba's example (a thread per element, no shared memory)",
     "512^2", "matmul_naive", "matmul", REF_MATMUL, M_DIM, 1, {B_MA, B_MB}, 2, 2,
     {M_DIM, M_DIM}, L_GRID, {M_DIM / 16, M_DIM / 16, 1}, {16, 16, 1}, CHK_EXACT},
    {"stencil_1d", "1-D 3-point stencil", "2^24", "stencil_1d", "stencil_1d", REF_STENCIL,
     N_ELEM, 1, {B_A}, 1, 1, {N_ELEM}, L_GRID, G1(N_ELEM), B1, CHK_EXACT},
    {"laplace_2d", "2-D Laplacian (64x4 blocks)", "4096^2", "laplace_2d", "laplace_2d",
     REF_LAPLACE, L_DIM, 1, {B_A}, 1, 2, {L_DIM, L_DIM}, L_GRID,
     {L_DIM / L_BX, L_DIM / L_BY, 1}, {L_BX, L_BY, 1}, CHK_EXACT},
    /* the stencil with the usual 16x16 blocks, x -> column and x -> row */
    {"laplace_16", "2-D Laplacian, 16x16 blocks, x -> column (j, i = cuda.grid(2))",
     "4096^2", "laplace_2d", "laplace_2d", REF_LAPLACE, L_DIM, 1, {B_A}, 1, 2, {L_DIM, L_DIM},
     L_GRID, {L_DIM / 16, L_DIM / 16, 1}, {16, 16, 1}, CHK_EXACT},
    {"laplace_xrow", "2-D Laplacian, 16x16 blocks, x -> row (i, j = cuda.grid(2); a[i, j])",
     "4096^2", "laplace_2d_xrow", "laplace_2d", REF_LAPLACE, L_DIM, 1, {B_A}, 1, 2,
     {L_DIM, L_DIM}, L_GRID, {L_DIM / 16, L_DIM / 16, 1}, {16, 16, 1}, CHK_EXACT},
    {"mandelbrot", "mandelbrot (100 iterations, 32x8 blocks)", "1024^2", "mandelbrot",
     "mandelbrot", REF_MANDELBROT, P_DIM, 1, {0}, 0, 2, {P_DIM, P_DIM}, L_GRID,
     {P_DIM / 32, P_DIM / 8, 1}, {32, 8, 1}, CHK_INT},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

static int64_t out_len(const bench_case *c) {
  return c->out_shape[0] * (c->out_ndim > 1 ? c->out_shape[1] : 1);
}

/* ---- the C side ------------------------------------------------------------------------ */
/* Run case c's C loop on 1 or 2 threads into out (an int32 image for mandelbrot). */
static void run_ref(const bench_case *c, int threads, void *out) {
  ref_job j;
  memset(&j, 0, sizeof j);
  j.kind = c->ref;
  j.a = c->nin > 0 ? bufs[c->in[0]].data : NULL;
  j.b = c->nin > 1 ? bufs[c->in[1]].data : NULL;
  j.out = out, j.iout = out;
  j.mean = MEAN, j.sigma = SIGMA;
  j.win = P_WIN, j.max_iter = P_ITER;
  if (c->ref == REF_STENCIL) j.nx = N_ELEM;
  else if (c->ref == REF_MATMUL) j.nx = M_DIM, j.ny = M_DIM;
  else if (c->ref == REF_MANDELBROT) j.nx = P_DIM, j.ny = P_DIM;
  else if (c->out_ndim == 2) j.nx = c->out_shape[0], j.ny = c->out_shape[1];
  ref_run(&j, c->ref_n, threads, c->align);
  if (c->ref == REF_SUM) *(float *)out = j.sum;
}

/* ---- the kcc side ---------------------------------------------------------------------- */
typedef struct kcc_side {
  int threads;
  kc_context *ctx;
  kc_module *mod;
  kc_kernel *kern;
  kc_array *in[3], *out;
} kcc_side;

static void kcc_open(kcc_side *k, const char *path, int threads) {
  memset(k, 0, sizeof *k);
  k->threads = threads;
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = threads;
  kc_status s = kc_context_new(&cfg, &k->ctx);
  if (s != KC_OK) die("kc_context_new", k->ctx, s);
  if (kc_context_device(k->ctx) != KC_DEVICE_CPU) die("kc_context_new (not the CPU)", k->ctx, s);
  if ((s = kc_compile_file(k->ctx, path, NULL, &k->mod)) != KC_OK)
    die("kc_compile_file", k->ctx, s);
}

/* Case c's kernel and arrays on k's context (the output zeroed: the stencils leave
 * their border alone, as the C loops do). */
static void kcc_setup(kcc_side *k, const bench_case *c) {
  kc_status s = kc_module_get_kernel(k->mod, c->kernel, &k->kern);
  if (s != KC_OK) die("kc_module_get_kernel", k->ctx, s);
  for (int i = 0; i < c->nin; i++) {
    const hbuf *b = &bufs[c->in[i]];
    /* the Laplacian reads a (2^24 elements) as 4096 x 4096 */
    int ndim = c->ref == REF_LAPLACE ? 2 : b->ndim;
    const int64_t *shape = c->ref == REF_LAPLACE ? c->out_shape : b->shape;
    if ((s = kc_array_from_host(k->ctx, KC_FLOAT32, ndim, shape, b->data,
                                  (size_t)(shape[0] * (ndim == 2 ? shape[1] : 1)) * sizeof *b->data,
                                  &k->in[i])) != KC_OK)
      die("kc_array_from_host", k->ctx, s);
  }
  kc_dtype t = c->check == CHK_INT ? KC_INT32 : KC_FLOAT32;
  if (c->launch != L_REDUCE &&
      ((s = kc_array_new(k->ctx, t, c->out_ndim, c->out_shape, &k->out)) != KC_OK ||
       (s = kc_array_zero(k->out)) != KC_OK))
    die("kc_array_new", k->ctx, s);
}

static void kcc_teardown(kcc_side *k) {
  for (int i = 0; i < 3; i++) kc_array_free(k->in[i]), k->in[i] = NULL;
  kc_array_free(k->out), k->out = NULL;
}

static void kcc_close(kcc_side *k) {
  kc_module_free(k->mod);
  kc_context_free(k->ctx);
}

/* The arguments of an L_GRID, L_STRIDE_SHAPE or L_SUGGEST launch of case c. */
static int kcc_args(kcc_side *k, const bench_case *c, kc_arg *args) {
  int n = 0;
  if (c->ref == REF_MANDELBROT) {
    args[n++] = kc_arg_array(k->out);
    for (int i = 0; i < 4; i++) args[n++] = kc_arg_f64(P_WIN[i]);
    args[n++] = kc_arg_i32(P_ITER);
    return n;
  }
  args[n++] = kc_arg_array(k->in[0]);
  if (c->ref == REF_GAUSS) args[n++] = kc_arg_f32(MEAN), args[n++] = kc_arg_f32(SIGMA);
  for (int i = 1; i < c->nin; i++) args[n++] = kc_arg_array(k->in[i]);
  args[n++] = kc_arg_array(k->out);
  if (strcmp(c->kernel, "vector_add") == 0) args[n++] = kc_arg_i64(N_ELEM);
  return n;
}

/* One timed run of case c: wall ms, and in *cpu the calling thread's CPU ms; the sum's
 * result in *sum. */
static double kcc_run(kcc_side *k, const bench_case *c, double *cpu, float *sum) {
  kc_arg args[8];
  int nargs = 0;
  kc_dim3 grid = c->grid, block = c->block;
  kc_status s = KC_OK;
  if (c->launch == L_GRID || c->launch == L_STRIDE_SHAPE || c->launch == L_SUGGEST)
    nargs = kcc_args(k, c, args);
  if (c->launch == L_SUGGEST) {   /* the block it suggests, on the grid that fills the device */
    int b = 0, g = 0;
    if ((s = kc_kernel_suggest_block(k->kern, 0, &b, &g)) != KC_OK)
      die("kc_kernel_suggest_block", k->ctx, s);
    grid = kc_dim((unsigned)g), block = kc_dim((unsigned)b);
  }
  if (c->launch == L_STRIDE_SHAPE) {
    if ((s = rt_grid_stride_shape(k->kern, N_ELEM, &grid.x, &block.x)) != KC_OK)
      die("rt_grid_stride_shape", k->ctx, s);
    grid.y = grid.z = block.y = block.z = 1;
  }
  double c0 = cpu_ms(), t0 = now_ms();
  if (c->launch == L_VECTORIZE_ARGS) {
    args[0] = kc_arg_array(k->in[0]), args[1] = kc_arg_f32(MEAN), args[2] = kc_arg_f32(SIGMA);
    nargs = c->ref == REF_ADD_SCALAR ? 2 : 3;
  }
  if (c->launch == L_VECTORIZE) s = kc_vectorize(k->kern, k->in, c->nin, &k->out);
  else if (c->launch == L_VECTORIZE_ARGS) s = kc_vectorize_args(k->kern, args, nargs, &k->out, NULL);
  else if (c->launch == L_REDUCE) s = kc_reduce(k->kern, k->in[0], NULL, sum);
  else s = kc_launch(k->kern, grid, block, 0, NULL, args, nargs);
  if (s != KC_OK) die("launch", k->ctx, s);
  if ((s = kc_synchronize(k->ctx)) != KC_OK) die("kc_synchronize", k->ctx, s);
  double t = now_ms() - t0;
  *cpu = cpu_ms() - c0;
  return t;
}

/* ---- checks ------------------------------------------------------------------------------ */
/* Elements of got that differ from want: exact, or 1e-5 relative for the pdf (exp may
 * round differently; the stencils' weights are powers of two, and the matmul's and
 * the sum's operands small integers, so every result there is exact). */
static int64_t count_bad(check_kind chk, const void *got, const void *want, int64_t n,
                         double *max_rel) {
  int64_t bad = 0;
  *max_rel = 0;
  if (chk == CHK_INT) {
    for (int64_t i = 0; i < n; i++) bad += ((const int32_t *)got)[i] != ((const int32_t *)want)[i];
    return bad;
  }
  const float *g = got, *w = want;
  for (int64_t i = 0; i < n; i++) {
    if (chk == CHK_EXACT) {
      bad += g[i] != w[i];
      continue;
    }
    double d = fabs((double)g[i] - (double)w[i]);
    double rel = d / (fabs((double)w[i]) + 1e-30);
    if (d > 1e-30 && rel > *max_rel) *max_rel = rel;
    if (!(rel <= 1e-5 || d <= 1e-30)) bad++;
  }
  return bad;
}

static void kcc_check(kcc_side *k, const bench_case *c, const void *want, float sum,
                      void *got) {
  int64_t n = out_len(c);
  if (c->launch == L_REDUCE) {
    *(float *)got = sum;
  } else {
    kc_status s = kc_array_to_host(k->out, got, sizeof(float) * (size_t)n);
    if (s != KC_OK) die("kc_array_to_host", k->ctx, s);
  }
  double max_rel;
  int64_t bad = count_bad(c->check, got, want, n, &max_rel);
  if (bad) {
    fprintf(stderr,
            "cpu_bench: FAIL: %s with cpu_threads=%d: %lld of %lld elements differ from "
            "the C reference (max rel err %g)\n",
            c->id, k->threads, (long long)bad, (long long)n, max_rel);
    exit(1);
  }
}

/* ---- --dump: inputs and C results for bench/numba_bench.py ---------------------------- */
static void dump_array(const char *dir, const char *name, const char *dtype, int ndim,
                       const int64_t *shape, const void *data, FILE *manifest) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.bin", dir, name);
  FILE *f = fopen(path, "wb");
  int64_t n = shape[0] * (ndim > 1 ? shape[1] : 1);
  if (!f || fwrite(data, 4, (size_t)n, f) != (size_t)n || fclose(f) != 0) {
    fprintf(stderr, "cpu_bench: cannot write %s\n", path);
    exit(1);
  }
  fprintf(manifest, "array\t%s\t%s\t%lld", name, dtype, (long long)shape[0]);
  if (ndim > 1) fprintf(manifest, "\t%lld", (long long)shape[1]);
  fprintf(manifest, "\n");
}

static FILE *dump_open(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/manifest.tsv", dir);
  FILE *m = fopen(path, "w");
  if (!m) {
    fprintf(stderr, "cpu_bench: cannot write %s\n", path);
    exit(1);
  }
  for (int i = 0; i < B_COUNT; i++)
    dump_array(dir, bufs[i].name, "float32", bufs[i].ndim, bufs[i].shape, bufs[i].data, m);
  fprintf(m, "param\tmean\t%.9g\nparam\tsigma\t%.9g\nparam\tmax_iter\t%d\n", MEAN, SIGMA,
          P_ITER);
  fprintf(m, "param\twin\t%.17g,%.17g,%.17g,%.17g\n", P_WIN[0], P_WIN[1], P_WIN[2], P_WIN[3]);
  return m;
}

/* The C result of case i, unless an earlier case of the same loop wrote it. */
static void dump_ref(const char *dir, FILE *m, int i, const void *data) {
  for (int j = 0; j < i; j++)
    if (strcmp(cases[j].ref_name, cases[i].ref_name) == 0) return;
  char name[256];
  snprintf(name, sizeof name, "ref_%s", cases[i].ref_name);
  const bench_case *c = &cases[i];
  dump_array(dir, name, c->check == CHK_INT ? "int32" : "float32", c->out_ndim, c->out_shape,
             data, m);
}

/* ---- main ------------------------------------------------------------------------------- */
/* Time case c: REPS interleaved runs of C 1T, C 2T, kcc 1T, kcc 2T (at least 3 when
 * they take over CASE_BUDGET_MS, so that a slow kernel cannot stretch `make bench`);
 * print its lines. */
static void bench_one(const bench_case *c, kcc_side *k1s, kcc_side *k2s, void *ref, void *got,
                      double *tv[6]) {
  int64_t bytes = 4 * out_len(c);
  memset(ref, 0, (size_t)bytes);
  memset(got, 0, (size_t)bytes); /* the stencils leave their border as it was */
  kcc_setup(k1s, c), kcc_setup(k2s, c);
  float s1 = 0, s2 = 0;
  double start = now_ms();
  int runs = 0;
  for (int r = -1; r < reps && (r < 3 || now_ms() - start < CASE_BUDGET_MS); r++) {
    /* r = -1 is the warm-up */
    evict_caches();
    double u0 = cpu_ms(), t0 = now_ms();
    run_ref(c, 1, ref);
    double t1 = now_ms(), u1 = cpu_ms();
    evict_caches();
    double t1b = now_ms();
    run_ref(c, 2, got);
    double t2 = now_ms() - t1b;
    evict_caches();
    double ua, ub, a = kcc_run(k1s, c, &ua, &s1);
    evict_caches();
    double b = kcc_run(k2s, c, &ub, &s2);
    if (r < 0) continue;
    tv[0][r] = t1 - t0, tv[1][r] = u1 - u0, tv[2][r] = t2;
    tv[3][r] = a, tv[4][r] = ua, tv[5][r] = b;
    runs = r + 1;
  }
  if (memcmp(got, ref, (size_t)bytes) != 0) {
    fprintf(stderr, "cpu_bench: FAIL: 2-thread C %s differs from 1-thread C\n", c->id);
    exit(1);
  }
  kcc_check(k1s, c, ref, s1, got);
  kcc_check(k2s, c, ref, s2, got);
  kcc_teardown(k1s), kcc_teardown(k2s);
  static const char *cols[6] = {"c1", "c1cpu", "c2", "k1", "k1cpu", "k2"};
  printf("row\t%s\t%s\t%s\n", c->id, c->label, c->size);
  for (int i = 0; i < 6; i++) printf("val\t%s\t%s\t%.4f\n", c->id, cols[i], median(tv[i], runs));
  printf("val\t%s\truns\t%d\n", c->id, runs);
  fflush(stdout);
}

/* Is id one of the comma-separated names in list? */
static int listed(const char *list, const char *id) {
  size_t n = strlen(id);
  for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
    if (strncmp(p, id, n) == 0 && (p[n] == ',' || p[n] == '\0')) return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *path = "bench/cpu_kernels.k", *dump = NULL, *only = NULL;
  int pos = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) dump = argv[++i];
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else if (pos++ == 0) path = argv[i];
    else reps = atoi(argv[i]);
  }
  if (reps < 1) reps = 1;
  make_inputs();
  FILE *manifest = dump ? dump_open(dump) : NULL;

  kcc_side k1s, k2s;
  kcc_open(&k1s, path, 1);
  kcc_open(&k2s, path, 2);
  void *ref = xmalloc(sizeof(float) * (size_t)N_ELEM), *got = xmalloc(sizeof(float) * (size_t)N_ELEM);
  double *tv[6];
  for (int i = 0; i < 6; i++) tv[i] = xmalloc(sizeof(double) * (size_t)reps);
  for (int i = 0; i < N_CASES; i++) {
    if (only && !listed(only, cases[i].id)) continue;
    bench_one(&cases[i], &k1s, &k2s, ref, got, tv);
    if (manifest) dump_ref(dump, manifest, i, ref);
  }
  if (manifest && fclose(manifest) != 0) {
    fprintf(stderr, "cpu_bench: cannot write %s/manifest.tsv\n", dump);
    return 1;
  }
  kcc_close(&k2s);
  kcc_close(&k1s);
  printf("note\tC and kcc: median of %d runs after one warm-up (fewer where the kernel "
         "column says so); all kcc results match the C reference\n", reps);
  return 0;
}
