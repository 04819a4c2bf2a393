/* float_divmod.c — float // and % against CPython's float_divmod (Objects/floatobject.c,
 * the algorithm Numba's real_divmod copies), written out here in C for float64 and
 * float32: ordinary values, quotients that fall just short of an integer (1.0 // 0.1 is
 * 9.0), signed zeros, infinities and NaN; a zero divisor gives a / b and NaN (Numba's
 * values without the ZeroDivisionError). tolerance: exact, signed zeros and NaNs
 * compared as such. */
#include "harness.h"

#define DEFINE_PYDIVMOD(name, T, FMOD, FLOOR, COPYSIGN)                              \
  static void name(T vx, T wx, T *fd, T *md) {                                        \
    if (wx == 0) {                                                                     \
      *fd = vx / wx, *md = FMOD(vx, wx);                                               \
      return;                                                                          \
    }                                                                                  \
    T mod = FMOD(vx, wx), div = (vx - mod) / wx, floordiv;                             \
    if (mod) {                                                                         \
      if ((wx < 0) != (mod < 0)) mod += wx, div -= 1;                                  \
    } else {                                                                           \
      mod = COPYSIGN((T)0, wx);                                                        \
    }                                                                                  \
    if (div) {                                                                         \
      floordiv = FLOOR(div);                                                           \
      if (div - floordiv > (T)0.5) floordiv += 1;                                      \
    } else {                                                                           \
      floordiv = COPYSIGN((T)0, vx / wx);                                              \
    }                                                                                  \
    *fd = floordiv, *md = mod;                                                         \
  }
DEFINE_PYDIVMOD(pydivmod64, double, fmod, floor, copysign)
DEFINE_PYDIVMOD(pydivmod32, float, fmodf, floorf, copysignf)

/* Equal as Python sees them, and zeros of the same sign. */
static int same(double want, double got) {
  if (isnan(want)) return isnan(got);
  return want == got && signbit(want) == signbit(got);
}

enum { N = 16 };
static const double A[N] = {1.0, -1.0, 7.5, -7.5, 0.0, -0.0, 5.0, INFINITY,
                            1.0, 3.0, -5.0, 1e308, 0.3, NAN, -0.0, 2.5};
static const double B[N] = {0.1, 0.1, 2.0, 2.0, 3.0, 3.0, -0.0, 1.0,
                            INFINITY, -INFINITY, INFINITY, 1e-308, 0.1, 1.0, -3.0, -0.5};

int main(int argc, char **argv) {
  h_begin("float_divmod", argc, argv);
  double q[N], r[N];
  float q32[N], r32[N];
  h_poison_f64(q, N), h_poison_f64(r, N), h_poison_f32(q32, N), h_poison_f32(r32, N);
  kc_array *da = h_array1(KC_FLOAT64, N, A), *db = h_array1(KC_FLOAT64, N, B);
  kc_array *dq = h_array1(KC_FLOAT64, N, q), *dr = h_array1(KC_FLOAT64, N, r);
  kc_array *dq32 = h_array1(KC_FLOAT32, N, q32), *dr32 = h_array1(KC_FLOAT32, N, r32);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dq),
                   kc_arg_array(dr), kc_arg_array(dq32), kc_arg_array(dr32)};
  h_launch(h_kernel("divmod_ops"), kc_dim(1), kc_dim(32), args, 6);
  h_fetch(dq, q), h_fetch(dr, r), h_fetch(dq32, q32), h_fetch(dr32, r32);
  for (int i = 0; i < N; i++) {
    double fd, md;
    float fd32, md32;
    pydivmod64(A[i], B[i], &fd, &md);
    pydivmod32((float)A[i], (float)B[i], &fd32, &md32);
    if (!same(fd, q[i]) || !same(md, r[i]))
      h_die("float64 %g // %g = %g, %% = %g; Python: %g, %g", A[i], B[i], q[i], r[i], fd, md);
    if (!same(fd32, q32[i]) || !same(md32, r32[i]))
      h_die("float32 %g // %g = %g, %% = %g; Python's algorithm: %g, %g", A[i], B[i],
            (double)q32[i], (double)r32[i], (double)fd32, (double)md32);
  }
  if (q[0] != 9.0) h_die("1.0 // 0.1 = %g, Python gives 9.0", q[0]);
  kc_array_free(da), kc_array_free(db), kc_array_free(dq), kc_array_free(dr);
  kc_array_free(dq32), kc_array_free(dr32);
  return h_end();
}
