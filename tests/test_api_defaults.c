/*
 * test_api_defaults.c — the library's defaults carry no traps (issue 17, part 4): a
 * zeroed options struct, its *_init and NULL compile alike (and -O0 only when asked);
 * the library prints no diagnostic unless asked, and kc_last_diagnostics gives all of
 * the last compilation's; an untyped kernel is compiled at run time without the
 * "not compiled ahead of time" warning and kc_kernel_signature lists its
 * specialisations; the wrong array as random states is one error naming the argument.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt.h"

static kc_context *ctx;

static void setup(void) {
  unsetenv("KC_VERBOSE");
  kc_config cfg = {0};
  cfg.device = KC_DEVICE_CPU;
  cfg.cache = -1;
  cfg.cpu_threads = 2;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
}

static void teardown(void) { kc_context_free(ctx); }

static const char add_src[] = "from numba import cuda\n"
                              "@cuda.jit('void(float32[:])')\n"
                              "def k(a):\n"
                              "    a[0] += 1.0\n";

static kc_module *compile_with(const kc_compile_options *o) {
  kc_module *m = NULL;
  ck_assert_int_eq(kc_compile_source(ctx, "add.k", add_src, sizeof add_src - 1, o, &m), KC_OK);
  return m;
}

/* The module records the level it was compiled at (and specialises at): zero, init and
 * NULL give the context's -O3; KC_OPT_O0 gives -O0; other values are refused. */
START_TEST(zeroed_options_are_defaults) {
  kc_compile_options zero = {0}, init;
  kc_compile_options_init(&init);
  kc_module *a = compile_with(NULL), *b = compile_with(&zero), *c = compile_with(&init);
  ck_assert_int_eq(a->opt_level, 3);
  ck_assert_int_eq(b->opt_level, 3);
  ck_assert_int_eq(c->opt_level, 3);
  ck_assert_int_eq(b->bounds_check, a->bounds_check);
  ck_assert_int_eq(b->fastmath, a->fastmath);
  ck_assert_int_eq(b->lineinfo, a->lineinfo);
  kc_compile_options o0 = {0};
  o0.opt_level = KC_OPT_O0;
  kc_module *d = compile_with(&o0);
  ck_assert_int_eq(d->opt_level, 0);
  kc_compile_options bad = {0};
  bad.opt_level = 4;
  kc_module *e = NULL;
  ck_assert_int_eq(kc_compile_source(ctx, "add.k", add_src, sizeof add_src - 1, &bad, &e),
                   KC_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "opt_level 4"));
  kc_module_free(a);
  kc_module_free(b);
  kc_module_free(c);
  kc_module_free(d);
}
END_TEST

/* What the calls print to stderr while f runs, read back from a temporary file. */
static char captured[8192];
static void capture_stderr(void (*f)(void)) {
  fflush(stderr);
  FILE *tmp = tmpfile();
  ck_assert_ptr_nonnull(tmp);
  int saved = dup(2);
  dup2(fileno(tmp), 2);
  f();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(tmp);
  size_t n = fread(captured, 1, sizeof captured - 1, tmp);
  captured[n] = '\0';
  fclose(tmp);
}

static const char two_errors[] = "from numba import cuda\n"
                                 "@cuda.jit('void(float32[:])')\n"
                                 "def k(a):\n"
                                 "    a[0] = nope1\n"
                                 "    a[1] = nope2\n";
static kc_status last_status;
static void compile_two_errors(void) {
  kc_module *m = NULL;
  last_status = kc_compile_source(ctx, "two.k", two_errors, sizeof two_errors - 1, NULL, &m);
}

START_TEST(diagnostics_silent_and_kept) {
  capture_stderr(compile_two_errors);
  ck_assert_int_ne(last_status, KC_OK);
  ck_assert_str_eq(captured, "");   /* the library printed nothing */
  const char *all = kc_last_diagnostics(ctx);
  ck_assert_ptr_nonnull(strstr(all, "two.k:4:12: error:"));
  ck_assert_ptr_nonnull(strstr(all, "two.k:5:12: error:"));
  ck_assert_ptr_nonnull(strstr(all, "nope2"));
  ck_assert_ptr_nonnull(strstr(all, "^"));                        /* the caret line */
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "two.k:4:12: error:"));
  ck_assert_ptr_null(strstr(kc_last_error(ctx), "nope2"));         /* the first only */
  /* a good compilation clears them */
  kc_module *m = compile_with(NULL);
  ck_assert_str_eq(kc_last_diagnostics(ctx), "");
  kc_module_free(m);
}
END_TEST

