/* numba_int_rules.c — the values Numba 0.56.4 computes for numba_int_rules.k, each
 * derived from its typing (numba/core/typing/builtins.py: integer_binop_cases and
 * choose_result_int, BitwiseShiftOperation, UnaryOp, BitwiseInvert, OrderedCmpOp;
 * typing/context.py unify_pairs = NumPy's promote_types) and its lowering
 * (numba/cpython/numbers.py: int_negate_impl and int_invert_impl work at the operand's
 * width, int_power_impl under the CUDA target's numpy error model). Shifts by 64 or
 * more, or by a negative count, are undefined in Numba (LLVM's shl/ashr): their
 * values here are kcc's documented definition.
 * tolerance: exact. */
#include "harness.h"

#define NOUT 39
#define NUOUT 9
#define NF 4

int main(int argc, char **argv) {
  h_begin("numba_int_rules", argc, argv);
  uint8_t img[4] = {130, 1, 0, 255}, tmp[1] = {0};
  int32_t v[6] = {1073741824, -7, 2, 3, INT32_MAX, INT32_MIN};
  uint64_t u[4] = {UINT64_MAX, 5, 9007199254740993ull, 9223372036854775808ull};
  int64_t s[4] = {-1, 9007199254740992ll, 0, 3};
  /* 3 ** 40 = 12157665459056928801 exceeds int64: Numba's int64 power loop wraps */
  uint64_t p40 = 1;
  for (int k = 0; k < 40; k++) p40 *= 3;
  int64_t pow40;
  memcpy(&pow40, &p40, sizeof pow40);
  const int64_t want[NOUT] = {
    255,                  /* min(130 * 2 + 10, 255): int64, 270 > 255 (not 70, uint8) */
    2147483648,           /* 2**30 + 2**30: int32 + int32 is int64 */
    4294967296,           /* 2**30 * 4 */
    2147483648,           /* int32 max + 1 */
    4611686014132420609,  /* (2**31 - 1) ** 2 */
    0,                    /* 2**53 * 2**53 wraps in int64 (2**106 mod 2**64) */
    INT32_MIN,            /* -int32(-2**31): negated in int32 (wraps), then widened */
    6,                    /* ~-7 */
    -4, 1,                /* -7 // 2, -7 % 2 */
    3, -1,                /* -7 // -2, -7 % -2 */
    8,                    /* 2 ** 3 */
    0, 0,                 /* 2 ** -1 (literal and computed exponent): 0 */
    -1,                   /* (-1) ** -3 */
    INT64_MIN,            /* 0 ** -1: the numpy error model's 0x8000... */
    pow40,                /* 3 ** 40 = 12157665459056928801 wraps to -6289078614652622815 */
    -14,                  /* -7 << 1 */
    -1,                   /* -1 >> 70: the sign (kcc) */
    0,                    /* 3 << -7: 0 (kcc) */
    0,                    /* 3 >> 64: 0 (kcc) */
    -2,                   /* uint64 5 + int32 -7: int64 */
    -2,                   /* uint64 max + int64 -1: int64, the uint64 read as -1 */
    -1,                   /* uint64 max // 2: int64 (the literal is int64): -1 // 2 */
    -35,                  /* int32 -7 * uint64 5 */
    -1,                   /* (uint8 1 - uint8 0) - 2: uint64 1, then int64 -1 */
    1,                    /* uint64 2**53 + 1 == int64 2**53: in float64, both 2**53 */
    1,                    /* uint64 2**53 + 1 == 9007199254740992: a literal too */
    1,                    /* int32 -7 < uint64 5: float64, true */
    1,                    /* uint64 max > int64 -1: float64, true */
    1,                    /* uint8 130 > int32 -7: int32, true */
    2,                    /* True + True */
    -1,                   /* -True */
    0,                    /* ~True is False (NumPy's bool invert) */
    INT32_MIN,            /* abs(int32 -2**31) stays int32 and wraps */
    4294967294,           /* max of two int32s is int32; their sum int64 */
    330,                  /* acc = uint8 130; acc += 200: acc is int64 */
    2147483648,           /* w = int32 2**30; w += w */
  };
  const uint64_t uwant[NUOUT] = {
    255,                  /* -uint8(1): negated in uint8, then uint64 */
    255,                  /* ~uint8(0) */
    260,                  /* uint8 130 << 1: uint64 */
    15,                   /* uint64 max >> 60: logical */
    32,                   /* uint8 130 >> int32 2 */
    0,                    /* 5 << 64: 0 (kcc) */
    4,                    /* uint64 5 + 18446744073709551615 (a uint64 literal): wraps */
    UINT64_MAX,           /* uint8 0 - uint8 1: uint64 wraps */
    510,                  /* uint8 255 + uint8 255: uint64 */
  };
  const double fwant[NF] = {
    -3.5,                 /* -7 / 2 */
    5.0,                  /* x = int64 -1, then x = uint64 5: x is float64 */
    5.0,                  /* max(uint64 5, int64 -1): float64 */
    9007199254740992.0,   /* min(uint64 max, int64 2**53): float64 */
  };
  int64_t out[NOUT];
  uint64_t uout[NUOUT];
  double f[NF];
  h_poison_i64(out, NOUT);
  h_poison_u64(uout, NUOUT);
  h_poison_f64(f, NF);
  kc_array *dimg = h_array1(KC_UINT8, 4, img), *dv = h_array1(KC_INT32, 6, v),
           *du = h_array1(KC_UINT64, 4, u), *ds = h_array1(KC_INT64, 4, s),
           *dout = h_array1(KC_INT64, NOUT, out), *duout = h_array1(KC_UINT64, NUOUT, uout),
           *df = h_array1(KC_FLOAT64, NF, f), *dtmp = h_array1(KC_UINT8, 1, tmp);
  kc_arg args[] = {kc_arg_array(dimg), kc_arg_array(dv), kc_arg_array(du), kc_arg_array(ds),
                   kc_arg_array(dout), kc_arg_array(duout), kc_arg_array(df),
                   kc_arg_array(dtmp)};
  h_launch(h_kernel("int_rules"), kc_dim(1), kc_dim(1), args, 8);
  h_fetch(dout, out);
  h_fetch(duout, uout);
  h_fetch(df, f);
  h_fetch(dtmp, tmp);
  h_check_i64("int64 results", want, out, NOUT);
  h_check_u64("uint64 results", uwant, uout, NUOUT);
  h_check_f64("float64 results", fwant, f, NF, 0, 0);
  const uint8_t twant[1] = {74}; /* uint8 130 += 200: int64 330, stored as uint8 */
  h_check_u8("uint8 element +=", twant, tmp, 1);
  kc_array_free(dimg), kc_array_free(dv), kc_array_free(du), kc_array_free(ds);
  kc_array_free(dout), kc_array_free(duout), kc_array_free(df), kc_array_free(dtmp);
  return h_end();
}
