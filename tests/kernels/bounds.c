/* bounds.c — bounds checking (kc_compile_options.bounds_check): an index out of range
 * is KC_ERR_BOUNDS naming the kernel, bounds.k:LINE:COL, the index and the array's
 * shape, on global, shared and local arrays; negative indices that wrap into range are
 * fine; the failing access touches nothing (the rest of the array is intact) and the
 * context stays usable. On CUDA the error comes from the module's device-side record,
 * read at the synchronisation. */
#include "harness.h"

static kc_module *checked;

static kc_kernel *ck(const char *name) {
  kc_kernel *k = NULL;
  h_ok(kc_module_get_kernel(checked, name, &k), name);
  return k;
}

/* Launch, synchronise, and expect KC_ERR_BOUNDS with all of `needles` in the message. */
static void expect_bounds(const char *what, kc_kernel *k, kc_dim3 grid, kc_dim3 block,
                          const kc_arg *args, int nargs, const char *const *needles) {
  kc_status s = kc_launch(k, grid, block, 0, NULL, args, nargs);
  kc_status s2 = kc_synchronize(H.ctx);
  if (s != KC_ERR_BOUNDS && s2 != KC_ERR_BOUNDS)
    h_die("%s: expected KC_ERR_BOUNDS, got %s then %s (%s)", what, kc_status_name(s),
          kc_status_name(s2), kc_last_error(H.ctx));
  const char *msg = kc_last_error(H.ctx);
  for (int i = 0; needles[i]; i++)
    if (!strstr(msg, needles[i])) h_die("%s: the message lacks '%s': %s", what, needles[i], msg);
  if (kc_synchronize(H.ctx) != KC_OK) h_die("%s: the error was reported twice", what);
}

static void check_in_range(kc_array *a, float *host) {
  kc_arg args[] = {kc_arg_array(a)};
  h_launch(ck("in_range"), kc_dim(1), kc_dim(64), args, 1);
  h_fetch(a, host);
  float want[60];
  for (int i = 0; i < 60; i++) want[i] = (float)i * 0.5f;
  h_check_f32("in_range", want, host, 60, 0, 0);
}