/* KC_VERBOSE=1 (or cfg.verbose = 1) prints them, as kcc does. */
START_TEST(diagnostics_verbose_prints) {
  kc_context_free(ctx);
  kc_config cfg = {0};
  cfg.device = KC_DEVICE_CPU;
  cfg.cache = -1;
  cfg.verbose = 1;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  capture_stderr(compile_two_errors);
  ck_assert_ptr_nonnull(strstr(captured, "two.k:4:12: error:"));
  ck_assert_ptr_nonnull(strstr(captured, "two.k:5:12: error:"));
}
END_TEST

static const char untyped_src[] = "from numba import cuda\n"
                                  "@cuda.jit\n"
                                  "def scale(a, s):\n"
                                  "    i = cuda.grid(1)\n"
                                  "    if i < a.size:\n"
                                  "        a[i] *= s\n";

/* Compiled at run time, an untyped kernel has no "not compiled ahead of time" warning;
 * its signature lists the specialisations launched so far. */
START_TEST(untyped_kernel_signatures) {
  kc_module *m = NULL;
  ck_assert_int_eq(kc_compile_source(ctx, "u.k", untyped_src, sizeof untyped_src - 1, NULL, &m),
                   KC_OK);
  ck_assert_str_eq(kc_last_diagnostics(ctx), "");
  kc_kernel *k = NULL;
  ck_assert_int_eq(kc_module_get_kernel(m, "scale", &k), KC_OK);
  ck_assert_str_eq(kc_kernel_signature(k), "scale(untyped)");
  int64_t n = 4;
  kc_array *f = NULL, *d = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, &n, &f), KC_OK);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT64, 1, &n, &d), KC_OK);
  kc_arg a1[] = {kc_arg_array(f), kc_arg_f32(2)};
  kc_arg a2[] = {kc_arg_array(d), kc_arg_f64(2)};
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(4), 0, NULL, a1, 2), KC_OK);
  ck_assert_str_eq(kc_kernel_signature(k), "scale(float32[:], float32)");
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(4), 0, NULL, a2, 2), KC_OK);
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(4), 0, NULL, a1, 2), KC_OK);
  ck_assert_str_eq(kc_kernel_signature(k),
                   "scale(float32[:], float32)\nscale(float64[:], float64)");
  kc_array_free(f);
  kc_array_free(d);
  kc_module_free(m);
}
END_TEST

/* A print of 33 items (one more than CUDA's vprintf takes) warns where Numba does, and
 * prints its format string, as Numba's does. A specialisation compiles the module's
 * source again: the hook hears each warning once per module, at the compilation that
 * first met it: the typed kernel's at kc_compile_source, the untyped kernel's at its
 * first launch, neither again at its second specialisation. */
static const char print_src[] = "from numba import cuda\n"
                                "@cuda.jit('void(float64[:])')\n"
                                "def typed(a):\n"
                                "    print(a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0])\n"
                                "@cuda.jit\n"
                                "def lazy(a):\n"
                                "    print(a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0])\n"
                                "    print(a[0], a[0], a[0], a[0], a[0], a[0], a[0], a[0])\n";

static char heard[4][64];
static int nheard;

static void hear_warning(void *user_data, const kc_diagnostic *d) {
  (void)user_data;
  if (d->severity == KC_SEV_WARNING && nheard < 4)
    snprintf(heard[nheard++], sizeof heard[0], "%s:%d:%d %.19s", d->file, d->line, d->col,
             d->message);
}

