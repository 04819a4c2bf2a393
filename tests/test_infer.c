/*
 * test_infer.c — type inference: the promotion rules of docs/language.md, unification of
 * locals, specialisation of device functions, and the errors and warnings inference
 * reports. Each case compiles a snippet with --emit=types and checks the types printed.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

typedef struct captured {
  char text[8192];
  int errors, warnings;
} captured;

static void capture(void *ud, const kc_diagnostic *d) {
  captured *c = ud;
  if (d->severity == KC_SEV_ERROR) c->errors++;
  if (d->severity == KC_SEV_WARNING) c->warnings++;
  strncat(c->text, d->text, sizeof c->text - strlen(c->text) - 1);
}

static int aot;   /* types_of compiles as kcc compile does */

static kc_status types_of(const char *src, char **types, captured *c) {
  kcc_options o;
  kcc_options_init(&o);
  o.aot = aot;
  o.emit = KCC_EMIT_TYPES;
  o.diag = capture;
  o.user_data = c;
  memset(c, 0, sizeof *c);
  kcc_output out;
  kc_status st = kcc_compile(&o, "t.k", src, strlen(src), &out);
  *types = out.text ? strdup(out.text) : strdup("");
  kcc_output_free(&out);
  return st;
}

/* The kernel body `body` (indented 4) in a kernel k(a: float32[:], n: int32, u: uint32,
 * d: float64[:], m: int64). */
static char *kernel_types(const char *body, captured *c, kc_status *st) {
  char src[4096];
  snprintf(src, sizeof src,
           "import math\nfrom numba import cuda, float16, float32, float64, int32, int64, uint32\n"
           "@cuda.jit\n"
           "def k(a: float32[:], n: int32, u: uint32, d: float64[:], m: int64):\n%s", body);
  char *t;
  *st = types_of(src, &t, c);
  return t;
}

#define EXPECT_LOCAL(body, line) do { \
    captured c; kc_status st; char *t = kernel_types(body, &c, &st); \
    ck_assert_msg(st == KC_OK, "compile failed: %s", c.text); \
    ck_assert_msg(strstr(t, line) != NULL, "expected '%s' in:\n%s", line, t); \
    free(t); } while (0)

START_TEST(literal_adopts_float32) {
  EXPECT_LOCAL("    x = a[0] * 2.0\n", "  x: float32\n");
  EXPECT_LOCAL("    x = 0.5 + a[0]\n", "  x: float32\n");
  EXPECT_LOCAL("    x = a[0] * 3\n", "  x: float32\n");
}
END_TEST

/* Numba 0.56.4's integer typing (typing/builtins.py integer_binop_cases: int64 unless
 * both operands are unsigned; BitwiseShiftOperation: the left operand's signedness;
 * UnaryOp/BitwiseInvert; Range; unify_pairs = NumPy's promote_types for locals and
 * min/max). The expected types are Numba's, derived from those tables. */
START_TEST(int_rules) {
  EXPECT_LOCAL("    x = n + n\n", "  x: int64\n");
  EXPECT_LOCAL("    x = n * 2\n", "  x: int64\n");
  EXPECT_LOCAL("    x = n + m\n", "  x: int64\n");
  EXPECT_LOCAL("    x = n + u\n", "  x: int64\n");
  EXPECT_LOCAL("    x = u + u\n", "  x: uint64\n");
  EXPECT_LOCAL("    x = u * 2\n", "  x: int64\n");
  EXPECT_LOCAL("    x = u + 18446744073709551615\n", "  x: uint64\n");
  EXPECT_LOCAL("    x = n // 2\n", "  x: int64\n");
  EXPECT_LOCAL("    x = n % u\n", "  x: int64\n");
  EXPECT_LOCAL("    x = n ** 2\n", "  x: int64\n");
  EXPECT_LOCAL("    x = n / 2\n", "  x: float64\n");
  EXPECT_LOCAL("    x = n * 3000000000\n", "  x: int64\n");
  EXPECT_LOCAL("    x = 7\n", "  x: int64\n");
  EXPECT_LOCAL("    x = 9223372036854775808\n", "  x: uint64\n");
  EXPECT_LOCAL("    x = (n > 0) + (n > 1)\n", "  x: int64\n");
  EXPECT_LOCAL("    x = (n > 0) & (n > 1)\n", "  x: bool\n");
  EXPECT_LOCAL("    x = (n > 0) + u\n", "  x: int64\n");
  EXPECT_LOCAL("    x = n & u\n", "  x: int64\n");
  EXPECT_LOCAL("    x = u ^ u\n", "  x: uint64\n");
}
END_TEST

