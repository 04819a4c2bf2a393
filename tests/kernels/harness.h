/*
 * harness.h — shared helpers of the end-to-end kernel tests (tests/kernels/NAME.c).
 *
 * A test compiles NAME.k (path in argv[1]) on the device the environment picks
 * (KC_DEVICE=cpu|cuda|auto), builds deterministic inputs, poisons every output so an
 * element the kernel never wrote is caught, launches, copies back and compares with a
 * reference computed here in C. It prints `PASS name` or `FAIL name: ...` and exits
 * 0 / 1; 77 (Meson's "skipped") when CUDA was asked for and there is none.
 *
 * Everything is static inline so each test is one translation unit with no library.
 */
#ifndef KC_TEST_HARNESS_H
#define KC_TEST_HARNESS_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc.h"

#define H_SKIP 77

/* A quiet NaN with a payload no arithmetic produces: a float element still holding
 * these bits was never written. */
#define H_POISON_F32_BITS 0x7FDEAD01u
#define H_POISON_F64_BITS 0x7FFDEAD0DEAD0001ull
#define H_POISON_I32 ((int32_t)0x7EADBEEF)
#define H_POISON_U32 0xDEADBEEFu
#define H_POISON_I64 ((int64_t)0x7EADBEEFDEADBEEFll)
#define H_POISON_U64 0xDEADBEEFDEADBEEFull
#define H_POISON_U8 0xA5u

typedef struct h_test {
  const char *name;
  kc_context *ctx;
  kc_module *mod;
  int failures;
} h_test;

static h_test H;

/* Print "FAIL name: <message>" and exit 1. */
static inline void h_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void h_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("FAIL %s: ", H.name ? H.name : "?");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  fflush(stdout);
  exit(1);
}

/* Die if a kc_* call failed, naming the call and the context's last error. */
static inline void h_ok(kc_status s, const char *what) {
  if (s != KC_OK)
    h_die("%s: %s: %s", what, kc_status_name(s), H.ctx ? kc_last_error(H.ctx) : "");
}

/* Start a test: make the context from the environment, compile argv[1]. */
static inline void h_begin(const char *name, int argc, char **argv) {
  H.name = name;
  if (argc < 2) h_die("usage: %s FILE.k", argv[0]);
  kc_config cfg;
  kc_config_init(&cfg);
  kc_status s = kc_context_new(&cfg, &H.ctx);
  if (s == KC_ERR_NO_DEVICE || s == KC_ERR_UNSUPPORTED) {
    printf("SKIP %s: no usable CUDA device (%s)\n", name,
           H.ctx ? kc_last_error(H.ctx) : kc_status_name(s));
    if (H.ctx) kc_context_free(H.ctx);
    exit(H_SKIP);
  }
  h_ok(s, "kc_context_new");
  s = kc_compile_file(H.ctx, argv[1], NULL, &H.mod);
  if (s == KC_ERR_UNSUPPORTED && strstr(kc_last_error(H.ctx), "which needs NVRTC")) {
    /* a link= .cu on a GPU machine without the CUDA toolkit's NVRTC: not testable here */
    printf("SKIP %s: %s\n", name, kc_last_error(H.ctx));
    kc_context_free(H.ctx);
    exit(H_SKIP);
  }
  if (s != KC_OK) fputs(kc_last_diagnostics(H.ctx), stderr);   /* the library prints none */
  h_ok(s, "kc_compile_file");
}

static inline kc_kernel *h_kernel(const char *kname) {
  kc_kernel *k = NULL;
  h_ok(kc_module_get_kernel(H.mod, kname, &k), kname);
  return k;
}

/* Launch and wait, so a fault in the kernel is reported here. */
static inline void h_launch(kc_kernel *k, kc_dim3 grid, kc_dim3 block, const kc_arg *args,
                            int nargs) {
  h_ok(kc_launch(k, grid, block, 0, NULL, args, nargs), "kc_launch");
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
}

static inline unsigned h_blocks(int64_t n, unsigned block) {
  return (unsigned)((n + block - 1) / block);
}

/* ---- arrays --------------------------------------------------------------------- */
static inline kc_array *h_array(kc_dtype t, int ndim, const int64_t *shape,
                                const void *host) {
  kc_array *a = NULL;
  /* the caller's buffer holds the whole shape: the harness's arrays are made so */
  size_t bytes = kc_dtype_size(t);
  for (int d = 0; d < ndim; d++) bytes *= (size_t)shape[d];
  h_ok(kc_array_from_host(H.ctx, t, ndim, shape, host, bytes, &a), "kc_array_from_host");
  return a;
}
static inline kc_array *h_array1(kc_dtype t, int64_t n, const void *host) {
  return h_array(t, 1, &n, host);
}
static inline void h_fetch(kc_array *a, void *host) {
  h_ok(kc_array_to_host(a, host, kc_array_bytes(a)), "kc_array_to_host");
}

static inline void *h_alloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) h_die("out of host memory");
  return p;
}

static inline void h_poison_f32(float *p, int64_t n) {
  uint32_t bits = H_POISON_F32_BITS;
  for (int64_t i = 0; i < n; i++) memcpy(&p[i], &bits, sizeof bits);
}
static inline void h_poison_f64(double *p, int64_t n) {
  uint64_t bits = H_POISON_F64_BITS;
  for (int64_t i = 0; i < n; i++) memcpy(&p[i], &bits, sizeof bits);
}
static inline void h_poison_i32(int32_t *p, int64_t n) {
  for (int64_t i = 0; i < n; i++) p[i] = H_POISON_I32;
}
static inline void h_poison_u32(uint32_t *p, int64_t n) {
  for (int64_t i = 0; i < n; i++) p[i] = H_POISON_U32;
}
static inline void h_poison_i64(int64_t *p, int64_t n) {
  for (int64_t i = 0; i < n; i++) p[i] = H_POISON_I64;
}
static inline void h_poison_u64(uint64_t *p, int64_t n) {
  for (int64_t i = 0; i < n; i++) p[i] = H_POISON_U64;
}
static inline void h_poison_u8(uint8_t *p, int64_t n) { memset(p, H_POISON_U8, (size_t)n); }

