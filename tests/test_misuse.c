/*
 * test_misuse.c — the runtime used wrongly, through compiled kernels on the CPU device:
 * launches with the wrong arguments, shapes or shared memory; freed arrays; handles of
 * another context; copies of the wrong size; a context whose CUDA device is missing.
 * Every misuse must return a status with a message that names the problem, crash
 * nothing, and leave the context usable: after each, a valid launch runs and its
 * results are checked against values computed here.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static const char source[] =
    "from numba import cuda, float32\n"
    "\n"
    "\n"
    "@cuda.jit\n"
    "def scale(a: float32[:], k: float32):\n"
    "    i = cuda.grid(1)\n"
    "    if i < a.size:\n"
    "        a[i] = a[i] * k\n";

/* Its own module: the CPU back end lays out static shared memory per module, so every
 * kernel of a module is charged for all of it. */
static const char big_source[] =
    "from numba import cuda, float32\n"
    "\n"
    "\n"
    "@cuda.jit\n"
    "def big_shared(a: float32[:]):\n"
    "    s = cuda.shared.array(16384, float32)\n"   /* 64 KiB: over the 48 KiB limit */
    "    s[cuda.threadIdx.x] = 1.0\n"
    "    cuda.syncthreads()\n"
    "    a[0] = s[0]\n";

#define N 100

static kc_context *ctx;
static kc_module *mod;
static kc_kernel *scale;

static kc_context *new_cpu_context(void) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 2;
  kc_context *c = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &c), KC_OK);
  return c;
}

static void setup(void) {
  ctx = new_cpu_context();
  ck_assert_int_eq(kc_compile_source(ctx, "misuse.k", source, sizeof source - 1, NULL, &mod),
                   KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(mod, "scale", &scale), KC_OK);
}

static void teardown(void) {
  kc_module_free(mod);
  kc_context_free(ctx);
}

static kc_array *filled(kc_context *c, int64_t n) {
  float h[N];
  for (int i = 0; i < n; i++) h[i] = (float)i + 1.0f;
  kc_array *a = NULL;
  ck_assert_int_eq(kc_array_from_host(c, KC_FLOAT32, 1, &n, h, (size_t)n * sizeof *h, &a), KC_OK);
  return a;
}

/* The context still works: scale a fresh array by 3 and check every element. */
static void still_usable(void) {
  kc_array *a = filled(ctx, N);
  kc_arg args[] = {kc_arg_array(a), kc_arg_f32(3.0f)};
  ck_assert_int_eq(kc_launch(scale, kc_dim(4), kc_dim(32), 0, NULL, args, 2), KC_OK);
  ck_assert_int_eq(kc_synchronize(ctx), KC_OK);
  float h[N];
  ck_assert_int_eq(kc_array_to_host(a, h, sizeof h), KC_OK);
  for (int i = 0; i < N; i++) ck_assert_float_eq(h[i], 3.0f * ((float)i + 1.0f));
  kc_array_free(a);
}

/* s is the status, and the last error contains `needle`; then the context works. */
static void expect(kc_status s, kc_status want, const char *needle) {
  ck_assert_msg(s == want, "got %s, want %s (%s)", kc_status_name(s), kc_status_name(want),
                kc_last_error(ctx));
  ck_assert_msg(strstr(kc_last_error(ctx), needle), "'%s' lacks '%s'", kc_last_error(ctx),
                needle);
  still_usable();
}

static kc_status launch(kc_dim3 g, kc_dim3 b, size_t shared, const kc_arg *args, int n) {
  return kc_launch(scale, g, b, shared, NULL, args, n);
}

