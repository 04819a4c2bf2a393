/*
 * test_jit_budget.c — big kernels on the CPU back end (src/target/host_budget.c): kernels of
 * 600 and 1 200 straight-line statements, the shape scripts/gen_big_kernel.py makes
 * (the same statement forms, built here in C), compile with the thread loop left
 * scalar (600), or with the body called rather than inlined twice and its big block cut
 * into scheduling regions (1 200), and still compute what the statements say: the
 * reference interprets the same statements in C with kcc's types (float32 throughout). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc_config.h"
#include "rt.h"

/* 1 200 statements: the body is outlined and its block cut; 600: the body is inlined
 * into the thread loop, which is too big to vectorise (src/target/target.h's budgets). */
enum { BIG = 1200, MIDDLE = 600, NELEM = 1000, NVARS = 8 };

/* Statement k's form and operands, as in scripts/gen_big_kernel.py. */
static const char *const forms[] = {
  "x%d = x%d * 0.5 + x%d * 0.25",
  "x%d = x%d * 0.75 - a[i] * 0.125",
  "x%d = max(x%d, x%d) * 0.5 + b[i] * 0.25",
  NULL, /* out[i] = out[i] * 0.5 + x<p> * 0.25, built apart: it names one local */
  "x%d = min(x%d + x%d, 1.0) * 0.5",
  "x%d = math.sqrt(abs(x%d)) * 0.5",
  "x%d = x%d * x%d * 0.5 + 0.25",
};
enum { NFORMS = sizeof forms / sizeof forms[0] };

static int dst(int k) { return k % NVARS; }
static int op_p(int k) { return (k * 3 + 1) % NVARS; }
static int op_q(int k) { return (k * 5 + 2) % NVARS; }

static char *big_source(int nstmt) {
  size_t cap = (size_t)nstmt * 64 + 4096, len = 0;
  char *s = malloc(cap);
  ck_assert_ptr_nonnull(s);
  len += (size_t)snprintf(s + len, cap - len,
      "import math\nfrom numba import cuda, float32\n\n"
      "@cuda.jit(\"void(float32[:], float32[:], float32[:], int64)\")\n"
      "def big(a, b, out, n):\n    i = cuda.grid(1)\n    if i < n:\n"
      "        out[i] = float32(0)\n");
  for (int j = 0; j < NVARS; j++)
    len += (size_t)snprintf(s + len, cap - len, "        x%d = a[i] * %g + b[i]\n", j,
                            0.125 * (j + 1));
  for (int k = 0; k < nstmt; k++) {
    len += (size_t)snprintf(s + len, cap - len, "        ");
    if (k % NFORMS == 3) len += (size_t)snprintf(s + len, cap - len, "out[i] = out[i] * 0.5 + x%d * 0.25", op_p(k));
    else len += (size_t)snprintf(s + len, cap - len, forms[k % NFORMS], dst(k), op_p(k), op_q(k));
    len += (size_t)snprintf(s + len, cap - len, "\n");
  }
  snprintf(s + len, cap - len,
           "        out[i] = out[i] + x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7\n");
  return s;
}

/* The kernel's work for one element, in C: all float32, since a float literal with a
 * float32 operand is float32 (docs/language.md, rule 1). The build's flags target
 * baseline x86-64 (no FMA), so the C compiler does not contract a * b + c either. */
static float reference(int nstmt, float a, float b) {
  float x[NVARS], out = 0;
  for (int j = 0; j < NVARS; j++) x[j] = a * (float)(0.125 * (j + 1)) + b;
  for (int k = 0; k < nstmt; k++) {
    float p = x[op_p(k)], q = x[op_q(k)];
    switch (k % NFORMS) {
    case 0: x[dst(k)] = p * 0.5f + q * 0.25f; break;
    case 1: x[dst(k)] = p * 0.75f - a * 0.125f; break;
    case 2: x[dst(k)] = (p >= q ? p : q) * 0.5f + b * 0.25f; break;
    case 3: out = out * 0.5f + p * 0.25f; break;
    case 4: x[dst(k)] = (p + q <= 1.0f ? p + q : 1.0f) * 0.5f; break;
    case 5: x[dst(k)] = sqrtf(fabsf(p)) * 0.5f; break;
    default: x[dst(k)] = p * q * 0.5f + 0.25f; break;
    }
  }
  for (int j = 0; j < NVARS; j++) out += x[j];
  return out;
}

