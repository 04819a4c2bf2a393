/*
 * test_streams.c — stream-ordered work on the CPU device: async copies, fills and
 * launches in the order they were queued on one stream, a stream waiting for an event
 * of another, kc_event_query, host callbacks in order after the work before them,
 * kc_vectorize / kc_guvectorize / kc_reduce on a stream, page-locked and registered host
 * buffers, and the argument errors with their messages. The expected values are small
 * exact float32 sums and products worked out by hand in each test. The same calls run
 * on a GPU in test_cuda_gpu.c (suite gpu).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kc.h"

#define N 1000

static const char source[] =
  "from numba import cuda, vectorize, guvectorize\n"
  "@cuda.jit('void(float32[:], float32)')\n"
  "def scale(a, f):\n"
  "    i = cuda.grid(1)\n"
  "    if i < a.size:\n"
  "        a[i] = a[i] * f\n"
  "@cuda.jit('void(float32[:], float32)')\n"
  "def shift(a, v):\n"
  "    i = cuda.grid(1)\n"
  "    if i < a.size:\n"
  "        a[i] = a[i] + v\n"
  "@vectorize(['float32(float32, float32)'])\n"
  "def vadd(x, y):\n"
  "    return x + y\n"
  "@guvectorize(['void(float32[:], float32[:])'], '(n)->()')\n"
  "def rowsum(x, r):\n"
  "    acc = float32(0)\n"
  "    for i in range(x.shape[0]):\n"
  "        acc += x[i]\n"
  "    r[0] = acc\n"
  "@cuda.reduce\n"
  "def total(a, b):\n"
  "    return a + b\n";

static kc_context *ctx;
static kc_module *mod;
static kc_kernel *scale, *shift, *vadd, *rowsum, *total;
static kc_stream *s1, *s2;

static kc_context *cpu_context(void) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 2;
  cfg.cache = 0;   /* the default (on): each case's compile after the first is a cache hit */
  kc_context *c = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &c), KC_OK);
  return c;
}

static void setup(void) {
  ctx = cpu_context();
  kc_status s = kc_compile_source(ctx, "streams.k", source, strlen(source), NULL, &mod);
  ck_assert_msg(s == KC_OK, "compile: %s", kc_last_error(ctx));
  ck_assert_int_eq(kc_module_get_kernel(mod, "scale", &scale), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(mod, "shift", &shift), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(mod, "vadd", &vadd), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(mod, "rowsum", &rowsum), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(mod, "total", &total), KC_OK);
  ck_assert_int_eq(kc_stream_new(ctx, &s1), KC_OK);
  ck_assert_int_eq(kc_stream_new(ctx, &s2), KC_OK);
}

static void teardown(void) {
  kc_stream_free(s1);
  kc_stream_free(s2);
  kc_module_free(mod);
  kc_context_free(ctx);
}

static kc_array *floats(int64_t n) {
  kc_array *a = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, &n, &a), KC_OK);
  return a;
}

/* Launch k(a, v) over a's N elements on stream s. */
static void run(kc_kernel *k, kc_array *a, float v, kc_stream *s) {
  kc_arg args[2] = {kc_arg_array(a), kc_arg_f32(v)};
  kc_status st = kc_launch(k, kc_dim((N + 127) / 128), kc_dim(128), 0, s, args, 2);
  ck_assert_msg(st == KC_OK, "launch: %s", kc_last_error(ctx));
}

static void expect_all(const float *h, int64_t n, float want) {
  for (int64_t i = 0; i < n; i++)
    ck_assert_msg(h[i] == want, "element %lld is %g, want %g", (long long)i, (double)h[i],
                  (double)want);
}

static void expect_error(kc_status got, kc_status want, const char *msg) {
  ck_assert_int_eq(got, want);
  ck_assert_str_eq(kc_last_error(ctx), msg);
}

/* Copy in, fill, launch, copy between arrays, launch, copy out: each step sees the one
 * before it. 1 -> fill 2 -> +1 = 3; b = a -> *2 = 6. */
