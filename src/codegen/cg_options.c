/*
 * cg_options.c — what @cuda.jit's options (fn_options, resolve_options.c) do to the
 * generated functions on both targets; the PTX directives of launch_bounds= and
 * max_registers= are cg_nvptx.c's (nvptx_kernel_bounds).
 *
 *   opt=False      the kernel and the device functions it calls (their _O0 instances,
 *                  specialise.c) are `optnone noinline`: LLVM leaves their code as
 *                  generated, and the NVPTX and x86 back ends select instructions for
 *                  them without optimisation, as Numba's -opt=0 does for its module.
 *   inline=        'always' / True / forceinline=True: `alwaysinline`; 'never' / False:
 *                  `noinline`, so the call stays a call (Numba's 'never' only keeps its
 *                  own IR inliner away and lets NVVM inline; kcc keeps the call, which
 *                  is what writing it asks for). Unset, LLVM's inliner decides, but a
 *                  function returning an array is `alwaysinline`: the array may be a
 *                  cuda.local.array of its own, which must outlive the call.
 *   lineinfo=True, debug=True   line info for that kernel (cg_wants_lines), full debug
 *                  info in the module when any kernel asks for debug=True.
 */
#include "cg.h"

void cg_option_attrs(cg_ctx *g, fn_instance *f, LLVMValueRef fn) {
  if (f->noopt) {
    cg_add_attr(g, fn, -1, "optnone");
    cg_add_attr(g, fn, -1, "noinline");
    return;
  }
  if (f->is_kernel) return;   /* always inlined into its entry points */
  if (f->ret && f->ret->kind == TY_ARRAY && f->fn->opts.inline_mode != FN_INLINE_NEVER) {
    /* it may return a cuda.local.array of its own: inlined, that array is the
       caller's (LLVM moves the callee's entry allocas into the caller's entry) */
    cg_add_attr(g, fn, -1, "alwaysinline");
    return;
  }
  switch (f->fn->opts.inline_mode) {
  case FN_INLINE_ALWAYS: cg_add_attr(g, fn, -1, "alwaysinline"); break;
  case FN_INLINE_NEVER: cg_add_attr(g, fn, -1, "noinline"); break;
  case FN_INLINE_DEFAULT: break;
  }
}

/* A kernel's own request, or the compilation's (kcc --lineinfo, -g). */
static bool kernel_wants_lines(const cg_ctx *g, const fn_instance *k) {
  return g->opts->lineinfo || g->opts->debug || k->fn->opts.lineinfo || k->fn->opts.debug;
}

bool cg_any_kernel_option(cg_ctx *g, bool debug) {
  for (int i = 0; i < g->prog->kernels.len; i++) {
    const fn_instance *k = g->prog->kernels.items[i];
    if (debug ? k->fn->opts.debug : kernel_wants_lines(g, k)) return true;
  }
  /* an exported device function (kcc_options.export_device) is a root as a kernel is */
  for (int i = 0; i < g->prog->instances.len; i++) {
    const fn_instance *f = g->prog->instances.items[i];
    if (f->exported && (debug ? f->fn->opts.debug : kernel_wants_lines(g, f))) return true;
  }
  return false;
}

/* A kernel by its options; a device function whenever the module has line info at all
 * (it may be shared with kernels that do not ask: inlined into one of those, its lines
 * are dropped with the caller's missing subprogram). */
bool cg_wants_lines(cg_ctx *g, const fn_instance *f) {
  return f->is_kernel ? kernel_wants_lines(g, f) : true;
}
