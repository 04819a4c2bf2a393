/*
 * gpu_bench.c — GPU benchmarks of kcc's runtime and code, printed as Markdown tables:
 *
 *   launch     host time per launch of kc_launch against a bare cuLaunchKernel of the
 *              same CUfunction with the same kernelParams, for kernels of 1, 4 and 16
 *              array arguments (bench/gpu/launch.k); batches of 256 launches timed on
 *              the host clock (the synchronisation after each batch is not counted),
 *              median over batches
 *   bandwidth  vector_add (bench/kernels/vector_add.k) on 2^27 floats: bytes moved
 *              (two reads, one write) per second, as a fraction of a device-to-device
 *              cuMemcpy's (bytes read plus written), both timed with CUDA events
 *   kernels    the seven bench/kernels/NAME.k compiled by kcc against the CUDA C peers
 *              bench/cuda/NAME.cu built by nvcc -O3 -arch=sm_90 -cubin (into CUBIN_DIR),
 *              launched with the same arguments; outputs compared, then kernel time
 *              by CUDA events, median of REPS
 *
 *   usage: gpu_bench ROOT [CUBIN_DIR] [REPS] [SECTION]   (ROOT: the source tree;
 *          SECTION: launch, bandwidth or kernels, else all three; scripts/gpu.sh runs
 *          them as separate steps, so a run cut short keeps the sections it finished)
 *
 * Prints "not run: no GPU (...)" and exits 0 without a driver or a device. The driver
 * is reached through kc's own dlopen'd table for kc calls and through dlsym here for
 * the bare calls, so the program builds without libcuda.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h>

#include "rt.h"

static int reps = 21;

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*sync_fn)(void);
static launch_fn bare_launch;
static sync_fn bare_sync;

#define TRY(ctx, call)                                                               \
  do {                                                                               \
    kc_status s_ = (call);                                                           \
    if (s_ != KC_OK) {                                                               \
      fprintf(stderr, "gpu_bench: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
              kc_last_error(ctx));                                                   \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static char *read_text(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  *len = fread(b, 1, (size_t)n, f);
  b[*len] = '\0';
  fclose(f);
  return b;
}

/* ---- (a) launch overhead ------------------------------------------------------------- */
enum { BATCH = 256, BATCHES = 41 };

static void launch_overhead(kc_context *ctx, const char *root) {
  char path[1024];
  snprintf(path, sizeof path, "%s/bench/gpu/launch.k", root);
  kc_module *m;
  TRY(ctx, kc_compile_file(ctx, path, NULL, &m));
  int64_t n = 256;
  kc_array *arr[16];
  for (int i = 0; i < 16; i++) {
    TRY(ctx, kc_array_new(ctx, KC_FLOAT32, 1, &n, &arr[i]));
    TRY(ctx, kc_array_zero(arr[i]));
  }
  printf("### Launch overhead (host time per launch, median of %d batches of %d)\n\n",
         BATCHES, BATCH);
  printf("| kernel | kc_launch (µs) | cuLaunchKernel (µs) | difference (µs) |\n");
  printf("|---|---:|---:|---:|\n");
  const int counts[3] = {1, 4, 16};
  for (int c = 0; c < 3; c++) {
    int na = counts[c];
    char name[16];
    snprintf(name, sizeof name, "args%d", na);
    kc_kernel *k;
    TRY(ctx, kc_module_get_kernel(m, name, &k));
    kc_arg args[16];
    void *params[32];
    for (int i = 0; i < na; i++) {
      args[i] = kc_arg_array(arr[i]);
      params[2 * i] = &arr[i]->data.dev;   /* kcc's ABI: pointer, then the extent */
      params[2 * i + 1] = &arr[i]->shape[0];
    }
    double t_kc[BATCHES], t_bare[BATCHES];
    for (int rep = -3; rep < BATCHES; rep++) {   /* three warm-up batches */
      double t0 = now_us();
      for (int i = 0; i < BATCH; i++)
        TRY(ctx, kc_launch(k, kc_dim(1), kc_dim(256), 0, NULL, args, na));
      double t1 = now_us();
      TRY(ctx, kc_synchronize(ctx));
      double t2 = now_us();
      for (int i = 0; i < BATCH; i++)
        if (bare_launch((CUfunction)k->cu_function, 1, 1, 1, 256, 1, 1, 0, NULL, params,
                        NULL) != CUDA_SUCCESS) {
          fprintf(stderr, "gpu_bench: cuLaunchKernel failed\n");
          exit(1);
        }
      double t3 = now_us();
      bare_sync();
      if (rep >= 0) {
        t_kc[rep] = (t1 - t0) / BATCH;
        t_bare[rep] = (t3 - t2) / BATCH;
      }
    }
    double a = median(t_kc, BATCHES), b = median(t_bare, BATCHES);
    printf("| %d array argument%s | %.2f | %.2f | %+.2f |\n", na, na > 1 ? "s" : "", a, b,
           a - b);
  }
  printf("\n");
  for (int i = 0; i < 16; i++) kc_array_free(arr[i]);
  kc_module_free(m);
}