START_TEST(wrong_arguments) {
  kc_array *a = filled(ctx, N);
  int64_t shape2[2] = {10, 10};
  kc_array *ints, *two_d;
  ck_assert_int_eq(kc_array_new(ctx, KC_INT32, 1, (int64_t[]){N}, &ints), KC_OK);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 2, shape2, &two_d), KC_OK);
  kc_arg one[] = {kc_arg_array(a)};
  expect(launch(kc_dim(1), kc_dim(32), 0, one, 1), KC_ERR_LAUNCH,
         "kernel 'scale': expected 2 arguments (scale(float32[:], float32)), got 1");
  kc_arg three[] = {kc_arg_array(a), kc_arg_f32(1), kc_arg_f32(1)};
  expect(launch(kc_dim(1), kc_dim(32), 0, three, 3), KC_ERR_LAUNCH, "got 3");
  /* a NULL pointer is a bad argument to the call, as for every kc_ call (kc.h) */
  expect(launch(kc_dim(1), kc_dim(32), 0, NULL, 2), KC_ERR_INVALID,
         "kc_launch: args (with nargs > 0) is NULL");
  kc_arg dtype[] = {kc_arg_array(ints), kc_arg_f32(1)};
  expect(launch(kc_dim(1), kc_dim(32), 0, dtype, 2), KC_ERR_LAUNCH,
         "argument 1 ('a'): expected float32[:], got int32[:]");
  kc_arg rank[] = {kc_arg_array(two_d), kc_arg_f32(1)};
  expect(launch(kc_dim(1), kc_dim(32), 0, rank, 2), KC_ERR_LAUNCH,
         "expected float32[:], got float32[:, :]");
  kc_arg scalar_for_array[] = {kc_arg_f32(1), kc_arg_f32(1)};
  expect(launch(kc_dim(1), kc_dim(32), 0, scalar_for_array, 2), KC_ERR_LAUNCH,
         "expected float32[:], got float32");
  kc_arg array_for_scalar[] = {kc_arg_array(a), kc_arg_array(a)};
  expect(launch(kc_dim(1), kc_dim(32), 0, array_for_scalar, 2), KC_ERR_LAUNCH,
         "argument 2 ('k'): expected float32, got float32[:]");
  kc_arg null_array[] = {kc_arg_array(NULL), kc_arg_f32(1)};
  expect(launch(kc_dim(1), kc_dim(32), 0, null_array, 2), KC_ERR_LAUNCH, "got a NULL array");
  kc_arg too_big[] = {kc_arg_array(a), kc_arg_f64(1e300)};
  expect(launch(kc_dim(1), kc_dim(32), 0, too_big, 2), KC_ERR_LAUNCH,
         "value 1e+300 does not fit float32");
  kc_arg bad_dtype[] = {kc_arg_array(a), kc_arg_int((kc_dtype)99, 1)};
  expect(launch(kc_dim(1), kc_dim(32), 0, bad_dtype, 2), KC_ERR_LAUNCH, "argument 2");
  ck_assert_int_eq(kc_launch(NULL, kc_dim(1), kc_dim(1), 0, NULL, one, 1), KC_ERR_INVALID);
  kc_array_free(two_d);
  kc_array_free(ints);
  kc_array_free(a);
}
END_TEST

/* A host buffer whose size is not the array's: refused both ways, nothing read. */
START_TEST(host_byte_counts) {
  float h[N] = {0};
  int64_t n = N;
  kc_array *a = (kc_array *)1;
  expect(kc_array_from_host(ctx, KC_FLOAT32, 1, &n, h, sizeof h - 1, &a), KC_ERR_INVALID,
         "kc_array_from_host: the array holds 400 bytes, the host buffer 399");
  ck_assert_ptr_null(a);
  expect(kc_array_from_host(ctx, KC_FLOAT64, 1, &n, h, sizeof h, &a), KC_ERR_INVALID,
         "holds 800 bytes, the host buffer 400");
  kc_record_field f[2] = {{"x", KC_FLOAT32, NULL, 0, 0, {0}}, {"y", KC_FLOAT32, NULL, 4, 0, {0}}};
  kc_record *r = NULL;
  ck_assert_int_eq(kc_record_new(ctx, f, 2, 8, 0, &r), KC_OK);
  expect(kc_array_from_host_records(ctx, r, 1, &n, h, sizeof h, &a), KC_ERR_INVALID,
         "kc_array_from_host_records: the array holds 800 bytes, the host buffer 400");
  ck_assert_ptr_null(a);
  kc_record_free(r);
  a = filled(ctx, N);
  expect(kc_array_to_host(a, h, sizeof h + 4), KC_ERR_INVALID,
         "the array holds 400 bytes, the host buffer 404");
  kc_array_free(a);
}
END_TEST

