/*
 * test_interop.c — raw pointers and CUDA handles on the CPU device (kc.h alone): an
 * array's data pointer (of views and slices too: their first element), arrays over the
 * caller's host memory (kc_array_from_device_ptr: read and written in place by kernels,
 * C-contiguous and strided, never freed by kcc), their refusals, and the CUDA-only calls
 * (kc_context_cuda_context, kc_stream_cuda_stream, kc_stream_from_cuda) refused clearly
 * with KC_ERR_UNSUPPORTED. Expected values are computed here in C. The CUDA paths run
 * in test_cuda_gpu.c on a GPU.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kc.h"

static const char source[] =
    "from numba import cuda, float32, float64\n"
    "\n"
    "\n"
    "@cuda.jit(\"void(float32[:], float32)\")\n"
    "def scale(a, k):\n"
    "    i = cuda.grid(1)\n"
    "    if i < a.size:\n"
    "        a[i] = a[i] * k\n"
    "\n"
    "\n"
    "@cuda.jit(\"void(array(float64, 2d, A), float64)\")\n"
    "def add_rows(m, k):\n"
    "    i, j = cuda.grid(2)\n"
    "    if i < m.shape[0] and j < m.shape[1]:\n"
    "        m[i, j] = m[i, j] + k * i\n";

static kc_context *ctx;
static kc_module *mod;

static void setup(void) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 2;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  ck_assert_int_eq(kc_compile_source(ctx, "interop.k", source, sizeof source - 1, NULL, &mod),
                   KC_OK);
}

static void teardown(void) {
  kc_module_free(mod);
  kc_context_free(ctx);
}

static kc_kernel *kernel(const char *name) {
  kc_kernel *k = NULL;
  ck_assert_int_eq(kc_module_get_kernel(mod, name, &k), KC_OK);
  return k;
}

static void expect_error(kc_status got, kc_status want, const char *part) {
  ck_assert_int_eq(got, want);
  ck_assert_msg(strstr(kc_last_error(ctx), part) != NULL, "message '%s' lacks '%s'",
                kc_last_error(ctx), part);
}

/* The pointer of an array, of a view and of slices is that of their first element. */
START_TEST(pointers_of_views) {
  enum { N = 20 };
  float h[N];
  for (int i = 0; i < N; i++) h[i] = (float)i;
  int64_t n = N;
  kc_array *a = NULL, *v = NULL, *fwd = NULL, *back = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 1, &n, h, sizeof h, &a), KC_OK);
  void *data = NULL;
  uint64_t p = 0;
  ck_assert_int_eq(kc_array_data(a, &data), KC_OK);
  ck_assert_int_eq(kc_array_device_ptr(a, &p), KC_OK);
  ck_assert(data != NULL && p == (uint64_t)(uintptr_t)data);
  ck_assert(memcmp(data, h, sizeof h) == 0);   /* the elements, in host memory */
  ck_assert_int_eq(kc_array_view(a, 5, 9, &v), KC_OK);
  ck_assert_int_eq(kc_array_device_ptr(v, &p), KC_OK);
  ck_assert(p == (uint64_t)(uintptr_t)data + 5 * sizeof(float));
  int64_t st[1] = {2}, sp[1] = {KC_SLICE_NONE}, step[1] = {3}, back_step[1] = {-1};
  ck_assert_int_eq(kc_array_slice(a, st, sp, step, &fwd), KC_OK);      /* a[2::3] */
  ck_assert_int_eq(kc_array_device_ptr(fwd, &p), KC_OK);
  ck_assert(p == (uint64_t)(uintptr_t)data + 2 * sizeof(float));
  ck_assert_int_eq(kc_array_slice(a, NULL, NULL, back_step, &back), KC_OK);   /* a[::-1] */
  ck_assert_int_eq(kc_array_device_ptr(back, &p), KC_OK);
  ck_assert(p == (uint64_t)(uintptr_t)data + (N - 1) * sizeof(float));
  ck_assert(*(const float *)(uintptr_t)p == (float)(N - 1));
  kc_array_free(v);
  kc_array_free(fwd);
  kc_array_free(back);
  kc_array_free(a);
  /* freed, NULL */
  expect_error(kc_array_device_ptr(a, &p), KC_ERR_INVALID, "freed");
  ck_assert(p == 0);
  ck_assert_int_eq(kc_array_device_ptr(NULL, &p), KC_ERR_INVALID);
  ck_assert_int_eq(kc_array_data(NULL, &data), KC_ERR_INVALID);
}
END_TEST

/* A kernel scales the caller's buffer in place; freeing the array leaves it alone (a
 * free of stack memory would crash, or show under valgrind). */
