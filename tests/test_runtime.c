/*
 * test_runtime.c — the runtime API on the CPU device, without the compiler: contexts and
 * device selection, arrays, argument checks and scalar conversion (through a kernel
 * table built by hand), launch-shape limits, streams and events, kc_detect, and
 * out-of-memory paths with an allocator that fails after N allocations.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt.h"

/* A CPU context of two workers; wrap_int_args as kc_config's. */
static kc_context *cpu_context_wrapping(int wrap_int_args) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 2;
  cfg.wrap_int_args = wrap_int_args;
  kc_context *ctx = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  return ctx;
}

static kc_context *cpu_context(void) { return cpu_context_wrapping(0); }

static int have_cuda(void) {
  int n = 0;
  return kc_cuda_device_count(&n) == KC_OK && n > 0;
}

/* ---- records nested deep ----------------------------------------------------------------- */

/* A chain of 800 records, each nesting the last (freed at once, as kc.h allows): the
 * nested record is shared by reference, not re-parsed at every level (that was cubic:
 * 23 s), and outlives its handle. The spelling is checked against one written here:
 * level k is "Record(x[type=int32;offset=0],r[type=LEVEL(k-1);offset=4];SIZE;False)". */
START_TEST(record_chain) {
  kc_context *ctx = cpu_context();
  enum { N = 800 };
  kc_record *prev = NULL;
  char *want = strdup("Record(x[type=int32;offset=0];4;False)");
  for (int i = 1; i < N; i++) {
    kc_record_field f[2] = {{.name = "x", .dtype = KC_INT32, .offset = 0},
                            {.name = "r", .dtype = KC_RECORD, .record = prev, .offset = 4}};
    kc_record *r = NULL;
    if (i == 1) {
      ck_assert_int_eq(kc_record_new(ctx, f, 1, 4, 0, &prev), KC_OK);
      f[1].record = prev;
    }
    ck_assert_int_eq(kc_record_new(ctx, f, 2, 4 + kc_record_size(prev), 0, &r), KC_OK);
    kc_record_free(prev);
    prev = r;
    size_t n = strlen(want) + 128;
    char *next = malloc(n);
    snprintf(next, n, "Record(x[type=int32;offset=0],r[type=%s;offset=4];%zu;False)", want,
             (size_t)4 * (size_t)(i + 1));
    free(want);
    want = next;
  }
  ck_assert_uint_eq(kc_record_size(prev), 4 * N);
  ck_assert_str_eq(kc_record_spelling(prev), want);
  free(want);
  kc_record_free(prev);
  kc_context_free(ctx);
}
END_TEST

/* ---- names and config ---------------------------------------------------------------- */
START_TEST(names_and_sizes) {
  ck_assert_str_eq(kc_status_name(KC_OK), "KC_OK");
  ck_assert_str_eq(kc_status_name(KC_ERR_DEADLOCK), "KC_ERR_DEADLOCK");
  ck_assert_str_eq(kc_status_name(KC_ERR_INTERNAL), "KC_ERR_INTERNAL");
  ck_assert_str_eq(kc_status_name(KC_ERR_ASSERT), "KC_ERR_ASSERT");
  ck_assert_str_eq(kc_status_name(KC_ERR_TIMEOUT), "KC_ERR_TIMEOUT");
  ck_assert_str_eq(kc_status_name((kc_status)99), "KC_ERR_UNKNOWN");
  ck_assert_str_eq(kc_dtype_name(KC_FLOAT32), "float32");
  ck_assert_str_eq(kc_dtype_name(KC_BOOL), "bool");
  ck_assert_str_eq(kc_dtype_name(KC_UINT16), "uint16");
  ck_assert_uint_eq(kc_dtype_size(KC_BOOL), 1);
  ck_assert_uint_eq(kc_dtype_size(KC_INT16), 2);
  ck_assert_uint_eq(kc_dtype_size(KC_FLOAT32), 4);
  ck_assert_uint_eq(kc_dtype_size(KC_UINT64), 8);
  ck_assert_uint_eq(kc_dtype_size(KC_DTYPE_COUNT), 0);
  char buf[64];
  rt_format_type(KC_INT32, 2, buf, sizeof buf);
  ck_assert_str_eq(buf, "int32[:, :]");
}
END_TEST

START_TEST(config_defaults) {
  /* every field's default is its zero (kc.h): kc_config_init is a memset */
  kc_config cfg, zero = {0};
  memset(&cfg, 0xab, sizeof cfg);
  kc_config_init(&cfg);
  ck_assert_int_eq(memcmp(&cfg, &zero, sizeof cfg), 0);
  kc_config_init(NULL);   /* a no-op, not a crash */
  kc_compile_options co, co_zero = {0};
  memset(&co, 0xab, sizeof co);
  kc_compile_options_init(&co);
  ck_assert_int_eq(memcmp(&co, &co_zero, sizeof co), 0);
  kc_compile_options_init(NULL);
  kc_ufunc_options uo, uo_zero = {0};
  memset(&uo, 0xab, sizeof uo);
  kc_ufunc_options_init(&uo);
  ck_assert_int_eq(memcmp(&uo, &uo_zero, sizeof uo), 0);
  ck_assert_int_eq(uo.casting, KC_CASTING_SAME_KIND);
  kc_ufunc_options_init(NULL);
}
END_TEST

/* The zeros resolve to the documented defaults at kc_context_new, environment included. */
START_TEST(config_zero_resolves) {
  unsetenv("KC_VERBOSE");
  unsetenv("KC_CACHE");
  unsetenv("KC_BOUNDS_CHECK");
  kc_config cfg = {0};
  cfg.device = KC_DEVICE_CPU;
  kc_context *ctx;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  ck_assert_int_eq(ctx->cfg.opt_level, 3);
  ck_assert_int_eq(ctx->cfg.cache, 1);
  ck_assert_int_eq(ctx->cfg.verbose, 0);
  ck_assert_int_eq(ctx->cfg.bounds_check, 0);
  kc_context_free(ctx);
  setenv("KC_CACHE", "0", 1);
  setenv("KC_BOUNDS_CHECK", "1", 1);
  cfg.opt_level = KC_OPT_O0;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  ck_assert_int_eq(ctx->cfg.opt_level, 0);
  ck_assert_int_eq(ctx->cfg.cache, 0);
  ck_assert_int_eq(ctx->cfg.bounds_check, 1);
  kc_context_free(ctx);
  cfg.cache = 1;          /* explicit values beat the environment */
  cfg.bounds_check = -1;
  cfg.opt_level = 2;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  ck_assert_int_eq(ctx->cfg.opt_level, 2);
  ck_assert_int_eq(ctx->cfg.cache, 1);
  ck_assert_int_eq(ctx->cfg.bounds_check, 0);
  kc_context_free(ctx);
  unsetenv("KC_CACHE");
  unsetenv("KC_BOUNDS_CHECK");
  cfg.opt_level = 7;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "opt_level 7"));
  kc_context_free(ctx);
}
END_TEST

