/*
 * test_dlpack.c — DLPack on the CPU device (kc.h and dlpack/dlpack.h): an array exported
 * and imported back (same pointer, shape, strides, dtype; a kernel run on the import),
 * the dtype of each kc dtype as DLPack spells it (DLPack's own table, dlpack.h's
 * DLDataTypeCode: int/uint/float/complex of the element's bits, lanes 1), views and
 * slices exported with their strides, the exported memory kept alive past kc_array_free
 * until the deleter, tensors built by hand (a strided every-other-column view, a
 * transpose, a byte_offset) imported and read by an 'A' kernel, the refusals (dtype,
 * lanes, device, ndim, NULL) leaving the tensor untouched, and each imported tensor's
 * deleter called exactly once, after the array and its views are all freed. Expected
 * values are computed here in C. Exits 77 (skipped) when kcc was built without
 * dlpack.h.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc.h"

#ifdef KC_HAVE_DLPACK
#include <dlpack/dlpack.h>

static const char source[] =
    "from numba import cuda, float32, float64\n"
    "\n"
    "\n"
    "@cuda.jit(\"void(float32[:, :], float32)\")\n"
    "def scale2(a, k):\n"
    "    i, j = cuda.grid(2)\n"
    "    if i < a.shape[0] and j < a.shape[1]:\n"
    "        a[i, j] = a[i, j] * k\n"
    "\n"
    "\n"
    "@cuda.jit(\"void(array(float64, 2d, A), float64[:, :])\")\n"
    "def read_a(m, out):\n"
    "    i, j = cuda.grid(2)\n"
    "    if i < m.shape[0] and j < m.shape[1]:\n"
    "        out[i, j] = m[i, j] * 10 + i\n";

static kc_context *ctx;
static kc_module *mod;

static void setup(void) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 2;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  ck_assert_int_eq(kc_compile_source(ctx, "dlpack.k", source, sizeof source - 1, NULL, &mod),
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

static uint64_t ptr_of(const kc_array *a) {
  uint64_t p = 0;
  ck_assert_int_eq(kc_array_device_ptr(a, &p), KC_OK);
  return p;
}

/* ---- a tensor made by hand, as a producer (NumPy, PyTorch) would ------------------- */
typedef struct hand {
  DLManagedTensor m;
  int64_t shape[KC_MAX_DIMS + 1], strides[KC_MAX_DIMS + 1];
  int deleted;                    /* times the deleter ran */
} hand;

static void hand_deleter(DLManagedTensor *self) { ((hand *)self->manager_ctx)->deleted++; }

static void hand_init(hand *h, void *data, int device, int ndim, const int64_t *shape,
                      const int64_t *strides, uint8_t code, uint8_t bits) {
  memset(h, 0, sizeof *h);
  h->m.dl_tensor.data = data;
  h->m.dl_tensor.device.device_type = (DLDeviceType)device;
  h->m.dl_tensor.ndim = ndim;
  h->m.dl_tensor.dtype.code = code;
  h->m.dl_tensor.dtype.bits = bits;
  h->m.dl_tensor.dtype.lanes = 1;
  for (int d = 0; d < ndim && d <= KC_MAX_DIMS; d++) {
    h->shape[d] = shape[d];
    if (strides) h->strides[d] = strides[d];
  }
  h->m.dl_tensor.shape = h->shape;
  h->m.dl_tensor.strides = strides ? h->strides : NULL;
  h->m.manager_ctx = h;
  h->m.deleter = hand_deleter;
}