/* ---- (c) bandwidth ---------------------------------------------------------------------- */
static float event_ms(kc_context *ctx, kc_event *e0, kc_event *e1) {
  float ms = 0;
  TRY(ctx, kc_event_synchronize(e1));
  TRY(ctx, kc_event_elapsed_ms(e0, e1, &ms));
  return ms;
}

static void bandwidth(kc_context *ctx, const char *root) {
  char path[1024];
  snprintf(path, sizeof path, "%s/bench/kernels/vector_add.k", root);
  kc_module *m;
  kc_kernel *k;
  TRY(ctx, kc_compile_file(ctx, path, NULL, &m));
  TRY(ctx, kc_module_get_kernel(m, "vector_add", &k));
  int64_t n = (int64_t)1 << 27;
  float *h = malloc((size_t)n * sizeof *h);
  for (int64_t i = 0; i < n; i++) h[i] = (float)(i % 1000) * 0.5f;
  kc_array *a, *b, *out, *copy;
  TRY(ctx, kc_array_from_host(ctx, KC_FLOAT32, 1, &n, h, (size_t)n * sizeof *h, &a));
  TRY(ctx, kc_array_from_host(ctx, KC_FLOAT32, 1, &n, h, (size_t)n * sizeof *h, &b));
  TRY(ctx, kc_array_like(a, &out));
  TRY(ctx, kc_array_like(a, &copy));
  kc_event *e0, *e1;
  TRY(ctx, kc_event_new(ctx, &e0));
  TRY(ctx, kc_event_new(ctx, &e1));
  kc_arg args[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_array(out)};
  double tv[64], tc[64];
  for (int r = -2; r < reps; r++) {
    TRY(ctx, kc_event_record(e0, NULL));
    TRY(ctx, kc_launch(k, kc_dim((unsigned)((n + 255) / 256)), kc_dim(256), 0, NULL, args, 3));
    TRY(ctx, kc_event_record(e1, NULL));
    float v = event_ms(ctx, e0, e1);
    TRY(ctx, kc_event_record(e0, NULL));
    TRY(ctx, kc_array_copy(copy, a));
    TRY(ctx, kc_event_record(e1, NULL));
    float c = event_ms(ctx, e0, e1);
    if (r >= 0) tv[r] = v, tc[r] = c;
  }
  TRY(ctx, kc_array_to_host(out, h, (size_t)n * sizeof *h));
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++) bad += h[i] != (float)(i % 1000);
  double v = median(tv, reps), c = median(tc, reps);
  double bytes_v = 3.0 * (double)n * 4, bytes_c = 2.0 * (double)n * 4;
  double gv = bytes_v / (v * 1e6), gc = bytes_c / (c * 1e6);
  printf("### Bandwidth: vector_add on 2^27 float32 (median of %d, CUDA events)\n\n", reps);
  printf("| what | time (ms) | GB/s (read + written) | fraction of copy |\n");
  printf("|---|---:|---:|---:|\n");
  printf("| device-to-device cuMemcpy, 512 MiB | %.3f | %.0f | 1.00 |\n", c, gc);
  printf("| kcc vector_add (256-thread blocks) | %.3f | %.0f | %.2f |\n\n", v, gv, gv / gc);
  if (bad) printf("**vector_add gave %lld wrong elements**\n\n", (long long)bad);
  kc_event_free(e0);
  kc_event_free(e1);
  kc_array_free(a);
  kc_array_free(b);
  kc_array_free(out);
  kc_array_free(copy);
  kc_module_free(m);
  free(h);
}

/* ---- (d) the seven kernels against CUDA C ----------------------------------------------- */
typedef struct bench_kernel {
  const char *name;
  int narrays;            /* array arguments, the last one the output */
  int ndim;               /* 1, or 2 for transpose */
  kc_dtype dtype[3];
  int64_t len[3];         /* elements of each array (1-D) */
  int scalars;            /* gaussian_pdf: mean, sigma after the first array */
  unsigned grid[2], block[2];
} bench_kernel;

