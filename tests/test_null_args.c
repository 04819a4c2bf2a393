/*
 * test_null_args.c — every KC_API call of kc.h given NULL for each pointer it takes:
 * a status call returns KC_ERR_INVALID and kc_last_error names the call (the context's
 * message when there is a context, else the thread's: kc_last_error(NULL)); a void call
 * does nothing; a query returns its documented neutral value. Nothing crashes.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "kc.h"

static kc_context *ctx;
static kc_array *arr;
static kc_module *mod;
static kc_kernel *kern;

static const char src[] = "from numba import cuda\n"
                          "@cuda.jit('void(float32[:])')\n"
                          "def k(a):\n"
                          "    a[0] = 1.0\n";

static void setup(void) {
  kc_config cfg = {0};
  cfg.device = KC_DEVICE_CPU;
  cfg.cache = -1;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  int64_t n = 4;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, &n, &arr), KC_OK);
  ck_assert_int_eq(kc_compile_source(ctx, "k.k", src, sizeof src - 1, NULL, &mod), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(mod, "k", &kern), KC_OK);
}

static void teardown(void) {
  kc_module_free(mod);
  kc_array_free(arr);
  kc_context_free(ctx);
}

/* s is KC_ERR_INVALID and the message (ctx's, or the thread's when c is NULL) starts
 * with the call's name. */
#define CHECK_NULL(c, call, expr)                                                        \
  do {                                                                                   \
    kc_status s_ = (expr);                                                               \
    ck_assert_msg(s_ == KC_ERR_INVALID, "%s returned %s", call, kc_status_name(s_));     \
    const char *m_ = kc_last_error(c);                                                   \
    ck_assert_msg(strncmp(m_, call, strlen(call)) == 0, "%s: message '%s'", call, m_);   \
  } while (0)

START_TEST(config_and_context) {
  kc_config_init(NULL);
  kc_compile_options_init(NULL);
  kc_ufunc_options_init(NULL);
  CHECK_NULL(NULL, "kc_context_new", kc_context_new(NULL, NULL));
  kc_context_free(NULL);
  ck_assert_int_eq(kc_context_device(NULL), KC_DEVICE_CPU);
  ck_assert_str_eq(kc_last_diagnostics(NULL), "");
  CHECK_NULL(NULL, "kc_synchronize", kc_synchronize(NULL));
  CHECK_NULL(NULL, "kc_cuda_device_count", kc_cuda_device_count(NULL));
  CHECK_NULL(NULL, "kc_cuda_device_info", kc_cuda_device_info(0, NULL));
  kc_device_info info;
  CHECK_NULL(NULL, "kc_context_device_info", kc_context_device_info(NULL, &info));
  CHECK_NULL(ctx, "kc_context_device_info", kc_context_device_info(ctx, NULL));
  CHECK_NULL(NULL, "kc_detect", kc_detect(NULL, 4, NULL));
  ck_assert_str_eq(kc_status_name((kc_status)999), "KC_ERR_UNKNOWN");
}
END_TEST

