/*
 * libdevice.c — cuda.libdevice.*: every function of libdevice that Numba exposes
 * (numba/cuda/libdevicefuncs.py), named without its __nv_ prefix, with its types.
 *
 * One table row per function; its `name` is the signature, one letter per type:
 * the result, ':', then the arguments — d float64, f float32, i int32, l int64, s int16
 * (a float16's bits), v no result; D F I are pointers libdevice writes a result through,
 * which Numba returns instead: the call's value is then the tuple of the result (unless
 * void) and the pointed-to values, in order (sincos(x) -> (sin, cos), frexp(x) ->
 * (mantissa, exponent)). Arguments convert to the parameter's type, as Numba's single
 * signature converts them. The call is __nv_<name> on both targets: libdevice's on the
 * GPU, src/target/libdevice_host.c's on the CPU back end (bound by target_host.c).
 *
 * The rows are not one of the registry's families: registry.c looks in them only for
 * paths under numba.cuda.libdevice, so the 300 of them neither lengthen the lookup of
 * every other name nor each need a line of their own in docs/language.md.
 */
#include <string.h>

#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* ---- typing ---- */

static const type *sig_type(char c) {
  switch (c) {
  case 'd': case 'D': return &ty_f64;
  case 'f': case 'F': return &ty_f32;
  case 'i': case 'I': return &ty_i32;
  case 'l': case 'L': return &ty_i64;
  case 's': return &ty_i16;
  default: return &ty_void;
  }
}

static bool is_out(char c) { return c == 'D' || c == 'F' || c == 'I'; }

/* The call's type: the result, or the tuple of it and the pointed-to values. */
static const type *ld_result(infer_ctx *ic, const char *sig) {
  const type *el[4];
  int n = 0;
  if (sig[0] != 'v') el[n++] = sig_type(sig[0]);
  for (const char *p = sig + 2; *p; p++)
    if (is_out(*p) && n < 4) el[n++] = sig_type(*p);
  return n == 1 ? el[0] : type_tuple(ic->ar, el, n);
}

/* The number of arguments a call passes: the parameters that are not result pointers. */
static int ld_nargs(const char *sig) {
  int n = 0;
  for (const char *p = sig + 2; *p; p++) n += !is_out(*p);
  return n;
}

static const type *ix_libdevice(infer_ctx *ic, node *e, const builtin *b) {
  const char *fname = builtin_user_name(b);
  int n = ld_nargs(b->name);
  if (!ix_check_argc(ic, e, fname, n, n) || !ix_args(ic, e)) return NULL;
  for (int i = 0; i < e->list.len; i++)
    if (!ix_need_real(ic, e->list.items[i], fname)) return NULL;
  return ix_set_type(e, ld_result(ic, b->name), false);
}

/* ---- lowering ---- */

static LLVMTypeRef ld_llvm_type(cg_ctx *g, char c) {
  return is_out(c) ? g->ptr : c == 'v' ? g->voidt : cg_scalar_type(g, sig_type(c));
}

static LLVMValueRef cg_libdevice(cg_ctx *g, node *e, const builtin *b) {
  const char *sig = b->name, *params = sig + 2;
  unsigned np = (unsigned)strlen(params), in = 0;
  LLVMTypeRef pt[4];
  LLVMValueRef args[4], slots[4];
  for (unsigned i = 0; i < np && i < 4; i++) {
    pt[i] = ld_llvm_type(g, params[i]);
    if (is_out(params[i])) {
      slots[i] = args[i] = cg_entry_alloca(g, cg_scalar_type(g, sig_type(params[i])), "ld.out");
    } else {
      args[i] = cg_expr_as(g, e->list.items[in++], sig_type(params[i]));
    }
  }
  const char *tail = strrchr(b->path, '.') + 1;
  LLVMValueRef fn = cg_declare_fn(g, arena_printf(g->ar, "__nv_%s", tail),
                                  ld_llvm_type(g, sig[0]), pt, np);
  LLVMValueRef r = cg_call_fn(g, fn, args, np);
  if (e->ty->kind != TY_TUPLE) {
    if (sig[0] != 'v') return r;
    for (unsigned i = 0; i < np; i++)   /* a void function with one result pointer */
      if (is_out(params[i])) return LLVMBuildLoad2(g->b, cg_type(g, e->ty), slots[i], "");
  }
  LLVMValueRef tup = LLVMGetUndef(cg_type(g, e->ty));
  unsigned k = 0;
  if (sig[0] != 'v') tup = LLVMBuildInsertValue(g->b, tup, r, k++, "");
  for (unsigned i = 0; i < np; i++) {
    if (!is_out(params[i])) continue;
    LLVMValueRef v = LLVMBuildLoad2(g->b, cg_type(g, e->ty->elems[k]), slots[i], "");
    tup = LLVMBuildInsertValue(g->b, tup, v, k++, "");
  }
  return tup;
}