START_TEST(int_shift_unary) {
  EXPECT_LOCAL("    x = u << 3\n", "  x: uint64\n");
  EXPECT_LOCAL("    x = n >> u\n", "  x: int64\n");
  EXPECT_LOCAL("    x = 1 << u\n", "  x: int64\n");
  EXPECT_LOCAL("    x = -n\n", "  x: int64\n");
  EXPECT_LOCAL("    x = -u\n", "  x: uint64\n");
  EXPECT_LOCAL("    x = ~u\n", "  x: uint64\n");
  EXPECT_LOCAL("    x = +n\n", "  x: int64\n");
  EXPECT_LOCAL("    x = -(n > 0)\n", "  x: int64\n");
  EXPECT_LOCAL("    x = ~(n > 0)\n", "  x: bool\n");
}
END_TEST

/* range(): Numba's Range signatures (int32, int64, uint64), the best-rated one wins. */
START_TEST(int_range) {
  EXPECT_LOCAL("    for i in range(n):\n        pass\n", "  i: int32\n");
  EXPECT_LOCAL("    for i in range(0, n):\n        pass\n", "  i: int64\n");
  EXPECT_LOCAL("    for i in range(n, m):\n        pass\n", "  i: int64\n");
  EXPECT_LOCAL("    for i in range(u):\n        pass\n", "  i: uint64\n");
  EXPECT_LOCAL("    for i in range(u, 0, -1):\n        pass\n", "  i: int64\n");
  EXPECT_LOCAL("    for i in range(len(a)):\n        pass\n", "  i: int64\n");
}
END_TEST

/* Locals, min/max, comparisons and conditional expressions meet in NumPy's promotion. */
START_TEST(int_unify) {
  EXPECT_LOCAL("    x = n\n    x = m\n", "  x: int64\n");
  EXPECT_LOCAL("    x = 0\n    x = n\n", "  x: int64\n");
  EXPECT_LOCAL("    x = n\n    x = u\n", "  x: int64\n");
  EXPECT_LOCAL("    x = m\n    x = uint64(u)\n", "  x: float64\n");
  EXPECT_LOCAL("    x = n\n    x += 1\n", "  x: int64\n");
  EXPECT_LOCAL("    x = min(n, n)\n", "  x: int32\n");
  EXPECT_LOCAL("    x = min(n, 255)\n", "  x: int64\n");
  EXPECT_LOCAL("    x = max(u, n)\n", "  x: int64\n");
  EXPECT_LOCAL("    x = max(m, uint64(u))\n", "  x: float64\n");
  EXPECT_LOCAL("    x = abs(n)\n", "  x: int32\n");
  EXPECT_LOCAL("    x = n if m > 0 else u\n", "  x: int64\n");
  EXPECT_LOCAL("    x = cuda.threadIdx.x\n", "  x: int32\n");
  EXPECT_LOCAL("    x = cuda.blockIdx.x * cuda.blockDim.x\n", "  x: int64\n");
  EXPECT_LOCAL("    x = cuda.grid(1) + 1\n", "  x: int64\n");
  EXPECT_LOCAL("    x = cuda.gridsize(1)\n", "  x: int32\n");
  EXPECT_LOCAL("    x = cuda.laneid\n", "  x: int32\n");
  EXPECT_LOCAL("    x = len(a)\n", "  x: int64\n");
}
END_TEST

/* kcc keeps its float32 rules where Numba would widen: an integer (of any width) with a
 * float32 stays float32 (Numba: float64 for int32 and wider), and the float64 warning
 * does not fire for the int64 results of integer arithmetic. */
START_TEST(int_meets_float32) {
  EXPECT_LOCAL("    x = (n + n) * a[0]\n", "  x: float32\n");
  EXPECT_LOCAL("    x = m * a[0]\n", "  x: float32\n");
  EXPECT_LOCAL("    x = 0\n    x += a[0] * (n * 2)\n", "  x: float32\n");
  captured c;
  kc_status st;
  char *t = kernel_types("    i = cuda.grid(1)\n    a[i] = a[i + 1] * (i * 2) + (n + 3)\n", &c, &st);
  ck_assert_int_eq(st, KC_OK);
  ck_assert_int_eq(c.warnings, 0);
  free(t);
}
END_TEST