START_TEST(specialisation_warnings_once) {
  kc_context_free(ctx);
  kc_config cfg = {0};
  cfg.device = KC_DEVICE_CPU;
  cfg.cache = -1;
  cfg.diag = hear_warning;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  nheard = 0;
  kc_module *m = NULL;
  ck_assert_int_eq(kc_compile_source(ctx, "p.k", print_src, sizeof print_src - 1, NULL, &m),
                   KC_OK);
  ck_assert_int_eq(nheard, 1);
  ck_assert_str_eq(heard[0], "p.k:4:5 CUDA print() cannot");
  kc_kernel *k = NULL;
  ck_assert_int_eq(kc_module_get_kernel(m, "lazy", &k), KC_OK);
  int64_t n = 1;
  kc_array *d = NULL, *i = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT64, 1, &n, &d), KC_OK);
  ck_assert_int_eq(kc_array_new(ctx, KC_INT64, 1, &n, &i), KC_OK);
  ck_assert_int_eq(kc_array_zero(d), KC_OK);   /* printed: defined values */
  ck_assert_int_eq(kc_array_zero(i), KC_OK);
  kc_arg ad = kc_arg_array(d), ai = kc_arg_array(i);
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, &ad, 1), KC_OK);
  ck_assert_int_eq(nheard, 2);
  ck_assert_str_eq(heard[1], "p.k:7:5 CUDA print() cannot");
  ck_assert_ptr_nonnull(strstr(kc_last_diagnostics(ctx), "p.k:7:5: warning:"));
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, &ai, 1), KC_OK);
  ck_assert_int_eq(nheard, 2);
  ck_assert_int_eq(kc_synchronize(ctx), KC_OK);
  kc_array_free(d);
  kc_array_free(i);
  kc_module_free(m);
}
END_TEST

/* A CPU array's elements start on a 256-byte boundary, as cuMemAlloc's do on the GPU
 * (rt_alloc_data), whatever its size: malloc's 16 bytes put vector loads across cache
 * lines. */
START_TEST(cpu_arrays_are_aligned) {
  static const int64_t sizes[] = {1, 3, 1000, 1 << 20, (1 << 22) + 5, 1 << 23};
  for (int i = 0; i < 6; i++) {
    kc_array *a = NULL;
    void *p = NULL;
    ck_assert_int_eq(kc_array_new(ctx, KC_UINT8, 1, &sizes[i], &a), KC_OK);
    ck_assert_int_eq(kc_array_data(a, &p), KC_OK);
    ck_assert_uint_eq((uintptr_t)p % 256, 0);
    /* from 4 MiB on, on a huge page's boundary (2 MiB), as NumPy's are */
    if (sizes[i] >= (1 << 22)) ck_assert_uint_eq((uintptr_t)p % (2u << 20), 0);
    kc_array_free(a);
  }
}
END_TEST

/* A kernel run as regions (its barriers) gets a copy compiled for one block shape
 * (rt_module_block_variant; runtime/launch.c asks for it at launches in 2-D blocks):
 * once the work asked for reaches RT_VARIANT_WORK threads, not before; for a kernel
 * typed in the source, typed by kc_compile_options.signatures, or untyped and
 * specialised at a launch; found again, not compiled twice; and launches (1,024,000
 * threads: the untyped kernel's second one has its copy) transpose as a C loop does. */
/* a tile through shared memory, then out[x, y] = the tile's value OP */
#define TILE_KERNEL(OP)                                       \
  "    tile = cuda.shared.array((8, 17), float32)\n"         \
  "    x, y = cuda.grid(2)\n"                                \
  "    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y\n"        \
  "    if y < a.shape[0] and x < a.shape[1]:\n"              \
  "        tile[ty, tx] = a[y, x]\n"                         \
  "    cuda.syncthreads()\n"                                 \
  "    if y < a.shape[0] and x < a.shape[1]:\n"              \
  "        out[x, y] = tile[ty, tx] " OP "\n"
static const char tile_src[] = "from numba import cuda, float32\n"
                               "@cuda.jit('void(float32[:, :], float32[:, :])')\n"
                               "def typed(a, out):\n" TILE_KERNEL("* 2")
                               "@cuda.jit\n"
                               "def untyped(a, out):\n" TILE_KERNEL("+ 1");