START_TEST(device_selection) {
  kc_context *ctx;
  setenv("KC_DEVICE", "cpu", 1);
  ck_assert_int_eq(kc_context_new(NULL, &ctx), KC_OK);
  ck_assert_int_eq(kc_context_device(ctx), KC_DEVICE_CPU);
  ck_assert_str_eq(kc_last_error(ctx), "");
  kc_device_info info;
  ck_assert_int_eq(kc_context_device_info(ctx, &info), KC_OK);
  ck_assert_int_eq(info.max_threads_per_block, 1024);
  ck_assert_int_eq(info.supported, 1);
  ck_assert_int_ge(info.multiprocessors, 1);
  kc_context_free(ctx);

  setenv("KC_DEVICE", "tpu", 1);
  ck_assert_int_eq(kc_context_new(NULL, &ctx), KC_ERR_INVALID);
  ck_assert_ptr_nonnull(ctx);
  ck_assert_str_eq(kc_last_error(ctx), "KC_DEVICE='tpu' is not one of cpu, cuda, cuda:N, auto");
  kc_context_free(ctx);

  /* the config wins over the environment */
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  kc_context_free(ctx);

  setenv("KC_DEVICE", "auto", 1);
  ck_assert_int_eq(kc_context_new(NULL, &ctx), KC_OK);
  ck_assert_int_eq(kc_context_device(ctx), have_cuda() ? KC_DEVICE_CUDA : KC_DEVICE_CPU);
  ck_assert_str_eq(kc_last_error(ctx), "");
  kc_context_free(ctx);
  unsetenv("KC_DEVICE");
}
END_TEST

START_TEST(cuda_without_driver) {
  if (have_cuda()) return;   /* only meaningful without a GPU */
  int n = 5;
  ck_assert_int_eq(kc_cuda_device_count(&n), KC_ERR_NO_DEVICE);
  ck_assert_int_eq(n, 0);
  kc_device_info info;
  ck_assert_int_eq(kc_cuda_device_info(0, &info), KC_ERR_NO_DEVICE);
  setenv("KC_DEVICE", "cuda", 1);
  kc_context *ctx;
  ck_assert_int_eq(kc_context_new(NULL, &ctx), KC_ERR_NO_DEVICE);
  ck_assert_ptr_nonnull(ctx);
#ifdef KC_HAVE_CUDA
  char msg[512];
  if (rt_cuda_load(msg, sizeof msg) == KC_ERR_NO_DEVICE &&
      strcmp(msg, "no CUDA driver found (libcuda.so.1)") == 0)
    ck_assert_str_eq(kc_last_error(ctx), "no CUDA driver found (libcuda.so.1)");
  else
    ck_assert_str_ne(kc_last_error(ctx), "");   /* a driver without a GPU */
#else
  ck_assert_str_eq(kc_last_error(ctx),
                   "kcc was not built with CUDA support (no CUDA headers at build time)");
#endif
  kc_context_free(ctx);
  unsetenv("KC_DEVICE");
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CUDA;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_ERR_NO_DEVICE);
  kc_context_free(ctx);
}
END_TEST

START_TEST(detect_text) {
  size_t need = 0;
  ck_assert_int_eq(kc_detect(NULL, 0, &need), KC_OK);
  ck_assert_uint_gt(need, 40);
  char *buf = malloc(need + 1);
  ck_assert_int_eq(kc_detect(buf, need + 1, NULL), KC_OK);
  ck_assert_uint_eq(strlen(buf), need);
  ck_assert_ptr_nonnull(strstr(buf, "kcc 0.1.0\n"));
  ck_assert_ptr_nonnull(strstr(buf, "\nlibdevice: "));
  ck_assert_ptr_nonnull(strstr(buf, "\nptxas: "));
  ck_assert_ptr_nonnull(strstr(buf, "\nnvJitLink: "));
  ck_assert_ptr_nonnull(strstr(buf, "\nNVRTC: "));
  ck_assert_ptr_nonnull(strstr(buf, "\nCPU device: "));
  ck_assert_ptr_nonnull(strstr(buf, " cores: supported\n"));
#ifdef KC_HAVE_CUDA
  if (!have_cuda()) ck_assert_ptr_nonnull(strstr(buf, "CUDA devices: none\n"));
  char msg[512];
  if (rt_cuda_load(msg, sizeof msg) != KC_OK &&
      strcmp(msg, "no CUDA driver found (libcuda.so.1)") == 0)
    ck_assert_ptr_nonnull(strstr(buf, "CUDA driver: no CUDA driver found (libcuda.so.1)\n"));
#else
  ck_assert_ptr_nonnull(strstr(buf, "CUDA: none: a CPU-only build (no CUDA headers at "
                                    "build time)\n"));
#endif
  ck_assert_ptr_nonnull(strstr(buf, "\ncompiler: LLVM "));   /* libkc, the compiler's */
  /* a short buffer: cut, terminated, needed still the whole length */
  char small[10];
  size_t need2 = 0;
  ck_assert_int_eq(kc_detect(small, sizeof small, &need2), KC_OK);
  ck_assert_uint_eq(need2, need);
  ck_assert_str_eq(small, "kcc 0.1.0");
  ck_assert_int_eq(kc_detect(NULL, 5, NULL), KC_ERR_INVALID);
  free(buf);
}
END_TEST

/* ---- arrays -------------------------------------------------------------------------- */
START_TEST(array_round_trip) {
  kc_context *ctx = cpu_context();
  int64_t shape[2] = {3, 4};
  float host[12], back[12];
  for (int i = 0; i < 12; i++) host[i] = (float)i * 0.5f;
  kc_array *a, *b, *c;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 2, shape, host, (size_t)(shape[0] * shape[1]) * sizeof *host, &a), KC_OK);
  ck_assert_int_eq(kc_array_ndim(a), 2);
  ck_assert_int_eq(kc_array_dtype(a), KC_FLOAT32);
  ck_assert_int_eq(kc_array_shape(a)[1], 4);
  ck_assert_int_eq(kc_array_size(a), 12);
  ck_assert_uint_eq(kc_array_bytes(a), 48);
  ck_assert_int_eq(kc_array_like(a, &b), KC_OK);
  ck_assert_int_eq(kc_array_shape(b)[0], 3);
  ck_assert_int_eq(kc_array_copy(b, a), KC_OK);
  ck_assert_int_eq(kc_array_to_host(b, back, sizeof back), KC_OK);
  ck_assert_mem_eq(back, host, sizeof host);
  /* wrong host size */
  ck_assert_int_eq(kc_array_to_host(b, back, 47), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx), "array copy: the array holds 48 bytes, the host buffer 47");
  ck_assert_int_eq(kc_array_copy_from_host(b, NULL, 48), KC_ERR_INVALID);
  /* fill and zero */
  float seven = 7.0f;
  ck_assert_int_eq(kc_array_fill(b, &seven), KC_OK);
  ck_assert_int_eq(kc_array_to_host(b, back, sizeof back), KC_OK);
  for (int i = 0; i < 12; i++) ck_assert_float_eq(back[i], 7.0f);
  ck_assert_int_eq(kc_array_zero(b), KC_OK);
  ck_assert_int_eq(kc_array_to_host(b, back, sizeof back), KC_OK);
  for (int i = 0; i < 12; i++) ck_assert_float_eq(back[i], 0.0f);
  /* copy between mismatched arrays */
  int64_t s1[1] = {12};
  ck_assert_int_eq(kc_array_new(ctx, KC_INT32, 1, s1, &c), KC_OK);
  ck_assert_int_eq(kc_array_copy(c, a), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx), "array copy: source is float32 of 12 elements, "
                                       "destination int32 of 12");
  int64_t big = 0x0102030405060708LL;
  int64_t s2[1] = {5};
  kc_array *d;
  ck_assert_int_eq(kc_array_new(ctx, KC_INT64, 1, s2, &d), KC_OK);
  ck_assert_int_eq(kc_array_fill(d, &big), KC_OK);
  int64_t dh[5];
  ck_assert_int_eq(kc_array_to_host(d, dh, sizeof dh), KC_OK);
  for (int i = 0; i < 5; i++) ck_assert_int_eq(dh[i], big);
  kc_array_free(a);
  kc_array_free(b);
  kc_array_free(c);
  kc_array_free(d);
  kc_array_free(NULL);
  kc_context_free(ctx);
}
END_TEST