START_TEST(one_stream_in_order) {
  float *host = NULL, *out = NULL;
  ck_assert_int_eq(kc_host_alloc(ctx, N * sizeof(float), (void **)&host), KC_OK);
  ck_assert_int_eq(kc_host_alloc(ctx, N * sizeof(float), (void **)&out), KC_OK);
  for (int i = 0; i < N; i++) host[i] = 1.0f;
  kc_array *a = floats(N), *b = floats(N);
  float two = 2.0f;
  ck_assert_int_eq(kc_array_copy_from_host_async(a, host, N * sizeof(float), s1), KC_OK);
  ck_assert_int_eq(kc_array_to_host_async(a, out, N * sizeof(float), s1), KC_OK);
  ck_assert_int_eq(kc_stream_synchronize(s1), KC_OK);
  expect_all(out, N, 1.0f);
  ck_assert_int_eq(kc_array_fill_async(a, &two, s1), KC_OK);
  run(shift, a, 1.0f, s1);
  ck_assert_int_eq(kc_array_zero_async(b, s1), KC_OK);
  ck_assert_int_eq(kc_array_copy_async(b, a, s1), KC_OK);
  run(scale, b, 2.0f, s1);
  ck_assert_int_eq(kc_array_to_host_async(b, out, N * sizeof(float), s1), KC_OK);
  ck_assert_int_eq(kc_array_to_host_async(a, host, N * sizeof(float), s1), KC_OK);
  ck_assert_int_eq(kc_stream_synchronize(s1), KC_OK);
  expect_all(out, N, 6.0f);
  expect_all(host, N, 3.0f);
  ck_assert_int_eq(kc_array_zero_async(b, NULL), KC_OK);   /* the default stream */
  ck_assert_int_eq(kc_array_to_host_async(b, out, N * sizeof(float), NULL), KC_OK);
  ck_assert_int_eq(kc_synchronize(ctx), KC_OK);
  expect_all(out, N, 0.0f);
  kc_array_free(a);
  kc_array_free(b);
  kc_host_free(ctx, host);
  kc_host_free(ctx, out);
}
END_TEST

/* s2 waits for s1's fill (5) before its launch doubles it: 10. */
START_TEST(wait_event_across_streams) {
  kc_array *a = floats(N);
  float five = 5.0f, out[N];
  kc_event *filled = NULL, *done = NULL;
  ck_assert_int_eq(kc_event_new(ctx, &filled), KC_OK);
  ck_assert_int_eq(kc_event_new(ctx, &done), KC_OK);
  ck_assert_int_eq(kc_array_fill_async(a, &five, s1), KC_OK);
  ck_assert_int_eq(kc_event_record(filled, s1), KC_OK);
  ck_assert_int_eq(kc_stream_wait_event(s2, filled), KC_OK);
  run(scale, a, 2.0f, s2);
  ck_assert_int_eq(kc_array_to_host_async(a, out, sizeof out, s2), KC_OK);
  ck_assert_int_eq(kc_event_record(done, s2), KC_OK);
  ck_assert_int_eq(kc_event_synchronize(done), KC_OK);
  expect_all(out, N, 10.0f);
  ck_assert_int_eq(kc_stream_wait_event(NULL, filled), KC_OK);  /* the default stream */
  kc_event_free(filled);
  kc_event_free(done);
  kc_array_free(a);
}
END_TEST

START_TEST(event_query) {
  kc_event *e = NULL;
  int done = -1;
  ck_assert_int_eq(kc_event_new(ctx, &e), KC_OK);
  expect_error(kc_event_query(e, &done), KC_ERR_INVALID,
               "event query: the event was never recorded (kc_event_record)");
  ck_assert_int_eq(done, 0);
  kc_array *a = floats(N);
  run(shift, a, 1.0f, s1);
  ck_assert_int_eq(kc_event_record(e, s1), KC_OK);
  /* the CPU device finishes a launch inside kc_launch: the event is done at once */
  ck_assert_int_eq(kc_event_query(e, &done), KC_OK);
  ck_assert_int_eq(done, 1);
  expect_error(kc_event_query(e, NULL), KC_ERR_INVALID, "event query: done is NULL");
  ck_assert_int_eq(kc_event_query(NULL, &done), KC_ERR_INVALID);
  kc_event_free(e);
  kc_array_free(a);
}
END_TEST