START_TEST(bad_shapes) {
  kc_array *a = filled(ctx, N);
  kc_arg args[] = {kc_arg_array(a), kc_arg_f32(2)};
  expect(launch(kc_dim(0), kc_dim(32), 0, args, 2), KC_ERR_LAUNCH, "has a zero dimension");
  expect(launch(kc_dim(1), kc_dim(0), 0, args, 2), KC_ERR_LAUNCH, "has a zero dimension");
  expect(launch(kc_dim(1), kc_dim2(32, 0), 0, args, 2), KC_ERR_LAUNCH, "zero dimension");
  expect(launch(kc_dim(1), kc_dim(1025), 0, args, 2), KC_ERR_LAUNCH,
         "block dimension x = 1025 exceeds the device limit 1024");
  expect(launch(kc_dim(1), kc_dim3_(1, 1, 65), 0, args, 2), KC_ERR_LAUNCH,
         "block dimension z = 65 exceeds the device limit 64");
  expect(launch(kc_dim(1), kc_dim2(64, 32), 0, args, 2), KC_ERR_LAUNCH,
         "a block of 2048 threads (64 x 32 x 1) exceeds the limit of 1024");
  expect(launch(kc_dim2(1, 65536), kc_dim(32), 0, args, 2), KC_ERR_LAUNCH,
         "grid dimension y = 65536 exceeds the device limit 65535");
  expect(launch(kc_dim(0x7fffffffu), kc_dim(2), 0, args, 2), KC_ERR_LAUNCH,
         "at most 2147483647 per axis");
  kc_array_free(a);
}
END_TEST

START_TEST(shared_memory_limit) {
  kc_array *a = filled(ctx, N);
  kc_arg args[] = {kc_arg_array(a), kc_arg_f32(2)};
  kc_device_info info;
  ck_assert_int_eq(kc_context_device_info(ctx, &info), KC_OK);
  ck_assert_uint_eq(info.max_shared_per_block, 48 * 1024);
  expect(launch(kc_dim(1), kc_dim(32), 48 * 1024 + 1, args, 2), KC_ERR_LAUNCH,
         "49153 bytes of shared memory (0 static + 49153 dynamic) exceed the device limit "
         "of 49152 per block");
  expect(launch(kc_dim(1), kc_dim(32), (size_t)-1, args, 2), KC_ERR_LAUNCH,
         "exceed the device limit");
  /* exactly the limit is fine */
  ck_assert_int_eq(launch(kc_dim(4), kc_dim(32), 48 * 1024, args, 2), KC_OK);
  kc_module *big_mod;
  kc_kernel *big;
  ck_assert_int_eq(kc_compile_source(ctx, "big.k", big_source, sizeof big_source - 1, NULL,
                                     &big_mod), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(big_mod, "big_shared", &big), KC_OK);
  kc_arg one[] = {kc_arg_array(a)};
  expect(kc_launch(big, kc_dim(1), kc_dim(32), 0, NULL, one, 1), KC_ERR_LAUNCH,
         "kernel 'big_shared': 65536 bytes of shared memory (65536 static + 0 dynamic)");
  kc_module_free(big_mod);
  kc_array_free(a);
}
END_TEST

/* A module, stream or event freed twice, or used after its free: KC_ERR_INVALID naming
 * the call, never a read of freed memory (issue 18); the context goes on working. */