#define N26 ((int64_t)1 << 26)
#define TR 8192
static const bench_kernel kernels[] = {
  {"vector_add", 3, 1, {KC_FLOAT32, KC_FLOAT32, KC_FLOAT32}, {N26, N26, N26}, 0,
   {N26 / 256, 1}, {256, 1}},
  {"grid_stride_add", 3, 1, {KC_FLOAT32, KC_FLOAT32, KC_FLOAT32}, {N26, N26, N26}, 0,
   {132 * 16, 1}, {256, 1}},
  {"gaussian_pdf", 2, 1, {KC_FLOAT32, KC_FLOAT32}, {N26, N26}, 1, {N26 / 256, 1}, {256, 1}},
  {"histogram", 2, 1, {KC_INT32, KC_INT32}, {N26, 256}, 0, {N26 / 256, 1}, {256, 1}},
  {"primes", 2, 1, {KC_INT32, KC_INT32}, {1 << 22, 1 << 22}, 0, {(1 << 22) / 256, 1},
   {256, 1}},
  {"transpose", 2, 2, {KC_FLOAT32, KC_FLOAT32}, {(int64_t)TR * TR, (int64_t)TR * TR}, 0,
   {TR / 32, TR / 32}, {32, 32}},
  {"block_sum", 2, 1, {KC_FLOAT32, KC_FLOAT32}, {N26, N26 / 256}, 0, {N26 / 256, 1}, {256, 1}},
};

/* Deterministic inputs of every kind (no zeros: they hide unwritten outputs). */
static void fill_input(kc_context *ctx, kc_array *a, int index) {
  size_t n = (size_t)kc_array_size(a);
  if (kc_array_dtype(a) == KC_INT32) {
    int32_t *h = malloc(n * sizeof *h);
    uint32_t x = 12345u + (uint32_t)index;
    for (size_t i = 0; i < n; i++) {
      x = x * 1664525u + 1013904223u;
      h[i] = (int32_t)(x >> 12) % 1000003 + 2;
    }
    TRY(ctx, kc_array_copy_from_host(a, h, n * sizeof *h));
    free(h);
  } else {
    float *h = malloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++) h[i] = (float)((i * 7 + (size_t)index * 13) % 1001) * 0.01f - 5.0f;
    TRY(ctx, kc_array_copy_from_host(a, h, n * sizeof *h));
    free(h);
  }
}

/* Time kernel k on args: CUDA events around one launch, median of reps. The output is
 * cleared first (histogram and block_sum accumulate or must be fully written). */
static double time_kernel(kc_context *ctx, kc_kernel *k, const bench_kernel *b,
                          kc_arg *args, int nargs, kc_array *outp) {
  kc_event *e0, *e1;
  TRY(ctx, kc_event_new(ctx, &e0));
  TRY(ctx, kc_event_new(ctx, &e1));
  double t[64];
  for (int r = -2; r < reps; r++) {
    TRY(ctx, kc_array_zero(outp));
    TRY(ctx, kc_event_record(e0, NULL));
    TRY(ctx, kc_launch(k, kc_dim2(b->grid[0], b->grid[1]), kc_dim2(b->block[0], b->block[1]),
                       0, NULL, args, nargs));
    TRY(ctx, kc_event_record(e1, NULL));
    float ms = event_ms(ctx, e0, e1);
    if (r >= 0) t[r] = ms;
  }
  kc_event_free(e0);
  kc_event_free(e1);
  return median(t, reps);
}

