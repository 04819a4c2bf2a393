/*
 * cpu_bench.c — times kcc's CPU back end against plain C (bench/cpu_ref.c, built with
 * gcc -O3 -march=native) on the kernels of bench/cpu_kernels.k: float32 vector add and
 * gaussian pdf over 2^24 elements, a naive 1024x1024 float32 transpose, a 1-D 3-point
 * stencil over 2^24 elements and the 2-D 5-point Laplacian over 4096x4096 (both with
 * guards at both ends: `if i > 0 and i < n - 1`).
 *
 * Each kcc time is the wall time (CLOCK_MONOTONIC) of kc_launch + kc_synchronize with
 * 256-thread blocks (16x16 for the transpose, 64x4 for the Laplacian), on a context
 * with cpu_threads = 1 and one with cpu_threads = 2.
 * The single-thread runs (C and kcc, whose 1-thread pool runs every block on the
 * calling thread) are also timed in CPU time of the calling thread
 * (CLOCK_THREAD_CPUTIME_ID), which other processes on a shared machine do not inflate.
 * One warm-up run, then N repetitions (the four variants interleaved, as the machine
 * may be noisy); the median is reported. Every kcc result is
 * checked against the C reference; a mismatch fails the run (exit 1).
 *
 *   usage: cpu_bench [path/to/cpu_kernels.k] [reps]
 * Prints a Markdown table (used by bench/run.sh for docs/performance.md).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_ref.h"
#include "kc.h"

#define N_ELEM ((int64_t)1 << 24)
#define T_DIM 1024
#define L_DIM 4096 /* the Laplacian's array is L_DIM x L_DIM */
#define L_BX 64    /* its blocks: L_BX x L_BY threads */
#define L_BY 4
#define BLOCK 256
#define MEAN 0.5f
#define SIGMA 1.5f

static int reps = 7;

static double clock_ms(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }
static double cpu_ms(void) { return clock_ms(CLOCK_THREAD_CPUTIME_ID); }

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

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p) {
    fprintf(stderr, "cpu_bench: out of memory (%zu bytes)\n", n);
    exit(1);
  }
  memset(p, 0, n); /* touch every page before timing */
  return p;
}

/* ---- the C reference, timed -------------------------------------------------------- */
enum { K_ADD, K_GAUSS, K_TRANSPOSE, K_STENCIL, K_LAPLACE, K_COUNT };
static const char *kernel_names[K_COUNT] = {"vector_add", "gaussian_pdf", "transpose",
                                            "stencil_1d", "laplace_2d"};

static float *h_a, *h_b, *h_x, *h_t;           /* inputs */
static float *ref_out[K_COUNT];                /* single-thread C results */
static float *scratch;                         /* output of the 2-thread C runs */

static void run_ref(int k, int threads, float *out) {
  switch (k) {
  case K_ADD:
    if (threads == 1) ref_vector_add(h_a, h_b, out, 0, N_ELEM);
    else ref2_vector_add(h_a, h_b, out, N_ELEM);
    break;
  case K_GAUSS:
    if (threads == 1) ref_gaussian_pdf(h_x, MEAN, SIGMA, out, 0, N_ELEM);
    else ref2_gaussian_pdf(h_x, MEAN, SIGMA, out, N_ELEM);
    break;
  case K_TRANSPOSE:
    if (threads == 1) ref_transpose(h_t, out, T_DIM, T_DIM, 0, T_DIM);
    else ref2_transpose(h_t, out, T_DIM, T_DIM);
    break;
  case K_STENCIL:
    if (threads == 1) ref_stencil_1d(h_a, out, N_ELEM, 0, N_ELEM);
    else ref2_stencil_1d(h_a, out, N_ELEM);
    break;
  default:
    if (threads == 1) ref_laplace_2d(h_a, out, L_DIM, L_DIM, 0, L_DIM);
    else ref2_laplace_2d(h_a, out, L_DIM, L_DIM);
    break;
  }
}