/* Export, check every field, import back, run a kernel on the import. */
START_TEST(round_trip) {
  enum { R = 3, C = 5 };
  float h[R * C], back[R * C];
  for (int i = 0; i < R * C; i++) h[i] = (float)i * 0.5f - 2.0f;
  int64_t shape[2] = {R, C};
  kc_array *a = NULL, *b = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 2, shape, h, sizeof h, &a), KC_OK);
  DLManagedTensor *t = NULL;
  ck_assert_int_eq(kc_array_to_dlpack(a, &t), KC_OK);
  ck_assert(t != NULL && t->deleter != NULL);
  const DLTensor *x = &t->dl_tensor;
  ck_assert((uint64_t)(uintptr_t)x->data == ptr_of(a));
  ck_assert_int_eq(x->device.device_type, kDLCPU);
  ck_assert_int_eq(x->device.device_id, 0);
  ck_assert_int_eq(x->ndim, 2);
  ck_assert_int_eq(x->dtype.code, kDLFloat);
  ck_assert_int_eq(x->dtype.bits, 32);
  ck_assert_int_eq(x->dtype.lanes, 1);
  ck_assert(x->shape[0] == R && x->shape[1] == C);
  ck_assert(x->strides && x->strides[0] == C && x->strides[1] == 1);
  ck_assert(x->byte_offset == 0);
  ck_assert(memcmp(x->data, h, sizeof h) == 0);
  ck_assert_int_eq(kc_array_from_dlpack(ctx, t, &b), KC_OK);
  ck_assert(ptr_of(b) == ptr_of(a));
  ck_assert_int_eq(kc_array_dtype(b), KC_FLOAT32);
  ck_assert_int_eq(kc_array_ndim(b), 2);
  ck_assert(kc_array_shape(b)[0] == R && kc_array_shape(b)[1] == C);
  ck_assert(kc_array_strides(b)[0] == C && kc_array_strides(b)[1] == 1);
  ck_assert(kc_array_is_contiguous(b));
  kc_arg args[] = {kc_arg_array(b), kc_arg_f32(-3.0f)};
  ck_assert_int_eq(kc_launch(kernel("scale2"), kc_dim2(1, 1), kc_dim2(4, 8), 0, NULL, args, 2),
                   KC_OK);
  kc_array_free(b);              /* runs t's deleter: a's memory is still a's */
  ck_assert_int_eq(kc_array_to_host(a, back, sizeof back), KC_OK);
  for (int i = 0; i < R * C; i++) ck_assert_float_eq(back[i], h[i] * -3.0f);
  kc_array_free(a);
}
END_TEST

/* DLPack's code and bits for each kc dtype, and back (bool comes back as uint8 with a
 * DLPack 0.6 header, which has no kDLBool). */
START_TEST(dtypes) {
  static const struct { kc_dtype t; uint8_t code, bits; } table[] = {
      {KC_INT8, kDLInt, 8},        {KC_INT16, kDLInt, 16},      {KC_INT32, kDLInt, 32},
      {KC_INT64, kDLInt, 64},      {KC_UINT8, kDLUInt, 8},      {KC_UINT16, kDLUInt, 16},
      {KC_UINT32, kDLUInt, 32},    {KC_UINT64, kDLUInt, 64},    {KC_FLOAT16, kDLFloat, 16},
      {KC_FLOAT32, kDLFloat, 32},  {KC_FLOAT64, kDLFloat, 64},  {KC_COMPLEX64, kDLComplex, 64},
      {KC_COMPLEX128, kDLComplex, 128},
#if DLPACK_VERSION >= 80
      {KC_BOOL, kDLBool, 8},
#else
      {KC_BOOL, kDLUInt, 8},
#endif
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    int64_t n = 3;
    kc_array *a = NULL, *b = NULL;
    DLManagedTensor *t = NULL;
    ck_assert_int_eq(kc_array_new(ctx, table[i].t, 1, &n, &a), KC_OK);
    ck_assert_int_eq(kc_array_to_dlpack(a, &t), KC_OK);
    ck_assert_msg(t->dl_tensor.dtype.code == table[i].code &&
                  t->dl_tensor.dtype.bits == table[i].bits && t->dl_tensor.dtype.lanes == 1,
                  "%s exported as code %d bits %d", kc_dtype_name(table[i].t),
                  t->dl_tensor.dtype.code, t->dl_tensor.dtype.bits);
    ck_assert_int_eq(kc_array_from_dlpack(ctx, t, &b), KC_OK);
    kc_dtype want = table[i].t == KC_BOOL && DLPACK_VERSION < 80 ? KC_UINT8 : table[i].t;
    ck_assert_int_eq(kc_array_dtype(b), want);
    kc_array_free(a);
    kc_array_free(b);
  }
  /* kDLBool (DLPack 0.8's code 6) is taken whatever the header */
  uint8_t flags[4] = {1, 0, 1, 1};
  int64_t n = 4;
  hand h;
  kc_array *b = NULL;
  hand_init(&h, flags, kDLCPU, 1, &n, NULL, 6, 8);
  ck_assert_int_eq(kc_array_from_dlpack(ctx, &h.m, &b), KC_OK);
  ck_assert_int_eq(kc_array_dtype(b), KC_BOOL);
  kc_array_free(b);
  ck_assert_int_eq(h.deleted, 1);
  /* an array of records has no DLPack dtype */
  kc_record_field f = {.name = "x", .dtype = KC_FLOAT32, .offset = 0};
  kc_record *rec = NULL;
  kc_array *r = NULL;
  DLManagedTensor *t = NULL;
  ck_assert_int_eq(kc_record_new(ctx, &f, 1, 4, 0, &rec), KC_OK);
  ck_assert_int_eq(kc_array_new_records(ctx, rec, 1, &n, &r), KC_OK);
  expect_error(kc_array_to_dlpack(r, &t), KC_ERR_UNSUPPORTED, "records");
  ck_assert(t == NULL);
  kc_array_free(r);
  kc_record_free(rec);
}
END_TEST