/* arguments: the signature's letters after ':' that are not result pointers */
#define LD(fn, sig) \
  {.path = "numba.cuda.libdevice." #fn, .kind = BK_FUNCTION, .max_args = -1, \
   .flags = BF_PURE, .name = sig, .typing = ix_libdevice, .lower = cg_libdevice}

const builtin builtins_libdevice[] = {
  {.path = "numba.cuda.libdevice", .kind = BK_MODULE},
  LD(abs, "i:i"), LD(acos, "d:d"), LD(acosf, "f:f"), LD(acosh, "d:d"),
  LD(acoshf, "f:f"), LD(asin, "d:d"), LD(asinf, "f:f"), LD(asinh, "d:d"),
  LD(asinhf, "f:f"), LD(atan, "d:d"), LD(atan2, "d:dd"), LD(atan2f, "f:ff"),
  LD(atanf, "f:f"), LD(atanh, "d:d"), LD(atanhf, "f:f"), LD(brev, "i:i"),
  LD(brevll, "l:l"), LD(byte_perm, "i:iii"), LD(cbrt, "d:d"), LD(cbrtf, "f:f"),
  LD(ceil, "d:d"), LD(ceilf, "f:f"), LD(clz, "i:i"), LD(clzll, "i:l"),
  LD(copysign, "d:dd"), LD(copysignf, "f:ff"), LD(cos, "d:d"), LD(cosf, "f:f"),
  LD(cosh, "d:d"), LD(coshf, "f:f"), LD(cospi, "d:d"), LD(cospif, "f:f"),
  LD(dadd_rd, "d:dd"), LD(dadd_rn, "d:dd"), LD(dadd_ru, "d:dd"), LD(dadd_rz, "d:dd"),
  LD(ddiv_rd, "d:dd"), LD(ddiv_rn, "d:dd"), LD(ddiv_ru, "d:dd"), LD(ddiv_rz, "d:dd"),
  LD(dmul_rd, "d:dd"), LD(dmul_rn, "d:dd"), LD(dmul_ru, "d:dd"), LD(dmul_rz, "d:dd"),
  LD(double2float_rd, "f:d"), LD(double2float_rn, "f:d"), LD(double2float_ru, "f:d"),
  LD(double2float_rz, "f:d"), LD(double2hiint, "i:d"), LD(double2int_rd, "i:d"),
  LD(double2int_rn, "i:d"), LD(double2int_ru, "i:d"), LD(double2int_rz, "i:d"),
  LD(double2ll_rd, "l:d"), LD(double2ll_rn, "l:d"), LD(double2ll_ru, "l:d"),
  LD(double2ll_rz, "l:d"), LD(double2loint, "i:d"), LD(double2uint_rd, "i:d"),
  LD(double2uint_rn, "i:d"), LD(double2uint_ru, "i:d"), LD(double2uint_rz, "i:d"),
  LD(double2ull_rd, "l:d"), LD(double2ull_rn, "l:d"), LD(double2ull_ru, "l:d"),
  LD(double2ull_rz, "l:d"), LD(double_as_longlong, "l:d"), LD(drcp_rd, "d:d"),
  LD(drcp_rn, "d:d"), LD(drcp_ru, "d:d"), LD(drcp_rz, "d:d"), LD(dsqrt_rd, "d:d"),
  LD(dsqrt_rn, "d:d"), LD(dsqrt_ru, "d:d"), LD(dsqrt_rz, "d:d"), LD(erf, "d:d"),
  LD(erfc, "d:d"), LD(erfcf, "f:f"), LD(erfcinv, "d:d"), LD(erfcinvf, "f:f"),
  LD(erfcx, "d:d"), LD(erfcxf, "f:f"), LD(erff, "f:f"), LD(erfinv, "d:d"),
  LD(erfinvf, "f:f"), LD(exp, "d:d"), LD(exp10, "d:d"), LD(exp10f, "f:f"),
  LD(exp2, "d:d"), LD(exp2f, "f:f"), LD(expf, "f:f"), LD(expm1, "d:d"),
  LD(expm1f, "f:f"), LD(fabs, "d:d"), LD(fabsf, "f:f"), LD(fadd_rd, "f:ff"),
  LD(fadd_rn, "f:ff"), LD(fadd_ru, "f:ff"), LD(fadd_rz, "f:ff"), LD(fast_cosf, "f:f"),
  LD(fast_exp10f, "f:f"), LD(fast_expf, "f:f"), LD(fast_fdividef, "f:ff"),
  LD(fast_log10f, "f:f"), LD(fast_log2f, "f:f"), LD(fast_logf, "f:f"),
  LD(fast_powf, "f:ff"), LD(fast_sincosf, "v:fFF"), LD(fast_sinf, "f:f"),
  LD(fast_tanf, "f:f"), LD(fdim, "d:dd"), LD(fdimf, "f:ff"), LD(fdiv_rd, "f:ff"),
  LD(fdiv_rn, "f:ff"), LD(fdiv_ru, "f:ff"), LD(fdiv_rz, "f:ff"), LD(ffs, "i:i"),
  LD(ffsll, "i:l"), LD(finitef, "i:f"), LD(float2half_rn, "s:f"),
  LD(float2int_rd, "i:f"), LD(float2int_rn, "i:f"), LD(float2int_ru, "i:f"),
  LD(float2int_rz, "i:f"), LD(float2ll_rd, "l:f"), LD(float2ll_rn, "l:f"),
  LD(float2ll_ru, "l:f"), LD(float2ll_rz, "l:f"), LD(float2uint_rd, "i:f"),
  LD(float2uint_rn, "i:f"), LD(float2uint_ru, "i:f"), LD(float2uint_rz, "i:f"),
  LD(float2ull_rd, "l:f"), LD(float2ull_rn, "l:f"), LD(float2ull_ru, "l:f"),
  LD(float2ull_rz, "l:f"), LD(float_as_int, "i:f"), LD(floor, "d:d"), LD(floorf, "f:f"),
  LD(fma, "d:ddd"), LD(fma_rd, "d:ddd"), LD(fma_rn, "d:ddd"), LD(fma_ru, "d:ddd"),
  LD(fma_rz, "d:ddd"), LD(fmaf, "f:fff"), LD(fmaf_rd, "f:fff"), LD(fmaf_rn, "f:fff"),
  LD(fmaf_ru, "f:fff"), LD(fmaf_rz, "f:fff"), LD(fmax, "d:dd"), LD(fmaxf, "f:ff"),
  LD(fmin, "d:dd"), LD(fminf, "f:ff"), LD(fmod, "d:dd"), LD(fmodf, "f:ff"),
  LD(fmul_rd, "f:ff"), LD(fmul_rn, "f:ff"), LD(fmul_ru, "f:ff"), LD(fmul_rz, "f:ff"),
  LD(frcp_rd, "f:f"), LD(frcp_rn, "f:f"), LD(frcp_ru, "f:f"), LD(frcp_rz, "f:f"),
  LD(frexp, "d:dI"), LD(frexpf, "f:fI"), LD(frsqrt_rn, "f:f"), LD(fsqrt_rd, "f:f"),
  LD(fsqrt_rn, "f:f"), LD(fsqrt_ru, "f:f"), LD(fsqrt_rz, "f:f"), LD(fsub_rd, "f:ff"),
  LD(fsub_rn, "f:ff"), LD(fsub_ru, "f:ff"), LD(fsub_rz, "f:ff"), LD(hadd, "i:ii"),
  LD(half2float, "f:s"), LD(hiloint2double, "d:ii"), LD(hypot, "d:dd"),
  LD(hypotf, "f:ff"), LD(ilogb, "i:d"), LD(ilogbf, "i:f"), LD(int2double_rn, "d:i"),
  LD(int2float_rd, "f:i"), LD(int2float_rn, "f:i"), LD(int2float_ru, "f:i"),
  LD(int2float_rz, "f:i"), LD(int_as_float, "f:i"), LD(isfinited, "i:d"),
  LD(isinfd, "i:d"), LD(isinff, "i:f"), LD(isnand, "i:d"), LD(isnanf, "i:f"),
  LD(j0, "d:d"), LD(j0f, "f:f"), LD(j1, "d:d"), LD(j1f, "f:f"), LD(jn, "d:id"),
  LD(jnf, "f:if"), LD(ldexp, "d:di"), LD(ldexpf, "f:fi"), LD(lgamma, "d:d"),
  LD(lgammaf, "f:f"), LD(ll2double_rd, "d:l"), LD(ll2double_rn, "d:l"),
  LD(ll2double_ru, "d:l"), LD(ll2double_rz, "d:l"), LD(ll2float_rd, "f:l"),
  LD(ll2float_rn, "f:l"), LD(ll2float_ru, "f:l"), LD(ll2float_rz, "f:l"),
  LD(llabs, "l:l"), LD(llmax, "l:ll"), LD(llmin, "l:ll"), LD(llrint, "l:d"),
  LD(llrintf, "l:f"), LD(llround, "l:d"), LD(llroundf, "l:f"), LD(log, "d:d"),
  LD(log10, "d:d"), LD(log10f, "f:f"), LD(log1p, "d:d"), LD(log1pf, "f:f"),
  LD(log2, "d:d"), LD(log2f, "f:f"), LD(logb, "d:d"), LD(logbf, "f:f"), LD(logf, "f:f"),
  LD(longlong_as_double, "d:l"), LD(max, "i:ii"), LD(min, "i:ii"), LD(modf, "d:dD"),
  LD(modff, "f:fF"), LD(mul24, "i:ii"), LD(mul64hi, "l:ll"), LD(mulhi, "i:ii"),
  LD(nearbyint, "d:d"), LD(nearbyintf, "f:f"), LD(nextafter, "d:dd"),
  LD(nextafterf, "f:ff"), LD(normcdf, "d:d"), LD(normcdff, "f:f"),
  LD(normcdfinv, "d:d"), LD(normcdfinvf, "f:f"), LD(popc, "i:i"), LD(popcll, "i:l"),
  LD(pow, "d:dd"), LD(powf, "f:ff"), LD(powi, "d:di"), LD(powif, "f:fi"),
  LD(rcbrt, "d:d"), LD(rcbrtf, "f:f"), LD(remainder, "d:dd"), LD(remainderf, "f:ff"),
  LD(remquo, "d:ddI"), LD(remquof, "f:ffI"), LD(rhadd, "i:ii"), LD(rint, "d:d"),
  LD(rintf, "f:f"), LD(round, "d:d"), LD(roundf, "f:f"), LD(rsqrt, "d:d"),
  LD(rsqrtf, "f:f"), LD(sad, "i:iii"), LD(saturatef, "f:f"), LD(scalbn, "d:di"),
  LD(scalbnf, "f:fi"), LD(signbitd, "i:d"), LD(signbitf, "i:f"), LD(sin, "d:d"),
  LD(sincos, "v:dDD"), LD(sincosf, "v:fFF"), LD(sincospi, "v:dDD"),
  LD(sincospif, "v:fFF"), LD(sinf, "f:f"), LD(sinh, "d:d"), LD(sinhf, "f:f"),
  LD(sinpi, "d:d"), LD(sinpif, "f:f"), LD(sqrt, "d:d"), LD(sqrtf, "f:f"),
  LD(tan, "d:d"), LD(tanf, "f:f"), LD(tanh, "d:d"), LD(tanhf, "f:f"), LD(tgamma, "d:d"),
  LD(tgammaf, "f:f"), LD(trunc, "d:d"), LD(truncf, "f:f"), LD(uhadd, "i:ii"),
  LD(uint2double_rn, "d:i"), LD(uint2float_rd, "f:i"), LD(uint2float_rn, "f:i"),
  LD(uint2float_ru, "f:i"), LD(uint2float_rz, "f:i"), LD(ull2double_rd, "d:l"),
  LD(ull2double_rn, "d:l"), LD(ull2double_ru, "d:l"), LD(ull2double_rz, "d:l"),
  LD(ull2float_rd, "f:l"), LD(ull2float_rn, "f:l"), LD(ull2float_ru, "f:l"),
  LD(ull2float_rz, "f:l"), LD(ullmax, "l:ll"), LD(ullmin, "l:ll"), LD(umax, "i:ii"),
  LD(umin, "i:ii"), LD(umul24, "i:ii"), LD(umul64hi, "l:ll"), LD(umulhi, "i:ii"),
  LD(urhadd, "i:ii"), LD(usad, "i:iii"), LD(y0, "d:d"), LD(y0f, "f:f"), LD(y1, "d:d"),
  LD(y1f, "f:f"), LD(yn, "d:id"), LD(ynf, "f:if"),
  {NULL},
};