START_TEST(freed_handles) {
  kc_module *m = NULL;
  kc_kernel *k = NULL;
  kc_stream *s = NULL;
  kc_event *e = NULL;
  ck_assert_int_eq(kc_compile_source(ctx, "again.k", source, sizeof source - 1, NULL, &m), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(m, "scale", &k), KC_OK);
  ck_assert_int_eq(kc_stream_new(ctx, &s), KC_OK);
  ck_assert_int_eq(kc_event_new(ctx, &e), KC_OK);
  kc_array *a = filled(ctx, N);
  kc_arg args[] = {kc_arg_array(a), kc_arg_f32(2)};
  kc_module_free(m);
  expect(kc_launch(k, kc_dim(4), kc_dim(32), 0, NULL, args, 2), KC_ERR_INVALID,
         "kc_launch: the kernel's module was already freed");
  kc_kernel *k2 = NULL;
  expect(kc_module_get_kernel(m, "scale", &k2), KC_ERR_INVALID,
         "kc_module_get_kernel: the module was already freed");
  kc_module_free(m);
  ck_assert_str_eq(kc_last_error(ctx), "kc_module_free: the module was already freed");
  kc_stream_free(s);
  expect(kc_launch(scale, kc_dim(4), kc_dim(32), 0, s, args, 2), KC_ERR_INVALID,
         "kc_launch: the stream was already freed");
  expect(kc_stream_synchronize(s), KC_ERR_INVALID,
         "kc_stream_synchronize: the stream was already freed");
  expect(kc_event_record(e, s), KC_ERR_INVALID, "kc_event_record: the stream was already freed");
  kc_stream_free(s);
  ck_assert_str_eq(kc_last_error(ctx), "kc_stream_free: the stream was already freed");
  kc_event_free(e);
  expect(kc_event_record(e, NULL), KC_ERR_INVALID, "kc_event_record: the event was already freed");
  expect(kc_event_synchronize(e), KC_ERR_INVALID,
         "kc_event_synchronize: the event was already freed");
  kc_event_free(e);
  ck_assert_str_eq(kc_last_error(ctx), "kc_event_free: the event was already freed");
  /* more frees than the graveyard keeps: the oldest handles are really freed */
  for (int i = 0; i < RT_GRAVEYARD + 10; i++) {
    ck_assert_int_eq(kc_stream_new(ctx, &s), KC_OK);
    kc_stream_free(s);
  }
  kc_array_free(a);
  still_usable();
}
END_TEST

START_TEST(freed_arrays) {
  kc_array *a = filled(ctx, N), *b = filled(ctx, N);
  kc_array_free(b);   /* b is now a freed handle: every use is caught */
  kc_arg args[] = {kc_arg_array(b), kc_arg_f32(2)};
  expect(launch(kc_dim(4), kc_dim(32), 0, args, 2), KC_ERR_LAUNCH,
         "argument 1 ('a'): the array was freed (kc_array_free)");
  float h[N];
  expect(kc_array_to_host(b, h, sizeof h), KC_ERR_INVALID, "the array was freed");
  expect(kc_array_copy_from_host(b, h, sizeof h), KC_ERR_INVALID, "the array was freed");
  expect(kc_array_copy(a, b), KC_ERR_INVALID, "array copy: source: the array was freed");
  expect(kc_array_copy(b, a), KC_ERR_INVALID, "array copy: destination: the array was freed");
  expect(kc_array_zero(b), KC_ERR_INVALID, "array zero: the array was freed");
  float one = 1;
  expect(kc_array_fill(b, &one), KC_ERR_INVALID, "array fill: the array was freed");
  kc_array *v = NULL;
  expect(kc_array_view(b, 0, 1, &v), KC_ERR_INVALID, "array view: the array was freed");
  ck_assert_ptr_null(v);
  expect(kc_array_like(b, &v), KC_ERR_INVALID, "array like: the array was freed");
  kc_array_free(b);   /* a second free does nothing */
  /* an owner freed while a view of it lives: the view works, the owner is dead */
  ck_assert_int_eq(kc_array_view(a, 10, 20, &v), KC_OK);
  kc_array_free(a);
  expect(kc_array_zero(a), KC_ERR_INVALID, "the array was freed");
  ck_assert_int_eq(kc_array_to_host(v, h, 10 * sizeof(float)), KC_OK);
  for (int i = 0; i < 10; i++) ck_assert_float_eq(h[i], (float)(i + 11));
  kc_array_free(v);
  kc_array_free(v);
  /* more frees than the graveyard keeps: the oldest handles are really freed */
  for (int i = 0; i < RT_GRAVEYARD + 10; i++) kc_array_free(filled(ctx, 4));
  still_usable();
}
END_TEST