START_TEST(wrap_host_memory) {
  enum { N = 37 };
  float h[N], want[N];
  for (int i = 0; i < N; i++) h[i] = (float)i - 4.5f, want[i] = ((float)i - 4.5f) * 3.0f;
  int64_t n = N;
  kc_array *a = NULL, *v = NULL;
  ck_assert_int_eq(kc_array_from_device_ptr(ctx, KC_FLOAT32, 1, &n, NULL, (uintptr_t)h, &a),
                   KC_OK);
  ck_assert(kc_array_is_contiguous(a));
  ck_assert_int_eq(kc_array_size(a), N);
  ck_assert_int_eq(kc_array_bytes(a), sizeof h);
  void *data = NULL;
  ck_assert_int_eq(kc_array_data(a, &data), KC_OK);
  ck_assert(data == h);
  kc_arg args[] = {kc_arg_array(a), kc_arg_f32(3.0f)};
  ck_assert_int_eq(kc_launch(kernel("scale"), kc_dim(2), kc_dim(32), 0, NULL, args, 2), KC_OK);
  ck_assert_int_eq(kc_synchronize(ctx), KC_OK);
  for (int i = 0; i < N; i++) ck_assert_float_eq(h[i], want[i]);
  /* a view of it outlives the array's handle; the memory stays the caller's */
  ck_assert_int_eq(kc_array_view(a, 10, 20, &v), KC_OK);
  kc_array_free(a);
  float back[10];
  ck_assert_int_eq(kc_array_to_host(v, back, sizeof back), KC_OK);
  for (int i = 0; i < 10; i++) ck_assert_float_eq(back[i], want[10 + i]);
  kc_array_free(v);
  h[0] = 1.0f;   /* still ours */
  ck_assert_float_eq(h[0], 1.0f);
}
END_TEST

/* Every other column of a 5 x 8 row-major matrix (strides 8, 2 in elements) and its
 * transpose, read and written by an 'A' kernel in place. */
START_TEST(wrap_strided) {
  enum { R = 5, C = 8 };
  double m[R * C], want[R * C];
  for (int i = 0; i < R * C; i++) m[i] = want[i] = i * 0.25;
  for (int i = 0; i < R; i++)
    for (int j = 1; j < C; j += 2) want[i * C + j] += 10.0 * i;   /* m[:, 1::2] += 10 i */
  int64_t shape[2] = {R, C / 2}, strides[2] = {C, 2};
  kc_array *a = NULL;
  ck_assert_int_eq(kc_array_from_device_ptr(ctx, KC_FLOAT64, 2, shape, strides,
                                            (uintptr_t)(m + 1), &a), KC_OK);
  ck_assert(!kc_array_is_contiguous(a));
  ck_assert(kc_array_strides(a)[0] == C && kc_array_strides(a)[1] == 2);
  kc_arg args[] = {kc_arg_array(a), kc_arg_f64(10.0)};
  ck_assert_int_eq(kc_launch(kernel("add_rows"), kc_dim2(1, 1), kc_dim2(8, 8), 0, NULL, args, 2),
                   KC_OK);
  for (int i = 0; i < R * C; i++) ck_assert_double_eq(m[i], want[i]);
  /* a C-contiguous kernel refuses it */
  kc_arg sargs[] = {kc_arg_array(a), kc_arg_f32(1.0f)};
  ck_assert_int_eq(kc_launch(kernel("scale"), kc_dim(1), kc_dim(1), 0, NULL, sargs, 2),
                   KC_ERR_LAUNCH);
  kc_array_free(a);
  /* the transpose: shape (C, R), strides (1, C); m.T[j, i] += 10 j */
  int64_t tshape[2] = {C, R}, tstrides[2] = {1, C};
  ck_assert_int_eq(kc_array_from_device_ptr(ctx, KC_FLOAT64, 2, tshape, tstrides,
                                            (uintptr_t)m, &a), KC_OK);
  args[0] = kc_arg_array(a);
  ck_assert_int_eq(kc_launch(kernel("add_rows"), kc_dim2(1, 1), kc_dim2(8, 8), 0, NULL, args, 2),
                   KC_OK);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) want[i * C + j] += 10.0 * j;
  for (int i = 0; i < R * C; i++) ck_assert_double_eq(m[i], want[i]);
  kc_array_free(a);
}
END_TEST