START_TEST(int_float_mix) {
  EXPECT_LOCAL("    x = n * a[0]\n", "  x: float32\n");
  EXPECT_LOCAL("    x = a[0] + d[0]\n", "  x: float64\n");
  EXPECT_LOCAL("    x = n * 0.5\n", "  x: float64\n");
}
END_TEST

START_TEST(unification) {
  /* an int local later given floats becomes a float */
  EXPECT_LOCAL("    x = 0\n    for i in range(n):\n        x += a[i]\n", "  x: float32\n");
  EXPECT_LOCAL("    x = 0.0\n    for i in range(n):\n        x += a[i]\n", "  x: float32\n");
  EXPECT_LOCAL("    x = n\n    x = m\n", "  x: int64\n");
  EXPECT_LOCAL("    for i in range(n):\n        pass\n", "  i: int32\n");
  EXPECT_LOCAL("    for i in range(10):\n        pass\n", "  i: int64\n");
}
END_TEST

START_TEST(builtins) {
  EXPECT_LOCAL("    i = cuda.grid(1)\n", "  i: int32\n");
  EXPECT_LOCAL("    i, j = cuda.grid(2)\n", "  j: int32\n");
  EXPECT_LOCAL("    s = a.shape\n", "  s: UniTuple(int64, 1)\n");
  EXPECT_LOCAL("    x = math.sqrt(a[0])\n", "  x: float32\n");
  EXPECT_LOCAL("    x = math.sqrt(n)\n", "  x: float64\n");
  EXPECT_LOCAL("    x = math.floor(a[0])\n", "  x: int64\n");
  EXPECT_LOCAL("    x = abs(n)\n", "  x: int32\n");
  EXPECT_LOCAL("    x = min(a[0], 1)\n", "  x: float32\n");
  EXPECT_LOCAL("    x = round(a[0])\n", "  x: int64\n");
  EXPECT_LOCAL("    x = float32(n)\n", "  x: float32\n");
  EXPECT_LOCAL("    x = 0 < n < 5\n", "  x: bool\n");
  EXPECT_LOCAL("    x = a[0] * math.pi\n", "  x: float32\n");
}
END_TEST

START_TEST(device_specialisation) {
  const char *src =
      "from numba import cuda, float32, int32\n"
      "@cuda.jit(device=True)\n"
      "def twice(x):\n    return x + x\n"
      "@cuda.jit\n"
      "def k(a: float32[:], n: int32):\n"
      "    p = twice(a[0])\n    q = twice(n)\n";
  captured c;
  char *t;
  ck_assert_int_eq(types_of(src, &t, &c), KC_OK);
  ck_assert_msg(strstr(t, "device twice__float32(float32) -> float32"), "%s", t);
  /* int32 + int32 is int64 in Numba */
  ck_assert_msg(strstr(t, "device twice__int32(int32) -> int64"), "%s", t);
  ck_assert_msg(strstr(t, "  q: int64\n"), "%s", t);
  free(t);
}
END_TEST

/* The Python package's name for numba (docs/python.md): `from kcc import cuda`, `import
 * kcc.cuda as cuda` and `import kcc` make the same kernel as numba's spellings. */
START_TEST(kcc_package_imports) {
  static const char *const imports[][2] = {
    {"from kcc import cuda, float32\n", "cuda"},
    {"import kcc.cuda as cuda\nfrom kcc import float32\n", "cuda"},
    {"import kcc\nfrom kcc.types import float32\n", "kcc.cuda"},
  };
  for (size_t i = 0; i < sizeof imports / sizeof imports[0]; i++) {
    char src[512];
    snprintf(src, sizeof src,
             "%s@%s.jit\ndef k(a: float32[:]):\n    a[%s.grid(1)] = %s.threadIdx.x\n",
             imports[i][0], imports[i][1], imports[i][1], imports[i][1]);
    captured c;
    char *t;
    ck_assert_msg(types_of(src, &t, &c) == KC_OK, "%s: %s", src, c.text);
    ck_assert_msg(strstr(t, "kernel k(float32[:])"), "%s:\n%s", src, t);
    free(t);
  }
}
END_TEST

/* A device function called from a fastmath kernel and from a precise one is compiled
 * once for each: the fast instance may not be shared with the precise kernel. One
 * declared fastmath=True is fast in both, but only the fast kernel's instance is marked
 * as being in a fast kernel (its name says so). */
