/* debug_checks.c — assert and raise (docs/language.md, "Assertions and exceptions").
 * In a debug=True kernel a failed assert or a raise is KC_ERR_ASSERT naming the kernel,
 * debug_checks.k:LINE:COL, the exception's text as Python's str() prints it, and the
 * block and thread; the thread that raised ends (its store does not happen) while the
 * others finish; the context stays usable. Without debug an assert is compiled out
 * and a raise ends its thread silently; kc_compile_options.debug checks every kernel.
 * Expected values are x / 2 computed here, and Python's own texts: str(ValueError(
 * "too large", 100, 2.5)) is "('too large', 100, 2.5)", str(AssertionError()) and
 * str(IndexError()) are empty (so the class alone is printed). */
#include "harness.h"

static kc_kernel *kernel(kc_module *m, const char *name) {
  kc_kernel *k = NULL;
  h_ok(kc_module_get_kernel(m, name, &k), name);
  return k;
}

/* Launch one block, synchronise, expect KC_ERR_ASSERT with every needle in the
 * message, reported once. */
static void expect_raise(const char *what, kc_kernel *k, unsigned threads, const kc_arg *args,
                         int nargs, const char *const *needles) {
  kc_status s = kc_launch(k, kc_dim(1), kc_dim(threads), 0, NULL, args, nargs);
  kc_status s2 = kc_synchronize(H.ctx);
  if (s != KC_ERR_ASSERT && s2 != KC_ERR_ASSERT)
    h_die("%s: expected KC_ERR_ASSERT, got %s then %s (%s)", what, kc_status_name(s),
          kc_status_name(s2), kc_last_error(H.ctx));
  const char *msg = kc_last_error(H.ctx);
  for (int i = 0; needles[i]; i++)
    if (!strstr(msg, needles[i])) h_die("%s: the message lacks '%s': %s", what, needles[i], msg);
  if (kc_synchronize(H.ctx) != KC_OK) h_die("%s: the error was reported twice", what);
}

/* a[i] = i + 1, with a[10] = 150 (above LIMIT) when big */
static void fill(kc_array *a, float *host, int big) {
  for (int i = 0; i < 32; i++) host[i] = (float)(i + 1);
  if (big) host[10] = 150.0f;
  h_ok(kc_array_copy_from_host(a, host, 32 * sizeof(float)), "copy");
}

/* Every element halved but a[10], whose thread raised. */
static void check_halved(const char *what, kc_array *a, float *host) {
  float got[32];
  h_fetch(a, got);
  for (int i = 0; i < 32; i++) {
    float want = i == 10 ? host[10] : host[i] / 2.0f;
    if (got[i] != want) h_die("%s: a[%d] is %g, want %g", what, i, got[i], want);
  }
}

static void float_kernels(kc_module *m) {
  float host[32] = {0};
  kc_array *a = h_array1(KC_FLOAT32, 32, host);
  kc_arg zero[] = {kc_arg_array(a), kc_arg_i32(0)}, one[] = {kc_arg_array(a), kc_arg_i32(1)};
  fill(a, host, 0);
  const char *const n_pos[] = {"kernel 'checked'", "debug_checks.k:20:5",
                               "AssertionError: n must be positive",
                               "in block (0, 0, 0), thread (0, 0, 0)", NULL};
  expect_raise("assert n > 0", kernel(m, "checked"), 32, zero, 2, n_pos);
  fill(a, host, 1);
  const char *const big[] = {"kernel 'checked'", "debug_checks.k:13:9",
                             "ValueError: ('too large', 100, 2.5)", "thread (10, 0, 0)", NULL};
  expect_raise("raise in a device function", kernel(m, "checked"), 32, one, 2, big);
  check_halved("checked", a, host);
  /* not checked: the assert is gone, thread 10 ends at its raise, the others run */
  fill(a, host, 1);
  h_launch(kernel(m, "unchecked"), kc_dim(1), kc_dim(32), zero, 2);
  check_halved("unchecked", a, host);
  kc_array_free(a);
}

static void int_kernels(kc_module *m) {
  int32_t host[32];
  for (int i = 0; i < 32; i++) host[i] = i + 4;   /* a[3] is 7 */
  kc_array *a = h_array1(KC_INT32, 32, host);
  kc_arg args[] = {kc_arg_array(a)};
  const char *const bare[] = {"debug_checks.k:37:9", "'bare_assert': AssertionError, in block",
                              "thread (3, 0, 0)", NULL};
  expect_raise("bare assert", kernel(m, "bare_assert"), 32, args, 1, bare);
  const char *const index[] = {"debug_checks.k:45:9", "'raises_index': IndexError, in block",
                               "thread (5, 0, 0)", NULL};
  expect_raise("raise IndexError", kernel(m, "raises_index"), 32, args, 1, index);
  /* the program's own class, raised by its name (the Python package raises that class):
     thread 7 of 8 raises it */
  const char *const own[] = {"debug_checks.k:", "'raises_own': ", NULL};
  expect_raise("raise of the program's own class", kernel(m, "raises_own"), 8, args, 1, own);
  const char *msg = kc_last_error(H.ctx);
  if (!strstr(msg, "debug_checks.k:116:9") || !strstr(msg, "FarOut: ('index', 7), in block") ||
      !strstr(msg, "thread (7, 0, 0)"))
    h_die("raise FarOut: the message is %s", msg);
  /* after a barrier: thread 28 reads s[3] and ends; the others store s[31 - i] */
  const char *const mirror[] = {"debug_checks.k:56:5", "AssertionError: mirror",
                                "thread (28, 0, 0)", NULL};
  expect_raise("assert after a barrier", kernel(m, "with_barrier"), 32, args, 1, mirror);
  int32_t got[32];
  h_fetch(a, got);
  for (int i = 0; i < 32; i++) {
    int32_t want = i == 28 ? -1 : 31 - i;
    if (i != 28 && got[i] != want) h_die("with_barrier: a[%d] is %d, want %d", i, got[i], want);
  }
  /* a tuple index out of range: IndexError in debug code; where the kernel is compiled
     with bounds checks too (it is in the CUDA double's run), reported as an array
     index out of bounds */
  kc_status st = kc_launch(kernel(m, "tuple_index"), kc_dim(1), kc_dim(3), 0, NULL, args, 1);
  kc_status st2 = kc_synchronize(H.ctx);
  const char *tmsg = kc_last_error(H.ctx);
  int raised = st == KC_ERR_ASSERT || st2 == KC_ERR_ASSERT;
  int bounded = st == KC_ERR_BOUNDS || st2 == KC_ERR_BOUNDS;
  const char *twant = raised ? "'tuple_index': IndexError: tuple index out of range"
                             : "index -2 is out of bounds for axis 0 with size 1";
  if ((!raised && !bounded) || !strstr(tmsg, "debug_checks.k:98:16") ||
      !strstr(tmsg, "thread (2, 0, 0)") || !strstr(tmsg, twant))
    h_die("tuple index out of range: got %s then %s: %s", kc_status_name(st),
          kc_status_name(st2), tmsg);
  kc_array_free(a);
}