static void kernel_times(kc_context *ctx, const char *root, const char *cubins) {
  printf("### Kernel time: kcc against nvcc -O3 (median of %d, CUDA events)\n\n", reps);
  printf("| kernel | kcc (ms) | CUDA C (ms) | kcc / CUDA C | outputs |\n");
  printf("|---|---:|---:|---:|---|\n");
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
    const bench_kernel *b = &kernels[i];
    char path[1024];
    snprintf(path, sizeof path, "%s/bench/kernels/%s.k", root, b->name);
    kc_module *mk = NULL, *mc = NULL;
    kc_kernel *kk, *kcu;
    TRY(ctx, kc_compile_file(ctx, path, NULL, &mk));
    TRY(ctx, kc_module_get_kernel(mk, b->name, &kk));
    snprintf(path, sizeof path, "%s/%s.cubin", cubins, b->name);
    size_t clen = 0;
    char *cubin = read_text(path, &clen);
    if (!cubin) {
      printf("| %s | | | | no %s |\n", b->name, path);
      kc_module_free(mk);
      continue;
    }
    char table[512];
    snprintf(table, sizeof table, "%s %s", b->name, kc_kernel_signature(kk));
    TRY(ctx, kc_module_load_image(ctx, cubin, clen, table, &mc));
    free(cubin);
    TRY(ctx, kc_module_get_kernel(mc, b->name, &kcu));
    kc_array *arr[3];
    for (int a = 0; a < b->narrays; a++) {
      int64_t shape[2] = {b->len[a], 1};
      if (b->ndim == 2) shape[0] = TR, shape[1] = TR;
      TRY(ctx, kc_array_new(ctx, b->dtype[a], b->ndim, shape, &arr[a]));
      fill_input(ctx, arr[a], a);
    }
    kc_arg args[5];
    int nargs = 0;
    args[nargs++] = kc_arg_array(arr[0]);
    if (b->scalars) {
      args[nargs++] = kc_arg_f32(0.5f);
      args[nargs++] = kc_arg_f32(1.5f);
    }
    for (int a = 1; a < b->narrays; a++) args[nargs++] = kc_arg_array(arr[a]);
    kc_array *outp = arr[b->narrays - 1];
    /* outputs: one run of each, compared (float: to 1e-5 relative, sums to 1e-4) */
    size_t bytes = kc_array_bytes(outp);
    char *o1 = malloc(bytes), *o2 = malloc(bytes);
    double tk = time_kernel(ctx, kk, b, args, nargs, outp);
    TRY(ctx, kc_array_to_host(outp, o1, bytes));
    double tc = time_kernel(ctx, kcu, b, args, nargs, outp);
    TRY(ctx, kc_array_to_host(outp, o2, bytes));
    size_t n = bytes / 4, diff = 0;
    for (size_t e = 0; e < n; e++) {
      if (kc_array_dtype(outp) == KC_INT32) {
        diff += ((int32_t *)o1)[e] != ((int32_t *)o2)[e];
      } else {
        float x = ((float *)o1)[e], y = ((float *)o2)[e];
        diff += !(fabsf(x - y) <= 1e-4f * fmaxf(1.0f, fabsf(y)));
      }
    }
    printf("| %s | %.4f | %.4f | %.2f | %s |\n", b->name, tk, tc, tk / tc,
           diff ? "DIFFER" : "equal");
    if (diff) fprintf(stderr, "gpu_bench: %s: %zu of %zu outputs differ\n", b->name, diff, n);
    free(o1);
    free(o2);
    for (int a = 0; a < b->narrays; a++) kc_array_free(arr[a]);
    kc_module_free(mk);
    kc_module_free(mc);
  }
  printf("\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: gpu_bench ROOT [CUBIN_DIR] [REPS] [launch|bandwidth|kernels]\n");
    return 2;
  }
  const char *root = argv[1];
  const char *cubins = argc > 2 ? argv[2] : "build-gpu/cubins";
  if (argc > 3) reps = atoi(argv[3]);
  if (reps < 1 || reps > 64) reps = 21;
  const char *only = argc > 4 ? argv[4] : NULL;
  if (only && strcmp(only, "launch") && strcmp(only, "bandwidth") && strcmp(only, "kernels")) {
    fprintf(stderr, "gpu_bench: no section '%s' (launch, bandwidth, kernels)\n", only);
    return 2;
  }
  int count = 0;
  if (kc_cuda_device_count(&count) != KC_OK || count == 0) {
    printf("not run: no GPU (no CUDA driver or device)\n");
    return 0;
  }
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CUDA;
  cfg.cache = -1;
  kc_context *ctx;
  if (kc_context_new(&cfg, &ctx) != KC_OK) {
    printf("not run: no usable GPU (%s)\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    return 0;
  }
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  void *sym1 = lib ? dlsym(lib, "cuLaunchKernel") : NULL;
  void *sym2 = lib ? dlsym(lib, "cuCtxSynchronize") : NULL;
  if (!sym1 || !sym2) {
    printf("not run: libcuda.so.1 lacks cuLaunchKernel\n");
    return 0;
  }
  memcpy(&bare_launch, &sym1, sizeof sym1);
  memcpy(&bare_sync, &sym2, sizeof sym2);
  kc_device_info info;
  TRY(ctx, kc_context_device_info(ctx, &info));
  printf("device: %s (sm_%d%d, %d SMs, %zu MiB)\n\n", info.name, info.cc_major,
         info.cc_minor, info.multiprocessors, info.total_memory >> 20);
  if (!only || !strcmp(only, "launch")) launch_overhead(ctx, root);
  if (!only || !strcmp(only, "bandwidth")) bandwidth(ctx, root);
  if (!only || !strcmp(only, "kernels")) kernel_times(ctx, root, cubins);
  kc_context_free(ctx);
  return 0;
}