/* Host callbacks: each runs after the work queued before it (the copy has landed) and
 * in the order they were queued. */
typedef struct cb_log {
  int order[4];
  int n;
  const float *seen;    /* the host buffer the copy before the first callback fills */
  float first;          /* its first element when the first callback ran */
} cb_log;

static void first_cb(void *user) {
  cb_log *log = user;
  log->first = log->seen[0];
  log->order[log->n++] = 1;
}

static void second_cb(void *user) {
  cb_log *log = user;
  log->order[log->n++] = 2;
}

START_TEST(callbacks_in_order) {
  kc_array *a = floats(N);
  float out[N], seven = 7.0f;
  cb_log log = {{0}, 0, out, 0.0f};
  ck_assert_int_eq(kc_array_fill_async(a, &seven, s1), KC_OK);
  ck_assert_int_eq(kc_array_to_host_async(a, out, sizeof out, s1), KC_OK);
  ck_assert_int_eq(kc_stream_add_callback(s1, first_cb, &log), KC_OK);
  ck_assert_int_eq(kc_stream_add_callback(s1, second_cb, &log), KC_OK);
  ck_assert_int_eq(kc_stream_synchronize(s1), KC_OK);
  ck_assert_int_eq(log.n, 2);
  ck_assert_int_eq(log.order[0], 1);
  ck_assert_int_eq(log.order[1], 2);
  ck_assert(log.first == 7.0f);
  expect_error(kc_stream_add_callback(s1, NULL, &log), KC_ERR_INVALID,
               "stream add callback: the function is NULL");
  ck_assert_int_eq(kc_stream_add_callback(NULL, first_cb, &log), KC_ERR_INVALID);
  kc_array_free(a);
}
END_TEST

/* vadd on s1 after a fill there: 1.5 + 2.25 = 3.75; rowsum of 4 rows of 250 ones =
 * 250 each; the reduction of 1000 threes = 3000 (exact in float32). */
START_TEST(ufuncs_on_a_stream) {
  kc_array *x = floats(N), *y = floats(N), *out = NULL;
  float a = 1.5f, b = 2.25f, three = 3.0f, one = 1.0f, h[N];
  ck_assert_int_eq(kc_array_fill_async(x, &a, s1), KC_OK);
  ck_assert_int_eq(kc_array_fill_async(y, &b, s1), KC_OK);
  kc_arg args[2] = {kc_arg_array(x), kc_arg_array(y)};
  kc_ufunc_options opts;
  memset(&opts, 0, sizeof opts);
  opts.stream = s1;
  ck_assert_msg(kc_vectorize_args(vadd, args, 2, &out, &opts) == KC_OK, "%s",
                kc_last_error(ctx));
  ck_assert_int_eq(kc_array_to_host_async(out, h, sizeof h, s1), KC_OK);
  ck_assert_int_eq(kc_stream_synchronize(s1), KC_OK);
  expect_all(h, N, 3.75f);

  int64_t shape[2] = {4, 250};
  kc_array *m = NULL, *sums[1] = {NULL};
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 2, shape, &m), KC_OK);
  ck_assert_int_eq(kc_array_fill_async(m, &one, s2), KC_OK);
  ck_assert_msg(kc_guvectorize_stream(rowsum, &m, 1, sums, 1, s2) == KC_OK, "%s",
                kc_last_error(ctx));
  float r[4];
  ck_assert_int_eq(kc_array_to_host_async(sums[0], r, sizeof r, s2), KC_OK);
  ck_assert_int_eq(kc_stream_synchronize(s2), KC_OK);
  expect_all(r, 4, 250.0f);

  float sum = 0;
  ck_assert_int_eq(kc_array_fill_async(x, &three, s2), KC_OK);
  ck_assert_msg(kc_reduce_stream(total, x, NULL, &sum, s2) == KC_OK, "%s", kc_last_error(ctx));
  ck_assert(sum == 3000.0f);   /* written when kc_reduce_stream returns */
  kc_array_free(out);
  kc_array_free(sums[0]);
  kc_array_free(m);
  kc_array_free(x);
  kc_array_free(y);
}
END_TEST