/* Division by zero: ZeroDivisionError in debug code, at the division, the thread
 * stopped before its later stores (Numba's debug mode, Python's error model); NumPy's
 * results without debug (inf for a float, 0 for an integer). */
static void division_kernels(kc_module *m) {
  enum { N = 8 };
  double x[N], r[N], want_r[N];
  int64_t k[N], want_k[N];
  for (int i = 0; i < N; i++) x[i] = i + 1, k[i] = i + 1, r[i] = -5;
  x[3] = 0;                       /* thread 3: 10.0 / 0.0 */
  k[6] = 0;                       /* thread 6: 7 // 0 */
  kc_array *dx = h_array1(KC_FLOAT64, N, x), *dr = h_array1(KC_FLOAT64, N, r),
           *dk = h_array1(KC_INT64, N, k);
  kc_arg args[] = {kc_arg_array(dr), kc_arg_array(dx), kc_arg_array(dk)};
  const char *const zero[] = {"'divides': ZeroDivisionError: division by zero",
                              "debug_checks.k:", NULL};
  expect_raise("division by zero", kernel(m, "divides"), N, args, 3, zero);
  double got_r[N];
  int64_t got_k[N];
  h_fetch(dr, got_r);
  h_fetch(dk, got_k);
  for (int i = 0; i < N; i++) {
    want_r[i] = i == 3 ? -5 : 10.0 / x[i] + (i == 6 ? 0 : 1);   /* 6 stops after r[i] = */
    want_k[i] = i == 3 || i == 6 ? k[i] : 7 / k[i];
  }
  /* one thread wins the report; both threads stop at their divisions */
  for (int i = 0; i < N; i++)
    if (got_r[i] != want_r[i] || got_k[i] != want_k[i])
      h_die("divides: thread %d left r %g k %lld, want %g %lld", i, got_r[i],
            (long long)got_k[i], want_r[i], (long long)want_k[i]);
  h_launch(kernel(m, "divides_unchecked"), kc_dim(1), kc_dim(N), args, 3);
  h_fetch(dr, got_r);
  h_fetch(dk, got_k);
  if (!(got_r[3] > 1e308) || got_k[6] != 0)
    h_die("divides_unchecked: r[3] %g (want inf), k[6] %lld (want 0)", got_r[3],
          (long long)got_k[6]);
  kc_array_free(dx), kc_array_free(dr), kc_array_free(dk);
  float one = 0;
  kc_array *d1 = h_array1(KC_FLOAT32, 1, &one);
  kc_arg fargs[] = {kc_arg_array(d1), kc_arg_f32(10), kc_arg_f32(0)};
  const char *const opt_zero[] = {"'divides_optimised': ZeroDivisionError", NULL};
  expect_raise("optimised debug division", kernel(m, "divides_optimised"), 4, fargs, 3,
               opt_zero);
  h_launch(kernel(m, "divides_fast"), kc_dim(1), kc_dim(4), fargs, 3);
  h_fetch(d1, &one);
  if (!(one > 3e38f)) h_die("divides_fast: r[0] is %g, want inf", one);
  kc_array_free(d1);
}

int main(int argc, char **argv) {
  h_begin("debug_checks", argc, argv);
  kc_module *m = NULL;
  h_ok(kc_compile_file(H.ctx, argv[1], NULL, &m), "compile");
  float_kernels(m);
  int_kernels(m);
  division_kernels(m);
  kc_module_free(m);
  /* kc_compile_options.debug: the undecorated kernel is checked too */
  kc_compile_options opts = {0};
  opts.opt_level = KC_OPT_DEFAULT;
  opts.debug = 1;
  h_ok(kc_compile_file(H.ctx, argv[1], &opts, &m), "compile with debug");
  float host[32] = {0};
  kc_array *a = h_array1(KC_FLOAT32, 32, host);
  kc_arg zero[] = {kc_arg_array(a), kc_arg_i32(0)};
  const char *const n_pos[] = {"kernel 'unchecked'", "debug_checks.k:28:5",
                               "AssertionError: n must be positive", NULL};
  expect_raise("debug option", kernel(m, "unchecked"), 32, zero, 2, n_pos);
  kc_array_free(a);
  kc_module_free(m);
  return h_end();
}
