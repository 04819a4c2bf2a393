/*
 * test_oom.c — compilation out of memory. The allocation hook (kcc_options.alloc,
 * kc_config.alloc) fails the n-th allocation, for every n in turn until the
 * compilation runs clean: each run must end in KC_ERR_NOMEM (or, for a program with
 * errors, its error) with every hooked byte given back, on the NVPTX target (PTX and
 * IR), the host target (IR), the front end's outputs (AST, types) and
 * kc_compile_source on a CPU context (JIT code, module tables). Leaks of memory the
 * hook does not see are found by running this under ASan or valgrind (make test-all).
 * LLVM's own allocations cannot be hooked and are not failed here.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "kc.h"
#include "rt.h"

/* Every stage has work: imports, a device function, a tuple, a shared array, loops,
 * a signature in the decorator, an annotated kernel and an untyped one. */
static const char program_ok[] =
    "from numba import cuda, float32, int32\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def clamp(x, lo, hi):\n"
    "    return min(max(x, lo), hi)\n"
    "\n"
    "@cuda.jit(\"void(float32[:], float32[:], int32)\")\n"
    "def smooth(a, out, n):\n"
    "    tile = cuda.shared.array(64, float32)\n"
    "    i = cuda.grid(1)\n"
    "    t = cuda.threadIdx.x\n"
    "    tile[t % 64] = a[i % n] if i < n else float32(0)\n"
    "    cuda.syncthreads()\n"
    "    pair = (tile[t % 64], 2)\n"
    "    s = float32(0)\n"
    "    for k in range(pair[1]):\n"
    "        s += clamp(pair[0], float32(-1), float32(1)) * k\n"
    "    if i < n:\n"
    "        out[i] = s\n"
    "\n"
    "@cuda.jit\n"
    "def add(a: float32[:], b: float32[:], n: int32):\n"
    "    i = cuda.grid(1)\n"
    "    while i < n:\n"
    "        a[i] += b[i]\n"
    "        i += cuda.gridsize(1)\n"
    "\n"
    "@cuda.jit\n"
    "def later(x):\n"
    "    x[0] = 1\n";

static const char program_bad[] =
    "from numba import cuda, float32\n"
    "\n"
    "@cuda.jit\n"
    "def k(a: float32[:]):\n"
    "    a[0] = undefined_name + 1\n"
    "    a[1] = a + 2\n";

typedef struct counting_alloc {
  long left;       /* allocations that will still succeed; -1 = all */
  long live;       /* bytes allocated and not freed */
  long calls;      /* allocations asked for */
} counting_alloc;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  counting_alloc *c = ud;
  if (nsize == 0) {
    if (ptr) c->live -= (long)osize;
    free(ptr);
    return NULL;
  }
  c->calls++;
  if (c->left == 0) return NULL;
  if (c->left > 0) c->left--;
  void *p = realloc(ptr, nsize);
  if (p) c->live += (long)nsize - (long)(ptr ? osize : 0);
  return p;
}

static void quiet(void *ud, const kc_diagnostic *d) {
  (void)ud;
  (void)d;
}

/* Compile with the n-th allocation failing for n = 0, 1, ... until it succeeds (or
 * gives `clean`, the status of a run with memory to spare). Returns that n. */
static int fail_each_allocation(kcc_target target, kcc_emit emit, const char *src,
                                kc_status clean) {
  counting_alloc c = {-1, 0, 0};
  kcc_options o;
  kcc_options_init(&o);
  o.target = target;
  o.emit = emit;
  o.opt_level = 1;
  o.alloc = failing_alloc;
  o.diag = quiet;
  o.user_data = &c;
  kcc_output out;
  for (int n = 0; n < 5000; n++) {
    c.left = n;
    c.calls = 0;
    kc_status st = kcc_compile(&o, "oom.k", src, strlen(src), &out);
    ck_assert_int_eq(out.status, st);
    if (c.calls <= n) {   /* no allocation failed: the run is the clean one */
      ck_assert_int_eq(st, clean);
      if (clean == KC_OK) ck_assert_msg(out.text || out.host, "no output");
      kcc_output_free(&out);
      ck_assert_int_eq(c.live, 0);
      return n;
    }
    /* an error's text may be what could not be copied: its status is fine too */
    if (st != KC_ERR_NOMEM && !(clean != KC_OK && st == clean))
      ck_abort_msg("allocation %d failing: status %s, expected %s", n, kc_status_name(st),
                   kc_status_name(clean == KC_OK ? KC_ERR_NOMEM : clean));
    kcc_output_free(&out);
    ck_assert_msg(c.live == 0, "allocation %d failing: %ld bytes not freed", n, c.live);
  }
  ck_abort_msg("still failing after 5000 allocations");
  return -1;
}

