/* slice_assign.c — assignment to views, checked against the same assignments written
 * as C loops over NumPy's rules: the source broadcast onto the view (axes aligned on
 * the right, extent 1 repeated), values converted to the view's dtype, and overlapping
 * source and view read as if copied to a temporary first (done here with one). A shape
 * mismatch stores nothing; compiled with bounds checks it is KC_ERR_BOUNDS. */
#include "harness.h"

static void check_scalars(void) {
  enum { N = 11, R = 6, C = 8 };
  float a[N], m[R * C], wa[N], wm[R * C];
  for (int i = 0; i < R * C; i++) m[i] = wm[i] = (float)i;
  h_poison_f32(a, N);
  for (int i = 0; i < N; i++) wa[i] = i >= 5 ? 2.5f : 0.0f;
  for (int i = 0; i < N; i += 3) wa[i] = 1.0f;
  for (int r = 0; r < R; r++) {
    wm[r * C + 1] = wm[r * C + 2] = 1.5f + (float)r;
    for (int c = 3; c < C; c += 2) wm[r * C + c] = 7.0f;
    wm[r * C] = -1.0f;
  }
  int64_t shape[2] = {R, C};
  kc_array *da = h_array1(KC_FLOAT32, N, a), *dm = h_array(KC_FLOAT32, 2, shape, m);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dm), kc_arg_f32(1.5f)};
  /* one block: thread 0's m[:, 0] = -1 runs after or before the rows, in other columns */
  h_launch(h_kernel("scalars"), kc_dim(1), kc_dim(32), args, 3);
  h_fetch(da, a), h_fetch(dm, m);
  h_check_f32("a[:] = 0; a[5:] = 2.5; a[::3] = 1", wa, a, N, 0, 0);
  h_check_f32("m[i, 1:3] = v; m[i, 3:][::2] = 7; m[:, 0] = -1", wm, m, R * C, 0, 0);
  kc_array_free(da), kc_array_free(dm);
}

static void check_copies(void) {
  enum { N = 9, R = 5, C = 4 };
  double a[N], wa[N], m[R * C], wm[R * C], row[C], col[1] = {-3.25};
  int32_t b[N];
  for (int i = 0; i < N; i++) a[i] = wa[i] = 100.0 + i, b[i] = i * i - 20;
  for (int i = 1; i < N; i++) wa[i] = (double)b[i - 1];
  for (int c = 0; c < C; c++) row[c] = 0.5 * c + 1;
  for (int i = 0; i < R * C; i++) m[i] = wm[i] = -(double)i;
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < C; c++) wm[r * C + c] = row[c];
  for (int c = 0; c < C; c++) wm[2 * C + c] = col[0];
  for (int r = 3; r < R; r++)
    for (int c = 0; c < C; c++) wm[r * C + (C - 1 - c)] = wm[c];
  int64_t shape[2] = {R, C};
  kc_array *da = h_array1(KC_FLOAT64, N, a), *db = h_array1(KC_INT32, N, b),
           *dm = h_array(KC_FLOAT64, 2, shape, m), *dr = h_array1(KC_FLOAT64, C, row),
           *dc = h_array1(KC_FLOAT64, 1, col);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dm), kc_arg_array(dr),
                   kc_arg_array(dc)};
  h_launch(h_kernel("copies"), kc_dim(1), kc_dim(32), args, 5);
  h_fetch(da, a), h_fetch(dm, m);
  h_check_f64("a[1:] = b[:-1]", wa, a, N, 0, 0);
  h_check_f64("broadcast copies into m", wm, m, R * C, 0, 0);
  kc_array_free(da), kc_array_free(db), kc_array_free(dm), kc_array_free(dr), kc_array_free(dc);
}