START_TEST(fastmath_instances) {
  const char *src =
      "from numba import cuda, float32\n"
      "@cuda.jit(device=True)\n"
      "def half(x):\n    return x / 2\n"
      "@cuda.jit(device=True, fastmath=True)\n"
      "def third(x):\n    return x / 3\n"
      "@cuda.jit(fastmath=True)\n"
      "def fast(a: float32[:]):\n    a[0] = half(a[0]) + third(a[0])\n"
      "@cuda.jit(fastmath=False)\n"
      "def precise(a: float32[:]):\n    a[0] = half(a[0]) + third(a[0])\n";
  captured c;
  char *t;
  ck_assert_int_eq(types_of(src, &t, &c), KC_OK);
  ck_assert_msg(strstr(t, "device half__float32_fastmath(float32) -> float32 (fastmath)"), "%s", t);
  ck_assert_msg(strstr(t, "device half__float32(float32) -> float32\n"), "%s", t);
  ck_assert_msg(strstr(t, "device third__float32_fastmath(float32) -> float32 (fastmath)"), "%s", t);
  ck_assert_msg(strstr(t, "device third__float32(float32) -> float32 (fastmath)"), "%s", t);
  ck_assert_msg(strstr(t, "kernel fast(float32[:]) -> void (fastmath)"), "%s", t);
  ck_assert_msg(strstr(t, "kernel precise(float32[:]) -> void\n"), "%s", t);
  free(t);
}
END_TEST

static void expect_error(const char *src, const char *where, const char *msg) {
  captured c;
  char *t;
  kc_status st = types_of(src, &t, &c);
  free(t);
  ck_assert_msg(st == KC_ERR_TYPE, "expected a type error for:\n%s", src);
  ck_assert_msg(strstr(c.text, where) && strstr(c.text, msg), "expected '%s' '%s' in:\n%s",
                where, msg, c.text);
}

START_TEST(errors) {
  /* an array, then a number where the two meet (bound again at the top level, x
     would be a new variable, as in Numba) */
  expect_error("from numba import cuda, float32\n@cuda.jit\ndef k(a: float32[:]):\n"
               "    x = a\n    for i in range(2):\n        x = 1\n", "t.k:6:9:",
               "cannot assign a value of type");
  expect_error("from numba import cuda, float32\n@cuda.jit\ndef k(a: float32[:]):\n"
               "    return 1\n", "t.k:4:12:", "a kernel cannot return a value");
  expect_error("from numba import cuda, float32\n@cuda.jit(device=True)\ndef f(x):\n"
               "    return f(x)\n@cuda.jit\ndef k(a: float32[:]):\n    a[0] = f(a[0])\n",
               "t.k:4:12:", "recursive call to 'f'");
  expect_error("from numba import cuda, float32\n@cuda.jit\ndef k(a: float32[:, :]):\n"
               "    a[0] = a\n", "t.k:4:5:", "the source has more dimensions than the view");
  expect_error("from numba import cuda, float32\n@cuda.jit\ndef k(a: float32[:]):\n"
               "    a[0] = foo\n", "t.k:4:12:", "undefined name 'foo'");
  expect_error("import os\nfrom numba import cuda, float32\n@cuda.jit\ndef k(a: float32[:]):\n"
               "    a[0] = os.getpid()\n", "t.k:5:12:", "'os.getpid' is host-side Python");
  expect_error("from numba import cuda, float32\n@cuda.jit\ndef k(a: float32[:]):\n"
               "    break\n", "t.k:4:5:", "'break' outside a loop");
}
END_TEST

START_TEST(widening_warning) {
  captured c;
  kc_status st;
  char *t = kernel_types("    x = a[0] * d[0]\n    y = a[0] * 2.0\n", &c, &st);
  free(t);
  ck_assert_int_eq(st, KC_OK);
  /* d is float64, so this kernel's arrays are not all float32: no warning */
  ck_assert_int_eq(c.warnings, 0);
  const char *src = "from numba import cuda, float32, float64\n@cuda.jit\n"
                    "def k(a: float32[:]):\n    x = a[0] * float64(2)\n    y = a[0] * 2.0\n";
  ck_assert_int_eq(types_of(src, &t, &c), KC_OK);
  free(t);
  ck_assert_int_eq(c.warnings, 1);
  ck_assert_msg(strstr(c.text, "t.k:4:9: warning: float32 value widened to float64"), "%s", c.text);
}
END_TEST