START_TEST(nvptx_ptx) {
  int n = fail_each_allocation(KCC_TARGET_NVPTX, KCC_EMIT_PTX, program_ok, KC_OK);
  ck_assert_int_gt(n, 10);   /* arena, outputs, kernel tables: many allocations */
  printf("nvptx ptx: clean after %d failing allocations\n", n);
}
END_TEST

START_TEST(nvptx_llvm) {
  fail_each_allocation(KCC_TARGET_NVPTX, KCC_EMIT_LLVM, program_ok, KC_OK);
}
END_TEST

START_TEST(host_llvm) {
  int n = fail_each_allocation(KCC_TARGET_HOST, KCC_EMIT_LLVM, program_ok, KC_OK);
  printf("host llvm: clean after %d failing allocations\n", n);
}
END_TEST

START_TEST(front_end_outputs) {
  fail_each_allocation(KCC_TARGET_NVPTX, KCC_EMIT_AST, program_ok, KC_OK);
  fail_each_allocation(KCC_TARGET_HOST, KCC_EMIT_TYPES, program_ok, KC_OK);
}
END_TEST

START_TEST(program_with_errors) {
  fail_each_allocation(KCC_TARGET_NVPTX, KCC_EMIT_PTX, program_bad, KC_ERR_TYPE);
}
END_TEST

/* The runtime's path: kc_compile_source on a CPU context, JIT and module tables. */
START_TEST(cpu_compile_source) {
  counting_alloc c = {-1, 0, 0};
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 1;
  cfg.cache = -1;   /* every attempt compiles: a cached kernel would skip the allocations */
  cfg.alloc = failing_alloc;
  cfg.diag = quiet;
  cfg.user_data = &c;
  kc_context *ctx;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  long base = c.live;
  int n;
  for (n = 0; n < 5000; n++) {
    c.left = n;
    c.calls = 0;
    kc_module *m = NULL;
    kc_status st = kc_compile_source(ctx, "oom.k", program_ok, strlen(program_ok), NULL, &m);
    c.left = -1;
    if (c.calls <= n) {   /* no allocation failed */
      ck_assert_msg(st == KC_OK, "%s", kc_last_error(ctx));
      kc_kernel *k;
      ck_assert_int_eq(kc_module_get_kernel(m, "add", &k), KC_OK);
      long parked = (long)(sizeof *m + (size_t)m->nkernels * sizeof *m->kernels);
      kc_module_free(m);
      /* the freed handle and its kernel table stay parked until kc_context_free, so a
         later use of them is caught (runtime/handles.c); nothing else is left */
      ck_assert_int_eq(c.live, base + parked);
      break;
    }
    ck_assert_msg(st == KC_ERR_NOMEM, "allocation %d failing: %s: %s", n, kc_status_name(st),
                  kc_last_error(ctx));
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "out of memory"));
    ck_assert_msg(c.live == base, "allocation %d failing: %ld bytes not freed", n,
                  c.live - base);
  }
  ck_assert_int_lt(n, 5000);
  ck_assert_int_gt(n, 10);
  printf("cpu kc_compile_source: clean after %d failing allocations\n", n);
  kc_context_free(ctx);
  ck_assert_int_eq(c.live, 0);
}
END_TEST

static Suite *oom_suite(void) {
  Suite *s = suite_create("oom");
  TCase *tc = tcase_create("compile");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, nvptx_ptx);
  tcase_add_test(tc, nvptx_llvm);
  tcase_add_test(tc, host_llvm);
  tcase_add_test(tc, front_end_outputs);
  tcase_add_test(tc, program_with_errors);
  tcase_add_test(tc, cpu_compile_source);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(oom_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