START_TEST(array_bad_shapes) {
  kc_context *ctx = cpu_context();
  kc_array *a = (kc_array *)1;
  int64_t neg[1] = {-1};
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, neg, &a), KC_ERR_INVALID);
  ck_assert_ptr_null(a);
  ck_assert_str_eq(kc_last_error(ctx), "array: extent 0 is negative (-1)");
  int64_t s[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 9, s, &a), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx), "array: ndim must be 1..8, not 9");
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 0, s, &a), KC_ERR_INVALID);
  ck_assert_int_eq(kc_array_new(ctx, KC_DTYPE_COUNT, 1, s, &a), KC_ERR_INVALID);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, NULL, &a), KC_ERR_INVALID);
  int64_t huge[3] = {INT64_MAX / 2, 4, 1};
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT64, 3, huge, &a), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx), "array: size of the shape overflows");
  int64_t over[2] = {1LL << 32, 1LL << 32};
  ck_assert_int_eq(kc_array_new(ctx, KC_INT8, 2, over, &a), KC_ERR_INVALID);
  /* zero-sized arrays are fine */
  int64_t zero[1] = {0};
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, zero, &a), KC_OK);
  ck_assert_int_eq(kc_array_zero(a), KC_OK);
  ck_assert_int_eq(kc_array_size(a), 0);
  kc_array_free(a);
  kc_context_free(ctx);
}
END_TEST

START_TEST(array_views) {
  kc_context *ctx = cpu_context();
  int64_t shape[2] = {4, 3};
  int32_t host[12];
  for (int i = 0; i < 12; i++) host[i] = i;
  kc_array *a, *v, *vv;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_INT32, 2, shape, host, (size_t)(shape[0] * shape[1]) * sizeof *host, &a), KC_OK);
  ck_assert_int_eq(kc_array_view(a, 1, 3, &v), KC_OK);
  ck_assert_int_eq(kc_array_shape(v)[0], 2);
  ck_assert_int_eq(kc_array_shape(v)[1], 3);
  ck_assert_uint_eq(kc_array_bytes(v), 24);
  int32_t vh[6];
  ck_assert_int_eq(kc_array_to_host(v, vh, sizeof vh), KC_OK);
  for (int i = 0; i < 6; i++) ck_assert_int_eq(vh[i], 3 + i);
  /* writes through the view land in the owner */
  int32_t minus = -1;
  ck_assert_int_eq(kc_array_view(v, 1, 2, &vv), KC_OK);
  ck_assert_int_eq(kc_array_fill(vv, &minus), KC_OK);
  ck_assert_int_eq(kc_array_to_host(a, host, sizeof host), KC_OK);
  for (int i = 0; i < 12; i++) ck_assert_int_eq(host[i], i >= 6 && i < 9 ? -1 : i);
  kc_array_free(vv);
  kc_array_free(v);
  ck_assert_int_eq(kc_array_view(a, 2, 5, &v), KC_ERR_INVALID);
  ck_assert_ptr_null(v);
  ck_assert_str_eq(kc_last_error(ctx), "array view [2, 5) is outside [0, 4)");
  ck_assert_int_eq(kc_array_view(a, 3, 2, &vv), KC_ERR_INVALID);
  /* the owner freed first: the views stay valid until freed */
  kc_array *v2;
  ck_assert_int_eq(kc_array_view(a, 0, 1, &v2), KC_OK);
  kc_array_free(a);
  ck_assert_int_eq(kc_array_to_host(v2, vh, 12), KC_OK);
  ck_assert_int_eq(vh[2], 2);
  kc_array_free(v2);
  kc_context_free(ctx);
}
END_TEST

START_TEST(host_memory) {
  kc_context *ctx = cpu_context();
  void *p;
  ck_assert_int_eq(kc_host_alloc(ctx, 1000, &p), KC_OK);
  ck_assert_uint_eq((uintptr_t)p % 16, 0);
  memset(p, 1, 1000);
  kc_host_free(ctx, p);
  ck_assert_int_eq(kc_host_alloc(ctx, SIZE_MAX - 4, &p), KC_ERR_INVALID);
  kc_context_free(ctx);
}
END_TEST

/* ---- a hand-built kernel table ------------------------------------------------------- */
/* add(float32[:] a, float32[:] b, int32 n): out-of-place a += b for i < n */
static void add_block(void **args, kc_cpu_block *blk) {
  float *a = *(float **)args[0], *b = *(float **)args[2];
  int32_t n = *(int32_t *)args[4];
  for (uint32_t t = 0; t < blk->block_dim[0]; t++) {
    int64_t i = (int64_t)blk->block_idx[0] * blk->block_dim[0] + t;
    if (i < n) a[i] += b[i];
  }
}

/* scalars(int64[:] out, int8 a, uint16 b, uint64 c, float64 d, bool e, float32 f) */
static void scalars_block(void **args, kc_cpu_block *blk) {
  (void)blk;
  int64_t *out = *(int64_t **)args[0];
  out[0] = *(int8_t *)args[2];
  out[1] = *(uint16_t *)args[3];
  out[2] = (int64_t)*(uint64_t *)args[4];
  out[3] = (int64_t)(*(double *)args[5] * 2);
  out[4] = *(uint8_t *)args[6];
  out[5] = (int64_t)(*(float *)args[7] * 4);
}

static kcc_param add_params[] = {
    {"a", KC_FLOAT32, 1, 1, 0, NULL, 0}, {"b", KC_FLOAT32, 1, 0, 0, NULL, 0},
    {"n", KC_INT32, 0, 0, 0, NULL, 0}};