START_TEST(arrays) {
  int64_t n = 4;
  kc_array *out = NULL;
  float host[4] = {0};
  CHECK_NULL(NULL, "kc_array_new", kc_array_new(NULL, KC_FLOAT32, 1, &n, &out));
  CHECK_NULL(ctx, "kc_array_new", kc_array_new(ctx, KC_FLOAT32, 1, NULL, &out));
  CHECK_NULL(ctx, "kc_array_new", kc_array_new(ctx, KC_FLOAT32, 1, &n, NULL));
  CHECK_NULL(NULL, "kc_array_from_host",
             kc_array_from_host(NULL, KC_FLOAT32, 1, &n, host, sizeof host, &out));
  CHECK_NULL(ctx, "kc_array_from_host",
             kc_array_from_host(ctx, KC_FLOAT32, 1, NULL, host, sizeof host, &out));
  CHECK_NULL(ctx, "kc_array_from_host",
             kc_array_from_host(ctx, KC_FLOAT32, 1, &n, NULL, sizeof host, &out));
  CHECK_NULL(ctx, "kc_array_from_host",
             kc_array_from_host(ctx, KC_FLOAT32, 1, &n, host, sizeof host, NULL));
  CHECK_NULL(NULL, "kc_array_like", kc_array_like(NULL, &out));
  CHECK_NULL(ctx, "kc_array_like", kc_array_like(arr, NULL));
  CHECK_NULL(NULL, "kc_array_view", kc_array_view(NULL, 0, 1, &out));
  CHECK_NULL(ctx, "kc_array_view", kc_array_view(arr, 0, 1, NULL));
  CHECK_NULL(NULL, "kc_array_slice", kc_array_slice(NULL, NULL, NULL, NULL, &out));
  CHECK_NULL(ctx, "kc_array_slice", kc_array_slice(arr, NULL, NULL, NULL, NULL));
  ck_assert_int_eq(kc_array_is_contiguous(NULL), 0);
  ck_assert_ptr_null(kc_array_strides(NULL));
  CHECK_NULL(NULL, "kc_array_to_host", kc_array_to_host(NULL, host, sizeof host));
  CHECK_NULL(ctx, "kc_array_to_host", kc_array_to_host(arr, NULL, sizeof host));
  CHECK_NULL(NULL, "kc_array_copy_from_host", kc_array_copy_from_host(NULL, host, sizeof host));
  CHECK_NULL(ctx, "kc_array_copy_from_host", kc_array_copy_from_host(arr, NULL, sizeof host));
  CHECK_NULL(NULL, "kc_array_copy", kc_array_copy(NULL, arr));
  CHECK_NULL(ctx, "kc_array_copy", kc_array_copy(arr, NULL));
  CHECK_NULL(NULL, "kc_array_fill", kc_array_fill(NULL, host));
  CHECK_NULL(ctx, "kc_array_fill", kc_array_fill(arr, NULL));
  CHECK_NULL(NULL, "kc_array_zero", kc_array_zero(NULL));
  kc_array_free(NULL);
  ck_assert_int_eq(kc_array_ndim(NULL), 0);
  ck_assert_ptr_null(kc_array_shape(NULL));
  ck_assert_int_eq(kc_array_size(NULL), 0);
  ck_assert_uint_eq(kc_array_bytes(NULL), 0);
  ck_assert_str_eq(kc_array_record(NULL), "");
  (void)kc_array_dtype(NULL);
  void *p = NULL;
  CHECK_NULL(NULL, "kc_host_alloc", kc_host_alloc(NULL, 16, &p));
  CHECK_NULL(ctx, "kc_host_alloc", kc_host_alloc(ctx, 16, NULL));
  kc_host_free(NULL, NULL);
  kc_host_free(ctx, NULL);
}
END_TEST

START_TEST(records) {
  kc_record_field f = {"x", KC_FLOAT32, NULL, 0, 0, {0}};
  kc_record *r = NULL;
  int64_t n = 2;
  kc_array *out = NULL;
  CHECK_NULL(NULL, "kc_record_new", kc_record_new(NULL, &f, 1, 4, 0, &r));
  CHECK_NULL(ctx, "kc_record_new", kc_record_new(ctx, NULL, 1, 4, 0, &r));
  CHECK_NULL(ctx, "kc_record_new", kc_record_new(ctx, &f, 1, 4, 0, NULL));
  ck_assert_int_eq(kc_record_new(ctx, &f, 1, 4, 0, &r), KC_OK);
  kc_record_free(NULL);
  ck_assert_str_eq(kc_record_spelling(NULL), "");
  ck_assert_uint_eq(kc_record_size(NULL), 0);
  CHECK_NULL(NULL, "kc_array_new_records", kc_array_new_records(NULL, r, 1, &n, &out));
  CHECK_NULL(ctx, "kc_array_new_records", kc_array_new_records(ctx, NULL, 1, &n, &out));
  CHECK_NULL(ctx, "kc_array_new_records", kc_array_new_records(ctx, r, 1, NULL, &out));
  CHECK_NULL(ctx, "kc_array_new_records", kc_array_new_records(ctx, r, 1, &n, NULL));
  float host[2] = {0};
  CHECK_NULL(NULL, "kc_array_from_host_records",
             kc_array_from_host_records(NULL, r, 1, &n, host, sizeof host, &out));
  CHECK_NULL(ctx, "kc_array_from_host_records",
             kc_array_from_host_records(ctx, NULL, 1, &n, host, sizeof host, &out));
  CHECK_NULL(ctx, "kc_array_from_host_records",
             kc_array_from_host_records(ctx, r, 1, &n, NULL, sizeof host, &out));
  CHECK_NULL(ctx, "kc_array_from_host_records",
             kc_array_from_host_records(ctx, r, 1, &n, host, sizeof host, NULL));
  kc_record_free(r);
}
END_TEST