/* How many times needle occurs in hay. */
static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
  return n;
}

/* The optimised IR of a kernel of nstmt statements (malloc'd). */
static char *optimised_ir(int nstmt) {
  char *src = big_source(nstmt);
  kcc_options o;
  kcc_options_init(&o);
  o.target = KCC_TARGET_HOST;
  o.emit = KCC_EMIT_LLVM;
  kcc_output out;
  ck_assert_int_eq(kcc_compile(&o, "big.k", src, strlen(src), &out), KC_OK);
  char *ir = strdup(out.text);
  kcc_output_free(&out);
  free(src);
  return ir;
}

START_TEST(big_kernel_is_compiled_once_in_small_regions) {
  char *ir = optimised_ir(BIG);
  /* without barriers the kernel has one entry, K__block (cg_host.c), so its body is
     compiled once whether it is inlined or called */
  ck_assert_int_eq(count(ir, "@big__thread("), 0);
  ck_assert_int_le(count(ir, "@big__body("), 2);
  ck_assert_ptr_nonnull(strstr(ir, "\"tune-cpu\"=\"generic\""));
  if (atoi(KC_LLVM_VERSION) >= 20)  /* llvm.fake.use is LLVM 20's */
    ck_assert_ptr_nonnull(strstr(ir, "call void (...) @llvm.fake.use("));
  free(ir);
}
END_TEST

START_TEST(middle_kernel_thread_loop_stays_scalar) {
  char *ir = optimised_ir(MIDDLE);
  ck_assert_int_eq(count(ir, "@big__body("), 0);   /* inlined into both entries */
  ck_assert_ptr_nonnull(strstr(ir, "!\"llvm.loop.vectorize.enable\", i1 false"));
  ck_assert_ptr_null(strstr(ir, "postloop"));      /* IRCE left the loop whole */
  ck_assert_ptr_null(strstr(ir, "vector.body"));
  free(ir);
}
END_TEST

/* Run the kernel of nstmt statements on NELEM elements and compare with the reference. */
static void check_results(int nstmt) {
  char *src = big_source(nstmt);
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cache = -1;
  cfg.cpu_threads = 2;
  kc_context *ctx = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  kc_module *m = NULL;
  kc_status s = kc_compile_source(ctx, "big.k", src, strlen(src), NULL, &m);
  ck_assert_msg(s == KC_OK, "%s", kc_last_error(ctx));
  kc_kernel *k = NULL;
  ck_assert_int_eq(kc_module_get_kernel(m, "big", &k), KC_OK);
  float a[NELEM], b[NELEM], got[NELEM];
  for (int i = 0; i < NELEM; i++) {
    a[i] = (float)((i % 37) - 18) / 16.0f;
    b[i] = (float)((i * 7) % 23) / 32.0f;
  }
  int64_t shape[1] = {NELEM};
  kc_array *da, *db, *dout;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 1, shape, a, (size_t)shape[0] * sizeof *a, &da), KC_OK);
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 1, shape, b, (size_t)shape[0] * sizeof *b, &db), KC_OK);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, shape, &dout), KC_OK);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dout), kc_arg_i64(NELEM)};
  ck_assert_int_eq(kc_launch(k, kc_dim((NELEM + 127) / 128), kc_dim(128), 0, NULL, args, 4),
                   KC_OK);
  ck_assert_int_eq(kc_array_to_host(dout, got, sizeof got), KC_OK);
  for (int i = 0; i < NELEM; i++) {
    float want = reference(nstmt, a[i], b[i]);
    ck_assert_msg(got[i] == want, "%d statements, element %d: %.9g, expected %.9g", nstmt,
                  i, (double)got[i], (double)want);
  }
  kc_array_free(da);
  kc_array_free(db);
  kc_array_free(dout);
  kc_module_free(m);
  kc_context_free(ctx);
  free(src);
}

START_TEST(big_kernels_compute_their_statements) {
  check_results(BIG);
  check_results(MIDDLE);
}
END_TEST

int main(void) {
  Suite *s = suite_create("jit_budget");
  TCase *t = tcase_create("big");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, big_kernel_is_compiled_once_in_small_regions);
  tcase_add_test(t, middle_kernel_thread_loop_stays_scalar);
  tcase_add_test(t, big_kernels_compute_their_statements);
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
