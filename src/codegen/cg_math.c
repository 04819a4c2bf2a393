/*
 * cg_math.c — the C library's math functions (by their libm names, float64 spelling:
 * "sqrt", "pow", "tgamma") called from generated code: libdevice's __nv_<name>[f] on
 * the GPU (__nv_fast_<name>f for float32 in fast-math code, where libdevice has one),
 * the C library's <name>[f] on the CPU, unless an LLVM intrinsic serves. float16
 * arguments compute in float32 and round once. The builtins that compute with these
 * (math.c, numpy.c, fp16.c, cmath in complex.c, cg_complex.c, ** in cg_arith.c) name
 * the function; how each is called on each target is this file's table.
 */
#include <stdio.h>
#include <string.h>

#include "cg.h"

/* how a function is lowered */
enum {
  LM_INTRINSIC = 1 << 0,      /* llvm.<name> on both targets */
  LM_HOST_INTRINSIC = 1 << 1, /* llvm.<name> on the CPU (LLVM lowers it well there) */
  LM_FAST_F32 = 1 << 2,       /* libdevice has __nv_fast_<name>f (Numba's fast-math list;
                                 not tanh: tanh.approx is good to 2^-11 only) */
  LM_FREM = 1 << 3,           /* fmod: LLVM's frem on the CPU, libdevice's on the GPU */
};

static const struct libm_fn { const char *name; unsigned how; } libm_fns[] = {
  {"sqrt", LM_INTRINSIC}, {"exp", LM_HOST_INTRINSIC | LM_FAST_F32},
  {"exp2", LM_HOST_INTRINSIC}, {"expm1", 0}, {"log", LM_HOST_INTRINSIC | LM_FAST_F32},
  {"log2", LM_HOST_INTRINSIC | LM_FAST_F32}, {"log10", LM_HOST_INTRINSIC | LM_FAST_F32},
  {"log1p", 0}, {"fabs", LM_INTRINSIC}, {"sin", LM_HOST_INTRINSIC | LM_FAST_F32},
  {"cos", LM_HOST_INTRINSIC | LM_FAST_F32}, {"tan", LM_FAST_F32}, {"asin", 0}, {"acos", 0},
  {"atan", 0}, {"sinh", 0}, {"cosh", 0}, {"tanh", 0}, {"asinh", 0}, {"acosh", 0},
  {"atanh", 0}, {"erf", 0}, {"erfc", 0}, {"tgamma", 0}, {"lgamma", 0},
  {"pow", LM_HOST_INTRINSIC | LM_FAST_F32}, {"fmod", LM_FREM}, {"copysign", LM_INTRINSIC},
  {"hypot", 0}, {"atan2", 0}, {"remainder", 0}, {"floor", LM_INTRINSIC},
  {"ceil", LM_INTRINSIC}, {"trunc", LM_INTRINSIC}, {"cbrt", 0},
};

static const struct libm_fn *libm_find(const char *name) {
  for (size_t i = 0; i < sizeof libm_fns / sizeof libm_fns[0]; i++)
    if (strcmp(libm_fns[i].name, name) == 0) return &libm_fns[i];
  return NULL;
}

/* The math function libm calls name on n values of float type t; NULL for a name the
 * table lacks. */
LLVMValueRef cg_math_call(cg_ctx *g, const char *name, const type *t, LLVMValueRef *args,
                          unsigned n) {
  const struct libm_fn *me = libm_find(name);
  if (!me) return NULL;
  if (t->kind == TY_FLOAT && t->bits == 16) {   /* libm and libdevice have no half */
    LLVMValueRef wide[2];
    for (unsigned i = 0; i < n && i < 2; i++) wide[i] = cg_convert(g, args[i], t, &ty_f32);
    return cg_convert(g, cg_math_call(g, name, &ty_f32, wide, n), &ty_f32, t);
  }
  LLVMTypeRef ft = cg_scalar_type(g, t);
  char fn[64];
  if ((me->how & LM_INTRINSIC) || (g->target->host && (me->how & LM_HOST_INTRINSIC))) {
    snprintf(fn, sizeof fn, "llvm.%s", name);
    return cg_call_intrinsic(g, fn, ft, args, n);
  }
  /* frem is fmod on the CPU; NVPTX lowers it as a - trunc(a / b) * b, which is not
   * fmod (1.0 % 0.1 would be -5.6e-17, not 0.09999999999999995): libdevice's is */
  if ((me->how & LM_FREM) && g->target->host) return LLVMBuildFRem(g->b, args[0], args[1], "");
  bool f32 = t->bits == 32;
  bool fast = f32 && g->fi->fastmath && (me->how & LM_FAST_F32);
  if (g->target->host) snprintf(fn, sizeof fn, "%s%s", name, f32 ? "f" : "");
  else snprintf(fn, sizeof fn, "__nv_%s%s%s", fast ? "fast_" : "", name, f32 ? "f" : "");
  LLVMTypeRef pt[2] = {ft, ft};
  LLVMValueRef f = cg_declare_fn(g, fn, ft, pt, n);
  return cg_call_fn(g, f, args, n);
}
