/* tuple_returns_polar.c — device functions returning tuples: cartesian -> (r, theta), and the
 * distance of two points given in polar coordinates.
 * tolerance: 2e-6 relative plus 2e-6 absolute (float32 sqrt/atan2/sin/cos; the
 * distance subtracts numbers of size ~10, so its absolute error is larger: 2e-5) */
#include "harness.h"

int main(int argc, char **argv) {
  h_begin("tuple_returns_polar", argc, argv);
  const int64_t n = 999;
  float *x = h_alloc(n, 4), *y = h_alloc(n, 4), *r = h_alloc(n, 4), *t = h_alloc(n, 4);
  float *wr = h_alloc(n, 4), *wt = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    x[i] = (float)((i % 37) - 18) * 0.5f;
    y[i] = (float)((i % 23) - 11) * 0.75f;
    wr[i] = (float)sqrt((double)x[i] * x[i] + (double)y[i] * y[i]);
    wt[i] = (float)atan2((double)y[i], (double)x[i]);
  }
  h_poison_f32(r, n);
  h_poison_f32(t, n);
  kc_array *dx = h_array1(KC_FLOAT32, n, x), *dy = h_array1(KC_FLOAT32, n, y),
           *dr = h_array1(KC_FLOAT32, n, r), *dt = h_array1(KC_FLOAT32, n, t);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(dr), kc_arg_array(dt)};
  h_launch(h_kernel("polar_kernel"), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 4);
  h_fetch(dr, r);
  h_fetch(dt, t);
  h_check_f32("r", wr, r, n, 2e-6, 2e-6);
  h_check_f32("theta", wt, t, n, 2e-6, 2e-6);

  /* polar_distance(rho1, theta1, rho2, theta2, out): reuse x, y as radii and angles */
  float *rho2 = h_alloc(n, 4), *th2 = h_alloc(n, 4), *d = h_alloc(n, 4), *wd = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    rho2[i] = (float)(i % 11) * 0.9f;
    th2[i] = (float)(i % 17) * 0.4f - 3.0f;
    double x1 = x[i] * cos((double)y[i]), y1 = x[i] * sin((double)y[i]);
    double x2 = rho2[i] * cos((double)th2[i]), y2 = rho2[i] * sin((double)th2[i]);
    wd[i] = (float)sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
  }
  h_poison_f32(d, n);
  kc_array *dr2 = h_array1(KC_FLOAT32, n, rho2), *dt2 = h_array1(KC_FLOAT32, n, th2),
           *dd = h_array1(KC_FLOAT32, n, d);
  kc_arg dargs[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(dr2), kc_arg_array(dt2),
                    kc_arg_array(dd)};
  h_launch(h_kernel("polar_distance"), kc_dim(h_blocks(n, 128)), kc_dim(128), dargs, 5);
  h_fetch(dd, d);
  h_check_f32("polar_distance", wd, d, n, 2e-6, 2e-5);

  kc_array_free(dx), kc_array_free(dy), kc_array_free(dr), kc_array_free(dt);
  kc_array_free(dr2), kc_array_free(dt2), kc_array_free(dd);
  free(x), free(y), free(r), free(t), free(wr), free(wt);
  free(rho2), free(th2), free(d), free(wd);
  return h_end();
}
