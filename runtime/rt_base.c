/*
 * rt_base.c — the runtime's bottom layer: status and dtype names, the last-error text
 * (rt_error and the per-thread one of calls without a context), allocation through
 * kc_config.alloc, the monotonic clock and the core count.
 *
 * Every other file of runtime/ calls these; they call nothing else in runtime/, so
 * any file can be read, tested or replaced above them (scripts/import_cycles.py, the
 * test runtime_layers, checks that the runtime's files form layers). What owns a
 * context's parts and tears them down is context.c, at the top.
 */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"
#include "rt_compiler.h"
#include "signature.h"

/* ---- Names ----------------------------------------------------------------------- */
const char *kc_status_name(kc_status s) {
  static const char *const names[] = {
      "KC_OK", "KC_ERR_SYNTAX", "KC_ERR_TYPE", "KC_ERR_NOMEM", "KC_ERR_NO_DEVICE",
      "KC_ERR_CUDA", "KC_ERR_LAUNCH", "KC_ERR_INVALID", "KC_ERR_IO", "KC_ERR_NOT_FOUND",
      "KC_ERR_UNSUPPORTED", "KC_ERR_DEADLOCK", "KC_ERR_BOUNDS", "KC_ERR_INTERNAL",
      "KC_ERR_ASSERT", "KC_ERR_TIMEOUT"};
  if ((unsigned)s < sizeof names / sizeof names[0]) return names[s];
  return "KC_ERR_UNKNOWN";
}

size_t kc_dtype_size(kc_dtype t) {
  switch (t) {
  case KC_BOOL: case KC_INT8: case KC_UINT8: return 1;
  case KC_INT16: case KC_UINT16: case KC_FLOAT16: return 2;
  case KC_INT32: case KC_UINT32: case KC_FLOAT32: return 4;
  case KC_INT64: case KC_UINT64: case KC_FLOAT64: case KC_COMPLEX64: return 8;
  case KC_COMPLEX128: return 16;
  default: return 0;
  }
}

const char *kc_dtype_name(kc_dtype t) {
  static const char *const names[KC_DTYPE_COUNT] = {
    [KC_BOOL] = "bool", [KC_INT8] = "int8", [KC_INT16] = "int16", [KC_INT32] = "int32",
    [KC_INT64] = "int64", [KC_UINT8] = "uint8", [KC_UINT16] = "uint16",
    [KC_UINT32] = "uint32", [KC_UINT64] = "uint64", [KC_FLOAT32] = "float32",
    [KC_FLOAT64] = "float64", [KC_COMPLEX64] = "complex64", [KC_COMPLEX128] = "complex128",
    [KC_FLOAT16] = "float16"};
  if ((unsigned)t < KC_DTYPE_COUNT && names[t]) return names[t];
  return "?";
}

int rt_dtype_is_float(kc_dtype t) {
  return t == KC_FLOAT32 || t == KC_FLOAT64 || t == KC_FLOAT16;
}

/* The binary16 nearest to v (ties to even), as its bits; values from 65520 up round to
 * infinity. Done in double arithmetic, exact apart from the one rounding. */
uint16_t rt_f16_bits(double v) {
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  double a = fabs(v);
  if (isnan(v)) return sign | 0x7e00;
  if (a >= 65520.0) return sign | 0x7c00;
  if (a < 0x1p-14) /* subnormal: units of 2^-24; 1024 of them is the smallest normal */
    return sign | (uint16_t)nearbyint(a * 0x1p24);
  int e;
  double f = frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
  long m = (long)nearbyint((2 * f - 1) * 1024);
  e -= 1;
  if (m == 1024) m = 0, e++;
  return sign | (uint16_t)((e + 15) << 10) | (uint16_t)m;
}
int rt_dtype_is_complex(kc_dtype t) { return t == KC_COMPLEX64 || t == KC_COMPLEX128; }
int rt_dtype_is_signed(kc_dtype t) { return t >= KC_INT8 && t <= KC_INT64; }

void rt_format_type(kc_dtype t, int ndim, char *buf, size_t len) {
  /* Numba prints bool as "bool"; the array spelling matches sig_format_type */
  snprintf(buf, len, "%s%s", kc_dtype_name(t), sig_dims(ndim));
}