/* ---- kcc ------------------------------------------------------------------------------ */
static int64_t n_out(int k) {
  if (k == K_TRANSPOSE) return (int64_t)T_DIM * T_DIM;
  return k == K_LAPLACE ? (int64_t)L_DIM * L_DIM : N_ELEM;
}

/* Compare a kcc result with the C one; exact but for the pdf, 1e-5 relative (exp may
 * round differently; the stencils' weights are powers of two, so even a fused
 * multiply-add in the C loop rounds as kcc's separate operations do). Returns the
 * number of bad elements. */
static int64_t check(int k, const float *got, const float *want, double *max_rel) {
  int64_t bad = 0, n = n_out(k);
  *max_rel = 0;
  for (int64_t i = 0; i < n; i++) {
    if (k != K_GAUSS) {
      if (got[i] != want[i]) bad++;
      continue;
    }
    double d = fabs((double)got[i] - (double)want[i]);
    double rel = d / (fabs((double)want[i]) + 1e-30);
    if (d > 1e-30 && rel > *max_rel) *max_rel = rel;
    if (!(rel <= 1e-5 || d <= 1e-30)) bad++;
  }
  return bad;
}

/* One kcc CPU context with the module and its arrays. */
typedef struct kcc_side {
  int threads;
  kc_context *ctx;
  kc_module *mod;
  kc_array *da, *db, *dx, *dt, *dout, *dtout;
  kc_array *dl, *dsout, *dlout; /* the Laplacian's input (h_a as 2-D), stencil outputs */
  kc_kernel *kern[K_COUNT];
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
  int64_t n = N_ELEM, tshape[2] = {T_DIM, T_DIM}, lshape[2] = {L_DIM, L_DIM};
  if ((s = kc_array_from_host(k->ctx, KC_FLOAT32, 1, &n, h_a, &k->da)) != KC_OK ||
      (s = kc_array_from_host(k->ctx, KC_FLOAT32, 1, &n, h_b, &k->db)) != KC_OK ||
      (s = kc_array_from_host(k->ctx, KC_FLOAT32, 1, &n, h_x, &k->dx)) != KC_OK ||
      (s = kc_array_from_host(k->ctx, KC_FLOAT32, 2, tshape, h_t, &k->dt)) != KC_OK ||
      (s = kc_array_like(k->da, &k->dout)) != KC_OK ||
      (s = kc_array_like(k->dt, &k->dtout)) != KC_OK ||
      (s = kc_array_from_host(k->ctx, KC_FLOAT32, 2, lshape, h_a, &k->dl)) != KC_OK ||
      (s = kc_array_like(k->da, &k->dsout)) != KC_OK ||
      (s = kc_array_like(k->dl, &k->dlout)) != KC_OK ||
      (s = kc_array_zero(k->dout)) != KC_OK || (s = kc_array_zero(k->dtout)) != KC_OK ||
      /* the stencils leave their border alone: zero, as in the C results */
      (s = kc_array_zero(k->dsout)) != KC_OK || (s = kc_array_zero(k->dlout)) != KC_OK)
    die("array", k->ctx, s);
  for (int i = 0; i < K_COUNT; i++)
    if ((s = kc_module_get_kernel(k->mod, kernel_names[i], &k->kern[i])) != KC_OK)
      die("kc_module_get_kernel", k->ctx, s);
}

static void kcc_close(kcc_side *k) {
  kc_array_free(k->dlout), kc_array_free(k->dsout), kc_array_free(k->dl);
  kc_array_free(k->dtout), kc_array_free(k->dout), kc_array_free(k->dt);
  kc_array_free(k->dx), kc_array_free(k->db), kc_array_free(k->da);
  kc_module_free(k->mod);
  kc_context_free(k->ctx);
}

/* One timed launch of kernel i (kc_launch + kc_synchronize): wall ms, and in *cpu the
 * calling thread's CPU ms. */
