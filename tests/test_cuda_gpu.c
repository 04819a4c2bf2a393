/*
 * test_cuda_gpu.c — the runtime on a real CUDA device: arrays, fills, views, PTX loaded
 * from kcc-kernel lines, launches with array and scalar arguments, opt-in dynamic
 * shared memory, a bad module's JIT log, streams and events, stream-ordered copies,
 * fills, waits and callbacks with page-locked memory; cubins (ptxas's, of kcc's
 * PTX) loaded from a file and from memory, with the table kcc put in them and with one
 * given by the caller; PTX linked with the files its "// kcc-link:" lines name and run
 * (link=[...]: PTX files, a .cu through NVRTC, an undefined function); interop (array pointers, arrays over device memory kcc does not
 * own, the CUcontext, a borrowed CUstream, DLPack both ways); KC_DEVICE=cuda:N and peer copies between contexts;
 * last, a kernel that never ends under kc_config.timeout_ms (KC_ERR_TIMEOUT, the context
 * lost, kc_context_free returning).
 * Exits 77 (Meson's "skipped") without a driver or a GPU.
 *
 *   usage: test_cuda_gpu VECTOR_ADD_PTX [LINK_DIR]
 *     VECTOR_ADD_PTX  kcc's PTX of samples/vector_add.k, written at build time
 *                     (`kcc compile --arch=sm_70`)
 *     LINK_DIR        tests/link/: a kernel's PTX linked with device functions from
 *                     .ptx and .cu files (@cuda.jit(link=[...]), runtime/link.c) and run
 *
 * It uses kc.h alone (it links against libkc.so, as scripts/gpu.sh carries it to a GPU
 * machine without LLVM); the driver's opt-in shared-memory limit comes from libcuda.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include "kc.h"
#include "kc_config.h"
#ifdef KC_HAVE_DLPACK
#include <dlpack/dlpack.h>
#endif

static int failures;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                            \
    }                                                                        \
  } while (0)

#define CHECK_OK(ctx, call)                                                  \
  do {                                                                       \
    kc_status s_ = (call);                                                   \
    if (s_ != KC_OK) {                                                       \
      fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,      \
              kc_status_name(s_), kc_last_error(ctx));                       \
      failures++;                                                            \
    }                                                                        \
  } while (0)

/* vadd(float32[:] a, float32[:] b, float32[:] c): c = a + b
 * fill(int32[:] x, int32 v): x[i] = v, the block's dynamic shared memory touched first */
static const char ptx[] =
    "// kcc-kernel: vadd vadd(float32[:], float32[:], float32[:])\n"
    "// kcc-kernel: fill_i32 fill(int32[:], int32)\n"
    ".version 6.0\n"
    ".target sm_50\n"
    ".address_size 64\n"
    ".extern .shared .align 16 .b8 dyn[];\n"
    ".visible .entry vadd(.param .u64 a, .param .u64 an, .param .u64 b, .param .u64 bn,\n"
    "                     .param .u64 c, .param .u64 cn)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<5>;\n"
    "  .reg .b64 %rd<12>;\n"
    "  .reg .f32 %f<4>;\n"
    "  ld.param.u64 %rd1, [a];\n"
    "  ld.param.u64 %rd2, [b];\n"
    "  ld.param.u64 %rd3, [c];\n"
    "  ld.param.u64 %rd4, [cn];\n"
    "  mov.u32 %r1, %ctaid.x;\n"
    "  mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "  cvt.s64.s32 %rd5, %r4;\n"
    "  setp.ge.s64 %p1, %rd5, %rd4;\n"
    "  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd6, %rd1;\n"
    "  cvta.to.global.u64 %rd7, %rd2;\n"
    "  cvta.to.global.u64 %rd8, %rd3;\n"
    "  shl.b64 %rd9, %rd5, 2;\n"
    "  add.s64 %rd10, %rd6, %rd9;\n"
    "  ld.global.f32 %f1, [%rd10];\n"
    "  add.s64 %rd10, %rd7, %rd9;\n"
    "  ld.global.f32 %f2, [%rd10];\n"
    "  add.f32 %f3, %f1, %f2;\n"
    "  add.s64 %rd11, %rd8, %rd9;\n"
    "  st.global.f32 [%rd11], %f3;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n"
    ".visible .entry fill_i32(.param .u64 x, .param .u64 xn, .param .u32 v)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<7>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [x];\n"
    "  ld.param.u64 %rd2, [xn];\n"
    "  ld.param.u32 %r5, [v];\n"
    "  mov.u32 %r1, %ctaid.x;\n"
    "  mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "  .reg .b64 %sa<3>;\n"
    "  shl.b32 %r6, %r3, 2;\n"
    "  mov.u64 %sa1, dyn;\n"
    "  cvt.u64.u32 %sa2, %r6;\n"
    "  add.u64 %sa1, %sa1, %sa2;\n"
    "  st.shared.u32 [%sa1], %r5;\n"
    "  cvt.s64.s32 %rd3, %r4;\n"
    "  setp.ge.s64 %p1, %rd3, %rd2;\n"
    "  @%p1 bra END;\n"
    "  cvta.to.global.u64 %rd4, %rd1;\n"
    "  shl.b64 %rd5, %rd3, 2;\n"
    "  add.s64 %rd6, %rd4, %rd5;\n"
    "  st.global.u32 [%rd6], %r5;\n"
    "END:\n"
    "  ret;\n"
    "}\n";

