/*
 * resolve_options.c — the keyword options of @cuda.jit beyond device= and fastmath=
 * (resolve.c), as Numba-CUDA's jit() takes them, checked and recorded in the
 * function's fn_options (sema.h) for the stages that act on them:
 *
 *   debug=True        asserts and raises checked, indices bounds-checked, full debug
 *                     info (cg_checks.c, codegen.c, specialise.c's _debug instances)
 *   opt=False         the kernel's code, and its device functions', not optimised
 *   lineinfo=True     .loc line info (codegen.c)
 *   max_registers=N   PTX .maxnreg (cg_nvptx.c)
 *   launch_bounds=    PTX .maxntid, .minnctapersm and, on sm_90, .maxclusterrank
 *   inline=, forceinline=   LLVM alwaysinline / noinline on a device function
 *   cache=            accepted: kcc's runtime caches every CUDA module's PTX on disk
 *                     (kc_config.cache); the CPU back end's JIT code is never cached
 *   lto=              accepted: a kernel and every device function it calls are one
 *                     LLVM module, optimised whole, which is what Numba's LTO gives
 *   link=             files defining foreign device functions (foreign.c)
 *
 * Values must be constants (literals or module constants), as Numba evaluates them in
 * Python before compiling. A keyword jit() does not take is an error, as Python's is.
 */
#include <string.h>

#include "typing.h"

/* The most registers per thread PTX's .maxnreg may ask for, and threads per block. */
enum { MAX_REGISTERS = 255, MAX_BLOCK_THREADS = 1024, CLUSTER_MIN_SM = 90 };

/* A True/False option (an integer 0/1 too, as Python's truth is). */
static bool option_bool(infer_ctx *ic, node *kw, bool *out) {
  node *v = ix_fold(ic, kw->a);
  if (v && (v->kind == N_BOOL || v->kind == N_INT)) {
    *out = v->ival != 0;
    return true;
  }
  ix_error(ic, kw->a->sp, "%s takes True or False", kw->str);
  return false;
}

/* A positive integer constant no larger than max. */
static bool option_int(infer_ctx *ic, node *e, const char *what, int max, int *out) {
  int64_t v;
  node *c = ix_fold(ic, e);
  if (!c || c->kind != N_INT) {
    ix_error(ic, e->sp, "%s must be an integer constant", what);
    return false;
  }
  v = c->ival;
  if (v < 1 || v > max) {
    ix_error(ic, e->sp, "%s must be between 1 and %d, not %lld", what, max, (long long)v);
    return false;
  }
  *out = (int)v;
  return true;
}

/* launch_bounds=N or (max threads per block[, min blocks per SM[, max blocks per
 * cluster]]), as Numba-CUDA takes it. */
static void launch_bounds(infer_ctx *ic, func_def *fn, node *kw) {
  node *v = kw->a;
  int n = v->kind == N_TUPLE ? v->list.len : 1;
  node **items = v->kind == N_TUPLE ? v->list.items : &v;
  if (n < 1 || n > 3) {
    ix_error(ic, v->sp, "launch_bounds takes an integer or a tuple of one to three "
             "(max threads per block, min blocks per SM, max blocks per cluster)");
    return;
  }
  option_int(ic, items[0], "launch_bounds' max threads per block", MAX_BLOCK_THREADS,
             &fn->opts.max_threads);
  if (n > 1) option_int(ic, items[1], "launch_bounds' min blocks per SM", 1 << 16,
                        &fn->opts.min_blocks);
  if (n < 3) return;
  if (ic->opts->target == KCC_TARGET_NVPTX && ic->opts->arch < CLUSTER_MIN_SM) {
    ix_error(ic, items[2]->sp, "launch_bounds' max blocks per cluster (.maxclusterrank) "
             "needs sm_90 or newer; this compiles for sm_%d", ic->opts->arch);
    return;
  }
  option_int(ic, items[2], "launch_bounds' max blocks per cluster", 1 << 16,
             &fn->opts.max_cluster);
}

/* inline='always' / 'never' (or True / False, which Numba takes with a warning). */
static void inline_option(infer_ctx *ic, func_def *fn, node *kw) {
  node *v = kw->a;
  bool b;
  if (v->kind == N_STR && strcmp(v->str, "always") == 0) fn->opts.inline_mode = FN_INLINE_ALWAYS;
  else if (v->kind == N_STR && strcmp(v->str, "never") == 0) fn->opts.inline_mode = FN_INLINE_NEVER;
  else if (v->kind != N_STR && option_bool(ic, kw, &b))
    fn->opts.inline_mode = b ? FN_INLINE_ALWAYS : FN_INLINE_NEVER;
  else if (v->kind == N_STR)
    ix_error(ic, v->sp, "inline takes 'always' or 'never' (Numba's cost-model functions "
             "are not supported)");
}

/* An option that only a kernel, or only a device function, can take. */
static bool option_fits(infer_ctx *ic, func_def *fn, node *kw, bool device_only) {
  bool device = fn->kind == FN_DEVICE;
  if (device == device_only) return true;
  if (device_only)
    ix_error(ic, kw->sp, "%s applies to device functions (@cuda.jit(device=True)); a kernel "
             "is never inlined", kw->str);
  else
    ix_error(ic, kw->sp, "%s applies to kernels; a device function is compiled into the "
             "kernels that call it, so give it to them", kw->str);
  return false;
}

bool ix_decorator_option(infer_ctx *ic, func_def *fn, node *kw) {
  const char *k = kw->str;
  bool b;
  if (strcmp(k, "debug") == 0) {
    if (option_bool(ic, kw, &b)) fn->opts.debug = b;
  } else if (strcmp(k, "opt") == 0) {
    if (option_bool(ic, kw, &b)) fn->opts.noopt = !b;
  } else if (strcmp(k, "lineinfo") == 0) {
    if (option_bool(ic, kw, &b)) fn->opts.lineinfo = b;
  } else if (strcmp(k, "cache") == 0 || strcmp(k, "nopython") == 0 ||
             strcmp(k, "nogil") == 0 || strcmp(k, "lto") == 0) {
    option_bool(ic, kw, &b);   /* checked; see the top of the file */
  } else if (strcmp(k, "max_registers") == 0) {
    if (option_fits(ic, fn, kw, false))
      option_int(ic, kw->a, "max_registers", MAX_REGISTERS, &fn->opts.max_registers);
  } else if (strcmp(k, "launch_bounds") == 0) {
    if (option_fits(ic, fn, kw, false)) launch_bounds(ic, fn, kw);
  } else if (strcmp(k, "inline") == 0) {
    if (option_fits(ic, fn, kw, true)) inline_option(ic, fn, kw);
  } else if (strcmp(k, "forceinline") == 0) {
    if (option_fits(ic, fn, kw, true) && option_bool(ic, kw, &b) && b)
      fn->opts.inline_mode = FN_INLINE_ALWAYS;
  } else if (strcmp(k, "link") == 0) {
    ix_link_option(ic, fn, kw);
  } else {
    return false;
  }
  return true;
}