START_TEST(modules) {
  kc_module *m = NULL;
  kc_kernel *k = NULL;
  CHECK_NULL(NULL, "kc_compile_source", kc_compile_source(NULL, "x", src, 3, NULL, &m));
  CHECK_NULL(ctx, "kc_compile_source", kc_compile_source(ctx, "x", NULL, 3, NULL, &m));
  CHECK_NULL(ctx, "kc_compile_source", kc_compile_source(ctx, "x", src, 3, NULL, NULL));
  char *ptx = NULL;
  CHECK_NULL(NULL, "kc_compile_ptx", kc_compile_ptx(NULL, "x", src, 3, NULL, 0, &ptx, NULL));
  CHECK_NULL(ctx, "kc_compile_ptx", kc_compile_ptx(ctx, "x", NULL, 3, NULL, 0, &ptx, NULL));
  CHECK_NULL(ctx, "kc_compile_ptx", kc_compile_ptx(ctx, "x", src, 3, NULL, 0, NULL, NULL));
  CHECK_NULL(NULL, "kc_compile_text",
             kc_compile_text(NULL, "x", src, 3, NULL, KC_TEXT_TYPES, 0, &ptx, NULL));
  CHECK_NULL(ctx, "kc_compile_text",
             kc_compile_text(ctx, "x", NULL, 3, NULL, KC_TEXT_LLVM, 0, &ptx, NULL));
  CHECK_NULL(ctx, "kc_compile_text",
             kc_compile_text(ctx, "x", src, 3, NULL, KC_TEXT_PTX, 0, NULL, NULL));
  kc_text_free(NULL, NULL);   /* nothing to free: does nothing */
  kc_text_free(ctx, NULL);
  CHECK_NULL(NULL, "kc_compile_file", kc_compile_file(NULL, "x.k", NULL, &m));
  CHECK_NULL(ctx, "kc_compile_file", kc_compile_file(ctx, NULL, NULL, &m));
  CHECK_NULL(ctx, "kc_compile_file", kc_compile_file(ctx, "x.k", NULL, NULL));
  CHECK_NULL(NULL, "kc_module_load_ptx", kc_module_load_ptx(NULL, "x", 1, &m));
  CHECK_NULL(ctx, "kc_module_load_ptx", kc_module_load_ptx(ctx, NULL, 1, &m));
  CHECK_NULL(ctx, "kc_module_load_ptx", kc_module_load_ptx(ctx, "x", 1, NULL));
  CHECK_NULL(NULL, "kc_module_load_image", kc_module_load_image(NULL, "x", 1, NULL, &m));
  CHECK_NULL(ctx, "kc_module_load_image", kc_module_load_image(ctx, NULL, 1, NULL, &m));
  CHECK_NULL(ctx, "kc_module_load_image", kc_module_load_image(ctx, "x", 1, NULL, NULL));
  CHECK_NULL(NULL, "kc_module_load_file", kc_module_load_file(NULL, "x.ptx", &m));
  CHECK_NULL(ctx, "kc_module_load_file", kc_module_load_file(ctx, NULL, &m));
  CHECK_NULL(ctx, "kc_module_load_file", kc_module_load_file(ctx, "x.ptx", NULL));
  kc_module_free(NULL);
  CHECK_NULL(NULL, "kc_module_get_kernel", kc_module_get_kernel(NULL, "k", &k));
  CHECK_NULL(ctx, "kc_module_get_kernel", kc_module_get_kernel(mod, NULL, &k));
  CHECK_NULL(ctx, "kc_module_get_kernel", kc_module_get_kernel(mod, "k", NULL));
  ck_assert_int_eq(kc_kernel_param_count(NULL), 0);
  ck_assert_str_eq(kc_kernel_signature(NULL), "");
}
END_TEST