/* ptxas's cubin of the PTX `text` for sm_<arch> into path; 0 on success, -1 without ptxas. */
static int assemble(const char *text, size_t len, int arch, const char *path) {
  char ptxas[512], in[64] = "/tmp/kcc-gpu-XXXXXX.ptx", cmd[1400];
  snprintf(ptxas, sizeof ptxas, "%s/bin/ptxas", KC_CUDA_ROOT);
  if (access(ptxas, X_OK) != 0) return -1;
  int fd = mkstemps(in, 4);
  if (fd < 0 || write(fd, text, len) != (ssize_t)len) return -1;
  close(fd);
  snprintf(cmd, sizeof cmd, "'%s' -arch=sm_%d '%s' -o '%s'", ptxas, arch, in, path);
  int rc = system(cmd);
  unlink(in);
  return rc == 0 ? 0 : -1;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *b = malloc(1 << 20);
  *len = fread(b, 1, 1 << 20, f);
  fclose(f);
  return b;
}

/* The largest dynamic shared memory a block may opt in to on device 0, from the driver
 * itself (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN); 0 if unknown. */
static size_t shared_optin(void) {
  typedef int (*attr_fn)(int *, int, int);
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  void *sym = lib ? dlsym(lib, "cuDeviceGetAttribute") : NULL;
  if (!sym) return 0;
  attr_fn get;
  memcpy(&get, &sym, sizeof sym);
  int v = 0;
  enum { OPTIN = 97 };   /* CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
  return get(&v, OPTIN, 0) == 0 && v > 0 ? (size_t)v : 0;
}

/* The CUcontext current on this thread (cuCtxGetCurrent, from libcuda). */
static void *current_cuda_context(void) {
  typedef int (*get_fn)(void **);
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  void *sym = lib ? dlsym(lib, "cuCtxGetCurrent") : NULL;
  if (!sym) return NULL;
  get_fn get;
  memcpy(&get, &sym, sizeof sym);
  void *c = NULL;
  return get(&c) == 0 ? c : NULL;
}

/* DLPack on the GPU: a's export (kDLCUDA, its ordinal, its CUdeviceptr) imported back
 * to the same pointer; a host tensor and another ordinal's refused. */
static void dlpack_gpu(kc_context *ctx, kc_array *a, uint64_t pa) {
#ifdef KC_HAVE_DLPACK
  DLManagedTensor *t = NULL;
  kc_array *back = NULL;
  CHECK_OK(ctx, kc_array_to_dlpack(a, &t));
  if (t) {
    CHECK(t->dl_tensor.device.device_type == kDLCUDA && t->dl_tensor.device.device_id == 0);
    CHECK((uint64_t)(uintptr_t)t->dl_tensor.data == pa && t->dl_tensor.byte_offset == 0);
    CHECK_OK(ctx, kc_array_from_dlpack(ctx, t, &back));
    uint64_t pb = 0;
    if (back) CHECK_OK(ctx, kc_array_device_ptr(back, &pb));
    CHECK(pb == pa);
    if (back) kc_array_free(back);   /* runs the export's deleter */
    else t->deleter(t);
  }
  float h4[4] = {0};
  int64_t four = 4;
  DLManagedTensor h;
  memset(&h, 0, sizeof h);
  h.dl_tensor.data = h4;
  h.dl_tensor.device.device_type = kDLCPU;
  h.dl_tensor.ndim = 1;
  h.dl_tensor.shape = &four;
  h.dl_tensor.dtype.code = kDLFloat;
  h.dl_tensor.dtype.bits = 32;
  h.dl_tensor.dtype.lanes = 1;
  CHECK(kc_array_from_dlpack(ctx, &h, &back) == KC_ERR_INVALID &&
        strstr(kc_last_error(ctx), "copy it with kc_array_from_host"));
  h.dl_tensor.data = (void *)(uintptr_t)pa;
  h.dl_tensor.device.device_type = kDLCUDA;
  h.dl_tensor.device.device_id = 7;
  CHECK(kc_array_from_dlpack(ctx, &h, &back) == KC_ERR_INVALID &&
        strstr(kc_last_error(ctx), "CUDA device 7"));
#else
  (void)ctx; (void)a; (void)pa;
  printf("built without dlpack.h: DLPack not checked\n");
#endif
}

/* Interop: pointers of arrays and views, arrays over device memory kcc does not own,
 * the CUcontext, a stream's CUstream borrowed by a second handle (launched on, freed,
 * the CUstream still alive), DLPack. vadd adds a's and b's elements [M, 2M). */
static void interop(kc_context *ctx, kc_kernel *vadd, kc_array *a, kc_array *b,
                    kc_stream *s, const float *ha, const float *hb) {
  enum { M = 1000 };
  uint64_t pa = 0, pb = 0, pv = 0, po = 0;
  CHECK_OK(ctx, kc_array_device_ptr(a, &pa));
  CHECK_OK(ctx, kc_array_device_ptr(b, &pb));
  CHECK(pa != 0 && pb != 0);
  void *host = (void *)1;
  CHECK(kc_array_data(a, &host) == KC_ERR_UNSUPPORTED && host == NULL);
  kc_array *v = NULL;
  CHECK_OK(ctx, kc_array_view(a, 100, 200, &v));
  if (v) CHECK_OK(ctx, kc_array_device_ptr(v, &pv));
  CHECK(pv == pa + 100 * sizeof(float));
  kc_array_free(v);
  void *cuctx = NULL;
  CHECK_OK(ctx, kc_context_cuda_context(ctx, &cuctx));
  CHECK(cuctx != NULL && cuctx == current_cuda_context());
  int64_t m = M;
  kc_array *wa = NULL, *wb = NULL, *out = NULL, *wout = NULL;
  CHECK_OK(ctx, kc_array_from_device_ptr(ctx, KC_FLOAT32, 1, &m, NULL, pa + M * 4, &wa));
  CHECK_OK(ctx, kc_array_from_device_ptr(ctx, KC_FLOAT32, 1, &m, NULL, pb + M * 4, &wb));
  CHECK_OK(ctx, kc_array_new(ctx, KC_FLOAT32, 1, &m, &out));
  if (out) CHECK_OK(ctx, kc_array_device_ptr(out, &po));
  CHECK_OK(ctx, kc_array_from_device_ptr(ctx, KC_FLOAT32, 1, &m, NULL, po, &wout));
  void *cus = NULL;
  kc_stream *bs = NULL;
  CHECK_OK(ctx, kc_stream_cuda_stream(s, &cus));
  CHECK(cus != NULL);
  CHECK_OK(ctx, kc_stream_from_cuda(ctx, cus, &bs));
  if (wa && wb && wout && bs) {
    kc_arg args[] = {kc_arg_array(wa), kc_arg_array(wb), kc_arg_array(wout)};
    CHECK_OK(ctx, kc_launch(vadd, kc_dim((M + 255) / 256), kc_dim(256), 0, bs, args, 3));
    CHECK_OK(ctx, kc_stream_synchronize(bs));
  }
  kc_stream_free(bs);
  CHECK_OK(ctx, kc_stream_synchronize(s));   /* the CUstream outlived the borrowed handle */
  kc_array_free(wa);
  kc_array_free(wb);
  kc_array_free(wout);                       /* frees the handle, not out's memory */
  float *hout = malloc(M * sizeof *hout);
  if (out) CHECK_OK(ctx, kc_array_to_host(out, hout, M * sizeof *hout));
  for (int i = 0; i < M; i++) CHECK(hout[i] == ha[M + i] + hb[M + i]);
  /* malloc'd memory is not CUDA's (with HMM the driver may still know it: reported) */
  kc_array *bad = NULL;
  kc_status st = kc_array_from_device_ptr(ctx, KC_FLOAT32, 1, &m, NULL, (uintptr_t)hout, &bad);
  CHECK(st == KC_ERR_INVALID || st == KC_OK);
  printf("interop: malloc'd pointer: %s %s\n", kc_status_name(st),
         st == KC_OK ? "" : kc_last_error(ctx));
  if (st == KC_ERR_INVALID) CHECK(strstr(kc_last_error(ctx), "not memory CUDA knows") != NULL);
  kc_array_free(bad);
  free(hout);
  kc_array_free(out);
  dlpack_gpu(ctx, a, pa);
}

/* Cubins: kcc's PTX of samples/vector_add.k through ptxas, loaded from the file (the
 * table inside it), checked against C, with the written/read-only alias check that the
 * table's written= list enables; the hand-written PTX's cubin from memory with a table
 * passed in. */
static void cubins(kc_context *ctx, const kc_device_info *info, const char *ptx_path) {
  int arch = info->cc_major * 10 + info->cc_minor;
  char path[64];
  snprintf(path, sizeof path, "/tmp/kcc-gpu-%d.cubin", (int)getpid());
  size_t plen = 0;
  char *kptx = slurp(ptx_path, &plen);
  CHECK(kptx != NULL);
  if (!kptx) return;
  int assembled = assemble(kptx, plen, arch, path);
  free(kptx);
  if (assembled != 0) {
    printf("cubins: no ptxas in %s/bin: not checked\n", KC_CUDA_ROOT);
    return;
  }
  enum { N = 4097 };
  float ha[N], hb[N], hc[N];
  for (int i = 0; i < N; i++) ha[i] = (float)i, hb[i] = 3.0f - (float)i * 0.25f;
  int64_t n = N;
  kc_array *a = NULL, *b = NULL, *c = NULL;
  CHECK_OK(ctx, kc_array_from_host(ctx, KC_FLOAT32, 1, &n, ha, (size_t)n * sizeof *ha, &a));
  CHECK_OK(ctx, kc_array_from_host(ctx, KC_FLOAT32, 1, &n, hb, (size_t)n * sizeof *hb, &b));
  CHECK_OK(ctx, kc_array_like(a, &c));
  kc_module *m = NULL;
  kc_kernel *k = NULL;
  CHECK_OK(ctx, kc_module_load_file(ctx, path, &m));
  if (m) CHECK_OK(ctx, kc_module_get_kernel(m, "vector_add", &k));
  if (k && a && b && c) {
    CHECK(strcmp(kc_kernel_signature(k),
                 "vector_add(float32[:], float32[:], float32[:])") == 0);
    kc_arg args[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_array(c)};
    CHECK_OK(ctx, kc_launch(k, kc_dim((N + 127) / 128), kc_dim(128), 0, NULL, args, 3));
    CHECK_OK(ctx, kc_array_to_host(c, hc, sizeof hc));
    for (int i = 0; i < N; i++) CHECK(hc[i] == ha[i] + hb[i]);
    kc_arg alias[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_array(a)};
    CHECK(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, alias, 3) == KC_ERR_LAUNCH);
    CHECK(strstr(kc_last_error(ctx), "overlaps argument 1") != NULL);
  }
  kc_module_free(m);
  m = NULL;
  /* the hand-written PTX has no __kcc_kernels: its cubin needs the table passed in */
  if (assemble(ptx, sizeof ptx - 1, arch, path) == 0) {
    size_t clen = 0;
    char *cubin = slurp(path, &clen);
    CHECK(kc_module_load_image(ctx, cubin, clen, NULL, &m) == KC_ERR_INVALID);
    CHECK(strstr(kc_last_error(ctx), "no kernel table") != NULL);
    CHECK_OK(ctx, kc_module_load_image(ctx, cubin, clen,
                                       "vadd vadd(float32[:], float32[:], float32[:])\n"
                                       "fill_i32 fill(int32[:], int32)\n", &m));
    kc_kernel *vadd = NULL;
    if (m) CHECK_OK(ctx, kc_module_get_kernel(m, "vadd", &vadd));
    if (vadd && a && b && c) {
      kc_arg args[] = {kc_arg_array(b), kc_arg_array(b), kc_arg_array(c)};
      CHECK_OK(ctx, kc_launch(vadd, kc_dim((N + 255) / 256), kc_dim(256), 0, NULL, args, 3));
      CHECK_OK(ctx, kc_array_to_host(c, hc, sizeof hc));
      for (int i = 0; i < N; i++) CHECK(hc[i] == hb[i] + hb[i]);
    }
    kc_module_free(m);
    /* a table naming an entry the cubin lacks */
    CHECK(kc_module_load_image(ctx, cubin, clen, "nope nope(int32)", &m) == KC_ERR_NOT_FOUND);
    free(cubin);
  }
  unlink(path);
  kc_array_free(a);
  kc_array_free(b);
  kc_array_free(c);
}