static kcc_param sc_params[] = {
    {"out", KC_INT64, 1, 1, 0, NULL, 0}, {"a", KC_INT8, 0, 0, 0, NULL, 0},
    {"b", KC_UINT16, 0, 0, 0, NULL, 0},  {"c", KC_UINT64, 0, 0, 0, NULL, 0},
    {"d", KC_FLOAT64, 0, 0, 0, NULL, 0}, {"e", KC_BOOL, 0, 0, 0, NULL, 0},
    {"f", KC_FLOAT32, 0, 0, 0, NULL, 0}};

static kc_module *table_module(kc_context *ctx) {
  kcc_kernel t[2];
  memset(t, 0, sizeof t);
  t[0].name = "add";
  t[0].symbol = "add";
  t[0].signature = "add(float32[:], float32[:], int32)";
  t[0].nparams = 3;
  t[0].params = add_params;
  kc_cpu_block_fn f0 = add_block, f1 = scalars_block;
  memcpy(&t[0].block_fn, &f0, sizeof f0);
  t[1].name = "scalars";
  t[1].symbol = "scalars";
  t[1].signature = "scalars(int64[:], int8, uint16, uint64, float64, bool, float32)";
  t[1].nparams = 7;
  t[1].params = sc_params;
  memcpy(&t[1].block_fn, &f1, sizeof f1);
  kc_module *m = NULL;
  ck_assert_int_eq(rt_module_from_kernels(ctx, t, 2, NULL, 0, &m), KC_OK);
  return m;
}

/* The CUDA side of bounds checking without a driver: how a module's error record, as
 * read back from the device, becomes KC_ERR_BOUNDS, and which kernel it names. */
START_TEST(kernel_error_records) {
  kc_context *ctx = cpu_context();
  kc_module *m = table_module(ctx);
  m->src_name = rt_strdup(ctx, "x.k");
  kc_kernel_error rec;
  memset(&rec, 0, sizeof rec);
  ck_assert_int_eq(rt_module_error_status(m, &rec), KC_OK);   /* flag clear */
  rec.flag = 1;
  rec.line = 3;
  rec.col = 7;
  rec.axis = 1;
  rec.ndim = 2;
  rec.shape[0] = 4;
  rec.shape[1] = 5;
  rec.index = 9;
  rec.block[0] = 2;
  rec.thread[1] = 6;
  rt_module_note_launch(m, &m->kernels[0]);
  rt_module_note_launch(m, &m->kernels[0]);
  ck_assert_int_eq(rt_module_error_status(m, &rec), KC_ERR_BOUNDS);
  ck_assert_str_eq(kc_last_error(ctx),
                   "x.k:3:7: error: kernel 'add': index 9 is out of bounds for axis 1 with "
                   "size 5 (array of shape (4, 5)), in block (2, 0, 0), thread (0, 6, 0)");
  /* two kernels of the module ran since the last synchronisation: say so */
  rt_module_note_launch(m, &m->kernels[1]);
  ck_assert_int_eq(rt_module_error_status(m, &rec), KC_ERR_BOUNDS);
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "another kernel of the module"));
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "'scalars' was the last"));
  /* an unsigned index is printed as one; a 1-D shape as Python writes it */
  rec.is_unsigned = 1;
  rec.index = -1;
  rec.axis = 0;
  rec.ndim = 1;
  rec.shape[0] = 10;
  char buf[512];
  rt_format_kernel_error(buf, sizeof buf, "k", NULL, &rec);
  ck_assert_str_eq(buf, "line 3:7: error: kernel 'k': index 18446744073709551615 is out of "
                        "bounds for axis 0 with size 10 (array of shape (10,)), in block "
                        "(2, 0, 0), thread (0, 6, 0)");
  /* a CPU context lists no CUDA modules: nothing to read */
  ck_assert_ptr_null(ctx->checked);
  ck_assert_int_eq(rt_check_kernel_errors(ctx), KC_OK);
  kc_module_free(m);
  kc_context_free(ctx);
}
END_TEST

/* kc_compile_ptx on the CPU device: PTX for the GPU asked for, nothing loaded. */
START_TEST(ptx_without_a_gpu) {
  kc_context *ctx = cpu_context();
  static const char src[] =
      "from numba import cuda\n"
      "@cuda.jit('void(float32[:])')\n"
      "def twice(a):\n"
      "    i = cuda.grid(1)\n"
      "    if i < a.size:\n"
      "        a[i] *= 2\n";
  char *ptx = NULL;
  size_t len = 0;
  ck_assert_int_eq(kc_compile_ptx(ctx, "t.py", src, sizeof src - 1, NULL, 0, &ptx, &len),
                   KC_OK);
  ck_assert_uint_eq(len, strlen(ptx));
  ck_assert_ptr_nonnull(strstr(ptx, ".target sm_80"));   /* no GPU: the oldest kcc takes */
  ck_assert_ptr_nonnull(strstr(ptx, ".entry"));
  ck_assert_ptr_nonnull(strstr(ptx, "// kcc-kernel: twice"));
  kc_text_free(ctx, ptx);
  ck_assert_int_eq(kc_compile_ptx(ctx, "t.py", src, sizeof src - 1, NULL, 90, &ptx, NULL),
                   KC_OK);
  ck_assert_ptr_nonnull(strstr(ptx, ".target sm_90"));
  kc_text_free(ctx, ptx);
  ck_assert_int_eq(kc_compile_ptx(ctx, "t.py", src, sizeof src - 1, NULL, 5, &ptx, NULL),
                   KC_ERR_INVALID);
  ck_assert_ptr_null(ptx);
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "arch 5"));
  static const char bad[] = "@cuda.jit('void(float32[:])')\ndef k(a):\n    a[0] = 'x'\n";
  ck_assert_int_eq(kc_compile_ptx(ctx, "bad.py", bad, sizeof bad - 1, NULL, 0, &ptx, NULL),
                   KC_ERR_TYPE);
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "bad.py:3:"));
  kc_context_free(ctx);
}
END_TEST

/* kc_compile_text: the types as kcc --emit=types gives them, the CPU back end's LLVM IR
 * on a CPU context, PTX as kc_compile_ptx; a bad kind refused. */