/* Views and slices export their first element and their own strides. */
START_TEST(export_slices) {
  enum { R = 4, C = 6 };
  double m[R * C];
  for (int i = 0; i < R * C; i++) m[i] = i;
  int64_t shape[2] = {R, C};
  kc_array *a = NULL, *v = NULL, *b = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT64, 2, shape, m, sizeof m, &a), KC_OK);
  /* a[1:, ::-2]: rows 1..3, columns 5, 3, 1 */
  int64_t st[2] = {1, KC_SLICE_NONE}, sp[2] = {KC_SLICE_NONE, KC_SLICE_NONE}, step[2] = {1, -2};
  ck_assert_int_eq(kc_array_slice(a, st, sp, step, &v), KC_OK);
  DLManagedTensor *t = NULL;
  ck_assert_int_eq(kc_array_to_dlpack(v, &t), KC_OK);
  const DLTensor *x = &t->dl_tensor;
  ck_assert((uint64_t)(uintptr_t)x->data == ptr_of(a) + (1 * C + 5) * sizeof(double));
  ck_assert(x->shape[0] == R - 1 && x->shape[1] == 3);
  ck_assert(x->strides[0] == C && x->strides[1] == -2);
  ck_assert_double_eq(*(const double *)x->data, 1 * C + 5);
  /* the view and its base freed first: the tensor still holds the memory */
  kc_array_free(v);
  kc_array_free(a);
  const double *d = x->data;
  for (int i = 0; i < R - 1; i++)
    for (int j = 0; j < 3; j++)
      ck_assert_double_eq(d[i * x->strides[0] + j * x->strides[1]], (1 + i) * C + (5 - 2 * j));
  /* imported again: a non-contiguous array */
  ck_assert_int_eq(kc_array_from_dlpack(ctx, t, &b), KC_OK);
  ck_assert(!kc_array_is_contiguous(b));
  ck_assert(kc_array_strides(b)[1] == -2);
  kc_array_free(b);              /* the deleter releases the memory (valgrind: no leak) */
}
END_TEST

/* The deleter of an exported tensor called by the consumer before kc_array_free. */
START_TEST(deleter_before_free) {
  int64_t n = 8;
  kc_array *a = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_INT32, 1, &n, &a), KC_OK);
  ck_assert_int_eq(kc_array_zero(a), KC_OK);
  DLManagedTensor *t = NULL, *t2 = NULL;
  ck_assert_int_eq(kc_array_to_dlpack(a, &t), KC_OK);
  ck_assert_int_eq(kc_array_to_dlpack(a, &t2), KC_OK);
  t->deleter(t);
  t2->deleter(t2);
  int32_t back[8] = {1};
  ck_assert_int_eq(kc_array_to_host(a, back, sizeof back), KC_OK);   /* still a's */
  for (int i = 0; i < 8; i++) ck_assert_int_eq(back[i], 0);
  kc_array_free(a);
}
END_TEST

/* Strided tensors made by hand: every other column of a 4 x 6 matrix (from column 1,
 * through byte_offset), and the transpose, read by an 'A' kernel: out = m * 10 + row. */