START_TEST(wrap_refusals) {
  double buf[4] = {0};
  uint64_t p = (uintptr_t)buf;
  int64_t n = 4, neg = -1, two[2] = {2, 2}, huge[2] = {INT64_MAX / 2, 4};
  int64_t far[2] = {INT64_MAX / 4, 1}, below[1] = {-1};
  kc_array *a = (kc_array *)1;
  expect_error(kc_array_from_device_ptr(ctx, KC_FLOAT64, 1, &n, NULL, 0, &a), KC_ERR_INVALID,
               "data pointer is NULL");
  ck_assert(a == NULL);
  expect_error(kc_array_from_device_ptr(ctx, KC_FLOAT64, 1, &n, NULL, p + 4, &a),
               KC_ERR_INVALID, "not aligned to 8 bytes");
  expect_error(kc_array_from_device_ptr(ctx, KC_RECORD, 1, &n, NULL, p, &a), KC_ERR_INVALID,
               "records");
  expect_error(kc_array_from_device_ptr(ctx, (kc_dtype)99, 1, &n, NULL, p, &a),
               KC_ERR_INVALID, "unknown dtype 99");
  expect_error(kc_array_from_device_ptr(ctx, KC_FLOAT64, 0, &n, NULL, p, &a), KC_ERR_INVALID,
               "ndim must be 1..8, not 0");
  expect_error(kc_array_from_device_ptr(ctx, KC_FLOAT64, 9, &n, NULL, p, &a), KC_ERR_INVALID,
               "ndim must be 1..8, not 9");
  expect_error(kc_array_from_device_ptr(ctx, KC_FLOAT64, 1, NULL, NULL, p, &a),
               KC_ERR_INVALID, "shape is NULL");
  expect_error(kc_array_from_device_ptr(ctx, KC_FLOAT64, 1, &neg, NULL, p, &a),
               KC_ERR_INVALID, "extent 0 is negative");
  expect_error(kc_array_from_device_ptr(ctx, KC_FLOAT64, 2, huge, NULL, p, &a),
               KC_ERR_INVALID, "overflows");
  expect_error(kc_array_from_device_ptr(ctx, KC_FLOAT64, 2, two, far, p, &a), KC_ERR_INVALID,
               "outside the address space");
  /* a negative stride from the first element reaching below address 0 */
  expect_error(kc_array_from_device_ptr(ctx, KC_FLOAT64, 1, &n, below, 8, &a), KC_ERR_INVALID,
               "outside the address space");
  ck_assert(a == NULL);
  ck_assert_int_eq(kc_array_from_device_ptr(NULL, KC_FLOAT64, 1, &n, NULL, p, &a),
                   KC_ERR_INVALID);
  ck_assert_int_eq(kc_array_from_device_ptr(ctx, KC_FLOAT64, 1, &n, NULL, p, NULL),
                   KC_ERR_INVALID);
  /* an empty shape needs no pointer */
  int64_t zero = 0;
  ck_assert_int_eq(kc_array_from_device_ptr(ctx, KC_FLOAT64, 1, &zero, NULL, 0, &a), KC_OK);
  ck_assert_int_eq(kc_array_size(a), 0);
  kc_array_free(a);
}
END_TEST

/* CUDA handles do not exist on the CPU device: a clear KC_ERR_UNSUPPORTED each. */
START_TEST(cuda_calls_on_cpu) {
  void *h = (void *)1;
  expect_error(kc_context_cuda_context(ctx, &h), KC_ERR_UNSUPPORTED,
               "kc_context_cuda_context: the context's device is the CPU");
  ck_assert(h == NULL);
  kc_stream *s = NULL, *b = (kc_stream *)1;
  ck_assert_int_eq(kc_stream_new(ctx, &s), KC_OK);
  h = (void *)1;
  expect_error(kc_stream_cuda_stream(s, &h), KC_ERR_UNSUPPORTED,
               "kc_stream_cuda_stream: the context's device is the CPU");
  ck_assert(h == NULL);
  expect_error(kc_stream_from_cuda(ctx, NULL, &b), KC_ERR_UNSUPPORTED,
               "kc_stream_from_cuda: the context's device is the CPU");
  ck_assert(b == NULL);
  ck_assert_int_eq(kc_context_cuda_context(NULL, &h), KC_ERR_INVALID);
  ck_assert_int_eq(kc_context_cuda_context(ctx, NULL), KC_ERR_INVALID);
  ck_assert_int_eq(kc_stream_cuda_stream(NULL, &h), KC_ERR_INVALID);
  ck_assert_int_eq(kc_stream_cuda_stream(s, NULL), KC_ERR_INVALID);
  ck_assert_int_eq(kc_stream_from_cuda(NULL, NULL, &b), KC_ERR_INVALID);
  ck_assert_int_eq(kc_stream_from_cuda(ctx, NULL, NULL), KC_ERR_INVALID);
  kc_stream_free(s);
}
END_TEST

int main(void) {
  Suite *s = suite_create("interop");
  TCase *t = tcase_create("cpu");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, pointers_of_views);
  tcase_add_test(t, wrap_host_memory);
  tcase_add_test(t, wrap_strided);
  tcase_add_test(t, wrap_refusals);
  tcase_add_test(t, cuda_calls_on_cpu);
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