START_TEST(texts_without_loading) {
  kc_context *ctx = cpu_context();
  static const char src[] =
      "from numba import cuda\n"
      "@cuda.jit('void(float32[:], int32)')\n"
      "def scale(a, k):\n"
      "    i = cuda.grid(1)\n"
      "    if i < a.size:\n"
      "        a[i] *= k\n";
  char *text = NULL;
  size_t len = 0;
  ck_assert_int_eq(kc_compile_text(ctx, "t.py", src, sizeof src - 1, NULL, KC_TEXT_TYPES, 0,
                                   &text, &len), KC_OK);
  ck_assert_uint_eq(len, strlen(text));
  ck_assert_ptr_nonnull(strstr(text, "kernel scale(float32[:], int32) -> void"));
  ck_assert_ptr_nonnull(strstr(text, "  a: float32[:] (parameter)\n  k: int32 (parameter)"));
  kc_text_free(ctx, text);
  ck_assert_int_eq(kc_compile_text(ctx, "t.py", src, sizeof src - 1, NULL, KC_TEXT_LLVM, 0,
                                   &text, NULL), KC_OK);
  ck_assert_ptr_nonnull(strstr(text, "scale"));
  ck_assert_ptr_null(strstr(text, "nvptx"));   /* the CPU's IR on a CPU context */
  kc_text_free(ctx, text);
  ck_assert_int_eq(kc_compile_text(ctx, "t.py", src, sizeof src - 1, NULL, KC_TEXT_PTX, 90,
                                   &text, NULL), KC_OK);
  ck_assert_ptr_nonnull(strstr(text, ".target sm_90"));
  kc_text_free(ctx, text);
  /* a device function with a declared signature, called by no kernel: listed among the
     types, and a visible function of its own in the device PTX, under its options */
  static const char dev[] =
      "import math\n"
      "from numba import cuda, float32\n"
      "@cuda.jit('float32(float32, float32)', device=True, fastmath=True)\n"
      "def hyp(x, y):\n"
      "    return math.sqrt(x * x + y)\n";
  ck_assert_int_eq(kc_compile_text(ctx, "d.py", dev, sizeof dev - 1, NULL, KC_TEXT_TYPES, 0,
                                   &text, NULL), KC_OK);
  ck_assert_ptr_nonnull(strstr(text, "device hyp"));
  ck_assert_ptr_nonnull(strstr(text, "(float32, float32) -> float32 (fastmath)"));
  kc_text_free(ctx, text);
  ck_assert_int_eq(kc_compile_text(ctx, "d.py", dev, sizeof dev - 1, NULL, KC_TEXT_DEVICE_PTX,
                                   0, &text, NULL), KC_OK);
  ck_assert_ptr_nonnull(strstr(text, ".visible .func  (.param .b32 func_retval0) hyp"));
  ck_assert_ptr_null(strstr(text, ".entry"));
  ck_assert_ptr_nonnull(strstr(text, "sqrt.approx.ftz.f32"));
  kc_text_free(ctx, text);
  ck_assert_int_eq(kc_compile_text(ctx, "d.py", dev, sizeof dev - 1, NULL, KC_TEXT_PTX, 0,
                                   &text, NULL), KC_OK);
  ck_assert_ptr_null(strstr(text, "hyp"));   /* a kernel module's PTX has no uncalled one */
  kc_text_free(ctx, text);
  ck_assert_int_eq(kc_compile_text(ctx, "t.py", src, sizeof src - 1, NULL, (kc_text_kind)7, 0,
                                   &text, NULL), KC_ERR_INVALID);
  ck_assert_ptr_null(text);
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "not a kc_text_kind"));
  kc_context_free(ctx);
}
END_TEST

START_TEST(kernels_by_name) {
  kc_context *ctx = cpu_context();
  kc_module *m = table_module(ctx);
  kc_kernel *k;
  ck_assert_int_eq(kc_module_get_kernel(m, "nope", &k), KC_ERR_NOT_FOUND);
  ck_assert_str_eq(kc_last_error(ctx), "no kernel named 'nope' in the module");
  ck_assert_int_eq(kc_module_get_kernel(m, "add", &k), KC_OK);
  ck_assert_int_eq(kc_kernel_param_count(k), 3);
  ck_assert_str_eq(kc_kernel_signature(k), "add(float32[:], float32[:], int32)");
  int block = 0, grid = 0;
  ck_assert_int_eq(kc_kernel_suggest_block(k, 0, &block, &grid), KC_OK);
  ck_assert_int_eq(block, 1024);   /* the CPU's suggestion (launch.c says why) */
  ck_assert_int_eq(grid, 2);   /* the context's two CPU threads */
  ck_assert_int_eq(kc_kernel_suggest_block(k, 0, NULL, NULL), KC_ERR_INVALID);
  /* a cooperative grid on the CPU back end: one OS thread per block (at most 1024) and
     16,384 fibers in all (runtime/cpu/coop.c, docs/runtime.md) */
  uint64_t blocks = 0;
  ck_assert_int_eq(kc_kernel_max_cooperative_blocks(k, 32, 0, &blocks), KC_OK);
  ck_assert_uint_eq(blocks, 16384 / 32);
  ck_assert_int_eq(kc_kernel_max_cooperative_blocks(k, 1, 0, &blocks), KC_OK);
  ck_assert_uint_eq(blocks, 1024);
  ck_assert_int_eq(kc_kernel_max_cooperative_blocks(k, 0, 0, &blocks), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx), "kernel 'add': 0 threads per block (it takes 1 to 1024)");
  ck_assert_int_eq(kc_kernel_max_cooperative_blocks(k, 32, 0, NULL), KC_ERR_INVALID);
  /* an untyped kernel: specialised at launch (needs the source, absent here) */
  const char *untyped[] = {"later"};
  kc_module *um;
  ck_assert_int_eq(rt_module_from_kernels(ctx, NULL, 0, untyped, 1, &um), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(um, "later", &k), KC_OK);
  ck_assert_int_eq(kc_kernel_param_count(k), -1);
  ck_assert_str_eq(kc_kernel_signature(k), "later(untyped)");
  ck_assert_int_eq(kc_kernel_suggest_block(k, 0, &block, NULL), KC_ERR_INVALID);
  ck_assert_int_eq(kc_kernel_max_cooperative_blocks(k, 32, 0, &blocks), KC_ERR_INVALID);
  kc_arg one = kc_arg_i32(1);
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, &one, 1), KC_ERR_INTERNAL);
  ck_assert_str_eq(kc_last_error(ctx), "kernel 'later' is untyped but its source is gone");
  kc_module_free(um);
  kc_module *pm;
  ck_assert_int_eq(kc_module_load_ptx(ctx, "// kcc-kernel: k k()\n", 20, &pm),
                   KC_ERR_UNSUPPORTED);
  ck_assert_int_eq(kc_compile_file(ctx, "/nonexistent/x.k", NULL, &pm), KC_ERR_IO);
  ck_assert_str_eq(kc_last_error(ctx), "/nonexistent/x.k: cannot open the file (No such file or directory)");
  kc_module_free(m);
  kc_context_free(ctx);
}
END_TEST

/* kc_compile_file reads regular files of at most 64 MiB (KCC_MAX_SOURCE): a device, a
 * FIFO (whose open would wait for a writer), a directory or a bigger file is refused at
 * once with a message naming it (issue 18: /dev/zero was read for ever). */