/* A stream of another context is refused by every stream-taking call. */
START_TEST(stream_of_another_context) {
  kc_context *other = cpu_context();
  kc_stream *theirs = NULL;
  kc_event *e = NULL;
  ck_assert_int_eq(kc_stream_new(other, &theirs), KC_OK);
  ck_assert_int_eq(kc_event_new(ctx, &e), KC_OK);
  ck_assert_int_eq(kc_event_record(e, NULL), KC_OK);
  kc_array *a = floats(N), *b = floats(N);
  float h[N], v = 1.0f, sum;
  expect_error(kc_array_copy_from_host_async(a, h, sizeof h, theirs), KC_ERR_INVALID,
               "array copy: the stream belongs to another context");
  expect_error(kc_array_to_host_async(a, h, sizeof h, theirs), KC_ERR_INVALID,
               "array copy: the stream belongs to another context");
  expect_error(kc_array_copy_async(b, a, theirs), KC_ERR_INVALID,
               "array copy: the stream belongs to another context");
  expect_error(kc_array_fill_async(a, &v, theirs), KC_ERR_INVALID,
               "array fill: the stream belongs to another context");
  expect_error(kc_array_zero_async(a, theirs), KC_ERR_INVALID,
               "array zero: the stream belongs to another context");
  expect_error(kc_stream_wait_event(theirs, e), KC_ERR_INVALID,
               "stream wait event: the stream belongs to another context");
  kc_arg args[2] = {kc_arg_array(a), kc_arg_array(b)};
  kc_array *out = NULL;
  kc_ufunc_options opts = {KC_CASTING_SAME_KIND, theirs};
  expect_error(kc_vectorize_args(vadd, args, 2, &out, &opts), KC_ERR_INVALID,
               "vectorize: the stream belongs to another context");
  ck_assert_ptr_null(out);
  kc_array *outs[1] = {NULL};
  expect_error(kc_guvectorize_stream(rowsum, &a, 1, outs, 1, theirs), KC_ERR_INVALID,
               "guvectorize: the stream belongs to another context");
  expect_error(kc_reduce_stream(total, a, NULL, &sum, theirs), KC_ERR_INVALID,
               "reduce: the stream belongs to another context");
  kc_array_free(a);
  kc_array_free(b);
  kc_event_free(e);
  kc_stream_free(theirs);
  kc_context_free(other);
}
END_TEST

START_TEST(copy_argument_errors) {
  kc_array *a = floats(N), *small = floats(10);
  float h[N];
  expect_error(kc_array_copy_from_host_async(a, h, 10 * sizeof(float), s1), KC_ERR_INVALID,
               "array copy: the array holds 4000 bytes, the host buffer 40");
  expect_error(kc_array_to_host_async(a, NULL, sizeof h, s1), KC_ERR_INVALID,
               "array copy: host pointer is NULL");
  expect_error(kc_array_copy_async(small, a, s1), KC_ERR_INVALID,
               "array copy: source is float32 of 1000 elements, destination float32 of 10");
  expect_error(kc_array_fill_async(a, NULL, s1), KC_ERR_INVALID, "array fill: value is NULL");
  ck_assert_int_eq(kc_array_copy_from_host_async(NULL, h, sizeof h, s1), KC_ERR_INVALID);
  ck_assert_int_eq(kc_array_zero_async(NULL, s1), KC_ERR_INVALID);
  ck_assert_int_eq(kc_array_copy_async(a, NULL, s1), KC_ERR_INVALID);
  kc_array_free(small);
  expect_error(kc_array_zero_async(small, s1), KC_ERR_INVALID,
               "array zero: the array was freed (kc_array_free)");
  kc_event *e = NULL;
  ck_assert_int_eq(kc_event_new(ctx, &e), KC_OK);
  expect_error(kc_stream_wait_event(s1, e), KC_ERR_INVALID,
               "stream wait event: the event was never recorded (kc_event_record)");
  expect_error(kc_stream_wait_event(s1, NULL), KC_ERR_INVALID,
               "stream wait event: the event is NULL");
  ck_assert_int_eq(kc_stream_wait_event(NULL, NULL), KC_ERR_INVALID);
  kc_event_free(e);
  kc_array_free(a);
}
END_TEST

