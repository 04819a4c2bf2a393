/*
 * interop.c — kcc sharing memory with other code, without copies: a buffer the program
 * owns wrapped as an array (kc_array_from_device_ptr: kcc never frees it), a kernel run
 * on it, the result handed out as a DLPack tensor (what PyTorch, CuPy or NumPy take)
 * and taken back (kc_array_from_dlpack), and, on a GPU, the CUcontext and CUstream a
 * library such as cuBLAS would be given. Checked against a C loop.
 *
 *   usage: interop [path/to/interop.k]     (exit 0 when the results are right)
 */
#include <stdio.h>
#include <stdlib.h>

#include "kc.h"

enum { N = 10000 };

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "interop: %s failed: %s: %s\n", what, kc_status_name(s), kc_last_error(ctx));
  return 1;
}

/* y = a * x + y on the device. */
static kc_status axpy(kc_kernel *k, kc_array *x, kc_array *y, float a) {
  kc_arg args[] = {kc_arg_array(x), kc_arg_array(y), kc_arg_f32(a)};
  return kc_launch(k, kc_dim((N + 255) / 256), kc_dim(256), 0, NULL, args, 3);
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/interop.k";
  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {
    printf("interop: no CUDA device: skipped\n");
    kc_context_free(ctx);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);
  int cuda = kc_context_device(ctx) == KC_DEVICE_CUDA;
  float hx[N], hy[N], want[N], got[N];
  /* y = 2x + y twice (once before the DLPack round trip, once after): 4x + 1, exact */
  for (int i = 0; i < N; i++) hx[i] = (float)i, hy[i] = 1.0f, want[i] = 4.0f * (float)i + 1.0f;

  kc_module *m = NULL;
  kc_kernel *k = NULL;
  if ((s = kc_compile_file(ctx, path, NULL, &m)) != KC_OK ||
      (s = kc_module_get_kernel(m, "axpy", &k)) != KC_OK)
    return fail(ctx, "compile", s);
  int64_t n = N;
  kc_array *x = NULL, *y = NULL, *mine = NULL, *back = NULL;
  if ((s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, hx, sizeof hx, &x)) != KC_OK)
    return fail(ctx, "x", s);

  /* "Memory the program owns": a host buffer on the CPU device; on a GPU, device memory
   * another library would have allocated (cudaMalloc): here a kcc array's, by address. */
  uint64_t p = (uint64_t)(uintptr_t)hy;
  if (cuda) {
    if ((s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, hy, sizeof hy, &y)) != KC_OK ||
        (s = kc_array_device_ptr(y, &p)) != KC_OK)
      return fail(ctx, "y", s);
    void *cuctx = NULL;
    kc_context_cuda_context(ctx, &cuctx);
    printf("interop: CUcontext %p, y at CUdeviceptr 0x%llx\n", cuctx, (unsigned long long)p);
  }
  if ((s = kc_array_from_device_ptr(ctx, KC_FLOAT32, 1, &n, NULL, p, &mine)) != KC_OK)
    return fail(ctx, "kc_array_from_device_ptr", s);
  if ((s = axpy(k, x, mine, 2.0f)) != KC_OK) return fail(ctx, "launch", s);

  /* out as DLPack (a consumer would now own the tensor), and back in */
  struct DLManagedTensor *t = NULL;
  if ((s = kc_array_to_dlpack(mine, &t)) == KC_ERR_UNSUPPORTED) {
    printf("interop: %s\n", kc_last_error(ctx));   /* built without dlpack.h */
    if ((s = axpy(k, x, mine, 2.0f)) != KC_OK) return fail(ctx, "launch", s);
  } else if (s != KC_OK) {
    return fail(ctx, "kc_array_to_dlpack", s);
  } else {
    kc_array_free(mine);   /* the tensor keeps the memory's wrapper alive */
    mine = NULL;
    if ((s = kc_array_from_dlpack(ctx, t, &back)) != KC_OK) return fail(ctx, "from_dlpack", s);
    if ((s = axpy(k, x, back, 2.0f)) != KC_OK) return fail(ctx, "launch", s);
    kc_array_free(back);   /* runs the tensor's deleter */
  }
  if (cuda) s = kc_array_to_host(y, got, sizeof got);
  else for (int i = 0; i < N; i++) got[i] = hy[i];   /* written in place */
  if (s != KC_OK) return fail(ctx, "copy to host", s);
  int bad = 0;
  for (int i = 0; i < N; i++) bad += got[i] != want[i];
  printf("interop: %s on %s: %d of %d elements wrong\n", bad ? "FAIL" : "OK",
         cuda ? "cuda" : "cpu", bad, N);
  kc_array_free(mine);
  kc_array_free(y);
  kc_array_free(x);
  kc_module_free(m);
  kc_context_free(ctx);
  return bad != 0;
}