/* Stream-ordered work (issue 17): on s1 an async copy in from page-locked memory, a
 * fill, vadd, an async copy out into a registered malloc buffer, an event; s2 waits for
 * it, copies device to device, fills 8-byte elements (two strided 32-bit memsets),
 * copies out, then a host callback; everything checked after s2 alone is waited for. */
static int callback_ran;
static void set_flag(void *user) { callback_ran = *(int *)user; }

static void stream_ordered(kc_context *ctx) {
  enum { N = 1 << 20 };
  int64_t n = N, s5 = 5;
  kc_module *m = NULL;
  kc_kernel *vadd = NULL;
  kc_stream *s1 = NULL, *s2 = NULL;
  kc_event *e = NULL;
  kc_array *a = NULL, *b = NULL, *c = NULL, *c2 = NULL, *w = NULL;
  float *x = NULL, *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z);
  int64_t wh[5];
  CHECK_OK(ctx, kc_module_load_ptx(ctx, ptx, sizeof ptx - 1, &m));
  if (m) CHECK_OK(ctx, kc_module_get_kernel(m, "vadd", &vadd));
  CHECK_OK(ctx, kc_host_alloc(ctx, N * sizeof *x, (void **)&x));
  CHECK_OK(ctx, kc_host_register(ctx, y, N * sizeof *y));
  CHECK_OK(ctx, kc_stream_new(ctx, &s1));
  CHECK_OK(ctx, kc_stream_new(ctx, &s2));
  CHECK_OK(ctx, kc_event_new(ctx, &e));
  CHECK_OK(ctx, kc_array_new(ctx, KC_FLOAT32, 1, &n, &a));
  CHECK_OK(ctx, kc_array_like(a, &b));
  CHECK_OK(ctx, kc_array_like(a, &c));
  CHECK_OK(ctx, kc_array_like(a, &c2));
  CHECK_OK(ctx, kc_array_new(ctx, KC_INT64, 1, &s5, &w));
  if (!vadd || !x || !y || !z || !s1 || !s2 || !e || !a || !b || !c || !c2 || !w) return;
  for (int i = 0; i < N; i++) x[i] = (float)(i % 4096);
  float half = 0.5f;
  int64_t big = 0x0102030405060708LL, one = 1;
  kc_arg args[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_array(c)};
  CHECK_OK(ctx, kc_array_copy_from_host_async(a, x, N * sizeof *x, s1));
  CHECK_OK(ctx, kc_array_fill_async(b, &half, s1));
  CHECK_OK(ctx, kc_launch(vadd, kc_dim(N / 256), kc_dim(256), 0, s1, args, 3));
  CHECK_OK(ctx, kc_array_to_host_async(c, y, N * sizeof *y, s1));
  CHECK_OK(ctx, kc_event_record(e, s1));
  CHECK_OK(ctx, kc_stream_wait_event(s2, e));
  CHECK_OK(ctx, kc_array_copy_async(c2, c, s2));
  CHECK_OK(ctx, kc_array_zero_async(w, s2));
  CHECK_OK(ctx, kc_array_fill_async(w, &big, s2));
  CHECK_OK(ctx, kc_array_to_host_async(c2, z, N * sizeof *z, s2));
  CHECK_OK(ctx, kc_array_to_host(w, wh, sizeof wh));
  callback_ran = 0;
  CHECK_OK(ctx, kc_stream_add_callback(s2, set_flag, &one));
  CHECK_OK(ctx, kc_stream_synchronize(s2));
  CHECK(callback_ran == 1);
  int done = 0;
  CHECK_OK(ctx, kc_event_query(e, &done));
  CHECK(done == 1);
  int bad = 0;
  for (int i = 0; i < N; i++) bad += y[i] != x[i] + 0.5f || z[i] != y[i];
  CHECK(bad == 0);
  for (int i = 0; i < 5; i++) CHECK(wh[i] == big);
  CHECK(kc_host_unregister(ctx, x) == KC_ERR_INVALID);   /* allocated, not registered */
  CHECK(strstr(kc_last_error(ctx), "was not registered") != NULL);
  CHECK_OK(ctx, kc_host_unregister(ctx, y));
  kc_array_free(a), kc_array_free(b), kc_array_free(c), kc_array_free(c2), kc_array_free(w);
  kc_event_free(e);
  kc_stream_free(s1);
  kc_stream_free(s2);
  kc_host_free(ctx, x);
  free(y), free(z);
  kc_module_free(m);
}