START_TEST(block_shape_variants) {
  static const char *const sigs[] = {"untyped(float32[:, :], float32[:, :])"};
  kc_compile_options o;
  kc_compile_options_init(&o);
  o.signatures = sigs;
  o.nsignatures = 1;
  kc_module *plain = NULL, *by_option = NULL;
  ck_assert_int_eq(kc_compile_source(ctx, "tile.k", tile_src, sizeof tile_src - 1, NULL, &plain), KC_OK);
  ck_assert_int_eq(kc_compile_source(ctx, "tile.k", tile_src, sizeof tile_src - 1, &o, &by_option), KC_OK);
  kc_kernel *typed = NULL, *untyped = NULL, *opt_typed = NULL, *v = NULL, *again = NULL;
  ck_assert_int_eq(kc_module_get_kernel(plain, "typed", &typed), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(plain, "untyped", &untyped), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(by_option, "untyped", &opt_typed), KC_OK);
  ck_assert_int_eq(typed->regions, 1);
  const kc_dim3 block = {16, 8, 1}, small = {8, 8, 1};
  ck_assert_int_eq(rt_module_block_variant(typed, small, 1000, &v), KC_OK);
  ck_assert_ptr_null(v);
  ck_assert_int_eq(rt_module_block_variant(typed, small, RT_VARIANT_WORK - 1001, &v), KC_OK);
  ck_assert_ptr_null(v);
  ck_assert_int_eq(rt_module_block_variant(typed, small, 1, &v), KC_OK);
  ck_assert_ptr_nonnull(v);
  v = NULL;
  ck_assert_int_eq(rt_module_block_variant(typed, block, UINT64_MAX, &v), KC_OK);
  ck_assert_ptr_nonnull(v);
  ck_assert_str_eq(v->symbol, typed->symbol);
  ck_assert_int_eq(rt_module_block_variant(typed, block, UINT64_MAX, &again), KC_OK);
  ck_assert_ptr_eq(again, v);
  v = NULL;
  ck_assert_int_eq(rt_module_block_variant(opt_typed, block, UINT64_MAX, &v), KC_OK);
  ck_assert_ptr_nonnull(v);

  enum { R = 1000, C = 1020 };   /* not multiples of the block */
  const int64_t shape[2] = {R, C}, tshape[2] = {C, R};
  float *h = malloc(sizeof(float) * R * C), *got = malloc(sizeof(float) * R * C);
  ck_assert(h && got);
  for (int i = 0; i < R * C; i++) h[i] = (float)(i % 4093) - 2000.0f;
  kc_array *a = NULL, *out = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 2, shape, h, sizeof(float) * R * C, &a), KC_OK);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 2, tshape, &out), KC_OK);
  kc_arg args[2] = {kc_arg_array(a), kc_arg_array(out)};
  const kc_dim3 grid = {(C + 15) / 16, (R + 7) / 8, 1};
  kc_kernel *const ks[3] = {typed, untyped, untyped};
  for (int which = 0; which < 3; which++) {
    ck_assert_int_eq(kc_array_zero(out), KC_OK);
    ck_assert_msg(kc_launch(ks[which], grid, block, 0, NULL, args, 2) == KC_OK, "%s", kc_last_error(ctx));
    ck_assert_int_eq(kc_synchronize(ctx), KC_OK);
    ck_assert_int_eq(kc_array_to_host(out, got, sizeof(float) * R * C), KC_OK);
    for (int y = 0; y < R; y++)
      for (int x = 0; x < C; x++) {
        float want = which == 0 ? h[y * C + x] * 2 : h[y * C + x] + 1;
        if (got[x * R + y] != want)
          ck_abort_msg("kernel %d: out[%d, %d] = %g, want %g", which, x, y, got[x * R + y], want);
      }
  }
  /* the untyped kernel's specialisation got its copy, from its parent's source */
  kc_kernel *spec = NULL;
  ck_assert_int_eq(rt_module_specialise(untyped, args, 2, &spec), KC_OK);
  ck_assert_ptr_null(spec->mod->source);
  v = NULL;
  ck_assert_int_eq(rt_module_block_variant(spec, block, UINT64_MAX, &v), KC_OK);
  ck_assert_ptr_nonnull(v);
  free(h), free(got);
  kc_array_free(a), kc_array_free(out);
  kc_module_free(by_option);
  kc_module_free(plain);
}
END_TEST