int main(int argc, char **argv) {
  h_begin("bounds", argc, argv);
  kc_compile_options opts = {0};
  opts.opt_level = KC_OPT_DEFAULT;
  opts.bounds_check = 1;
  h_ok(kc_compile_file(H.ctx, argv[1], &opts, &checked), "compile with bounds checks");
  float host[60];
  h_poison_f32(host, 60);
  kc_array *a = h_array1(KC_FLOAT32, 60, host);
  kc_arg args[] = {kc_arg_array(a)};

  /* 64 threads on 60 elements: threads 60..63 fail, the others write */
  const char *const past[] = {"kernel 'past_end'", "bounds.k:10:5", "for axis 0 with size 60",
                              "shape (60,)", NULL};
  expect_bounds("past_end", ck("past_end"), kc_dim(1), kc_dim(64), args, 1, past);
  const char *msg = kc_last_error(H.ctx);
  if (!strstr(msg, "index 6")) h_die("past_end: the index should be 60..63: %s", msg);
  h_fetch(a, host);
  for (int i = 0; i < 60; i++)
    if (host[i] != 1.0f) h_die("past_end: element %d is %g, want 1 (in-range threads run)", i, host[i]);

  /* the same on 4 blocks of 16: on the CPU the executor runs them as one block of 64
     (host_fuse.c), yet the failing thread is named as CUDA numbers it: global index
     60..63 is block 3, thread 12..15 */
  h_poison_f32(host, 60);
  h_ok(kc_array_copy_from_host(a, host, sizeof host), "reset a");
  const char *const past4[] = {"kernel 'past_end'", "bounds.k:10:5", "block (3, 0, 0), thread (1",
                               NULL};
  expect_bounds("past_end on 4 blocks", ck("past_end"), kc_dim(4), kc_dim(16), args, 1, past4);
  msg = kc_last_error(H.ctx);
  if (!strstr(msg, "index 6")) h_die("past_end on 4 blocks: the index should be 60..63: %s", msg);
  /* which other blocks ran is not asked: with two workers, the one holding blocks 2..3
     may fault and stop the launch before the other starts blocks 0..1, as a GPU's trap
     stops the blocks it has not yet scheduled (CI's ThreadSanitizer run saw it) */

  /* -60 wraps to 0 and is fine; -61 does not */
  kc_arg neg_ok[] = {kc_arg_array(a), kc_arg_i64(-60)};
  h_launch(ck("negative"), kc_dim(1), kc_dim(1), neg_ok, 2);
  h_fetch(a, host);
  if (host[0] != 2.0f) h_die("negative: a[-60] should be a[0]: %g", host[0]);
  kc_arg neg_bad[] = {kc_arg_array(a), kc_arg_i64(-61)};
  const char *const neg[] = {"bounds.k:17:9", "index -61 is out of bounds for axis 0 with size 60",
                             "block (0, 0, 0), thread (0, 0, 0)", NULL};
  expect_bounds("negative", ck("negative"), kc_dim(1), kc_dim(1), neg_bad, 2, neg);

  /* the second axis of a 4 x 5 array */
  int64_t shape[2] = {4, 5};
  int32_t bh[20];
  h_poison_i32(bh, 20);
  kc_array *b = h_array(KC_INT32, 2, shape, bh);
  kc_arg bargs[] = {kc_arg_array(b), kc_arg_i32(1)};
  const char *const col[] = {"kernel 'column'", "bounds.k:24:9", "index 5 is out of bounds for axis 1 with size 5",
                             "shape (4, 5)", NULL};
  expect_bounds("column", ck("column"), kc_dim2(1, 1), kc_dim2(4, 5), bargs, 2, col);

  /* shared and local arrays */
  const char *const sh[] = {"kernel 'shared_oob'", "bounds.k:31:5", "with size 16", "shape (16,)", NULL};
  expect_bounds("shared", ck("shared_oob"), kc_dim(1), kc_dim(32), args, 1, sh);
  kc_array *o = h_array1(KC_INT32, 1, bh);
  kc_arg largs[] = {kc_arg_array(o), kc_arg_i32(4)};
  const char *const loc[] = {"kernel 'local_oob'", "bounds.k:41:14", "index 4 is out of bounds",
                             "shape (4,)", NULL};
  expect_bounds("local", ck("local_oob"), kc_dim(1), kc_dim(1), largs, 2, loc);
  kc_arg lok[] = {kc_arg_array(o), kc_arg_i32(-1)};
  h_launch(ck("local_oob"), kc_dim(1), kc_dim(1), lok, 2);
  int32_t got = 0;
  h_fetch(o, &got);
  if (got != 3) h_die("local: l[-1] should be 3, got %d", (int)got);

  /* a tuple indexed at run time: reported as an array of its length; -1 wraps; without
     checks an index out of range reads 0 (docs/language.md) */
  kc_arg tok[] = {kc_arg_array(o), kc_arg_i32(-1)};
  h_launch(ck("tuple_oob"), kc_dim(1), kc_dim(1), tok, 2);
  h_fetch(o, &got);
  if (got != 30) h_die("tuple: TW[-1] should be 30, got %d", (int)got);
  kc_arg tbad[] = {kc_arg_array(o), kc_arg_i32(-4)};
  const char *const tup[] = {"kernel 'tuple_oob'", "bounds.k:57:14",
                             "index -4 is out of bounds for axis 0 with size 3", "shape (3,)", NULL};
  expect_bounds("tuple", ck("tuple_oob"), kc_dim(1), kc_dim(1), tbad, 2, tup);
  kc_arg tfar[] = {kc_arg_array(o), kc_arg_i32(3)};
  h_launch(h_kernel("tuple_oob"), kc_dim(1), kc_dim(1), tfar, 2);
  h_fetch(o, &got);
  if (got != 0) h_die("tuple: TW[3] without checks should read 0, got %d", (int)got);

  /* the context and the module are still usable, with and without checks */
  check_in_range(a, host);
  h_launch(h_kernel("in_range"), kc_dim(1), kc_dim(64), args, 1);
  kc_array_free(o);
  kc_array_free(b);
  kc_array_free(a);
  kc_module_free(checked);
  return h_end();
}