/* Several devices: KC_DEVICE=cuda:N for the last GPU and one past it, `kcc devices`'
 * peer lines, and kc_array_copy_peer GPU to GPU (the last GPU, or the same one through a
 * second context when there is one), GPU to CPU and CPU to GPU. */
static void several_devices(kc_context *ctx, int count) {
  char env[32];
  kc_context *last = NULL, *none = NULL, *cpu = NULL;
  snprintf(env, sizeof env, "cuda:%d", count);
  setenv("KC_DEVICE", env, 1);
  CHECK(kc_context_new(NULL, &none) == KC_ERR_NO_DEVICE);
  char want[128];
  snprintf(want, sizeof want, "KC_DEVICE=cuda:%d: no CUDA device %d: there ", count, count);
  CHECK(none && strncmp(kc_last_error(none), want, strlen(want)) == 0);
  kc_context_free(none);
  snprintf(env, sizeof env, "cuda:%d", count - 1);
  setenv("KC_DEVICE", env, 1);
  CHECK_OK(last, kc_context_new(NULL, &last));
  unsetenv("KC_DEVICE");
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  CHECK_OK(cpu, kc_context_new(&cfg, &cpu));
  char text[4096];
  CHECK_OK(ctx, kc_detect(text, sizeof text, NULL));
  CHECK(count < 2 || strstr(text, "  [0] peer access: 1 ") != NULL);
  enum { N = 4096 };
  int64_t shape[1] = {N};
  int32_t h[N], back[N];
  for (int i = 0; i < N; i++) h[i] = i * 7 - 3;
  kc_array *a = NULL, *b = NULL, *c = NULL;
  kc_stream *st = NULL;
  CHECK_OK(ctx, kc_array_from_host(ctx, KC_INT32, 1, shape, h, sizeof h, &a));
  if (last) CHECK_OK(last, kc_array_new(last, KC_INT32, 1, shape, &b));
  if (cpu) CHECK_OK(cpu, kc_array_new(cpu, KC_INT32, 1, shape, &c));
  if (last) CHECK_OK(last, kc_stream_new(last, &st));
  if (a && b && st) {
    CHECK_OK(last, kc_array_copy_peer(b, a, st));
    CHECK_OK(last, kc_stream_synchronize(st));
    memset(back, 0, sizeof back);
    CHECK_OK(last, kc_array_to_host(b, back, sizeof back));
    CHECK(memcmp(back, h, sizeof h) == 0);
  }
  if (b && c) {
    CHECK_OK(cpu, kc_array_copy_peer(c, b, NULL));  /* GPU to CPU */
    CHECK_OK(cpu, kc_array_to_host(c, back, sizeof back));
    CHECK(memcmp(back, h, sizeof h) == 0);
    CHECK_OK(ctx, kc_array_zero(a));
    CHECK_OK(ctx, kc_array_copy_peer(a, c, NULL));  /* CPU to GPU */
    CHECK_OK(ctx, kc_array_to_host(a, back, sizeof back));
    CHECK(memcmp(back, h, sizeof h) == 0);
  }
  kc_stream_free(st);
  kc_array_free(a);
  kc_array_free(b);
  kc_array_free(c);
  kc_context_free(last);
  kc_context_free(cpu);
}