/* Numba lists a kernel's signatures in the decorator's order (kernel.signatures) */
START_TEST(typed_kernel_signatures) {
  static const char src2[] = "from numba import cuda\n"
                             "@cuda.jit(['void(float32[:])', 'void(int64[:])'])\n"
                             "def bump(a):\n"
                             "    a[0] += 1\n";
  kc_module *m = NULL;
  ck_assert_int_eq(kc_compile_source(ctx, "t.k", src2, sizeof src2 - 1, NULL, &m), KC_OK);
  kc_kernel *k = NULL;
  ck_assert_int_eq(kc_module_get_kernel(m, "bump", &k), KC_OK);
  ck_assert_str_eq(kc_kernel_signature(k), "bump(float32[:])\nbump(int64[:])");
  int64_t n = 1;
  kc_array *a = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_INT64, 1, &n, &a), KC_OK);
  ck_assert_int_eq(kc_array_zero(a), KC_OK);
  kc_arg args[] = {kc_arg_array(a)};
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 1), KC_OK);
  ck_assert_str_eq(kc_kernel_signature(k), "bump(float32[:])\nbump(int64[:])");
  int64_t v = 0;
  ck_assert_int_eq(kc_array_to_host(a, &v, sizeof v), KC_OK);
  ck_assert_int_eq(v, 1);
  kc_array_free(a);
  kc_module_free(m);
}
END_TEST

static const char random_src[] =
    "from numba import cuda\n"
    "from numba.cuda.random import xoroshiro128p_uniform_float32\n"
    "@cuda.jit\n"
    "def draw(rng_states, out):\n"
    "    i = cuda.grid(1)\n"
    "    if i < out.size:\n"
    "        out[i] = xoroshiro128p_uniform_float32(rng_states, i)\n";

static int count(const char *s, const char *what) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

/* A float32 array where the states belong: one error, at the call (line 7), naming the
 * parameter and both types; then the right states work. */
START_TEST(wrong_random_states) {
  kc_module *m = NULL;
  ck_assert_int_eq(kc_compile_source(ctx, "r.k", random_src, sizeof random_src - 1, NULL, &m),
                   KC_OK);
  kc_kernel *k = NULL;
  ck_assert_int_eq(kc_module_get_kernel(m, "draw", &k), KC_OK);
  int64_t n = 8;
  kc_array *out = NULL, *states = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, &n, &out), KC_OK);
  kc_arg bad[] = {kc_arg_array(out), kc_arg_array(out)};
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(8), 0, NULL, bad, 2), KC_ERR_TYPE);
  const char *all = kc_last_diagnostics(ctx);
  ck_assert_int_eq(count(all, "error:"), 1);
  ck_assert_ptr_nonnull(strstr(all, "r.k:7:"));
  ck_assert_ptr_nonnull(strstr(all, "'rng_states'"));
  ck_assert_ptr_nonnull(strstr(all, "uint64, shape (n, 2)"));
  ck_assert_ptr_nonnull(strstr(all, "got float32[:]"));
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "'rng_states'"));
  ck_assert_int_eq(kc_random_states(ctx, n, 1, &states), KC_OK);
  kc_arg good[] = {kc_arg_array(states), kc_arg_array(out)};
  ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(8), 0, NULL, good, 2), KC_OK);
  kc_array_free(states);
  kc_array_free(out);
  kc_module_free(m);
}
END_TEST

int main(void) {
  Suite *su = suite_create("api_defaults");
  TCase *tc = tcase_create("all");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, zeroed_options_are_defaults);
  tcase_add_test(tc, block_shape_variants);
  tcase_add_test(tc, diagnostics_silent_and_kept);
  tcase_add_test(tc, diagnostics_verbose_prints);
  tcase_add_test(tc, untyped_kernel_signatures);
  tcase_add_test(tc, specialisation_warnings_once);
  tcase_add_test(tc, cpu_arrays_are_aligned);
  tcase_add_test(tc, typed_kernel_signatures);
  tcase_add_test(tc, wrong_random_states);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