static double kcc_run(kcc_side *k, int i, double *cpu) {
  kc_arg args[4];
  int nargs;
  kc_dim3 grid, block;
  if (i == K_ADD) {
    args[0] = kc_arg_array(k->da), args[1] = kc_arg_array(k->db);
    args[2] = kc_arg_array(k->dout), args[3] = kc_arg_i64(N_ELEM), nargs = 4;
    grid = kc_dim((unsigned)((N_ELEM + BLOCK - 1) / BLOCK)), block = kc_dim(BLOCK);
  } else if (i == K_GAUSS) {
    args[0] = kc_arg_array(k->dx), args[1] = kc_arg_f32(MEAN), args[2] = kc_arg_f32(SIGMA);
    args[3] = kc_arg_array(k->dout), nargs = 4;
    grid = kc_dim((unsigned)((N_ELEM + BLOCK - 1) / BLOCK)), block = kc_dim(BLOCK);
  } else if (i == K_TRANSPOSE) { /* 16 x 16 = 256-thread blocks */
    args[0] = kc_arg_array(k->dt), args[1] = kc_arg_array(k->dtout), nargs = 2;
    grid = kc_dim2((T_DIM + 15) / 16, (T_DIM + 15) / 16), block = kc_dim2(16, 16);
  } else if (i == K_STENCIL) {
    args[0] = kc_arg_array(k->da), args[1] = kc_arg_array(k->dsout), nargs = 2;
    grid = kc_dim((unsigned)((N_ELEM + BLOCK - 1) / BLOCK)), block = kc_dim(BLOCK);
  } else { /* x along the rows (the contiguous axis), as a GPU kernel coalesces */
    args[0] = kc_arg_array(k->dl), args[1] = kc_arg_array(k->dlout), nargs = 2;
    grid = kc_dim2((L_DIM + L_BX - 1) / L_BX, (L_DIM + L_BY - 1) / L_BY);
    block = kc_dim2(L_BX, L_BY);
  }
  kc_status s;
  double c0 = cpu_ms(), t0 = now_ms();
  if ((s = kc_launch(k->kern[i], grid, block, 0, NULL, args, nargs)) != KC_OK)
    die("kc_launch", k->ctx, s);
  if ((s = kc_synchronize(k->ctx)) != KC_OK) die("kc_synchronize", k->ctx, s);
  double t = now_ms() - t0;
  *cpu = cpu_ms() - c0;
  return t;
}