START_TEST(compile_file_refuses_non_sources) {
  kc_context *ctx = cpu_context();
  kc_module *m = NULL;
  alarm(60);   /* a blocked open or an endless read fails the test instead of hanging */
  ck_assert_int_eq(kc_compile_file(ctx, "/dev/zero", NULL, &m), KC_ERR_IO);
  ck_assert_str_eq(kc_last_error(ctx), "/dev/zero: a character device, not a regular file");
  ck_assert_int_eq(kc_compile_file(ctx, "/", NULL, &m), KC_ERR_IO);
  ck_assert_str_eq(kc_last_error(ctx), "/: a directory, not a regular file");
  char dir[256], fifo[300], big[300];
  snprintf(dir, sizeof dir, "%s/kcc-files-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(fifo, sizeof fifo, "%s/fifo.k", dir);
  snprintf(big, sizeof big, "%s/big.k", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  ck_assert_int_eq(kc_compile_file(ctx, fifo, NULL, &m), KC_ERR_IO);
  ck_assert(strstr(kc_last_error(ctx), ": a FIFO, not a regular file"));
  ck_assert(strstr(kc_last_error(ctx), fifo));
  FILE *f = fopen(big, "w");   /* sparse: one byte past the limit */
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(ftruncate(fileno(f), (off_t)KCC_MAX_SOURCE + 1), 0);
  fclose(f);
  ck_assert_int_eq(kc_compile_file(ctx, big, NULL, &m), KC_ERR_IO);
  ck_assert(strstr(kc_last_error(ctx), ": larger than the 64 MiB limit"));
  ck_assert_int_eq(kc_module_load_file(ctx, "/dev/zero", &m), KC_ERR_IO);
  alarm(0);
  ck_assert_ptr_null(m);
  unlink(fifo);
  unlink(big);
  rmdir(dir);
  kc_context_free(ctx);
}
END_TEST

START_TEST(argument_checks) {
  kc_context *ctx = cpu_context();
  kc_module *m = table_module(ctx);
  kc_kernel *k;
  ck_assert_int_eq(kc_module_get_kernel(m, "add", &k), KC_OK);
  int64_t s1[1] = {8}, s2[2] = {2, 4};
  kc_array *a, *b, *i2;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, s1, &a), KC_OK);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, s1, &b), KC_OK);
  ck_assert_int_eq(kc_array_new(ctx, KC_INT32, 2, s2, &i2), KC_OK);
  kc_dim3 g = kc_dim(1), bl = kc_dim(8);

  kc_arg two[] = {kc_arg_array(a), kc_arg_array(b)};
  ck_assert_int_eq(kc_launch(k, g, bl, 0, NULL, two, 2), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx), "kernel 'add': expected 3 arguments "
                                       "(add(float32[:], float32[:], int32)), got 2");
  kc_arg rank[] = {kc_arg_array(a), kc_arg_array(i2), kc_arg_i32(8)};
  ck_assert_int_eq(kc_launch(k, g, bl, 0, NULL, rank, 3), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx),
                   "kernel 'add': argument 2 ('b'): expected float32[:], got int32[:, :]");
  kc_arg scal[] = {kc_arg_f32(1), kc_arg_array(b), kc_arg_i32(8)};
  ck_assert_int_eq(kc_launch(k, g, bl, 0, NULL, scal, 3), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx),
                   "kernel 'add': argument 1 ('a'): expected float32[:], got float32");
  kc_arg arr[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_array(a)};
  ck_assert_int_eq(kc_launch(k, g, bl, 0, NULL, arr, 3), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx),
                   "kernel 'add': argument 3 ('n'): expected int32, got float32[:]");
  kc_arg range[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_i64(3000000000LL)};
  ck_assert_int_eq(kc_launch(k, g, bl, 0, NULL, range, 3), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx),
                   "kernel 'add': argument 3 ('n'): value 3000000000 does not fit int32");
  kc_arg flt[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_f64(8.0)};
  ck_assert_int_eq(kc_launch(k, g, bl, 0, NULL, flt, 3), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx),
                   "kernel 'add': argument 3 ('n'): expected int32, got float64");
  kc_arg null[] = {kc_arg_array(NULL), kc_arg_array(b), kc_arg_i32(8)};
  ck_assert_int_eq(kc_launch(k, g, bl, 0, NULL, null, 3), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx),
                   "kernel 'add': argument 1 ('a'): expected float32[:], got a NULL array");
  kc_context *other = cpu_context();
  kc_array *oa;
  ck_assert_int_eq(kc_array_new(other, KC_FLOAT32, 1, s1, &oa), KC_OK);
  kc_arg foreign[] = {kc_arg_array(a), kc_arg_array(oa), kc_arg_i32(8)};
  ck_assert_int_eq(kc_launch(k, g, bl, 0, NULL, foreign, 3), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx),
                   "kernel 'add': argument 2 ('b'): the array belongs to another context");
  kc_array_free(oa);
  kc_context_free(other);

  /* a is written, b is read-only (noalias): they must not overlap */
  kc_array *va, *vb;
  ck_assert_int_eq(kc_array_view(a, 0, 6, &va), KC_OK);
  ck_assert_int_eq(kc_array_view(a, 5, 8, &vb), KC_OK);
  kc_arg alias[] = {kc_arg_array(va), kc_arg_array(vb), kc_arg_i32(1)};
  ck_assert_int_eq(kc_launch(k, g, bl, 0, NULL, alias, 3), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx),
                   "kernel 'add': argument 1 ('a') is written by the kernel and overlaps "
                   "argument 2 ('b'), which it only reads (compiled as not aliased); pass "
                   "separate arrays");
  kc_array_free(vb);
  ck_assert_int_eq(kc_array_view(a, 6, 8, &vb), KC_OK);   /* adjacent is fine */
  alias[1] = kc_arg_array(vb);
  ck_assert_int_eq(kc_launch(k, g, kc_dim(2), 0, NULL, alias, 3), KC_OK);
  kc_array_free(va);
  kc_array_free(vb);

  /* a good launch, with a uint8 scalar widened to int32 */
  float ha[8], hb[8];
  for (int i = 0; i < 8; i++) {
    ha[i] = (float)i;
    hb[i] = 10.0f;
  }
  ck_assert_int_eq(kc_array_copy_from_host(a, ha, sizeof ha), KC_OK);
  ck_assert_int_eq(kc_array_copy_from_host(b, hb, sizeof hb), KC_OK);
  kc_arg good[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_int(KC_UINT8, 6)};
  ck_assert_int_eq(kc_launch(k, kc_dim(2), kc_dim(4), 0, NULL, good, 3), KC_OK);
  ck_assert_int_eq(kc_array_to_host(a, ha, sizeof ha), KC_OK);
  for (int i = 0; i < 8; i++) ck_assert_float_eq(ha[i], i < 6 ? (float)i + 10.0f : (float)i);

  kc_array_free(a);
  kc_array_free(b);
  kc_array_free(i2);
  kc_module_free(m);
  kc_context_free(ctx);
}
END_TEST

/* kc_config.wrap_int_args (kcc's Python package): an integer out of its parameter's range
 * is wrapped to the type's width, as ctypes (Numba's argument passing) wraps; expected
 * values are C's own conversions. Floats are not wrapped. */
