/*
 * test_api.c — the CUDA driver double's own entry points, called directly: the ones
 * the runtime does not use yet (async copies and fills, host registration, stream
 * waits, event queries, host functions, pointer attributes, peer copies) used as the
 * Driver API reference says, with no violation; broken rules each reported (the
 * process then exits with status 70, which Check expects); and every entry point the
 * runtime resolves (runtime/cuda/cuda_entries.def) exported.
 */
#include <check.h>
#include <dlfcn.h>
#include <string.h>

#include <cuda.h>

void cuda_double_counts(unsigned long out[8]);

static CUcontext ctx;

static void open_ctx(void) {
  ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
  ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
  ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
}

static void host_fn(void *user) { *(int *)user += 1; }

START_TEST(async_calls_follow_the_contract) {
  open_ctx();
  CUstream s;
  CUevent e;
  CUdeviceptr d, d2;
  int host[64], back[64], calls = 0;
  for (int i = 0; i < 64; i++) host[i] = i * 3;
  ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  ck_assert_int_eq(cuEventCreate(&e, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemAlloc(&d, sizeof host), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemAlloc(&d2, sizeof host), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemHostRegister(back, sizeof back, 0), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemHostRegister(back, sizeof back, 0),
                   CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  ck_assert_int_eq(cuMemcpyHtoDAsync(d, host, sizeof host, s), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemcpyDtoDAsync(d2, d, sizeof host, s), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemsetD32Async(d2, 7, 4, s), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemsetD16Async(d2 + 16, 0x0101, 2, s), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemsetD8Async(d2 + 20, 2, 4, s), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemsetD2D32Async(d2 + 24, 8, 9, 1, 2, s), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemcpyPeerAsync(d, ctx, d2, ctx, sizeof host, s), CUDA_SUCCESS);
  ck_assert_int_eq(cuEventRecord(e, s), CUDA_SUCCESS);
  ck_assert_int_eq(cuStreamWaitEvent(NULL, e, 0), CUDA_SUCCESS);
  ck_assert_int_eq(cuLaunchHostFunc(s, host_fn, &calls), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemcpyDtoHAsync(back, d, sizeof back, s), CUDA_SUCCESS);
  ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
  ck_assert_int_eq(cuEventQuery(e), CUDA_SUCCESS);
  ck_assert_int_eq(calls, 1);
  /* 7 x4 | 0x0101 x2 | 2 (bytes) x4 | 9, -, 9 (pitch 8) | the rest as copied */
  for (int i = 0; i < 4; i++) ck_assert_int_eq(back[i], 7);
  ck_assert_int_eq(back[4], 0x01010101);
  ck_assert_int_eq(back[5], 0x02020202);
  ck_assert_int_eq(back[6], 9);
  ck_assert_int_eq(back[7], 21);
  ck_assert_int_eq(back[8], 9);
  for (int i = 9; i < 64; i++) ck_assert_int_eq(back[i], i * 3);
  unsigned type = 0;
  CUdeviceptr start = 0;
  size_t size = 0;
  ck_assert_int_eq(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 8),
                   CUDA_SUCCESS);
  ck_assert_uint_eq(type, CU_MEMORYTYPE_DEVICE);
  ck_assert_int_eq(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                         d + 8), CUDA_SUCCESS);
  ck_assert_uint_eq(start, d);
  ck_assert_int_eq(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d),
                   CUDA_SUCCESS);
  ck_assert_uint_eq(size, sizeof host);
  ck_assert_int_eq(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                         (CUdeviceptr)(uintptr_t)back), CUDA_SUCCESS);
  ck_assert_uint_eq(type, CU_MEMORYTYPE_HOST);
  int local;
  ck_assert_int_eq(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                         (CUdeviceptr)(uintptr_t)&local),
                   CUDA_ERROR_INVALID_VALUE);
  void *pinned = NULL;
  ck_assert_int_eq(cuMemHostAlloc(&pinned, 100, CU_MEMHOSTALLOC_PORTABLE), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemFreeHost(pinned), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemHostUnregister(back), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemFree(d2), CUDA_SUCCESS);
  ck_assert_int_eq(cuEventDestroy(e), CUDA_SUCCESS);
  ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
  ck_assert_int_eq(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
  unsigned long c[8];
  cuda_double_counts(c);
  ck_assert_uint_eq(c[4], 0);   /* violations */
  ck_assert_uint_eq(c[5], 0);   /* live bytes */
  ck_assert_uint_eq(c[7], 0);   /* live handles */
}
END_TEST