/* spin(int32[:] x): waits for x[0] != 0, which nothing writes: a kernel that never ends */
static const char spin_ptx[] =
    "// kcc-kernel: spin spin(int32[:])\n"
    ".version 6.0\n"
    ".target sm_50\n"
    ".address_size 64\n"
    ".visible .entry spin(.param .u64 x, .param .u64 xn)\n"
    "{\n"
    "  .reg .u64 %rd<2>;\n"
    "  .reg .u32 %r<1>;\n"
    "  .reg .pred %p<1>;\n"
    "  ld.param.u64 %rd0, [x];\n"
    "  cvta.to.global.u64 %rd1, %rd0;\n"
    "$Lspin:\n"
    "  ld.volatile.global.u32 %r0, [%rd1];\n"
    "  setp.eq.u32 %p0, %r0, 0;\n"
    "  @%p0 bra $Lspin;\n"
    "  ret;\n"
    "}\n";

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A kernel that never ends, with a 200 ms timeout: kc_synchronize gives up with
 * KC_ERR_TIMEOUT naming it, later calls fail at once, kc_context_free returns. Run last:
 * every kc_context on a device shares its primary context, which the kernel holds. */
static void runaway(void) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CUDA;
  cfg.timeout_ms = 200;
  kc_context *ctx = NULL;
  kc_module *m = NULL;
  kc_kernel *k = NULL;
  kc_array *x = NULL;
  int64_t one = 1;
  CHECK_OK(ctx, kc_context_new(&cfg, &ctx));
  CHECK_OK(ctx, kc_module_load_ptx(ctx, spin_ptx, sizeof spin_ptx - 1, &m));
  if (m) CHECK_OK(ctx, kc_module_get_kernel(m, "spin", &k));
  CHECK_OK(ctx, kc_array_new(ctx, KC_INT32, 1, &one, &x));
  CHECK_OK(ctx, kc_array_zero(x));
  if (!k || !x) return;
  kc_arg args[] = {kc_arg_array(x)};
  CHECK_OK(ctx, kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 1));
  double t0 = now_s();
  kc_status s = kc_synchronize(ctx);
  double took = now_s() - t0;
  printf("runaway: %s after %.3f s: %s\n", kc_status_name(s), took, kc_last_error(ctx));
  CHECK(s == KC_ERR_TIMEOUT && took < 2.0 && strstr(kc_last_error(ctx), "'spin'"));
  kc_array *y = NULL;
  t0 = now_s();
  CHECK(kc_array_new(ctx, KC_INT32, 1, &one, &y) == KC_ERR_TIMEOUT);
  CHECK(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 1) == KC_ERR_TIMEOUT);
  CHECK(now_s() - t0 < 0.1);
  kc_array_free(x);
  kc_module_free(m);
  t0 = now_s();
  kc_context_free(ctx);
  printf("runaway: kc_context_free returned after %.3f s\n", now_s() - t0);
}