START_TEST(wrapped_int_args) {
  kc_context *ctx = cpu_context_wrapping(1);
  kc_module *m = table_module(ctx);
  kc_kernel *k;
  ck_assert_int_eq(kc_module_get_kernel(m, "scalars", &k), KC_OK);
  ck_assert_int_eq(kc_kernel_cooperative(k), 0);   /* no grid sync */
  int64_t s1[1] = {6}, out[6];
  kc_array *o;
  ck_assert_int_eq(kc_array_new(ctx, KC_INT64, 1, s1, &o), KC_OK);
  kc_arg args[] = {kc_arg_array(o), kc_arg_i64(200), kc_arg_i64(-1), kc_arg_i64(-2),
                   kc_arg_f32(1.25f), kc_arg_i64(256), kc_arg_i64(-3)};
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 7), KC_OK);
  ck_assert_int_eq(kc_array_to_host(o, out, sizeof out), KC_OK);
  ck_assert_int_eq(out[0], (int8_t)200);
  ck_assert_int_eq(out[1], (uint16_t)-1);
  ck_assert_int_eq(out[2], -2);
  ck_assert_int_eq(out[4], 1);   /* bool: 256 is true, not its low byte */
  args[6] = kc_arg_f64(1e300);   /* a float out of float32's range still fails */
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 7), KC_ERR_LAUNCH);
  kc_array_free(o);
  kc_module_free(m);
  kc_context_free(ctx);
}
END_TEST

START_TEST(scalar_conversion) {
  kc_context *ctx = cpu_context();
  kc_module *m = table_module(ctx);
  kc_kernel *k;
  ck_assert_int_eq(kc_module_get_kernel(m, "scalars", &k), KC_OK);
  int64_t s1[1] = {6}, out[6];
  kc_array *o;
  ck_assert_int_eq(kc_array_new(ctx, KC_INT64, 1, s1, &o), KC_OK);
  kc_arg args[] = {kc_arg_array(o), kc_arg_i32(-128), kc_arg_i64(65535),
                   kc_arg_int(KC_UINT64, 0), kc_arg_f32(1.25f), kc_arg_bool(1),
                   kc_arg_i64(-3)};
  args[3].v.u = UINT64_MAX;
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 7), KC_OK);
  ck_assert_int_eq(kc_array_to_host(o, out, sizeof out), KC_OK);
  ck_assert_int_eq(out[0], -128);
  ck_assert_int_eq(out[1], 65535);
  ck_assert_int_eq(out[2], -1);   /* UINT64_MAX's bits */
  ck_assert_int_eq(out[3], 2);
  ck_assert_int_eq(out[4], 1);
  ck_assert_int_eq(out[5], -12);

  args[1] = kc_arg_i32(128);
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 7), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx), "kernel 'scalars': argument 2 ('a'): value 128 does not "
                                       "fit int8");
  args[1] = kc_arg_i32(0);
  args[2] = kc_arg_i32(-1);
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 7), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx), "kernel 'scalars': argument 3 ('b'): value -1 does not "
                                       "fit uint16");
  args[2] = kc_arg_i32(0);
  args[3] = kc_arg_i64(-5);
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 7), KC_ERR_LAUNCH);
  args[3] = kc_arg_u32(5);
  args[5] = kc_arg_i32(2);
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 7), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx), "kernel 'scalars': argument 6 ('e'): value 2 does not "
                                       "fit bool");
  args[5] = kc_arg_bool(0);
  args[6] = kc_arg_f64(1e300);
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 7), KC_ERR_LAUNCH);
  ck_assert_str_eq(kc_last_error(ctx), "kernel 'scalars': argument 7 ('f'): value 1e+300 does "
                                       "not fit float32");
  args[6] = kc_arg_int(KC_DTYPE_COUNT, 1);
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 7), KC_ERR_LAUNCH);
  kc_array_free(o);
  kc_module_free(m);
  kc_context_free(ctx);
}
END_TEST

START_TEST(launch_shapes) {
  kc_context *ctx = cpu_context();
  kc_module *m = table_module(ctx);
  kc_kernel *k;
  ck_assert_int_eq(kc_module_get_kernel(m, "add", &k), KC_OK);
  int64_t s1[1] = {4};
  kc_array *a, *b;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, s1, &a), KC_OK);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, s1, &b), KC_OK);
  kc_arg args[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_i32(0)};
  struct {
    kc_dim3 grid, block;
    size_t shared;
    const char *msg;
  } cases[] = {
      {{0, 1, 1}, {32, 1, 1}, 0,
       "kernel 'add': launch shape grid (0, 1, 1), block (32, 1, 1) has a zero dimension"},
      {{1, 1, 1}, {32, 0, 1}, 0,
       "kernel 'add': launch shape grid (1, 1, 1), block (32, 0, 1) has a zero dimension"},
      {{1, 1, 1}, {2048, 1, 1}, 0,
       "kernel 'add': block dimension x = 2048 exceeds the device limit 1024"},
      {{1, 1, 1}, {1, 1, 65}, 0,
       "kernel 'add': block dimension z = 65 exceeds the device limit 64"},
      {{1, 1, 1}, {32, 32, 2}, 0,
       "kernel 'add': a block of 2048 threads (32 x 32 x 2) exceeds the limit of 1024 "
       "threads per block"},
      {{1, 65536, 1}, {1, 1, 1}, 0,
       "kernel 'add': grid dimension y = 65536 exceeds the device limit 65535"},
      {{2147483648u, 1, 1}, {1, 1, 1}, 0,
       "kernel 'add': grid dimension x = 2147483648 exceeds the device limit 2147483647"},
      {{1, 1, 1}, {1, 1, 1}, 49153,
       "kernel 'add': 49153 bytes of shared memory (0 static + 49153 dynamic) exceed the "
       "device limit of 49152 per block"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(kc_launch(k, cases[i].grid, cases[i].block, cases[i].shared, NULL, args, 3),
                     KC_ERR_LAUNCH);
    ck_assert_str_eq(kc_last_error(ctx), cases[i].msg);
  }
  /* the limits themselves are fine */
  ck_assert_int_eq(kc_launch(k, kc_dim3_(1, 65535, 1), kc_dim3_(1, 1, 64), 49152, NULL, args, 3),
                   KC_OK);
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim3_(16, 16, 4), 0, NULL, args, 3), KC_OK);
  kc_array_free(a);
  kc_array_free(b);
  kc_module_free(m);
  kc_context_free(ctx);
}
END_TEST