/* Complex promotion: a float's width decides (float32 keeps complex64), literals adopt. */
START_TEST(complex_rules) {
  EXPECT_LOCAL("    x = a[0] * 2j\n", "  x: complex64\n");
  EXPECT_LOCAL("    x = complex(a[0], a[1])\n", "  x: complex64\n");
  EXPECT_LOCAL("    x = complex(a[0], a[1]) + d[0]\n", "  x: complex128\n");
  EXPECT_LOCAL("    x = n + 1j\n", "  x: complex128\n");
  EXPECT_LOCAL("    x = complex(a[0], 0.0) * n\n", "  x: complex64\n");
  EXPECT_LOCAL("    x = abs(a[0] * 1j)\n", "  x: float32\n");
  EXPECT_LOCAL("    x = (a[0] + 1j).imag\n", "  x: float32\n");
  EXPECT_LOCAL("    z = 0j\n    z = z * a[0]\n", "  z: complex64\n");
}
END_TEST

/* float16: literals and integers adopt it (rule 1 and 3); wider floats win (rule 4). */
START_TEST(float16_rules) {
  EXPECT_LOCAL("    x = float16(a[0]) * 2.5\n", "  x: float16\n");
  EXPECT_LOCAL("    x = float16(a[0]) + n\n", "  x: float16\n");
  EXPECT_LOCAL("    x = float16(a[0]) + a[0]\n", "  x: float32\n");
  EXPECT_LOCAL("    x = float16(a[0]) * 1j\n", "  x: complex64\n");
  EXPECT_LOCAL("    x = math.sqrt(float16(a[0]))\n", "  x: float16\n");
}
END_TEST

/* Slices: C-contiguous views stay float32[:] (no strides carried), others are 'A'. */
START_TEST(slice_layouts) {
  EXPECT_LOCAL("    v = a[1:]\n", "  v: float32[:]\n");
  EXPECT_LOCAL("    v = a[:n]\n", "  v: float32[:]\n");
  EXPECT_LOCAL("    v = a[::2]\n", "  v: array(float32, 1d, A)\n");
  EXPECT_LOCAL("    v = a[::-1]\n", "  v: array(float32, 1d, A)\n");
  EXPECT_LOCAL("    v = a[1:][::1]\n", "  v: float32[:]\n");
  EXPECT_LOCAL("    v = a[::2][1:]\n", "  v: array(float32, 1d, A)\n");
  EXPECT_LOCAL("    x = len(a[2:n])\n", "  x: int64\n");
}
END_TEST

/* Ahead of time (kcc compile) an untyped kernel is warned about; compiled for the
 * runtime (kc_compile_*), it is typed at its launch, as Numba does, and says nothing. */
START_TEST(untyped_kernel_warns) {
  const char *src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] = 1\n";
  captured c;
  char *t;
  ck_assert_int_eq(types_of(src, &t, &c), KC_OK);
  ck_assert_msg(strstr(t, "kernel k: untyped"), "%s", t);
  ck_assert_int_eq(c.warnings, 0);
  free(t);
  aot = 1;
  ck_assert_int_eq(types_of(src, &t, &c), KC_OK);
  aot = 0;
  ck_assert_int_eq(c.warnings, 1);
  free(t);
}
END_TEST

static Suite *infer_suite(void) {
  Suite *s = suite_create("infer");
  TCase *tc = tcase_create("rules");
  tcase_add_test(tc, literal_adopts_float32);
  tcase_add_test(tc, int_rules);
  tcase_add_test(tc, int_shift_unary);
  tcase_add_test(tc, int_range);
  tcase_add_test(tc, int_unify);
  tcase_add_test(tc, int_meets_float32);
  tcase_add_test(tc, int_float_mix);
  tcase_add_test(tc, unification);
  tcase_add_test(tc, builtins);
  tcase_add_test(tc, device_specialisation);
  tcase_add_test(tc, kcc_package_imports);
  tcase_add_test(tc, fastmath_instances);
  tcase_add_test(tc, errors);
  tcase_add_test(tc, widening_warning);
  tcase_add_test(tc, complex_rules);
  tcase_add_test(tc, float16_rules);
  tcase_add_test(tc, slice_layouts);
  tcase_add_test(tc, untyped_kernel_warns);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(infer_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