static void check_overlap(void) {
  enum { N = 10, R = 4, C = 5 };
  int64_t a[N], b[N], c[N], d[N], m[R * C], wa[N], wb[N], wc[N], wd[N], wm[R * C], tmp[R * C];
  for (int i = 0; i < N; i++) a[i] = b[i] = c[i] = d[i] = 10 + i * 3;
  for (int i = 0; i < R * C; i++) m[i] = 1000 + i;
  /* NumPy: the right-hand side is read completely before the view is written */
  memcpy(wa, a, sizeof a), memcpy(tmp, a, sizeof a);
  for (int i = 1; i < N; i++) wa[i] = tmp[i - 1];
  memcpy(wb, b, sizeof b), memcpy(tmp, b, sizeof b);
  for (int i = 0; i < N - 2; i++) wb[i] = tmp[i + 2];
  memcpy(wc, c, sizeof c), memcpy(tmp, c, sizeof c);   /* c[::-1][k] is c[N-1-k] */
  for (int k = 1; k < N; k++) wc[N - 1 - k] = tmp[N - 1 - (k - 1)];
  memcpy(wd, d, sizeof d), memcpy(tmp, d, sizeof d);
  for (int i = 2; i < 7; i++) wd[i] = tmp[i - 2];
  memcpy(wm, m, sizeof m), memcpy(tmp, m, sizeof m);
  for (int r = 1; r < R; r++)
    for (int q = 1; q < C; q++) wm[r * C + q] = tmp[(r - 1) * C + q - 1];
  int64_t shape[2] = {R, C};
  kc_array *da = h_array1(KC_INT64, N, a), *db = h_array1(KC_INT64, N, b),
           *dc = h_array1(KC_INT64, N, c), *dm = h_array(KC_INT64, 2, shape, m),
           *dd = h_array1(KC_INT64, N, d);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dc), kc_arg_array(dm),
                   kc_arg_array(dd)};
  h_launch(h_kernel("overlap"), kc_dim(1), kc_dim(32), args, 5);
  h_fetch(da, a), h_fetch(db, b), h_fetch(dc, c), h_fetch(dm, m), h_fetch(dd, d);
  h_check_i64("a[1:] = a[:-1]", wa, a, N);
  h_check_i64("b[:-2] = b[2:]", wb, b, N);
  h_check_i64("c[::-1][1:] = c[::-1][:-1]", wc, c, N);
  h_check_i64("m[1:, 1:] = m[:-1, :-1]", wm, m, R * C);
  h_check_i64("d[2:7] = d[0:5]", wd, d, N);
  kc_array_free(da), kc_array_free(db), kc_array_free(dc), kc_array_free(dm), kc_array_free(dd);
}

static void check_mismatch(const char *path) {
  float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {9, 9, 9, 9, 9, 9}, got[6];
  kc_array *da = h_array1(KC_FLOAT32, 6, a), *db = h_array1(KC_FLOAT32, 6, b);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db)};
  h_launch(h_kernel("mismatch"), kc_dim(1), kc_dim(32), args, 2);
  h_fetch(da, got);
  h_check_f32("a[0:4] = b[0:3] stores nothing", a, got, 6, 0, 0);
  kc_module *checked;
  kc_compile_options opts = {0};
  opts.opt_level = KC_OPT_DEFAULT;
  opts.bounds_check = 1;
  h_ok(kc_compile_file(H.ctx, path, &opts, &checked), "compile with bounds checks");
  kc_kernel *k;
  h_ok(kc_module_get_kernel(checked, "mismatch", &k), "get mismatch");
  kc_status s = kc_launch(k, kc_dim(1), kc_dim(32), 0, NULL, args, 2);
  kc_status s2 = kc_synchronize(H.ctx);
  if (s != KC_ERR_BOUNDS && s2 != KC_ERR_BOUNDS)
    h_die("mismatch: expected KC_ERR_BOUNDS, got %s then %s", kc_status_name(s), kc_status_name(s2));
  const char *msg = kc_last_error(H.ctx);
  const char *const needles[] = {"slice_assign.k:45:9", "cannot assign an array of extent 3 to axis 0",
                                 "shape (4,)", NULL};
  for (int i = 0; needles[i]; i++)
    if (!strstr(msg, needles[i])) h_die("mismatch: the message lacks '%s': %s", needles[i], msg);
  h_fetch(da, got);
  h_check_f32("a[0:4] = b[0:3] stores nothing (checked)", a, got, 6, 0, 0);
  kc_module_free(checked);
  kc_array_free(da), kc_array_free(db);
}

int main(int argc, char **argv) {
  h_begin("slice_assign", argc, argv);
  check_scalars();
  check_copies();
  check_overlap();
  check_mismatch(argv[1]);
  return h_end();
}