/* ---- link=[...]: a kernel's PTX linked with device functions from files ---------- */
/* caller.ptx of dir (tests/link/) with a "// kcc-link: DIR/NAME" line per name, as the
 * compiler writes @cuda.jit(link=[...]); malloc'd, or NULL when it cannot be read. */
static char *linked_ptx(const char *dir, const char *const *names) {
  char path[4200], links[9000] = "";
  snprintf(path, sizeof path, "%s/caller.ptx", dir);
  FILE *f = fopen(path, "rb");
  static char tmpl[16384];
  size_t n = f ? fread(tmpl, 1, sizeof tmpl - 1, f) : 0;
  if (f) fclose(f);
  tmpl[n] = '\0';
  char *mark = strstr(tmpl, "@LINK@");
  if (!mark) return NULL;
  for (size_t i = 0; names[i]; i++) {
    size_t at = strlen(links);
    snprintf(links + at, sizeof links - at, "%s// kcc-link: %s/%s", at ? "\n" : "", dir,
             names[i]);
  }
  size_t len = n + strlen(links) + 1;
  char *text = malloc(len);
  if (text) snprintf(text, len, "%.*s%s%s", (int)(mark - tmpl), tmpl, links, mark + 6);
  return text;
}

/* Load caller.ptx linked with names and run mul_add(out, 3, 4): out[0] = 3 * 4 + 4,
 * through the two foreign functions. The load's status (the launch is checked here). */
static kc_status run_linked(kc_context *ctx, const char *dir, const char *const *names) {
  char *text = linked_ptx(dir, names);
  CHECK(text != NULL);
  kc_module *m = NULL;
  kc_status s = text ? kc_module_load_ptx(ctx, text, strlen(text), &m) : KC_ERR_IO;
  free(text);
  kc_kernel *k = NULL;
  kc_array *out = NULL;
  int64_t one[1] = {1};
  float got = 0;
  if (s == KC_OK) {
    CHECK_OK(ctx, kc_module_get_kernel(m, "mul_add", &k));
    CHECK_OK(ctx, kc_array_new(ctx, KC_FLOAT32, 1, one, &out));
  }
  if (k && out) {
    kc_arg args[] = {kc_arg_array(out), kc_arg_f32(3.0f), kc_arg_f32(4.0f)};
    CHECK_OK(ctx, kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 3));
    CHECK_OK(ctx, kc_synchronize(ctx));
    CHECK_OK(ctx, kc_array_to_host(out, &got, sizeof got));
    CHECK(got == 16.0f);
    printf("link=[%s, %s]: mul_add(out, 3, 4) gave %g (want 16)\n", names[0], names[1],
           (double)got);
  }
  kc_array_free(out);
  kc_module_free(m);
  return s;
}