/* A registered malloc'd buffer takes async copies; unregistering checks the pointer. */
START_TEST(host_register) {
  float *buf = malloc(N * sizeof(float));
  ck_assert_ptr_nonnull(buf);
  ck_assert_int_eq(kc_host_register(ctx, buf, N * sizeof(float)), KC_OK);
  ck_assert_int_eq(kc_host_register(ctx, buf + 10, 4), KC_ERR_INVALID);   /* overlaps */
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "registered already"));
  kc_array *a = floats(N);
  float four = 4.0f;
  ck_assert_int_eq(kc_array_fill_async(a, &four, s1), KC_OK);
  ck_assert_int_eq(kc_array_to_host_async(a, buf, N * sizeof(float), s1), KC_OK);
  ck_assert_int_eq(kc_stream_synchronize(s1), KC_OK);
  expect_all(buf, N, 4.0f);
  ck_assert_int_eq(kc_host_unregister(ctx, buf + 1), KC_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "was not registered on this context"));
  ck_assert_int_eq(kc_host_unregister(ctx, buf), KC_OK);
  ck_assert_int_eq(kc_host_unregister(ctx, buf), KC_ERR_INVALID);   /* twice */
  expect_error(kc_host_register(ctx, NULL, 8), KC_ERR_INVALID,
               "host register: the pointer is NULL");
  expect_error(kc_host_register(ctx, buf, 0), KC_ERR_INVALID, "host register: 0 bytes");
  expect_error(kc_host_unregister(ctx, NULL), KC_ERR_INVALID,
               "host unregister: the pointer is NULL");
  ck_assert_int_eq(kc_host_register(NULL, buf, 8), KC_ERR_INVALID);
  /* left registered: kc_context_free unregisters it (valgrind sees no leak) */
  kc_context *other = cpu_context();
  ck_assert_int_eq(kc_host_register(other, buf, N * sizeof(float)), KC_OK);
  kc_context_free(other);
  kc_array_free(a);
  free(buf);
}
END_TEST

/* KC_DEVICE=cuda without a driver (skipped where there is a GPU): registering says
 * why, and kc_context_free has nothing to unregister. */
START_TEST(cuda_missing) {
  int n = 0;
  if (kc_cuda_device_count(&n) == KC_OK && n > 0) return;
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CUDA;
  kc_context *broken = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &broken), KC_ERR_NO_DEVICE);
  ck_assert_ptr_nonnull(broken);
  float buf[4];
  ck_assert_int_eq(kc_host_register(broken, buf, sizeof buf), KC_ERR_NO_DEVICE);
  ck_assert_int_eq(kc_host_unregister(broken, buf), KC_ERR_INVALID);
  kc_context_free(broken);
}
END_TEST

static Suite *streams_suite(void) {
  Suite *s = suite_create("streams");
  TCase *tc = tcase_create("cpu");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, one_stream_in_order);
  tcase_add_test(tc, wait_event_across_streams);
  tcase_add_test(tc, event_query);
  tcase_add_test(tc, callbacks_in_order);
  tcase_add_test(tc, ufuncs_on_a_stream);
  tcase_add_test(tc, stream_of_another_context);
  tcase_add_test(tc, copy_argument_errors);
  tcase_add_test(tc, host_register);
  tcase_add_test(tc, cuda_missing);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(streams_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