START_TEST(launches) {
  kc_arg args[1] = {kc_arg_array(arr)};
  kc_array *out = NULL;
  int block = 0;
  float r = 0;
  CHECK_NULL(NULL, "kc_launch", kc_launch(NULL, kc_dim(1), kc_dim(1), 0, NULL, args, 1));
  CHECK_NULL(ctx, "kc_launch", kc_launch(kern, kc_dim(1), kc_dim(1), 0, NULL, NULL, 1));
  CHECK_NULL(NULL, "kc_kernel_suggest_block", kc_kernel_suggest_block(NULL, 0, &block, NULL));
  CHECK_NULL(ctx, "kc_kernel_suggest_block", kc_kernel_suggest_block(kern, 0, NULL, NULL));
  CHECK_NULL(NULL, "kc_vectorize", kc_vectorize(NULL, &arr, 1, &out));
  CHECK_NULL(ctx, "kc_vectorize", kc_vectorize(kern, &arr, 1, NULL));
  CHECK_NULL(NULL, "kc_vectorize_args", kc_vectorize_args(NULL, args, 1, &out, NULL));
  CHECK_NULL(ctx, "kc_vectorize_args", kc_vectorize_args(kern, args, 1, NULL, NULL));
  CHECK_NULL(NULL, "kc_guvectorize", kc_guvectorize(NULL, &arr, 1, &out, 1));
  CHECK_NULL(ctx, "kc_guvectorize", kc_guvectorize(kern, &arr, 1, NULL, 1));
  CHECK_NULL(NULL, "kc_reduce", kc_reduce(NULL, arr, NULL, &r));
  CHECK_NULL(ctx, "kc_reduce", kc_reduce(kern, NULL, NULL, &r));
  CHECK_NULL(ctx, "kc_reduce", kc_reduce(kern, arr, NULL, NULL));
  CHECK_NULL(NULL, "kc_random_states", kc_random_states(NULL, 4, 1, &out));
  CHECK_NULL(ctx, "kc_random_states", kc_random_states(ctx, 4, 1, NULL));
}
END_TEST

START_TEST(streams_and_events) {
  kc_stream *s = NULL;
  kc_event *e = NULL;
  float ms;
  CHECK_NULL(NULL, "kc_stream_new", kc_stream_new(NULL, &s));
  CHECK_NULL(ctx, "kc_stream_new", kc_stream_new(ctx, NULL));
  CHECK_NULL(NULL, "kc_stream_synchronize", kc_stream_synchronize(NULL));
  kc_stream_free(NULL);
  CHECK_NULL(NULL, "kc_event_new", kc_event_new(NULL, &e));
  CHECK_NULL(ctx, "kc_event_new", kc_event_new(ctx, NULL));
  CHECK_NULL(NULL, "kc_event_record", kc_event_record(NULL, NULL));
  CHECK_NULL(NULL, "kc_event_synchronize", kc_event_synchronize(NULL));
  ck_assert_int_eq(kc_event_new(ctx, &e), KC_OK);
  CHECK_NULL(NULL, "kc_event_elapsed_ms", kc_event_elapsed_ms(NULL, e, &ms));
  CHECK_NULL(ctx, "kc_event_elapsed_ms", kc_event_elapsed_ms(e, NULL, &ms));
  CHECK_NULL(ctx, "kc_event_elapsed_ms", kc_event_elapsed_ms(e, e, NULL));
  kc_event_free(NULL);
  kc_event_free(e);
}
END_TEST

static void noop(void *user) { (void)user; }