/* Each broken rule is refused with the driver's error and counted. */
START_TEST(broken_rules_are_reported) {
  open_ctx();
  unsigned long c[8];
  CUdeviceptr d;
  char host[32];
  CUstream s;
  CUevent e;
  ck_assert_int_eq(cuMemAlloc(&d, 16), CUDA_SUCCESS);
  ck_assert_int_eq(cuMemcpyHtoD(d, host, 32), CUDA_ERROR_INVALID_VALUE);   /* past end */
  ck_assert_int_eq(cuMemsetD32(d + 2, 0, 1), CUDA_ERROR_INVALID_VALUE);   /* misaligned */
  ck_assert_int_eq(cuMemFree(d + 4), CUDA_ERROR_INVALID_VALUE);   /* not a start */
  ck_assert_int_eq(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
  ck_assert_int_eq(cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);   /* destroyed */
  ck_assert_int_eq(cuEventCreate(&e, 0), CUDA_SUCCESS);
  float ms;
  ck_assert_int_eq(cuEventElapsedTime(&ms, e, e), CUDA_ERROR_INVALID_HANDLE);   /* unrecorded */
  ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
  ck_assert_int_eq(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);   /* none current */
  ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  ck_assert_int_eq(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);   /* leaks d and e */
  cuda_double_counts(c);
  ck_assert_uint_eq(c[4], 8);
}
END_TEST

/* The rows of the runtime's table of driver entry points. */
typedef struct entry {
  const char *symbol, *fallback;
  int required;
} entry;

static const entry entries[] = {
#define CU_ENTRY(member, ver, symbol, fallback, need) {symbol, fallback, need},
#include "cuda/cuda_entries.def"
#undef CU_ENTRY
};

/* Optional entry points the double does not have: the runtime does without them (no
 * CUstream ownership check, no peer column, peer copies refused), and the suite runs
 * those paths. Give the double one and take it off this list. */
static const char *const left_out[] = {"cuStreamGetCtx", "cuDeviceCanAccessPeer",
                                       "cuMemcpyPeer"};

static int is_left_out(const char *symbol) {
  for (size_t i = 0; i < sizeof left_out / sizeof left_out[0]; i++)
    if (strcmp(left_out[i], symbol) == 0) return 1;
  return 0;
}

/* A new row in cuda_entries.def needs the entry point in the double too. */
START_TEST(exports_every_entry_point) {
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
    const entry *e = &entries[i];
    void *p = dlsym(RTLD_DEFAULT, e->symbol);
    if (!p && e->fallback) p = dlsym(RTLD_DEFAULT, e->fallback);
    if (is_left_out(e->symbol)) {
      ck_assert_msg(!e->required, "%s is required: the double must export it", e->symbol);
      ck_assert_msg(!p, "the double exports %s now: take it off left_out", e->symbol);
    } else {
      ck_assert_msg(p != NULL, "the CUDA driver double lacks %s (runtime/cuda/"
                    "cuda_entries.def): add it to tests/cuda_double/", e->symbol);
    }
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("cuda_double_api");
  TCase *tc = tcase_create("api");
  tcase_add_test(tc, async_calls_follow_the_contract);
  tcase_add_exit_test(tc, broken_rules_are_reported, 70);
  tcase_add_test(tc, exports_every_entry_point);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