START_TEST(other_context) {
  kc_context *other = new_cpu_context();
  kc_array *theirs = filled(other, N), *mine = filled(ctx, N);
  kc_arg args[] = {kc_arg_array(theirs), kc_arg_f32(2)};
  expect(launch(kc_dim(4), kc_dim(32), 0, args, 2), KC_ERR_LAUNCH,
         "argument 1 ('a'): the array belongs to another context");
  expect(kc_array_copy(mine, theirs), KC_ERR_INVALID, "the arrays belong to two contexts");
  kc_stream *stream;
  ck_assert_int_eq(kc_stream_new(other, &stream), KC_OK);
  kc_arg ok[] = {kc_arg_array(mine), kc_arg_f32(2)};
  expect(kc_launch(scale, kc_dim(4), kc_dim(32), 0, stream, ok, 2), KC_ERR_INVALID,
         "the stream belongs to another context");
  /* a kernel of a module compiled on the other context, with this one's array: the
     error is the kernel's context's */
  kc_module *their_mod;
  kc_kernel *their_scale;
  ck_assert_int_eq(kc_compile_source(other, "misuse.k", source, sizeof source - 1, NULL,
                                     &their_mod), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(their_mod, "scale", &their_scale), KC_OK);
  ck_assert_int_eq(kc_launch(their_scale, kc_dim(4), kc_dim(32), 0, NULL, ok, 2), KC_ERR_LAUNCH);
  ck_assert_ptr_nonnull(strstr(kc_last_error(other), "belongs to another context"));
  still_usable();
  kc_stream_free(stream);
  kc_module_free(their_mod);
  kc_array_free(theirs);
  kc_array_free(mine);
  kc_context_free(other);
}
END_TEST

START_TEST(copy_sizes) {
  kc_array *a = filled(ctx, N), *half = filled(ctx, N / 2), *ints;
  ck_assert_int_eq(kc_array_new(ctx, KC_INT32, 1, (int64_t[]){N}, &ints), KC_OK);
  expect(kc_array_copy(a, half), KC_ERR_INVALID,
         "array copy: source is float32 of 50 elements, destination float32 of 100");
  expect(kc_array_copy(a, ints), KC_ERR_INVALID, "source is int32 of 100 elements");
  float h[N];
  expect(kc_array_to_host(a, h, sizeof h - 4), KC_ERR_INVALID,
         "the array holds 400 bytes, the host buffer 396");
  expect(kc_array_copy_from_host(a, h, sizeof h + 4), KC_ERR_INVALID, "the host buffer 404");
  expect(kc_array_to_host(a, NULL, sizeof h), KC_ERR_INVALID, "kc_array_to_host: host is NULL");
  expect(kc_array_view(a, 5, 200, &(kc_array *){NULL}), KC_ERR_INVALID,
         "array view [5, 200) is outside [0, 100)");
  expect(kc_array_new(ctx, KC_FLOAT32, 1, (int64_t[]){-1}, &(kc_array *){NULL}),
         KC_ERR_INVALID, "extent 0 is negative");
  expect(kc_array_new(ctx, KC_FLOAT32, 3, (int64_t[]){1LL << 40, 1LL << 40, 1LL << 40},
                      &(kc_array *){NULL}), KC_ERR_INVALID, "overflows");
  kc_array_free(ints);
  kc_array_free(half);
  kc_array_free(a);
}
END_TEST

START_TEST(bad_source) {
  kc_module *m = NULL;
  expect(kc_compile_source(ctx, "bad.k", "@cuda.jit\ndef (:\n", 17, NULL, &m), KC_ERR_SYNTAX,
         "bad.k:2:");
  ck_assert_ptr_null(m);
  expect(kc_compile_source(ctx, "bad.k", NULL, 0, NULL, &m), KC_ERR_INVALID, "source is NULL");
  kc_kernel *k;
  expect(kc_module_get_kernel(mod, "nope", &k), KC_ERR_NOT_FOUND, "no kernel named 'nope'");
}
END_TEST

/* Record fields whose size overflows, or nested arrays of more dimensions than a
 * record takes: refused at kc_record_new, never a record a kernel then overruns. */
START_TEST(record_field_bounds) {
  kc_record_field huge = {"v", KC_INT32, NULL, 0, 1, {(int64_t)1 << 62}};
  kc_record *r = NULL;
  expect(kc_record_new(ctx, &huge, 1, 8, 0, &r), KC_ERR_INVALID, "does not fit in 8 bytes");
  ck_assert_ptr_null(r);
  kc_record_field wrap = {"w", KC_INT8, NULL, 0, 2, {(int64_t)1 << 32, (int64_t)1 << 32}};
  expect(kc_record_new(ctx, &wrap, 1, 8, 0, &r), KC_ERR_INVALID, "does not fit in 8 bytes");
  kc_record_field four = {"d", KC_INT8, NULL, 0, 4, {1, 1, 1, 1}};
  expect(kc_record_new(ctx, &four, 1, 8, 0, &r), KC_ERR_INVALID, "ndim is 0..3");
  ck_assert_ptr_null(r);
}
END_TEST