/* The calls of stream-ordered work, interop, DLPack and peer copies (issues 17, 19). */
START_TEST(streams_interop_peers) {
  float h[4] = {0};
  int done;
  uint64_t p;
  void *v;
  kc_stream *s = NULL;
  kc_array *a = NULL;
  struct DLManagedTensor *t = NULL;
  int64_t n = 4;
  CHECK_NULL(NULL, "kc_array_copy_from_host_async",
             kc_array_copy_from_host_async(NULL, h, sizeof h, NULL));
  CHECK_NULL(NULL, "kc_array_to_host_async", kc_array_to_host_async(NULL, h, sizeof h, NULL));
  CHECK_NULL(NULL, "kc_array_copy_async", kc_array_copy_async(NULL, arr, NULL));
  CHECK_NULL(ctx, "kc_array_copy_async", kc_array_copy_async(arr, NULL, NULL));
  CHECK_NULL(NULL, "kc_array_fill_async", kc_array_fill_async(NULL, h, NULL));
  CHECK_NULL(NULL, "kc_array_zero_async", kc_array_zero_async(NULL, NULL));
  CHECK_NULL(NULL, "kc_event_query", kc_event_query(NULL, &done));
  CHECK_NULL(NULL, "kc_stream_add_callback", kc_stream_add_callback(NULL, noop, NULL));
  CHECK_NULL(NULL, "kc_host_register", kc_host_register(NULL, h, sizeof h));
  CHECK_NULL(NULL, "kc_host_unregister", kc_host_unregister(NULL, h));
  CHECK_NULL(NULL, "kc_array_from_device_ptr",
             kc_array_from_device_ptr(NULL, KC_FLOAT32, 1, &n, NULL, (uint64_t)(uintptr_t)h, &a));
  CHECK_NULL(ctx, "kc_array_from_device_ptr",
             kc_array_from_device_ptr(ctx, KC_FLOAT32, 1, &n, NULL, (uint64_t)(uintptr_t)h, NULL));
  CHECK_NULL(NULL, "kc_array_device_ptr", kc_array_device_ptr(NULL, &p));
  CHECK_NULL(ctx, "kc_array_device_ptr", kc_array_device_ptr(arr, NULL));
  CHECK_NULL(NULL, "kc_array_data", kc_array_data(NULL, &v));
  CHECK_NULL(ctx, "kc_array_data", kc_array_data(arr, NULL));
  CHECK_NULL(NULL, "kc_context_cuda_context", kc_context_cuda_context(NULL, &v));
  CHECK_NULL(ctx, "kc_context_cuda_context", kc_context_cuda_context(ctx, NULL));
  CHECK_NULL(NULL, "kc_stream_cuda_stream", kc_stream_cuda_stream(NULL, &v));
  CHECK_NULL(NULL, "kc_stream_from_cuda", kc_stream_from_cuda(NULL, NULL, &s));
  CHECK_NULL(ctx, "kc_stream_from_cuda", kc_stream_from_cuda(ctx, NULL, NULL));
  CHECK_NULL(NULL, "kc_array_to_dlpack", kc_array_to_dlpack(NULL, &t));
  CHECK_NULL(ctx, "kc_array_to_dlpack", kc_array_to_dlpack(arr, NULL));
  CHECK_NULL(NULL, "kc_array_from_dlpack", kc_array_from_dlpack(NULL, t, &a));
  CHECK_NULL(ctx, "kc_array_from_dlpack", kc_array_from_dlpack(ctx, t, NULL));
  CHECK_NULL(NULL, "kc_array_copy_peer", kc_array_copy_peer(NULL, arr, NULL));
  CHECK_NULL(ctx, "kc_array_copy_peer", kc_array_copy_peer(arr, NULL, NULL));
  CHECK_NULL(NULL, "kc_guvectorize", kc_guvectorize_stream(NULL, NULL, 0, NULL, 0, NULL));
  CHECK_NULL(NULL, "kc_reduce", kc_reduce_stream(NULL, arr, NULL, h, NULL));
}
END_TEST

/* The message kept for a NULL context is the calling thread's own. */
START_TEST(thread_local_message) {
  CHECK_NULL(NULL, "kc_stream_new", kc_stream_new(NULL, NULL));
  ck_assert_ptr_nonnull(strstr(kc_last_error(NULL), "ctx is NULL"));
}
END_TEST

int main(void) {
  Suite *su = suite_create("null_args");
  TCase *tc = tcase_create("all");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, config_and_context);
  tcase_add_test(tc, arrays);
  tcase_add_test(tc, records);
  tcase_add_test(tc, modules);
  tcase_add_test(tc, launches);
  tcase_add_test(tc, streams_and_events);
  tcase_add_test(tc, streams_interop_peers);
  tcase_add_test(tc, thread_local_message);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