/* ---- Errors and allocation ---------------------------------------------------------- */
/* The last error of a call that had no context to keep it in (a NULL handle): one per
 * thread, so that two threads' calls do not mix their messages; kc_last_error(NULL). */
static _Thread_local char no_context_err[RT_ERR_LEN];

const char *kc_last_error(const kc_context *ctx) { return ctx ? ctx->err : no_context_err; }

kc_status rt_verror(kc_context *ctx, kc_status s, const char *fmt, va_list ap) {
  if (ctx) vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
  else vsnprintf(no_context_err, sizeof no_context_err, fmt, ap);
  return s;
}

kc_status rt_null_arg(kc_context *ctx, const char *call, const char *what) {
  return rt_error(ctx, KC_ERR_INVALID, "%s: %s is NULL", call, what);
}

kc_status rt_error(kc_context *ctx, kc_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rt_verror(ctx, s, fmt, ap);
  va_end(ap);
  return s;
}

kc_status rt_no_compiler(kc_context *ctx, const char *what) {
  return rt_error(ctx, KC_ERR_UNSUPPORTED,
                  "%s: this program is linked with libkcrt, the runtime without the "
                  "compiler, which cannot compile kernels: run it on a CUDA GPU (PTX and "
                  "cubins load without the compiler), or link libkc (pkg-config kc) to "
                  "compile kernels at run time", what);
}

kc_status rt_context_usable(kc_context *ctx) {
  if (ctx->broken == KC_OK) return KC_OK;
  if (ctx->lost)   /* cuda/wait.c: lost after it worked */
    return rt_error(ctx, ctx->broken, "this context is unusable since an earlier error, "
                    "and only kc_context_free (and freeing its handles) works on it: %s",
                    ctx->broken_msg);
  return rt_error(ctx, ctx->broken, "this context has no device: kc_context_new failed (%s)",
                  ctx->broken_msg);
}

void *rt_alloc(kc_context *ctx, size_t n) {
  if (n == 0) n = 1;
  if (ctx->cfg.alloc) return ctx->cfg.alloc(ctx->cfg.user_data, NULL, 0, n);
  return malloc(n);
}

/* A CPU array's data starts on a 256-byte boundary, as cuMemAlloc's does on the GPU:
 * malloc's 16-byte alignment puts every vector load of a 32- or 64-byte vector loop
 * across two cache lines once in two (or always), and a grid-stride histogram ran 2x
 * slower over a buffer 16 bytes off a line than over an aligned one
 * (bench/histogram.sh). From 4 MiB on, as NumPy does, it starts on a 2 MiB boundary
 * and asks the kernel for transparent huge pages (MADV_HUGEPAGE: Linux's default THP
 * mode, "madvise", gives none without it): the kc_reduce sum of 2^24 floats took 4.6-6.1
 * ms on 4 KiB pages, 3.8-3.9 on huge ones. Advice only: refused, it changes nothing. */
enum { RT_HUGE_FROM = 4 << 20, RT_HUGE_ALIGN = 2 << 20 };

void *rt_alloc_data(kc_context *ctx, size_t n) {
  return ctx->cfg.alloc ? rt_alloc(ctx, n) : rt_alloc_aligned(n);
}

void *rt_alloc_aligned(size_t n) {
  if (n == 0) n = 1;
  size_t align = n >= RT_HUGE_FROM ? RT_HUGE_ALIGN : RT_DATA_ALIGN;
  void *p = NULL;
  if (posix_memalign(&p, align, n) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  if (align == RT_HUGE_ALIGN) (void)madvise(p, n, MADV_HUGEPAGE);
#endif
  return p;
}

void *rt_calloc(kc_context *ctx, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  void *p = rt_alloc(ctx, count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

void rt_free(kc_context *ctx, void *p, size_t n) {
  if (!p) return;
  if (ctx->cfg.alloc) ctx->cfg.alloc(ctx->cfg.user_data, p, n ? n : 1, 0);
  else free(p);
}

char *rt_strdup(kc_context *ctx, const char *s) {
  size_t n = strlen(s) + 1;
  char *d = rt_alloc(ctx, n);
  if (d) memcpy(d, s, n);
  return d;
}

void rt_free_str(kc_context *ctx, char *s) {
  if (s) rt_free(ctx, s, strlen(s) + 1);
}

/* ---- Clock and cores ---------------------------------------------------------------- */
double rt_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int rt_cpu_count(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}