/* The driver's linker on the device (runtime/link.c): PTX files, a .cu compiled by NVRTC
 * (when the machine has it), and an undefined function in the linker's log. */
static void linked(kc_context *ctx, const char *dir_arg) {
  char dir[4096];
  if (!dir_arg || !realpath(dir_arg, dir)) {
    printf("link=: no fixtures directory given: not checked\n");
    return;
  }
  const char *ptx_files[] = {"add.ptx", "mul.ptx", NULL};
  CHECK_OK(ctx, run_linked(ctx, dir, ptx_files));
  const char *cu_files[] = {"add.ptx", "functions.cu", NULL};
  kc_status s = run_linked(ctx, dir, cu_files);
  if (s == KC_ERR_UNSUPPORTED && strstr(kc_last_error(ctx), "needs NVRTC"))
    printf("link= a .cu file: no NVRTC on this machine: not checked (%s)\n",
           kc_last_error(ctx));
  else
    CHECK_OK(ctx, s);
  const char *missing[] = {"add.ptx", NULL};
  CHECK(run_linked(ctx, dir, missing) == KC_ERR_CUDA);
  CHECK(strstr(kc_last_error(ctx), "mul_f32_f32") != NULL);
  printf("link= without mul_f32_f32: %s\n", kc_last_error(ctx));
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_cuda_gpu VECTOR_ADD_PTX [LINK_DIR]\n");
    return 2;
  }
  int count = 0;
  if (kc_cuda_device_count(&count) != KC_OK || count == 0) {
    printf("no CUDA driver or device: skipped\n");
    return 77;
  }
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CUDA;
  kc_context *ctx;
  kc_status st = kc_context_new(&cfg, &ctx);
  if (st != KC_OK) {
    printf("CUDA device not usable (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    return 77;
  }
  CHECK(kc_context_device(ctx) == KC_DEVICE_CUDA);
  kc_device_info info;
  CHECK_OK(ctx, kc_context_device_info(ctx, &info));
  printf("device: %s, sm_%d%d, %zu MiB\n", info.name, info.cc_major, info.cc_minor,
         info.total_memory >> 20);
  char text[4096];
  CHECK_OK(ctx, kc_detect(text, sizeof text, NULL));
  CHECK(strstr(text, "CUDA devices: ") && strstr(text, ": supported\n"));

  /* arrays: round trip, fill (1-, 4- and 8-byte elements), zero, views, copy */
  enum { N = 100000 };
  float *ha = malloc(N * sizeof *ha), *hb = malloc(N * sizeof *hb),
        *hc = malloc(N * sizeof *hc);
  for (int i = 0; i < N; i++) {
    ha[i] = (float)i;
    hb[i] = 0.5f * (float)i;
  }
  int64_t shape[1] = {N};
  kc_array *a = NULL, *b = NULL, *c = NULL, *v = NULL, *d = NULL;
  CHECK_OK(ctx, kc_array_from_host(ctx, KC_FLOAT32, 1, shape, ha, (size_t)shape[0] * sizeof *ha, &a));
  CHECK_OK(ctx, kc_array_from_host(ctx, KC_FLOAT32, 1, shape, hb, (size_t)shape[0] * sizeof *hb, &b));
  CHECK_OK(ctx, kc_array_like(a, &c));
  int64_t big = 0x1122334455667788LL, dh[7];
  int64_t s7[1] = {7};
  CHECK_OK(ctx, kc_array_new(ctx, KC_INT64, 1, s7, &d));
  CHECK_OK(ctx, kc_array_fill(d, &big));
  CHECK_OK(ctx, kc_array_to_host(d, dh, sizeof dh));
  for (int i = 0; i < 7; i++) CHECK(dh[i] == big);
  CHECK_OK(ctx, kc_array_zero(d));
  CHECK_OK(ctx, kc_array_to_host(d, dh, sizeof dh));
  for (int i = 0; i < 7; i++) CHECK(dh[i] == 0);

  /* modules from PTX, kernels by name, signatures */
  kc_module *m = NULL;
  CHECK_OK(ctx, kc_module_load_ptx(ctx, ptx, sizeof ptx - 1, &m));
  kc_kernel *vadd = NULL, *fill = NULL;
  if (m) {
    CHECK_OK(ctx, kc_module_get_kernel(m, "vadd", &vadd));
    CHECK_OK(ctx, kc_module_get_kernel(m, "fill", &fill));
  }
  if (vadd && fill) {
    CHECK(kc_kernel_param_count(vadd) == 3);
    CHECK(strcmp(kc_kernel_signature(fill), "fill(int32[:], int32)") == 0);
    kc_stream *s = NULL;
    kc_event *e0 = NULL, *e1 = NULL;
    CHECK_OK(ctx, kc_stream_new(ctx, &s));
    CHECK_OK(ctx, kc_event_new(ctx, &e0));
    CHECK_OK(ctx, kc_event_new(ctx, &e1));
    kc_arg args[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_array(c)};
    CHECK_OK(ctx, kc_event_record(e0, s));
    CHECK_OK(ctx, kc_launch(vadd, kc_dim((N + 255) / 256), kc_dim(256), 0, s, args, 3));
    CHECK_OK(ctx, kc_event_record(e1, s));
    CHECK_OK(ctx, kc_stream_synchronize(s));
    float ms = -1;
    CHECK_OK(ctx, kc_event_elapsed_ms(e0, e1, &ms));
    CHECK(ms >= 0);
    CHECK_OK(ctx, kc_array_to_host(c, hc, N * sizeof *hc));
    for (int i = 0; i < N; i++) CHECK(hc[i] == 1.5f * (float)i);
    /* a view: only rows [100, 200) */
    CHECK_OK(ctx, kc_array_zero(c));
    kc_array *va = NULL, *vb = NULL;
    CHECK_OK(ctx, kc_array_view(a, 100, 200, &va));
    CHECK_OK(ctx, kc_array_view(b, 100, 200, &vb));
    CHECK_OK(ctx, kc_array_view(c, 100, 200, &v));
    kc_arg vargs[] = {kc_arg_array(va), kc_arg_array(vb), kc_arg_array(v)};
    CHECK_OK(ctx, kc_launch(vadd, kc_dim(1), kc_dim(128), 0, NULL, vargs, 3));
    CHECK_OK(ctx, kc_synchronize(ctx));
    CHECK_OK(ctx, kc_array_to_host(c, hc, N * sizeof *hc));
    for (int i = 0; i < N; i++) CHECK(hc[i] == (i >= 100 && i < 200 ? 1.5f * (float)i : 0.0f));
    kc_array_free(va);
    kc_array_free(vb);
    /* argument errors name the parameter (no names in PTX: by position) */
    kc_arg wrong[] = {kc_arg_array(a), kc_arg_array(d), kc_arg_array(c)};
    CHECK(kc_launch(vadd, kc_dim(1), kc_dim(1), 0, NULL, wrong, 3) == KC_ERR_LAUNCH);
    CHECK(strcmp(kc_last_error(ctx),
                 "kernel 'vadd': argument 2: expected float32[:], got int64[:]") == 0);
    CHECK(kc_launch(vadd, kc_dim(1), kc_dim(2048), 0, NULL, args, 3) == KC_ERR_LAUNCH);
    /* scalars converted; dynamic shared memory past 48 KiB where the device allows it */
    int64_t s2[1] = {5000};
    kc_array *xi = NULL;
    CHECK_OK(ctx, kc_array_new(ctx, KC_INT32, 1, s2, &xi));
    size_t shared = info.max_shared_per_block;
    if (shared_optin() > shared) shared = shared_optin();
    kc_arg fargs[] = {kc_arg_array(xi), kc_arg_i64(-7)};
    CHECK_OK(ctx, kc_launch(fill, kc_dim(20), kc_dim(256), shared, NULL, fargs, 2));
    CHECK_OK(ctx, kc_synchronize(ctx));
    int32_t *hx = malloc(5000 * sizeof *hx);
    CHECK_OK(ctx, kc_array_to_host(xi, hx, 5000 * sizeof *hx));
    for (int i = 0; i < 5000; i++) CHECK(hx[i] == -7);
    free(hx);
    CHECK(kc_launch(fill, kc_dim(1), kc_dim(1), shared + 1, NULL, fargs, 2) == KC_ERR_LAUNCH);
    kc_array_free(xi);
    interop(ctx, vadd, a, b, s, ha, hb);
    kc_event_free(e0);
    kc_event_free(e1);
    kc_stream_free(s);
  }
  kc_module_free(m);

  /* bad PTX: the driver's JIT log is in the message */
  static const char bad[] = "// kcc-kernel: k k(int32)\n.version 6.0\n.target sm_50\n"
                            ".address_size 64\n.visible .entry k(.param .u32 n) { bogus; }\n";
  CHECK(kc_module_load_ptx(ctx, bad, sizeof bad - 1, &m) == KC_ERR_CUDA);
  CHECK(strstr(kc_last_error(ctx), "cuModuleLoadDataEx failed: CUDA_ERROR_") != NULL);
  printf("bad PTX: %s\n", kc_last_error(ctx));

  cubins(ctx, &info, argv[1]);
  linked(ctx, argc > 2 ? argv[2] : NULL);
  stream_ordered(ctx);
  several_devices(ctx, count);

  /* pinned host memory */
  void *pinned = NULL;
  CHECK_OK(ctx, kc_host_alloc(ctx, 1 << 20, &pinned));
  if (pinned) {
    memset(pinned, 3, 1 << 20);
    kc_host_free(ctx, pinned);
  }

  kc_array_free(v);
  kc_array_free(a);
  kc_array_free(b);
  kc_array_free(c);
  kc_array_free(d);
  free(ha);
  free(hb);
  free(hc);
  kc_context_free(ctx);
  runaway();
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