START_TEST(import_strided) {
  enum { R = 4, C = 6 };
  double m[R * C];
  for (int i = 0; i < R * C; i++) m[i] = i * 1.5 - 7;
  int64_t shape[2] = {R, C / 2}, strides[2] = {C, 2};
  hand h;
  hand_init(&h, m, kDLCPU, 2, shape, strides, kDLFloat, 64);
  h.m.dl_tensor.byte_offset = sizeof(double);   /* m[:, 1::2] */
  kc_array *v = NULL, *out = NULL, *row = NULL;
  ck_assert_int_eq(kc_array_from_dlpack(ctx, &h.m, &v), KC_OK);
  ck_assert(!kc_array_is_contiguous(v));
  ck_assert(ptr_of(v) == (uint64_t)(uintptr_t)(m + 1));
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT64, 2, shape, &out), KC_OK);
  kc_arg args[] = {kc_arg_array(v), kc_arg_array(out)};
  ck_assert_int_eq(kc_launch(kernel("read_a"), kc_dim2(1, 1), kc_dim2(8, 8), 0, NULL, args, 2),
                   KC_OK);
  double got[R * (C / 2)];
  ck_assert_int_eq(kc_array_to_host(out, got, sizeof got), KC_OK);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C / 2; j++)
      ck_assert_double_eq(got[i * (C / 2) + j], m[i * C + 1 + 2 * j] * 10 + i);
  /* a view of the import keeps the tensor: its deleter waits for both */
  ck_assert_int_eq(kc_array_view(v, 1, 3, &row), KC_OK);
  kc_array_free(v);
  ck_assert_int_eq(h.deleted, 0);
  kc_array_free(row);
  ck_assert_int_eq(h.deleted, 1);
  kc_array_free(row);            /* freed twice: nothing more */
  ck_assert_int_eq(h.deleted, 1);
  kc_array_free(out);
  /* the transpose: shape (C, R), strides (1, C) */
  int64_t tshape[2] = {C, R}, tstrides[2] = {1, C};
  hand_init(&h, m, kDLCPU, 2, tshape, tstrides, kDLFloat, 64);
  ck_assert_int_eq(kc_array_from_dlpack(ctx, &h.m, &v), KC_OK);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT64, 2, tshape, &out), KC_OK);
  args[0] = kc_arg_array(v);
  args[1] = kc_arg_array(out);
  ck_assert_int_eq(kc_launch(kernel("read_a"), kc_dim2(1, 1), kc_dim2(8, 8), 0, NULL, args, 2),
                   KC_OK);
  double gt[C * R];
  ck_assert_int_eq(kc_array_to_host(out, gt, sizeof gt), KC_OK);
  for (int j = 0; j < C; j++)
    for (int i = 0; i < R; i++) ck_assert_double_eq(gt[j * R + i], m[i * C + j] * 10 + j);
  kc_array_free(v);
  kc_array_free(out);
  ck_assert_int_eq(h.deleted, 1);
  /* kDLCUDAHost (pinned host memory) is host memory too; NULL strides: C-contiguous */
  int64_t n = R * C;
  hand_init(&h, m, kDLCUDAHost, 1, &n, NULL, kDLFloat, 64);
  ck_assert_int_eq(kc_array_from_dlpack(ctx, &h.m, &v), KC_OK);
  ck_assert(kc_array_is_contiguous(v) && kc_array_strides(v)[0] == 1);
  kc_array_free(v);
  ck_assert_int_eq(h.deleted, 1);
}
END_TEST