/* Check kernel i's kcc result against the C one; exits on a mismatch. */
static void kcc_check(kcc_side *k, int i, float *got) {
  kc_array *out = i == K_TRANSPOSE ? k->dtout
                  : i == K_STENCIL ? k->dsout
                  : i == K_LAPLACE ? k->dlout
                                   : k->dout;
  kc_status s = kc_array_to_host(out, got, sizeof(float) * (size_t)n_out(i));
  if (s != KC_OK) die("kc_array_to_host", k->ctx, s);
  double max_rel;
  int64_t bad = check(i, got, ref_out[i], &max_rel);
  if (bad) {
    fprintf(stderr,
            "cpu_bench: FAIL: %s with cpu_threads=%d: %lld of %lld elements differ from "
            "the C reference (max rel err %g)\n",
            kernel_names[i], k->threads, (long long)bad, (long long)n_out(i), max_rel);
    exit(1);
  }
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "bench/cpu_kernels.k";
  if (argc > 2) reps = atoi(argv[2]);
  if (reps < 1) reps = 1;

  size_t bytes = sizeof(float) * (size_t)N_ELEM;
  h_a = xmalloc(bytes), h_b = xmalloc(bytes), h_x = xmalloc(bytes), scratch = xmalloc(bytes);
  h_t = xmalloc(sizeof(float) * T_DIM * T_DIM);
  for (int64_t i = 0; i < N_ELEM; i++) {
    h_a[i] = (float)i * 0.5f;
    h_b[i] = (float)(N_ELEM - i) * 0.25f;
    h_x[i] = -5.0f + 10.0f * (float)i / (float)N_ELEM;
  }
  for (int64_t i = 0; i < (int64_t)T_DIM * T_DIM; i++) h_t[i] = (float)i;

  /* The machine may be shared and noisy: the four variants (C 1T, C 2T, kcc 1T, kcc 2T)
     run interleaved, one repetition of each in turn, so that a slow spell hits them all. */
  kcc_side k1s, k2s;
  kcc_open(&k1s, path, 1);
  kcc_open(&k2s, path, 2);
  float *got = xmalloc(sizeof(float) * (size_t)N_ELEM);
  double c1[K_COUNT], c2[K_COUNT], k1[K_COUNT], k2[K_COUNT], cc1[K_COUNT], ck1[K_COUNT];
  double *tc1 = malloc(sizeof(double) * (size_t)reps), *tc2 = malloc(sizeof(double) * (size_t)reps);
  double *tk1 = malloc(sizeof(double) * (size_t)reps), *tk2 = malloc(sizeof(double) * (size_t)reps);
  double *uc1 = malloc(sizeof(double) * (size_t)reps), *uk1 = malloc(sizeof(double) * (size_t)reps);
  for (int k = 0; k < K_COUNT; k++) {
    ref_out[k] = xmalloc(sizeof(float) * (size_t)n_out(k));
    memset(scratch, 0, bytes); /* the stencils leave their border as it was */
    for (int r = -1; r < reps; r++) { /* r = -1 is the warm-up */
      double u0 = cpu_ms(), t0 = now_ms();
      run_ref(k, 1, ref_out[k]);
      double t1 = now_ms(), u1 = cpu_ms();
      run_ref(k, 2, scratch);
      double t2 = now_ms();
      double ua, ub, a = kcc_run(&k1s, k, &ua), b = kcc_run(&k2s, k, &ub);
      if (r < 0) continue;
      tc1[r] = t1 - t0, tc2[r] = t2 - t1, tk1[r] = a, tk2[r] = b;
      uc1[r] = u1 - u0, uk1[r] = ua;
    }
    c1[k] = median(tc1, reps), c2[k] = median(tc2, reps);
    k1[k] = median(tk1, reps), k2[k] = median(tk2, reps);
    cc1[k] = median(uc1, reps), ck1[k] = median(uk1, reps);
    if (memcmp(scratch, ref_out[k], sizeof(float) * (size_t)n_out(k)) != 0) {
      fprintf(stderr, "cpu_bench: FAIL: 2-thread C %s differs from 1-thread C\n",
              kernel_names[k]);
      return 1;
    }
    kcc_check(&k1s, k, got);
    kcc_check(&k2s, k, got);
  }
  kcc_close(&k2s);
  kcc_close(&k1s);

  printf("| kernel | size | C ms | kcc 1T ms | kcc1/C | C cpu ms | kcc 1T cpu ms | kcc1/C cpu "
         "| kcc 2T ms | 2T vs 1T | C 2T ms | C 2T vs 1T |\n");
  printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int k = 0; k < K_COUNT; k++)
    printf("| %s | %s | %.2f | %.2f | %.2fx | %.2f | %.2f | %.2fx | %.2f | %.2fx | %.2f | "
           "%.2fx |\n",
           kernel_names[k],
           k == K_TRANSPOSE ? "1024x1024" : k == K_LAPLACE ? "4096x4096" : "2^24", c1[k],
           k1[k], k1[k] / c1[k], cc1[k], ck1[k], ck1[k] / cc1[k], k2[k], k1[k] / k2[k],
           c2[k], c1[k] / c2[k]);
  printf("\nmedian of %d runs after one warm-up; all kcc results match the C reference.\n",
         reps);
  return 0;
}