/* kc_config.cpu_threads past what a process can hold (each worker has stacks): refused,
 * naming the setting and the bounds, before any thread is made. */
START_TEST(cpu_threads_bounds) {
  const int bad[] = {-1, 4097, 100000};
  for (int i = 0; i < 3; i++) {
    kc_config cfg;
    kc_config_init(&cfg);
    cfg.device = KC_DEVICE_CPU;
    cfg.cpu_threads = bad[i];
    kc_context *c = NULL;
    ck_assert_int_eq(kc_context_new(&cfg, &c), KC_ERR_INVALID);
    ck_assert_ptr_nonnull(c);
    char want[64];
    snprintf(want, sizeof want, "cpu_threads %d", bad[i]);
    ck_assert_msg(strstr(kc_last_error(c), want) && strstr(kc_last_error(c), "1..4096"),
                  "%s", kc_last_error(c));
    kc_context_free(c);
  }
}
END_TEST

/* KC_DEVICE=cuda on a machine without the driver (skipped where there is a GPU). */
START_TEST(cuda_missing) {
  int n = 0;
  if (kc_cuda_device_count(&n) == KC_OK && n > 0) return;
  kc_context *broken = NULL;
  setenv("KC_DEVICE", "cuda", 1);
  kc_status s = kc_context_new(NULL, &broken);
  unsetenv("KC_DEVICE");
  ck_assert_int_eq(s, KC_ERR_NO_DEVICE);
  ck_assert_ptr_nonnull(broken);
  char why[RT_ERR_LEN];
  snprintf(why, sizeof why, "%s", kc_last_error(broken));
  ck_assert_str_ne(why, "");
  /* every call on it says why, instead of running somewhere else */
  kc_array *a = NULL;
  ck_assert_int_eq(kc_array_new(broken, KC_FLOAT32, 1, (int64_t[]){4}, &a), KC_ERR_NO_DEVICE);
  ck_assert_ptr_null(a);
  ck_assert_ptr_nonnull(strstr(kc_last_error(broken), "this context has no device"));
  ck_assert_ptr_nonnull(strstr(kc_last_error(broken), why));
  kc_module *m = NULL;
  ck_assert_int_eq(kc_compile_source(broken, "x.k", source, sizeof source - 1, NULL, &m),
                   KC_ERR_NO_DEVICE);
  ck_assert_int_eq(kc_module_load_ptx(broken, ".version 8.0\n", 13, &m), KC_ERR_NO_DEVICE);
  kc_stream *st = NULL;
  ck_assert_int_eq(kc_stream_new(broken, &st), KC_ERR_NO_DEVICE);
  kc_event *ev = NULL;
  ck_assert_int_eq(kc_event_new(broken, &ev), KC_ERR_NO_DEVICE);
  void *p = NULL;
  ck_assert_int_eq(kc_host_alloc(broken, 16, &p), KC_ERR_NO_DEVICE);
  ck_assert_int_eq(kc_synchronize(broken), KC_ERR_NO_DEVICE);
  kc_device_info info;
  ck_assert_int_eq(kc_context_device_info(broken, &info), KC_ERR_NO_DEVICE);
  ck_assert_int_eq(kc_cuda_device_count(&n), KC_ERR_NO_DEVICE);
  ck_assert_int_eq(kc_cuda_device_info(0, &info), KC_ERR_NO_DEVICE);
  kc_context_free(broken);
  /* PTX on a CPU context */
  expect(kc_module_load_ptx(ctx, ".version 8.0\n", 13, &m), KC_ERR_UNSUPPORTED,
         "needs a CUDA device");
}
END_TEST

static Suite *misuse_suite(void) {
  Suite *s = suite_create("misuse");
  TCase *tc = tcase_create("misuse");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, wrong_arguments);
  tcase_add_test(tc, bad_shapes);
  tcase_add_test(tc, host_byte_counts);
  tcase_add_test(tc, shared_memory_limit);
  tcase_add_test(tc, freed_arrays);
  tcase_add_test(tc, freed_handles);
  tcase_add_test(tc, other_context);
  tcase_add_test(tc, copy_sizes);
  tcase_add_test(tc, bad_source);
  tcase_add_test(tc, cuda_missing);
  tcase_add_test(tc, cpu_threads_bounds);
  tcase_add_test(tc, record_field_bounds);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(misuse_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