/* ---- comparisons: each reports the first mismatch and counts failures ---------- */
static inline int h_is_poison_f32(float v) {
  uint32_t b;
  memcpy(&b, &v, sizeof b);
  return b == H_POISON_F32_BITS;
}
static inline int h_is_poison_f64(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b == H_POISON_F64_BITS;
}

/* |got - want| <= atol + rtol * |want|; NaN must match NaN, inf must match exactly. */
static inline int h_close(double want, double got, double rtol, double atol) {
  if (isnan(want)) return isnan(got);
  if (isinf(want)) return got == want;
  if (!isfinite(got)) return 0;
  return fabs(got - want) <= atol + rtol * fabs(want);
}

static inline int h_check_f32(const char *what, const float *want, const float *got,
                              int64_t n, double rtol, double atol) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++) {
    int never = h_is_poison_f32(got[i]);
    if (never || !h_close(want[i], got[i], rtol, atol)) {
      if (bad++ == 0 && H.failures++ == 0) {
        if (never)
          printf("FAIL %s: %s element %lld expected %.9g got <never written>\n", H.name,
                 what, (long long)i, (double)want[i]);
        else
          printf("FAIL %s: %s element %lld expected %.9g got %.9g\n", H.name, what,
                 (long long)i, (double)want[i], (double)got[i]);
      }
    }
  }
  return bad;
}

static inline int h_check_f64(const char *what, const double *want, const double *got,
                              int64_t n, double rtol, double atol) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++) {
    int never = h_is_poison_f64(got[i]);
    if (never || !h_close(want[i], got[i], rtol, atol)) {
      if (bad++ == 0 && H.failures++ == 0) {
        if (never)
          printf("FAIL %s: %s element %lld expected %.17g got <never written>\n", H.name,
                 what, (long long)i, want[i]);
        else
          printf("FAIL %s: %s element %lld expected %.17g got %.17g\n", H.name, what,
                 (long long)i, want[i], got[i]);
      }
    }
  }
  return bad;
}

static inline int h_check_i64(const char *what, const int64_t *want, const int64_t *got,
                              int64_t n) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++)
    if (want[i] != got[i] && bad++ == 0 && H.failures++ == 0)
      printf("FAIL %s: %s element %lld expected %lld got %lld%s\n", H.name, what,
             (long long)i, (long long)want[i], (long long)got[i],
             got[i] == H_POISON_I64 ? " <never written>" : "");
  return bad;
}

static inline int h_check_i32(const char *what, const int32_t *want, const int32_t *got,
                              int64_t n) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++)
    if (want[i] != got[i] && bad++ == 0 && H.failures++ == 0)
      printf("FAIL %s: %s element %lld expected %ld got %ld%s\n", H.name, what,
             (long long)i, (long)want[i], (long)got[i],
             got[i] == H_POISON_I32 ? " <never written>" : "");
  return bad;
}

static inline int h_check_u32(const char *what, const uint32_t *want, const uint32_t *got,
                              int64_t n) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++)
    if (want[i] != got[i] && bad++ == 0 && H.failures++ == 0)
      printf("FAIL %s: %s element %lld expected %lu got %lu%s\n", H.name, what,
             (long long)i, (unsigned long)want[i], (unsigned long)got[i],
             got[i] == H_POISON_U32 ? " <never written>" : "");
  return bad;
}

static inline int h_check_u64(const char *what, const uint64_t *want, const uint64_t *got,
                              int64_t n) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++)
    if (want[i] != got[i] && bad++ == 0 && H.failures++ == 0)
      printf("FAIL %s: %s element %lld expected %llu got %llu%s\n", H.name, what,
             (long long)i, (unsigned long long)want[i], (unsigned long long)got[i],
             got[i] == H_POISON_U64 ? " <never written>" : "");
  return bad;
}

static inline int h_check_u8(const char *what, const uint8_t *want, const uint8_t *got,
                             int64_t n) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++)
    if (want[i] != got[i] && bad++ == 0 && H.failures++ == 0)
      printf("FAIL %s: %s element %lld expected %u got %u\n", H.name, what, (long long)i,
             (unsigned)want[i], (unsigned)got[i]);
  return bad;
}

/* Finish: free the module and context, print the verdict, return the exit status. */
static inline int h_end(void) {
  if (H.mod) kc_module_free(H.mod);
  if (H.ctx) kc_context_free(H.ctx);
  if (H.failures) {
    printf("FAIL %s: %d check(s) failed\n", H.name, H.failures);
    return 1;
  }
  printf("PASS %s\n", H.name);
  return 0;
}

/* ---- Python semantics, for references ------------------------------------------ */
static inline int64_t py_floordiv_i64(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}
static inline int64_t py_mod_i64(int64_t a, int64_t b) {
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}
/* CPython's float_divmod. */
static inline double py_mod_f64(double a, double b) {
  double m = fmod(a, b);
  if (m != 0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = copysign(0.0, b);
  }
  return m;
}
static inline double py_floordiv_f64(double a, double b) {
  double m = fmod(a, b);
  double div = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) div -= 1.0;
  if (div != 0) {
    double f = floor(div);
    if (div - f > 0.5) f += 1.0;
    return f;
  }
  return copysign(0.0, a / b);
}
/* Python's round(x) to an integer: half to even. */
static inline int64_t py_round(double x) { return (int64_t)nearbyint(x); }

#endif