/* Each refusal names the problem and leaves the tensor the caller's (no deleter call). */
START_TEST(import_refusals) {
  float buf[8] = {0};
  int64_t n = 8, nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, neg = -2;
  hand h;
  kc_array *a = (kc_array *)1;
  expect_error(kc_array_from_dlpack(ctx, NULL, &a), KC_ERR_INVALID, "the tensor is NULL");
  ck_assert(a == NULL);
  ck_assert_int_eq(kc_array_from_dlpack(NULL, &h.m, &a), KC_ERR_INVALID);
  hand_init(&h, buf, kDLCPU, 1, &n, NULL, kDLBfloat, 16);
  expect_error(kc_array_from_dlpack(ctx, &h.m, &a), KC_ERR_INVALID, "type code 4, 16 bits");
  hand_init(&h, buf, kDLCPU, 1, &n, NULL, kDLFloat, 8);
  expect_error(kc_array_from_dlpack(ctx, &h.m, &a), KC_ERR_INVALID, "has no kcc dtype");
  hand_init(&h, buf, kDLCPU, 1, &n, NULL, kDLFloat, 32);
  h.m.dl_tensor.dtype.lanes = 2;
  expect_error(kc_array_from_dlpack(ctx, &h.m, &a), KC_ERR_INVALID, "2 lanes");
  hand_init(&h, buf, kDLCUDA, 1, &n, NULL, kDLFloat, 32);
  expect_error(kc_array_from_dlpack(ctx, &h.m, &a), KC_ERR_INVALID, "on kDLCUDA (device type 2)");
  hand_init(&h, buf, kDLOpenCL, 1, &n, NULL, kDLFloat, 32);
  expect_error(kc_array_from_dlpack(ctx, &h.m, &a), KC_ERR_INVALID, "on kDLOpenCL");
  hand_init(&h, buf, kDLCPU, 0, &n, NULL, kDLFloat, 32);
  expect_error(kc_array_from_dlpack(ctx, &h.m, &a), KC_ERR_INVALID, "0 dimensions");
  hand_init(&h, buf, kDLCPU, 9, nine, NULL, kDLFloat, 32);
  expect_error(kc_array_from_dlpack(ctx, &h.m, &a), KC_ERR_INVALID, "9 dimensions");
  hand_init(&h, buf, kDLCPU, 1, &neg, NULL, kDLFloat, 32);
  expect_error(kc_array_from_dlpack(ctx, &h.m, &a), KC_ERR_INVALID, "extent 0 is negative");
  hand_init(&h, buf, kDLCPU, 1, &n, NULL, kDLFloat, 32);
  h.m.dl_tensor.byte_offset = 2;
  expect_error(kc_array_from_dlpack(ctx, &h.m, &a), KC_ERR_INVALID, "not aligned to 4 bytes");
  hand_init(&h, NULL, kDLCPU, 1, &n, NULL, kDLFloat, 32);
  expect_error(kc_array_from_dlpack(ctx, &h.m, &a), KC_ERR_INVALID, "data pointer is NULL");
  ck_assert(a == NULL);
  ck_assert_int_eq(h.deleted, 0);
  /* a tensor without a deleter is taken, and nothing is called */
  hand_init(&h, buf, kDLCPU, 1, &n, NULL, kDLFloat, 32);
  h.m.deleter = NULL;
  ck_assert_int_eq(kc_array_from_dlpack(ctx, &h.m, &a), KC_OK);
  kc_array_free(a);
  /* export: NULL, a freed array */
  DLManagedTensor *t = (DLManagedTensor *)1;
  ck_assert_int_eq(kc_array_to_dlpack(NULL, &t), KC_ERR_INVALID);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, &n, &a), KC_OK);
  ck_assert_int_eq(kc_array_to_dlpack(a, NULL), KC_ERR_INVALID);
  kc_array_free(a);
  expect_error(kc_array_to_dlpack(a, &t), KC_ERR_INVALID, "freed");
  ck_assert(t == NULL);
}
END_TEST

int main(void) {
  Suite *s = suite_create("dlpack");
  TCase *t = tcase_create("cpu");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, round_trip);
  tcase_add_test(t, dtypes);
  tcase_add_test(t, export_slices);
  tcase_add_test(t, deleter_before_free);
  tcase_add_test(t, import_strided);
  tcase_add_test(t, import_refusals);
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}

#else /* built without dlpack.h: the calls say so, and the test is skipped */

int main(void) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  kc_context *ctx = NULL;
  if (kc_context_new(&cfg, &ctx) != KC_OK) return 1;
  kc_array *a = NULL;
  int bad = kc_array_from_dlpack(ctx, NULL, &a) != KC_ERR_UNSUPPORTED ||
            !strstr(kc_last_error(ctx), "without DLPack");
  kc_context_free(ctx);
  if (bad) return 1;
  printf("kcc built without dlpack/dlpack.h: skipped\n");
  return 77;
}

#endif