/* ---- streams and events ---------------------------------------------------------------- */
START_TEST(streams_and_events) {
  kc_context *ctx = cpu_context();
  kc_module *m = table_module(ctx);
  kc_kernel *k;
  ck_assert_int_eq(kc_module_get_kernel(m, "add", &k), KC_OK);
  kc_stream *s;
  kc_event *e0, *e1;
  ck_assert_int_eq(kc_stream_new(ctx, &s), KC_OK);
  ck_assert_int_eq(kc_event_new(ctx, &e0), KC_OK);
  ck_assert_int_eq(kc_event_new(ctx, &e1), KC_OK);
  float ms = -1;
  ck_assert_int_eq(kc_event_elapsed_ms(e0, e1, &ms), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx), "event elapsed: both events must be recorded");
  ck_assert_int_eq(kc_event_synchronize(e0), KC_ERR_INVALID);
  int64_t n = 1 << 16, s1[1] = {n};
  kc_array *a, *b;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, s1, &a), KC_OK);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, s1, &b), KC_OK);
  ck_assert_int_eq(kc_array_zero(a), KC_OK);
  ck_assert_int_eq(kc_array_zero(b), KC_OK);
  kc_arg args[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_i64(n)};
  ck_assert_int_eq(kc_event_record(e0, s), KC_OK);
  for (int i = 0; i < 10; i++)
    ck_assert_int_eq(kc_launch(k, kc_dim((unsigned)(n / 256)), kc_dim(256), 0, s, args, 3), KC_OK);
  ck_assert_int_eq(kc_event_record(e1, s), KC_OK);
  ck_assert_int_eq(kc_event_synchronize(e1), KC_OK);
  ck_assert_int_eq(kc_stream_synchronize(s), KC_OK);
  ck_assert_int_eq(kc_event_elapsed_ms(e0, e1, &ms), KC_OK);
  ck_assert_float_ge(ms, 0.0f);
  ck_assert_float_lt(ms, 60000.0f);
  /* handles of another context are refused */
  kc_context *other = cpu_context();
  kc_stream *os;
  ck_assert_int_eq(kc_stream_new(other, &os), KC_OK);
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, os, args, 3), KC_ERR_INVALID);
  ck_assert_int_eq(kc_event_record(e0, os), KC_ERR_INVALID);
  kc_stream_free(os);
  kc_context_free(other);
  kc_array_free(a);
  kc_array_free(b);
  kc_event_free(e0);
  kc_event_free(e1);
  kc_stream_free(s);
  kc_stream_free(NULL);
  kc_event_free(NULL);
  kc_module_free(m);
  kc_context_free(ctx);
}
END_TEST

/* ---- out of memory ------------------------------------------------------------------------ */
typedef struct counting_alloc {
  int left;        /* allocations that will still succeed; -1 = all */
  long live;       /* bytes allocated and not freed */
} counting_alloc;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  counting_alloc *c = ud;
  if (nsize == 0) {
    c->live -= (long)osize;
    free(ptr);
    return NULL;
  }
  if (c->left == 0) return NULL;
  if (c->left > 0) c->left--;
  void *p = realloc(ptr, nsize);
  if (p) c->live += (long)nsize - (long)(ptr ? osize : 0);
  return p;
}

/* Everything a program does once, with the n-th allocation failing. */
static int scenario(counting_alloc *c) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 2;
  cfg.alloc = failing_alloc;
  cfg.user_data = c;
  kc_context *ctx;
  if (kc_context_new(&cfg, &ctx) != KC_OK) return 1;
  int failures = 0;
  kc_module *m = NULL;
  kc_kernel *k;
  kc_array *a = NULL, *b = NULL, *v = NULL;
  kc_stream *s = NULL;
  kc_event *e = NULL;
  void *h = NULL;
  int64_t s1[1] = {1024};
  kcc_kernel t;
  memset(&t, 0, sizeof t);
  t.name = "add";
  t.symbol = "add";
  t.signature = "add(float32[:], float32[:], int32)";
  t.nparams = 3;
  t.params = add_params;
  kc_cpu_block_fn f0 = add_block;
  memcpy(&t.block_fn, &f0, sizeof f0);
  kc_status st;
#define TRY(call)                                                          \
  do {                                                                     \
    st = (call);                                                           \
    if (st != KC_OK) {                                                     \
      ck_assert_int_eq(st, KC_ERR_NOMEM);                                  \
      ck_assert_str_ne(kc_last_error(ctx), "");                            \
      failures++;                                                          \
    }                                                                      \
  } while (0)
  TRY(rt_module_from_kernels(ctx, &t, 1, NULL, 0, &m));
  TRY(kc_array_new(ctx, KC_FLOAT32, 1, s1, &a));
  TRY(kc_array_new(ctx, KC_FLOAT32, 1, s1, &b));
  if (a) TRY(kc_array_view(a, 0, 512, &v));
  TRY(kc_stream_new(ctx, &s));
  TRY(kc_event_new(ctx, &e));
  TRY(kc_host_alloc(ctx, 64, &h));
  if (m && a && b && kc_module_get_kernel(m, "add", &k) == KC_OK) {
    kc_arg args[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_i32(0)};
    TRY(kc_launch(k, kc_dim(4), kc_dim(256), 0, NULL, args, 3));
  }
#undef TRY
  kc_host_free(ctx, h);
  kc_event_free(e);
  kc_stream_free(s);
  kc_array_free(v);
  kc_array_free(a);
  kc_array_free(b);
  kc_module_free(m);
  kc_context_free(ctx);
  return failures;
}

START_TEST(out_of_memory_everywhere) {
  counting_alloc c = {-1, 0};
  ck_assert_int_eq(scenario(&c), 0);
  ck_assert_int_eq(c.live, 0);
  /* fail the n-th allocation for every n until the scenario runs clean */
  int n;
  for (n = 0; n < 200; n++) {
    c.left = n;
    c.live = 0;
    int f = scenario(&c);
    ck_assert_int_eq(c.live, 0);   /* nothing leaked on any path */
    if (f == 0) break;
  }
  ck_assert_int_lt(n, 200);
  ck_assert_int_gt(n, 5);
}
END_TEST

static Suite *runtime_suite(void) {
  Suite *s = suite_create("runtime");
  TCase *tc = tcase_create("api");
  tcase_add_test(tc, names_and_sizes);
  tcase_add_test(tc, compile_file_refuses_non_sources);
  tcase_add_test(tc, config_defaults);
  tcase_add_test(tc, config_zero_resolves);
  tcase_add_test(tc, device_selection);
  tcase_add_test(tc, cuda_without_driver);
  tcase_add_test(tc, detect_text);
  tcase_add_test(tc, array_round_trip);
  tcase_add_test(tc, array_bad_shapes);
  tcase_add_test(tc, array_views);
  tcase_add_test(tc, host_memory);
  tcase_add_test(tc, kernels_by_name);
  tcase_add_test(tc, ptx_without_a_gpu);
  tcase_add_test(tc, texts_without_loading);
  tcase_add_test(tc, kernel_error_records);
  tcase_add_test(tc, argument_checks);
  tcase_add_test(tc, wrapped_int_args);
  tcase_add_test(tc, scalar_conversion);
  tcase_add_test(tc, launch_shapes);
  tcase_add_test(tc, streams_and_events);
  tcase_add_test(tc, out_of_memory_everywhere);
  tcase_add_test(tc, record_chain);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(runtime_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
